import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleFiles, vitestRepo } from '../helpers/example-repo.js';
import { GitDir, runCli } from '../helpers/gitdir.js';
import { defaultOut, readScorecard } from '../helpers/out.js';
import { repoRoot } from '../helpers/shared.js';

const python = path.join(repoRoot, 'examples', 'python-invoice');

async function judge(repo: GitDir, extra: string[] = []) {
  const r = await runCli(['check', '--base', 'main', '--today', '2026-12-01', ...extra], { cwd: repo.dir });
  const card = readScorecard(defaultOut(repo.dir), r);
  return { ...r, card, codes: card.findings.map((f) => f.code) };
}

function pythonRepo(patch?: string): GitDir {
  const repo = GitDir.create(exampleFiles(python));
  if (patch) repo.git('apply', path.join(python, 'patches', `${patch}.patch`));
  return repo;
}

describe(
  'signatures and stability layers on real pytest (examples/python-invoice)',
  { timeout: 120_000 },
  () => {
    // The sample agent patches themselves are judged once, by the demo (test/e2e/demo.test.ts).
    it('rejects a patch that deletes a freeze row (SIGNATURE_ROW_DELETED) besides touching the contract', async () => {
      const repo = pythonRepo();
      const freeze = JSON.parse(readFileSync(repo.path('flake_signatures.json'), 'utf8'));
      freeze.signatures.pop();
      repo.write({ 'flake_signatures.json': JSON.stringify(freeze, null, 2) });
      const r = await judge(repo);
      expect(r.codes).toEqual(expect.arrayContaining(['CONTRACT_TOUCHED', 'SIGNATURE_ROW_DELETED']));
    });

    it('rejects an unfrozen pre-existing flake the patch reaches once its freeze row has expired', async () => {
      // The benign patch changes invoice.py, which the flaky test imports: the probe reruns it.
      const r = await judge(pythonRepo('01-benign-with-frozen-flake'), [
        '--today',
        '2027-06-01',
        '--all-layers',
      ]);
      expect(r.codes).toContain('PREEXISTING_FLAKE_UNFROZEN');
      const f = r.card.findings.find((x) => x.code === 'PREEXISTING_FLAKE_UNFROZEN');
      expect((f?.evidence.baseRuns as string[]).length).toBe(3);
    });
  },
);

describe('signatures layer on real vitest', { timeout: 120_000 }, () => {
  it('reads the vitest JUnit report and rejects a new failure with its signature', async () => {
    const repo = vitestRepo({
      'sum.test.ts': "import { expect, it } from 'vitest';\nit('adds', () => { expect(1 + 1).toBe(2); });\n",
    });
    const ok = await judge(repo);
    expect(ok.card.verdict).toBe('accept');
    repo.write({
      'sum.test.ts': "import { expect, it } from 'vitest';\nit('adds', () => { expect(1 + 1).toBe(3); });\n",
    });
    const r = await judge(repo);
    expect(r.code).toBe(1);
    const f = r.card.findings.find((x) => x.code === 'UNKNOWN_FAILURE_SIGNATURE');
    expect(f?.evidence.test).toMatch(/sum\.test\.ts.*adds/);
    expect(f?.evidence.template).toMatch(/expected <N> to be <N>/);
  });
  it('binds a frozen message-less skip to its own test: skipping another test is UNFROZEN_SKIP, the frozen one is listed', async () => {
    const spec = (skipB: boolean) =>
      "import { expect, it } from 'vitest';\n" +
      "it.skip('a is parked', () => { expect(1).toBe(2); });\n" +
      `it${skipB ? '.skip' : ''}('b adds', () => { expect(1 + 1).toBe(2); });\n`;
    const repo = vitestRepo({ 'parked.test.ts': spec(false) });
    const first = await judge(repo);
    const parked = first.card.findings.find((f) => f.code === 'UNFROZEN_SKIP');
    expect(parked?.evidence.template).toBe('skipped|');
    const id = String(parked?.evidence.test);
    const report = repo.path('.patchgate/out/tests/head-run-1.junit.xml');
    const add = await runCli(
      [
        'signatures',
        'add',
        '--from',
        report,
        '--test',
        id,
        '--owner',
        'hana',
        '--expires',
        '2027-01-31',
        '--action',
        'unpark after the rates rewrite',
        '--today',
        '2026-12-01',
      ],
      { cwd: repo.dir },
    );
    expect(add.code).toBe(0);
    expect(add.stdout).toContain(`covers test ${id} only`);
    repo.commit('human: freeze the parked test');

    const frozen = await judge(repo);
    expect(frozen.card.verdict).toBe('accept');
    expect(frozen.card.frozen).toEqual([
      expect.objectContaining({
        layer: 'signatures',
        covers: id,
        matched: 'skipped|',
        owner: 'hana',
        expires: '2027-01-31',
        action: 'unpark after the rates rewrite',
      }),
    ]);
    expect(readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8')).toMatch(
      // Head text in code spans (the test id, the template, and the row's fields, which a patch could echo).
      /\| signatures \| `[^`]*a is parked` \| `skipped\\\|` \| `hana` \| `2027-01-31` \| `unpark after the rates rewrite` \|/,
    );

    repo.write({ 'parked.test.ts': spec(true) });
    const r = await judge(repo);
    expect(r.code).toBe(1);
    const skips = r.card.findings.filter((f) => f.code === 'UNFROZEN_SKIP');
    expect(skips).toHaveLength(1);
    expect(skips[0]?.evidence.test).toMatch(/b adds/);
    expect(skips[0]?.message).toContain(`it covers only test ${id}`);
  });
});
