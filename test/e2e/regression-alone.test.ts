/**
 * A config that runs the tests but leaves the signatures layer off still
 * judges the head's code by the base's tests. With the test side untouched
 * the overlay is the head's own run, and its failures used to be left to the
 * signatures layer alone: off, a patch that broke a passing test was accepted.
 */
import { describe, expect, it } from 'vitest';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

const TESTS =
  'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_broken_on_base():\n    assert add(1, 1) == 3\n';

function repoWithTestsOnly(): GitDir {
  const repo = GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
    }),
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/calc.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_calc.py': TESTS,
  });
  repo.git('checkout', '-q', '-b', 'agent');
  return repo;
}

async function judge(repo: GitDir) {
  const out = tempDir('pg-regression-out-');
  const r = await runCli(
    ['check', '--base', 'main', '--head', 'HEAD', '--out', out, '--today', '2026-12-01'],
    {
      cwd: repo.dir,
    },
  );
  return readScorecard(out, r);
}

describe('the regression layer without the signatures layer', { timeout: 120_000 }, () => {
  it('rejects a patch that breaks a base test it left untouched, with the base and head outcomes', async () => {
    const repo = repoWithTestsOnly();
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return a + b + (1 if a == 2 else 0)\n' });
    repo.commit('agent: tweak add');
    const card = await judge(repo);
    expect(card.verdict).toBe('reject');
    const regressions = card.findings.filter((f) => f.code === 'REGRESSION');
    expect(regressions).toHaveLength(1);
    expect(regressions[0]?.evidence).toMatchObject({
      test: 'pytest::tests.test_calc::test_add',
      file: 'tests/test_calc.py',
      base: 'passed',
      overlay: 'failed',
    });
    expect(regressions[0]?.message).toContain('assert 6 == 5');
  });

  it('leaves a test that already fails on the base to the base: not the patch’s doing', async () => {
    const repo = repoWithTestsOnly();
    repo.write({ 'src/calc.py': 'def add(a, b):\n    # agent: documented\n    return a + b\n' });
    repo.commit('agent: comment');
    const card = await judge(repo);
    expect(card.findings.filter((f) => f.code === 'REGRESSION')).toEqual([]);
    expect(card.verdict).toBe('accept');
  });
});
