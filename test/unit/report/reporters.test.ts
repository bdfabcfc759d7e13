import { describe, expect, it } from 'vitest';
import { REASON_CODES } from '../../../src/codes.js';
import type { Finding } from '../../../src/layers/types.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { type Scorecard, sortFindings, verdictOf } from '../../../src/report/scorecard.js';
import { stableStringify } from '../../../src/report/stable-json.js';
import { renderTerminal } from '../../../src/report/terminal.js';

const f = (code: Finding['code'], layer: string, severity: Finding['severity'], path: string): Finding => ({
  code,
  layer,
  severity,
  message: `${code} ${path}`,
  evidence: { path },
});

const card = (findings: Finding[]): Scorecard => ({
  schema: 'patchgate/scorecard@1',
  verdict: verdictOf(findings),
  base: { ref: 'main', requested: 'a'.repeat(40), commit: 'b'.repeat(40) },
  head: { ref: 'WORKTREE', commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: true },
  config: { file: 'patchgate.config.json', revision: 'base' },
  layers: [{ name: 'contracts', status: 'reject', findings: findings.length }],
  findings,
  overrides: [
    { layer: 'fixtures', code: 'FIXTURE_CHANGED', path: 'testdata/x', variable: 'FIXTURE_OVERRIDE' },
  ],
  frozen: [
    {
      layer: 'hits',
      covers: 'invoice_total',
      cause: 'HASH_ORDER',
      owner: 'payments',
      expires: '2026-12-31',
      action: 'sort line ids',
      source: { file: 'flake_ledger.json', index: 0 },
    },
  ],
  today: '2026-11-30',
  isolation: { mode: 'bwrap', user: 'separate' },
  timings: { revisionsMs: 0, setupMs: 0, cleanupMs: 0, totalMs: 5, layers: {} },
});

describe('scorecard model', () => {
  it('lets error beat reject beat accept, and never rejects on warnings alone', () => {
    expect(verdictOf([f('FIXTURE_ADDED', 'fixtures', 'warn', 'a')])).toBe('accept');
    expect(
      verdictOf([
        f('FIXTURE_ADDED', 'fixtures', 'warn', 'a'),
        f('FIXTURE_CHANGED', 'fixtures', 'reject', 'b'),
      ]),
    ).toBe('reject');
    expect(
      verdictOf([
        f('FIXTURE_CHANGED', 'fixtures', 'reject', 'b'),
        f('INTERNAL_ERROR', 'fixtures', 'error', 'c'),
      ]),
    ).toBe('error');
  });

  it('orders findings by layer order, severity, code and path whatever order layers produced them in', () => {
    const input = [
      f('FIXTURE_ADDED', 'fixtures', 'warn', 'z'),
      f('FIXTURE_CHANGED', 'fixtures', 'reject', 'b'),
      f('FIXTURE_CHANGED', 'fixtures', 'reject', 'a'),
      f('CONTRACT_TOUCHED', 'contracts', 'reject', 'y'),
    ];
    const sorted = sortFindings(input, ['contracts', 'fixtures']).map((x) => x.message);
    expect(sorted).toEqual([
      'CONTRACT_TOUCHED y',
      'FIXTURE_CHANGED a',
      'FIXTURE_CHANGED b',
      'FIXTURE_ADDED z',
    ]);
    expect(sortFindings([...input].reverse(), ['contracts', 'fixtures'])).toEqual(
      sortFindings(input, ['contracts', 'fixtures']),
    );
  });

  it('serializes with sorted keys so equal scorecards have equal bytes', () => {
    expect(stableStringify({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
      '{\n  "a": {\n    "d": [\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}\n',
    );
  });
});

describe('reporters', () => {
  const c = card([f('CONTRACT_TOUCHED', 'contracts', 'reject', 'FIXTURE_LOCK.json')]);

  it('prints the terminal table without colour when asked, with colour otherwise', () => {
    const plain = renderTerminal(c, { color: false });
    expect(plain).toContain('REJECT');
    expect(plain).toContain('CONTRACT_TOUCHED');
    expect(plain).toContain('path=FIXTURE_LOCK.json');
    expect(plain).toContain('FIXTURE_CHANGED testdata/x via FIXTURE_OVERRIDE');
    expect(plain).toContain(
      'hits invoice_total cause=HASH_ORDER owner=payments expires=2026-12-31 action: sort line ids',
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what we look for
    expect(plain).not.toMatch(/\u001b\[/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what we look for
    expect(renderTerminal(c, { color: true })).toMatch(/\u001b\[31m/);
  });

  it('writes markdown whose table cells cannot be broken by pipes or newlines in messages', () => {
    const md = renderMarkdown(
      card([{ ...f('FIXTURE_CHANGED', 'fixtures', 'reject', 'a|b'), message: 'line one\nline | two' }]),
    );
    expect(md).toContain('## patchgate: ❌ reject');
    expect(md).toContain('line one line \\| two');
    const rows = md.split('\n').filter((l) => l.includes('`FIXTURE_CHANGED`') && l.startsWith('| '));
    expect(rows).toHaveLength(1);
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(7);
  });
});

describe('summary.md for a pull request', () => {
  const many = (n: number, severity: Finding['severity'] = 'reject') =>
    Array.from({ length: n }, (_, i) => ({
      ...f('UNFROZEN_SKIP', 'signatures', severity, `tests/t${i}.py`),
      message: `test t${i} was skipped ${'without a freeze row '.repeat(40)}`,
      evidence: {
        test: `t${i}`,
        file: `tests/t${i}.py`,
        line: i + 1,
        body: 'x'.repeat(5000),
        next: 'patchgate signatures add …',
      },
    }));

  it('says in its title why: the blocking codes, counted', () => {
    const md = renderMarkdown(card([...many(2), f('CONTRACT_TOUCHED', 'contracts', 'reject', 'a')]));
    expect(md.split('\n')[0]).toBe(
      '## patchgate: ❌ reject — 3 finding(s) blocking the merge: UNFROZEN_SKIP ×2, CONTRACT_TOUCHED',
    );
  });

  it('puts errors and rejections before warnings, each with where, a few facts and the next step, never the JSON blob', () => {
    const md = renderMarkdown(
      card([{ ...f('FIXTURE_ADDED', 'fixtures', 'warn', 'testdata/n.json') }, ...many(1)]),
    );
    const rows = md.split('\n').filter((l) => /^\| \S+ (reject|warn|error) \| `[A-Z_]+` \|/.test(l));
    expect(rows.map((r) => r.match(/`([A-Z_]+)`/)?.[1])).toEqual(['UNFROZEN_SKIP', 'FIXTURE_ADDED']);
    expect(rows[0]).toContain('`tests/t0.py:1`');
    expect(rows[0]).toContain('test `t0`');
    expect(rows[0]).toContain('patchgate signatures add');
    expect(rows[0]).not.toContain('xxxxxxxxxx');
    expect(rows[0]?.length).toBeLessThan(700);
  });

  it('stays under its size budget however many findings, and counts what it left out', () => {
    const md = renderMarkdown(card(many(5000)), { maxBytes: 64 * 1024 });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(64 * 1024);
    const shown = md.split('\n').filter((l) => l.includes('`UNFROZEN_SKIP`')).length;
    expect(shown).toBeGreaterThan(10);
    expect(md).toContain(`… and ${5000 - shown} more finding(s) (${5000 - shown} blocking) not shown`);
    // The default keeps well under GitHub's 1 MiB.
    expect(Buffer.byteLength(renderMarkdown(card(many(20000))))).toBeLessThan(1024 * 1024);
  });

  it("falls back to the override, then to the code's own next step, when a finding names none", () => {
    const md = renderMarkdown(
      card([
        {
          ...f('FIXTURE_CHANGED', 'fixtures', 'reject', 'testdata/a.json'),
          evidence: { path: 'testdata/a.json', override: 'FIXTURE_OVERRIDE' },
        },
        f('ZERO_HIT', 'hits', 'reject', 'p'),
      ]),
    );
    expect(md).toContain('fix the patch, or a human job sets `FIXTURE_OVERRIDE`');
    expect(md).toContain(REASON_CODES.ZERO_HIT.next.slice(0, 40));
  });

  it('links the full report when the run says where it is', () => {
    expect(renderMarkdown(card([]), { reportLink: 'https://ci.example/run/7' })).toContain(
      '[https://ci.example/run/7](https://ci.example/run/7)',
    );
  });
});
