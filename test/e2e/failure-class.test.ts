/**
 * A failure no freeze row covers is rerun before it is named: the base's run
 * of the same test, then more runs on the head beside more runs on the base.
 * Real pytest, a temp repository, the built CLI.
 */
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { type Files, type GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

function repoWith(files: Files): GitDir {
  return calcRepo({ files: { '.gitignore': '.patchgate\n__pycache__\n.warm\n', ...files } });
}

async function judge(repo: GitDir) {
  const out = tempDir('pg-fc-out-');
  const r = await runCli(
    ['check', '--base', 'main', '--head', 'agent', '--out', out, '--today', '2026-12-01'],
    {
      cwd: repo.dir,
    },
  );
  const card = readScorecard(out, r);
  return { ...r, card, codes: card.findings.map((f) => f.code) };
}

function patch(repo: GitDir, files: Files): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit('agent: change');
}

describe('a failure no row covers is rerun before it is named', { timeout: 180_000 }, () => {
  it('one that passes on a rerun is NEW_FLAKE, with the runs, never UNKNOWN_FAILURE_SIGNATURE', async () => {
    const repo = repoWith({});
    // Fails the first time it runs in a checkout, passes from then on: what a cold cache or a deadline under
    // load looks like from one run.
    patch(repo, {
      'tests/test_cold.py':
        'import pathlib\n\n\ndef test_cold_start():\n    marker = pathlib.Path(__file__).parent.parent / ".warm"\n    if not marker.exists():\n        marker.write_text("1")\n        raise AssertionError("cache was cold: 3 of 4 shards")\n',
    });
    const r = await judge(repo);
    expect(r.codes).not.toContain('UNKNOWN_FAILURE_SIGNATURE');
    const flake = r.card.findings.find((f) => f.code === 'NEW_FLAKE');
    expect(flake?.layer).toBe('signatures');
    expect(flake?.evidence).toMatchObject({
      test: 'pytest::tests.test_cold::test_cold_start',
      headRuns: ['failed', 'passed', 'passed'],
    });
    // The message is for reading: the runner's words, digits and all; the masked template is for matching.
    expect(flake?.message).toContain('cache was cold: 3 of 4 shards');
    expect(flake?.evidence.text).toContain('cache was cold: 3 of 4 shards');
    expect(String(flake?.evidence.template)).not.toContain('3 of 4');
  });

  it('one that fails every time where the base passes the test is named deterministic, a regression', async () => {
    const repo = repoWith({});
    patch(repo, { 'src/calc.py': 'def add(a, b):\n    return a + b + 1\n' });
    const r = await judge(repo);
    const f = r.card.findings.find((x) => x.code === 'UNKNOWN_FAILURE_SIGNATURE');
    expect(f?.evidence).toMatchObject({
      class: 'deterministic',
      reruns: ['failed', 'failed'],
      base: 'passed',
    });
    expect(f?.message).toMatch(/fails every time \(2 more run\(s\) on the head\), and the base passes it/);
  });

  it('one the base already fails the same way is named pre-existing, with the freeze command', async () => {
    const known = 'def test_known():\n    raise AssertionError("legacy table is off by one")\n';
    const repo = repoWith({ 'tests/test_known.py': known });
    patch(repo, { 'src/calc.py': 'def add(a, b):\n    return b + a\n' });
    const r = await judge(repo);
    const f = r.card.findings.find((x) => x.code === 'UNKNOWN_FAILURE_SIGNATURE');
    expect(f?.evidence).toMatchObject({
      test: 'pytest::tests.test_known::test_known',
      class: 'pre-existing',
    });
    expect(String(f?.evidence.next)).toMatch(/patchgate signatures add/);
  });
});
