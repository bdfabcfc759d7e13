import { describe, expect, it } from 'vitest';
import { planBaseline } from '../../../src/baseline/plan.js';
import { ownersOf, parseCodeowners } from '../../../src/config/codeowners.js';
import { configSchema } from '../../../src/config/schema.js';
import { formatSignatureFreeze, parseSignatureFreeze } from '../../../src/freeze/signature-freeze.js';
import type { TestOutcome } from '../../../src/junit/model.js';
import { failureSignature } from '../../../src/signatures/signature.js';

const t = (name: string, status: TestOutcome['status'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  id: `pytest::tests.test_a::${name}`,
  suite: 'pytest',
  classname: 'tests.test_a',
  name,
  status,
  failures: [],
  ...extra,
});
const fail = (name: string, message: string) =>
  t(name, 'failed', { failures: [{ kind: 'AssertionError', message, body: message }] });
const skip = (name: string, message: string) => t(name, 'skipped', { skipped: { message } });

const input = (runs: TestOutcome[][], rows = '{"signatures": []}') => ({
  runs,
  scheme: 'patchgate' as const,
  signatures: parseSignatureFreeze(rows, 'flake_signatures.json'),
  stability: { tests: new Set<string>() },
  ownerOf: () => '@team',
  commit: 'a'.repeat(40),
  today: '2026-06-01',
  expires: '2026-08-30',
});

describe('planBaseline', () => {
  it('freezes every failure and skip the runs agree on, binding generic templates to their test', () => {
    const run = [
      t('ok', 'passed'),
      skip('bare', 'unconditional skip'),
      skip('gpu', 'needs a GPU'),
      fail('bug', 'x == 1'),
    ];
    const plan = planBaseline(input([run, run]));
    expect(plan.failingOrSkipped).toBe(3);
    expect(plan.flaky).toEqual([]);
    expect(plan.stabilityRows).toEqual([]);
    expect(plan.signatureRows.map((r) => [r.test, r.row.template, r.row.test])).toEqual([
      ['pytest::tests.test_a::bare', 'skipped|unconditional skip', 'pytest::tests.test_a::bare'],
      ['pytest::tests.test_a::bug', 'AssertionError|x == <N>', undefined],
      ['pytest::tests.test_a::gpu', 'skipped|needs a GPU', undefined],
    ]);
    for (const { row } of plan.signatureRows)
      expect(row).toMatchObject({
        owner: '@team',
        expires: '2026-08-30',
        action: 'review',
        source: 'baseline',
      });
    expect(plan.signatureRows[1]?.row.reason).toBe(
      "failing on aaaaaaaaaaaa when patchgate baseline ran on 2026-06-01: pre-existing, not a patch's doing",
    );
    // What it writes is what the gate's reader accepts.
    const text = formatSignatureFreeze({ rows: plan.signatureRows.map((r) => r.row) });
    expect(parseSignatureFreeze(text, 'f.json').rows.map((r) => r.source)).toEqual([
      'baseline',
      'baseline',
      'baseline',
    ]);
  });

  it('a test whose outcome differs between runs is flaky: a stability row, and a row for the failure it showed', () => {
    const plan = planBaseline(input([[fail('coin', 'heads')], [t('coin', 'passed')]]));
    expect(plan.flaky).toEqual(['pytest::tests.test_a::coin']);
    expect(plan.stabilityRows.map((r) => r.row)).toEqual([
      {
        test: 'pytest::tests.test_a::coin',
        owner: '@team',
        reason:
          "flaky (failed, passed in 2 runs) on aaaaaaaaaaaa when patchgate baseline ran on 2026-06-01: pre-existing, not a patch's doing",
        expires: '2026-08-30',
        action: 'review',
        source: 'baseline',
      },
    ]);
    expect(plan.signatureRows.map((r) => r.row.template)).toEqual(['AssertionError|heads']);
    // Without the stability layer, no stability row.
    const { stability: _, ...off } = input([[fail('coin', 'heads')], [t('coin', 'passed')]]);
    expect(planBaseline(off).stabilityRows).toEqual([]);
  });

  it('adds nothing for a signature a row already covers, whatever its state, and says which row', () => {
    const gpu = failureSignature('skipped', 'needs a GPU', 'patchgate');
    const rows = JSON.stringify({
      signatures: [
        { sha256: gpu.sha256, template: gpu.template, owner: 'x', expires: '2026-01-01', action: 'a' },
      ],
    });
    const plan = planBaseline(input([[skip('gpu', 'needs a GPU')]], rows));
    expect(plan.signatureRows).toEqual([]);
    expect(plan.kept).toEqual([
      expect.objectContaining({
        test: 'pytest::tests.test_a::gpu',
        row: 0,
        state: "expired on 2026-01-01: edit that row's expiry",
      }),
    ]);
  });

  it('a generic row bound to another test covers nothing here: this test gets a row of its own', () => {
    const bare = failureSignature('skipped', 'unconditional skip', 'patchgate');
    const rows = JSON.stringify({
      signatures: [
        {
          sha256: bare.sha256,
          template: bare.template,
          owner: 'x',
          expires: '2027-01-01',
          action: 'a',
          test: 'other',
        },
      ],
    });
    const plan = planBaseline(input([[skip('bare', 'unconditional skip')]], rows));
    expect(plan.signatureRows.map((r) => r.row.test)).toEqual(['pytest::tests.test_a::bare']);
  });
});

describe('CODEOWNERS owners of a file', () => {
  const rules = parseCodeowners(
    '# owners\n*.py @py\n/tests/ @qa @py\n/tests/legacy/\ndocs/ @docs # trailing comment\n\\#odd @hash\n',
  );

  it('takes the last matching rule, as GitHub does, with gitignore patterns', () => {
    expect(ownersOf(rules, 'lib.py')?.owners).toEqual(['@py']);
    expect(ownersOf(rules, 'tests/test_a.py')?.owners).toEqual(['@qa', '@py']);
    // A pattern without owners leaves its files without one.
    expect(ownersOf(rules, 'tests/legacy/test_old.py')?.owners).toEqual([]);
    expect(ownersOf(rules, 'src/docs/x.md')?.owners).toEqual(['@docs']);
    expect(ownersOf(rules, '#odd')?.owners).toEqual(['@hash']);
    expect(ownersOf(rules, 'README.md')).toBeUndefined();
  });
});

describe('tests.args in the config', () => {
  const issues = (tests: unknown) => {
    const r = configSchema.safeParse({ tests });
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('are strings of their own, without {junit} or {tests}', () => {
    expect(issues({ preset: 'pytest', args: ['-m', 'not slow'] })).toEqual([]);
    expect(issues({ preset: 'pytest', args: ['--junitxml={junit}'] })).toEqual([
      'tests.args.0: expected an argument of its own: {junit} and {tests} belong to the command, which places them',
    ]);
    expect(issues({ preset: 'pytest', args: ['{tests}', ''] })).toHaveLength(2);
    expect(issues({ preset: 'pytest', args: [3] })).toHaveLength(1);
  });

  it('for node-test, a flag and its value are one word', () => {
    expect(issues({ preset: 'node-test', args: ['--import=tsx', 'test/'] })).toEqual([]);
    expect(issues({ preset: 'node-test', args: ['--import', 'tsx'] })).toEqual([
      'tests.args.0: write --import and its value as one argument, --import=VALUE: the node-test preset puts flags before the test paths in args, and a value on its own would be read as a test path',
    ]);
  });
});
