/**
 * Submodules in the gate's checkouts: a fixture or test data kept in another
 * repository (a shared test suite, golden outputs) is written out from the
 * submodule's own objects, as the user's clone has it; where the clone lacks
 * the commit, the gate says the fixtures cannot be judged instead of blaming
 * the patch for "missing" them.
 */
import { existsSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lockFor } from '../helpers/fixture-repo.js';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

const DATA = '{"cases": [[1, 2, 3], [2, 2, 4]]}\n';

/** A superproject whose pytest suite reads cases from a submodule, its data file locked. */
function superproject(): { repo: GitDir; data: GitDir } {
  const data = GitDir.create({ 'cases.json': DATA });
  const repo = GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { roots: ['vendor/suite'] },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      signatures: {},
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    'FIXTURE_LOCK.json': lockFor({ 'vendor/suite/cases.json': DATA }),
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/calc.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_cases.py':
      'import json, pathlib\nfrom calc import add\n\nCASES = json.loads((pathlib.Path(__file__).parent.parent / "vendor/suite/cases.json").read_text())["cases"]\n\n\ndef test_cases():\n    for a, b, total in CASES:\n        assert add(a, b) == total\n',
  });
  repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', data.dir, 'vendor/suite');
  repo.commit('add the shared suite');
  return { repo, data };
}

async function judge(repo: GitDir) {
  const out = tempDir('pg-sub-out-');
  const r = await runCli(
    ['check', '--base', 'main', '--head', 'agent', '--out', out, '--today', '2026-12-01'],
    {
      cwd: repo.dir,
    },
  );
  const card = readScorecard(out, r);
  return { ...r, card, codes: card.findings.map((f) => f.code) };
}

describe('submodules in the gate checkouts', { timeout: 120_000 }, () => {
  it("writes a submodule's files out from its own objects: its tests pass and its locked fixture is judged", async () => {
    const { repo } = superproject();
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return b + a\n' });
    repo.commit('agent: commute');
    const r = await judge(repo);
    expect(r.codes).toEqual([]);
    expect(r.card.verdict).toBe('accept');
  });

  it("judges a submodule bump that rewrites the locked data as FIXTURE_CHANGED, with the submodule's bytes", async () => {
    const { repo, data } = superproject();
    data.write({ 'cases.json': '{"cases": [[1, 2, 4]]}\n' });
    data.commit('wrong total');
    repo.git('checkout', '-q', '-b', 'agent');
    repo.git('-C', 'vendor/suite', 'pull', '-q', 'origin', 'main');
    repo.git('add', 'vendor/suite');
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return a + b + 1\n' });
    repo.commit('agent: bump the suite to agree');
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(r.card.findings.find((f) => f.code === 'FIXTURE_CHANGED')?.evidence.path).toBe(
      'vendor/suite/cases.json',
    );
  });

  it('says a fixture under a submodule the clone lacks cannot be judged (SUBMODULE_MISSING), never FIXTURE_MISSING', async () => {
    const { repo } = superproject();
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return b + a\n' });
    repo.commit('agent: commute');
    // A clone that never ran `git submodule update --init`.
    repo.git('submodule', 'deinit', '-q', '-f', 'vendor/suite');
    rmSync(repo.path('.git/modules'), { recursive: true, force: true });
    expect(existsSync(repo.path('vendor/suite/cases.json'))).toBe(false);
    const r = await judge(repo);
    expect(r.card.verdict).toBe('error');
    expect(r.codes).not.toContain('FIXTURE_MISSING');
    const unjudged = r.card.findings.find((f) => f.code === 'SUBMODULE_MISSING' && f.severity === 'error');
    expect(unjudged?.evidence).toMatchObject({ path: 'vendor/suite', fixtures: ['vendor/suite/cases.json'] });
    expect(String(unjudged?.evidence.next)).toMatch(/git submodule update --init/);
    // And the tests that read it fail on both sides: the warning says why.
    expect(
      r.card.findings.find((f) => f.code === 'SUBMODULE_MISSING' && f.severity === 'warn'),
    ).toBeDefined();
  });
});
