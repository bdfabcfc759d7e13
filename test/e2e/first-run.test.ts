/**
 * A new user's first run (issue 18): `init` on real pytest, vitest and
 * node:test repositories built here, then a benign patch. Without a baseline
 * the suite's own skips and known failures reject every patch; with one (a
 * human's reviewed commit of the rows `patchgate baseline` wrote) the same
 * patch is accepted, and the reports say which freezes a baseline wrote.
 * Everything runs through the built CLI, the real runners and the sandbox.
 */
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CliResult, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const TODAY = '2026-06-01';
const env = { CI_DATE: TODAY };

const json = (repo: GitDir, file: string) => JSON.parse(readFileSync(repo.path(file), 'utf8'));
const codes = (card: { findings: { code: string }[] }) =>
  [...new Set(card.findings.map((f) => f.code))].sort();

async function check(repo: GitDir, out = '.patchgate/out') {
  const r = await runCli(['check', '--base', 'main', '--quiet', '--out', out], { cwd: repo.dir, env });
  return { ...r, card: readScorecard(path.join(repo.dir, out), r) };
}

/** A pytest + Hypothesis library whose pyproject says `testpaths = ["tests"]`, with a bench/ pytest must not collect. */
const PY_LIB = {
  '.gitignore': '.patchgate\n__pycache__\n',
  'pyproject.toml': '[project]\nname = "lib"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'lib.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_lib.py': `import pytest
from hypothesis import given, settings, strategies as st
from lib import add

@settings(max_examples=20, database=None)
@given(st.integers(), st.integers())
def test_add_commutes(a, b):
    assert add(a, b) == add(b, a)

@pytest.mark.skip
def test_not_yet():
    pass

@pytest.mark.skip(reason="needs a GPU")
def test_gpu():
    pass

def test_known_bug():
    assert add(0.1, 0.2) == 0.3, "float rounding, tracked elsewhere"
`,
  // A benchmark needing a plugin that is not installed: collected, it breaks the whole session.
  'bench/test_speed.py': 'import pytest_benchmark_not_installed\n\ndef test_speed():\n    pass\n',
  CODEOWNERS: '/tests/ @py-team\n',
};

describe('first run on a pytest + Hypothesis library', { timeout: 300_000 }, () => {
  it('without a baseline every patch is rejected for the suite’s own skips; with one the benign patch is accepted', async () => {
    const repo = GitDir.create(PY_LIB);
    const init = await runCli(['init'], { cwd: repo.dir, env });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    // No fixture folder: the fixtures layer is off, and init says how to add one, instead of writing nothing.
    expect(json(repo, 'patchgate.config.json').fixtures).toEqual({ enabled: false });
    expect(existsSync(repo.path('FIXTURE_LOCK.json'))).toBe(false);
    expect(init.stdout).toContain('"fixtures": {"roots": ["DIR"]}');
    expect(init.stdout).toContain('run `patchgate lock`');
    // Wrapped prose read as one line: the hint names the bin the test ran.
    expect(init.stdout.replace(/\n {2}/g, ' ')).toContain(`run \`node ${CLI} baseline\` on the main branch`);
    expect((await runCli(['validate'], { cwd: repo.dir })).stdout).toBe('ok: 3 files\n');
    repo.commit('human: patchgate init');

    // A benign patch: a docstring, and a comment in the benchmark (a test-looking file pytest must not collect).
    const patch = {
      'lib.py': '"""Adds."""\n\n\ndef add(a, b):\n    return a + b\n',
      'bench/test_speed.py': `# tuned\n${PY_LIB['bench/test_speed.py']}`,
    };
    repo.write(patch);
    const before = await check(repo);
    expect(before.code).toBe(1);
    expect(codes(before.card)).toEqual(['UNFROZEN_SKIP', 'UNKNOWN_FAILURE_SIGNATURE']);
    const skips = before.card.findings.filter((f) => f.code === 'UNFROZEN_SKIP');
    expect(skips.map((f) => String(f.evidence.test)).sort()).toEqual([
      'pytest::tests.test_lib::test_gpu',
      'pytest::tests.test_lib::test_not_yet',
    ]);
    // The benchmark was never collected: not in any run, not as an error.
    expect(JSON.stringify(before.card)).not.toContain('pytest_benchmark_not_installed');

    // The baseline runs the main branch's suite (the commit) and writes the rows, in a working tree without the patch.
    repo.write({ 'lib.py': PY_LIB['lib.py'], 'bench/test_speed.py': PY_LIB['bench/test_speed.py'] });
    const baseline = await runCli(['baseline', '--today', TODAY], { cwd: repo.dir, env });
    expect(baseline.stderr).toBe('');
    expect(baseline.code).toBe(0);
    expect(baseline.stdout).toMatch(
      /baseline of HEAD \([0-9a-f]{12}\), 2 runs of 4 test\(s\) in the sandbox/,
    );
    expect(baseline.stdout).toMatch(
      /^ {2}git add flake_signatures\.json && git commit -m 'patchgate: baseline of [0-9a-f]{12}: freeze 3 pre-existing failure\(s\) and skip\(s\)'$/m,
    );
    const rows = json(repo, 'flake_signatures.json').signatures;
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatchObject({
        source: 'baseline',
        owner: '@py-team',
        expires: '2026-08-30',
        action: 'review',
      });
    }
    // The bare skip's template is generic: its row covers that test only, as `signatures add` binds it.
    expect(rows.find((r: { template: string }) => r.template === 'skipped|unconditional skip')).toMatchObject(
      {
        test: 'pytest::tests.test_lib::test_not_yet',
      },
    );
    expect(rows.find((r: { template: string }) => r.template === 'skipped|needs a GPU').test).toBeUndefined();
    // Nothing was committed: that is the human's review commit.
    expect(repo.git('status', '--porcelain')).toBe('M flake_signatures.json');
    expect((await runCli(['validate'], { cwd: repo.dir })).code).toBe(0);
    repo.commit('human: patchgate baseline');
    repo.write(patch);

    const after = await check(repo);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.card.verdict).toBe('accept');
    const frozen = after.card.frozen.filter((z) => z.layer === 'signatures');
    expect(frozen).toHaveLength(3);
    for (const z of frozen) expect(z).toMatchObject({ origin: 'baseline', excused: 'pre-existing' });
    expect(readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8')).toContain(
      '| signatures (baseline row) |',
    );
    expect(readFileSync(repo.path('.patchgate/out/report.html'), 'utf8')).toContain(
      'signature freeze (baseline row)',
    );
    expect(after.stdout).toContain('signatures (baseline row) pytest::tests.test_lib::test_gpu');

    // A second baseline adds nothing.
    repo.write({ 'lib.py': PY_LIB['lib.py'], 'bench/test_speed.py': PY_LIB['bench/test_speed.py'] });
    const again = await runCli(['baseline', '--today', TODAY], { cwd: repo.dir, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to freeze');
    expect(again.stdout).toMatch(
      /kept: pytest::tests\.test_lib::test_gpu: skipped\|needs a GPU is already frozen by row \d/,
    );
    expect(repo.git('status', '--porcelain')).toBe('');
  });
});

describe('patchgate baseline refuses what it cannot freeze honestly', { timeout: 300_000 }, () => {
  const pyRepo = (files: Record<string, string> = {}) => {
    const repo = GitDir.create({
      '.gitignore': '.patchgate\n__pycache__\n',
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'pytest' },
        signatures: {},
        stability: {},
      }),
      'flake_signatures.json': '{"signatures": []}\n',
      'stability_freeze.json': '{"freezes": []}\n',
      'tests/test_a.py':
        'import pytest\n\n@pytest.mark.skip(reason="later")\ndef test_later():\n    pass\n\ndef test_ok():\n    pass\n',
      ...files,
    });
    return repo;
  };

  it('a freeze file with uncommitted changes', async () => {
    const repo = pyRepo();
    repo.write({ 'flake_signatures.json': '{"signatures": [] }\n' });
    const r = await runCli(['baseline', '--today', TODAY], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('flake_signatures.json has changes that are not committed (git status: "M")');
    expect(readFileSync(repo.path('flake_signatures.json'), 'utf8')).toBe('{"signatures": [] }\n');
  });

  it('a suite pytest cannot collect, with pytest’s own words', async () => {
    const repo = pyRepo({ 'tests/test_broken.py': 'import module_that_is_not_there\n' });
    const r = await runCli(['baseline', '--today', TODAY], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'the suite did not run: pytest could not collect 1 test module(s) (tests.test_broken',
    );
    expect(r.stderr).toContain("No module named 'module_that_is_not_there'");
    expect(json(repo, 'flake_signatures.json').signatures).toEqual([]);
  });

  it('more rows than --max-rows: the suite is not adoptable by freezing it', async () => {
    const skips = Array.from(
      { length: 5 },
      (_, i) =>
        `@pytest.mark.skip(reason="broken ${String.fromCharCode(97 + i)}")\ndef test_s${i}():\n    pass\n`,
    ).join('\n');
    const repo = pyRepo({ 'tests/test_many.py': `import pytest\n\n${skips}` });
    const r = await runCli(['baseline', '--today', TODAY, '--max-rows', '4'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'the baseline would write 6 freeze rows (6 signature, 0 stability) for 6 test(s), more than --max-rows 4',
    );
    expect(r.stderr).toContain('Nothing was written.');
    expect(json(repo, 'flake_signatures.json').signatures).toEqual([]);
  });

  it('a revision that is not on the main branch (an agent branch), naming the branch to run it on', async () => {
    const repo = pyRepo();
    repo.git('checkout', '-q', '-b', 'agent/fix');
    repo.write({
      'tests/test_b.py': 'import pytest\n\n@pytest.mark.skip(reason="mine")\ndef test_mine():\n    pass\n',
    });
    repo.commit('agent: a skipped test');
    const r = await runCli(['baseline', '--today', TODAY], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /HEAD \([0-9a-f]{12}\) is not on main: a baseline freezes what the branch patches target/,
    );
    expect(r.stderr).toContain('pass --rev main');
    const ok = await runCli(['baseline', '--today', TODAY, '--rev', 'main'], { cwd: repo.dir });
    expect(ok.code).toBe(0);
    expect(
      json(repo, 'flake_signatures.json').signatures.map((s: { template: string }) => s.template),
    ).toEqual(['skipped|later']);
  });

  it('rows without an owner: CODEOWNERS names none and git has no user', async () => {
    const repo = pyRepo();
    repo.git('config', '--unset', 'user.name');
    repo.git('config', '--unset', 'user.email');
    const noUser = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const r = await runCli(['baseline', '--today', TODAY], { cwd: repo.dir, env: noUser });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no owner for 1 test(s) (pytest::tests.test_a::test_later)');
    expect(r.stderr).toContain('pass --owner WHO');
    const given = await runCli(['baseline', '--today', TODAY, '--owner', 'qa'], {
      cwd: repo.dir,
      env: noUser,
    });
    expect(given.code).toBe(0);
    expect(json(repo, 'flake_signatures.json').signatures[0].owner).toBe('qa');
  });

  it('a config without the signatures layer, and an expiry in the past', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({ fixtures: { enabled: false }, tests: { preset: 'pytest' } }),
      'tests/test_a.py': 'def test_ok():\n    pass\n',
    });
    const off = await runCli(['baseline'], { cwd: repo.dir });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('the config needs a `tests` section and the signatures layer on');
    const past = await runCli(['baseline', '--today', TODAY, '--expires', '2026-05-31'], {
      cwd: pyRepo().dir,
    });
    expect(past.code).toBe(2);
    expect(past.stderr).toContain(
      '--expires 2026-05-31 is already in the past (today is 2026-06-01, from --today)',
    );
  });
});

describe('patchgate baseline: bad input, each named', { timeout: 300_000 }, () => {
  const config = JSON.stringify({
    fixtures: { enabled: false },
    tests: { preset: 'pytest' },
    signatures: {},
  });
  const repo = () =>
    GitDir.create({
      'patchgate.config.json': config,
      'flake_signatures.json': '{"signatures": []}\n',
      'tests/test_a.py': 'def test_ok():\n    pass\n',
    });

  it.each([
    [['--runs', '0'], "baseline: --runs must be a whole number from 1 to 10, got '0'"],
    [['--max-rows', 'many'], "baseline: --max-rows must be a whole number from 1 to 10000, got 'many'"],
    [['--days', '0'], "baseline: --days must be a whole number from 1 to 3650, got '0'"],
    [
      ['--expires', '2026-13-01'],
      "baseline: --expires must be a real date in YYYY-MM-DD form, got '2026-13-01'",
    ],
    [['--rev', 'no-such-branch'], "unknown revision 'no-such-branch': git cannot resolve it to a commit"],
  ])('%j', async (args, message) => {
    const r = await runCli(['baseline', '--today', TODAY, ...args], { cwd: repo().dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('a freeze file that is not committed yet but has rows, and a config edited in the working tree', async () => {
    const untracked = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'pytest' },
        signatures: { freeze: 'freeze/sigs.json' },
      }),
      'tests/test_a.py': 'def test_ok():\n    pass\n',
    });
    untracked.write({
      'freeze/sigs.json': JSON.stringify({
        signatures: [{ sha256: 'a'.repeat(64), owner: 'x', expires: '2027-01-01', action: 'y' }],
      }),
    });
    const r = await runCli(['baseline', '--today', TODAY], { cwd: untracked.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('freeze/sigs.json has 1 row(s) but is not committed');

    const edited = repo();
    edited.write({
      'patchgate.config.json': config.replace('{"preset":"pytest"}', '{"preset":"pytest","timeoutMs":5000}'),
    });
    const e = await runCli(['baseline', '--today', TODAY], { cwd: edited.dir });
    expect(e.code).toBe(2);
    expect(e.stderr).toContain(
      "the working tree's patchgate.config.json differs from the one committed in HEAD: the baseline freezes what HEAD fails under its own rules",
    );
  });

  it('init --baseline on a repository without a test runner writes nothing', async () => {
    const bare = GitDir.create({ 'README.md': 'hello\n' });
    const r = await runCli(['init', '--baseline'], { cwd: bare.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('init --baseline: no test runner was found, so there is no suite to run');
    expect(existsSync(bare.path('patchgate.config.json'))).toBe(false);
  });
});

describe('first run on a vitest library', { timeout: 300_000 }, () => {
  it('init reads scripts.test; init --baseline freezes the existing skip, and the benign patch is accepted', async () => {
    const repo = GitDir.create({
      '.gitignore': 'node_modules\n.patchgate\n',
      'package.json': JSON.stringify({
        name: 'lib',
        private: true,
        type: 'module',
        scripts: { test: 'vitest run' },
        devDependencies: { vitest: '4.0.15', 'fast-check': '4.3.0' },
      }),
      'package-lock.json': '{"name": "lib", "lockfileVersion": 3, "packages": {}}\n',
      'src/sum.js': 'export const sum = (a, b) => a + b;\n',
      'test/sum.test.js': `import { expect, it } from 'vitest';
import fc from 'fast-check';
import { sum } from '../src/sum.js';
it('commutes', () => fc.assert(fc.property(fc.integer(), fc.integer(), (a, b) => sum(a, b) === sum(b, a))));
it.skip('handles bigints', () => {});
`,
    });
    symlinkSync(path.join(repoRoot, 'node_modules'), repo.path('node_modules'));
    const init = await runCli(['init', '--baseline', '--today', TODAY], { cwd: repo.dir, env });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('tests.preset: vitest (scripts.test runs vitest ("vitest run"))');
    expect(init.stdout).toContain("wrote flake_signatures.json (with the baseline's rows, below)");
    const [row, ...more] = json(repo, 'flake_signatures.json').signatures;
    expect(more).toEqual([]);
    // vitest writes a skip with no text: the row is bound to its test.
    expect(row).toMatchObject({
      template: 'skipped|',
      test: 'test/sum.test.js::handles bigints',
      source: 'baseline',
      owner: 'Test',
    });
    repo.commit('human: patchgate init with its baseline');

    repo.write({ 'src/sum.js': '// Adds two numbers.\nexport const sum = (a, b) => a + b;\n' });
    const after = await check(repo);
    expect(after.stderr).toBe('');
    expect(after.card.verdict).toBe('accept');
    expect(after.card.frozen).toEqual([
      expect.objectContaining({
        layer: 'signatures',
        covers: 'test/sum.test.js::handles bigints',
        origin: 'baseline',
      }),
    ]);
  });
});

describe('first run on a node:test library', { timeout: 300_000 }, () => {
  const NODE_LIB = {
    '.gitignore': '.patchgate\n',
    'package.json': JSON.stringify({
      name: 'lib',
      type: 'module',
      scripts: { test: 'node --test --test-concurrency=1 test/' },
    }),
    'src/sum.js': 'export const sum = (a, b) => a + b;\n',
    'test/sum.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sum } from '../src/sum.js';
test('adds', () => assert.equal(sum(1, 2), 3));
test('adds floats', () => assert.equal(sum(0.1, 0.2), 0.3));
test('subtracts', { skip: 'not written yet' }, () => {});
test('multiplies', { todo: true }, () => {});
`,
  };

  // One init --baseline (two sandboxed runs of the suite) serves both patches: each test writes the whole
  // of src/sum.js, so neither sees the other's.
  let repo: GitDir;
  let init: CliResult;
  let config: { tests?: unknown };
  let rows: { template: string; test?: string }[];
  beforeAll(async () => {
    repo = GitDir.create(NODE_LIB);
    init = await runCli(['init', '--baseline', '--today', TODAY], { cwd: repo.dir, env });
    config = json(repo, 'patchgate.config.json');
    rows = json(repo, 'flake_signatures.json').signatures;
    repo.commit('human: patchgate init with its baseline');
  }, 300_000);

  it('init detects node --test from scripts.test and carries its arguments; the baseline makes the benign patch pass', async () => {
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('tests.preset: node-test (scripts.test runs node --test');
    expect(config.tests).toEqual({ preset: 'node-test', args: ['--test-concurrency=1', 'test/'] });
    expect(rows.map((r) => r.template).sort()).toEqual([
      'skipped|not written yet',
      'skipped|true',
      expect.stringMatching(/^testCodeFailure\|Expected values to be strictly equal:/),
    ]);
    // node:test's `{ todo: true }` says only "true": bound to its test.
    expect(rows.find((r) => r.template === 'skipped|true')?.test).toBe('test::multiplies');

    // The known failure shows on the head; the gate asks the base for that one test by name (a subset run).
    repo.write({ 'src/sum.js': '// Adds.\nexport const sum = (a, b) => a + b;\n' });
    const after = await check(repo);
    expect(after.stderr).toBe('');
    expect(after.card.verdict).toBe('accept');
    const known = after.card.frozen.find((z) => z.covers === 'test::adds floats');
    expect(known).toMatchObject({ origin: 'baseline', excused: 'pre-existing' });
    expect(readdirLogs(repo)).toContain('base-excuse-1.stdout.log');
  });

  it('a patch that breaks a passing test is still rejected', async () => {
    expect(init.code).toBe(0);
    repo.write({ 'src/sum.js': 'export const sum = (a, b) => a - b;\n' });
    const broken = await check(repo);
    expect(broken.code).toBe(1);
    expect(codes(broken.card)).toContain('UNKNOWN_FAILURE_SIGNATURE');
    expect(broken.card.findings.find((f) => f.code === 'UNKNOWN_FAILURE_SIGNATURE')?.evidence.test).toBe(
      'test::adds',
    );
  });
});

describe('init names the branch patches target', { timeout: 120_000 }, () => {
  it('the remote’s default branch (origin/HEAD), else the upstream', async () => {
    const upstream = GitDir.create({ 'tests/test_a.py': 'def test_ok():\n    pass\n' });
    upstream.git('branch', '-m', 'main', 'trunk');
    const dir = path.join(tempDir('pg-clone-'), 'clone');
    upstream.git('clone', '-q', upstream.dir, dir);
    const clone = new GitDir(dir);
    const r = await runCli(['init'], { cwd: clone.dir });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toContain(`  node ${CLI} check --base origin/trunk`);
    expect(r.stdout).not.toContain('is a guess');

    clone.git('remote', 'set-head', 'origin', '-d');
    clone.git('checkout', '-q', '-b', 'release', '--track', 'origin/trunk');
    const up = await runCli(['init', '--force'], { cwd: clone.dir });
    expect(up.stdout.split('\n')).toContain(`  node ${CLI} check --base origin/trunk`);
  });
});

function readdirLogs(repo: GitDir): string[] {
  const dir = repo.path('.patchgate/out/tests');
  return existsSync(dir) ? readdirSync(dir) : [];
}
