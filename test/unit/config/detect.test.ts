import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFixtureRoots, detectTests } from '../../../src/config/detect.js';
import { tempDir } from '../../helpers/gitdir.js';

/** A temp folder holding `files` (path → text). */
function folder(files: Record<string, string>): string {
  const dir = tempDir('pg-detect-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const roots = async (files: Record<string, string>) =>
  (await detectFixtureRoots(folder(files))).map((d) => d.value);

describe('detectFixtureRoots', () => {
  it('finds tests/test_fixtures, which the old fixed list of folders missed', async () => {
    expect(await roots({ 'tests/test_fixtures/a.json': '{}', 'tests/test_a.py': '' })).toEqual([
      'tests/test_fixtures',
    ]);
  });

  it.each([
    ['src/components/__snapshots__/button.test.ts.snap'],
    ['golden/out.txt'],
    ['pkg/goldens/out.txt'],
    ['snapshots/s.json'],
    ['spec/fixtures/a.yml'],
    ['test/fixtures/a.json'],
    ['tests/fixtures/a.json'],
    ['internal/parser/testdata/x.go.txt'],
    ['test-data/a.csv'],
    ['deep/down/fixtures/a.json'],
    ['tests/data/a.json'],
  ])('finds the fixture folder of %s', async (file) => {
    expect(await roots({ [file]: 'x' })).toEqual([path.posix.dirname(file)]);
  });

  it('never looks inside node_modules, .git, vendor, dist, build or hidden folders', async () => {
    expect(
      await roots({
        'node_modules/dep/test/fixtures/a.json': 'x',
        '.git/fixtures/a': 'x',
        'vendor/lib/testdata/a': 'x',
        'dist/fixtures/a.json': 'x',
        'build/golden/a': 'x',
        '.venv/lib/site/tests/fixtures/a': 'x',
        'src/a.ts': 'x',
      }),
    ).toEqual([]);
  });

  it('leaves out a folder nested in another fixture folder, and empty folders', async () => {
    const dir = folder({ 'fixtures/golden/a.json': 'x', 'fixtures/b.json': 'x' });
    mkdirSync(path.join(dir, 'testdata'));
    expect((await detectFixtureRoots(dir)).map((d) => d.value)).toEqual(['fixtures']);
  });

  it('orders the typical names first and says why each was found', async () => {
    const found = await detectFixtureRoots(
      folder({ 'fixtures/a': 'x', 'test/fixtures/b': 'x', 'testdata/c': 'x', 'src/__snapshots__/d': 'x' }),
    );
    expect(found).toEqual([
      { value: 'testdata', reason: 'a folder named testdata' },
      { value: 'test/fixtures', reason: 'a folder named fixtures' },
      { value: 'fixtures', reason: 'a folder named fixtures' },
      { value: 'src/__snapshots__', reason: 'a folder named __snapshots__' },
    ]);
  });

  it('does not take a data folder outside a test folder for fixtures', async () => {
    expect(await roots({ 'data/a.json': 'x', 'src/data/b.json': 'x' })).toEqual([]);
  });
});

const pkg = (json: object) => JSON.stringify(json);

describe('detectTests', () => {
  it('takes vitest from devDependencies and npm ci from package-lock.json, saying why', async () => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { vitest: '4.0.0' } }), 'package-lock.json': '{}' }),
    );
    expect(d.tests).toEqual({ preset: 'vitest', setup: ['npm', 'ci'] });
    expect(d.reasons).toEqual([
      { key: 'tests.preset', value: 'vitest', reason: 'found vitest in devDependencies' },
      { key: 'tests.setup', value: 'npm ci', reason: 'found package-lock.json' },
    ]);
  });

  it('prefers the runner scripts.test runs over the ones merely installed', async () => {
    const d = await detectTests(
      folder({
        'package.json': pkg({
          scripts: { test: 'mocha --recursive' },
          devDependencies: { jest: '1', mocha: '1', 'mocha-junit-reporter': '1' },
        }),
        'pnpm-lock.yaml': '',
      }),
    );
    expect(d.tests).toEqual({ preset: 'mocha', setup: ['pnpm', 'install', '--frozen-lockfile'] });
    expect(d.reasons[0]?.reason).toBe('scripts.test runs mocha ("mocha --recursive")');
  });

  it.each([
    [{ 'yarn.lock': '' }, ['yarn', 'install', '--frozen-lockfile']],
    [{ 'yarn.lock': '', '.yarnrc.yml': '' }, ['yarn', 'install', '--immutable']],
    [{ 'bun.lock': '' }, ['bun', 'install', '--frozen-lockfile']],
  ])('derives the install command from the lockfile %o', async (files, setup) => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { vitest: '1' } }), ...files }),
    );
    expect(d.tests?.setup).toEqual(setup);
  });

  it('uses packageManager to choose between two lockfiles, and sets no setup when it cannot', async () => {
    const files = { 'package-lock.json': '{}', 'yarn.lock': '' };
    const chosen = await detectTests(
      folder({
        'package.json': pkg({ packageManager: 'npm@10.2.0', devDependencies: { vitest: '1' } }),
        ...files,
      }),
    );
    expect(chosen.tests?.setup).toEqual(['npm', 'ci']);
    const unsure = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { vitest: '1' } }), ...files }),
    );
    expect(unsure.tests).toEqual({ preset: 'vitest' });
    expect(unsure.notes.join('\n')).toMatch(/lockfiles of npm and yarn .* tests\.setup is not set/);
  });

  it('writes no tests section for jest without jest-junit, and says what to install', async () => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { jest: '29' } }), 'package-lock.json': '{}' }),
    );
    expect(d.tests).toBeUndefined();
    expect(d.notes.join('\n')).toContain('npm install --save-dev jest-junit');
  });

  it('writes nothing when package.json names two runners and scripts.test does not choose', async () => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { vitest: '1', jest: '1' } }) }),
    );
    expect(d.tests).toBeUndefined();
    expect(d.notes.join('\n')).toContain('more than one test runner (vitest, jest)');
  });

  it('finds pytest from [tool.pytest.ini_options] and sets PYTHONPATH for a src layout', async () => {
    const d = await detectTests(
      folder({
        'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        'src/invoice/__init__.py': '',
        'tests/test_a.py': '',
      }),
    );
    expect(d.tests).toEqual({ preset: 'pytest', env: { PYTHONPATH: 'src' } });
    expect(d.reasons.map((r) => r.reason)).toEqual([
      'found [tool.pytest.ini_options] in pyproject.toml',
      'found src/invoice/__init__.py: a src layout, and no pytest pythonpath setting, so the tests import it from src',
    ]);
  });

  it('sets no PYTHONPATH when pytest already sets pythonpath', async () => {
    const d = await detectTests(
      folder({ 'pytest.ini': '[pytest]\npythonpath = src\n', 'src/invoice/__init__.py': '' }),
    );
    expect(d.tests).toEqual({ preset: 'pytest' });
  });

  it.each([
    [
      { 'setup.cfg': '[metadata]\nname = x\n[tool:pytest]\naddopts = -q\n' },
      'found [tool:pytest] in setup.cfg',
    ],
    [{ 'tox.ini': '[tox]\n[pytest]\n' }, 'found [pytest] in tox.ini'],
    [{ 'pytest.ini': '' }, 'found pytest.ini'],
    [{ 'requirements-dev.txt': 'pytest==8.0\n' }, 'found pytest in requirements-dev.txt:1'],
    [{ 'test-requirements.txt': 'pytest-cov\npytest>=7\n' }, 'found pytest in test-requirements.txt:2'],
    [{ 'requirements/test.txt': 'hypothesis\npytest\n' }, 'found pytest in requirements/test.txt:2'],
    [
      { 'requirements-ci.txt': 'flake8\n-r ci/deps.txt\n', 'ci/deps.txt': 'hypothesis\npytest\n' },
      'found pytest in ci/deps.txt:2',
    ],
    [
      { 'tox.ini': '[tox]\nenv_list = py\n\n[testenv]\ndeps =\n    hypothesis\n    pytest\n' },
      'found pytest in tox.ini:7 ([testenv] deps)',
    ],
    [
      { 'tox.ini': '[testenv]\ndeps = -r{toxinidir}/dev.txt\n', 'dev.txt': 'pytest\n' },
      'found pytest in dev.txt:1 (the [testenv] deps of tox.ini include it)',
    ],
    [
      { 'noxfile.py': 'import nox\n\n@nox.session\ndef t(session):\n    session.install("pytest")\n' },
      'noxfile.py:5 installs pytest (`session.install("pytest")`)',
    ],
  ])('finds pytest from %o', async (files, reason) => {
    const d = await detectTests(folder(files));
    expect(d.tests?.preset).toBe('pytest');
    expect(d.reasons[0]?.reason).toBe(reason);
  });

  it('says what to set for poetry.lock and uv.lock instead of guessing an install command', async () => {
    for (const [lock, setup] of [
      ['poetry.lock', '["poetry", "install", "--no-interaction"]'],
      ['uv.lock', '["uv", "sync", "--frozen"]'],
    ] as const) {
      const d = await detectTests(folder({ 'pytest.ini': '[pytest]\n', [lock]: '' }));
      expect(d.tests).toEqual({ preset: 'pytest' });
      expect(d.notes.join('\n')).toContain(`set tests.setup to ${setup}`);
    }
  });

  it('takes go from go.mod, maven from pom.xml, and cargo-nextest only with a JUnit profile', async () => {
    expect((await detectTests(folder({ 'go.mod': 'module x\n' }))).tests).toEqual({ preset: 'go' });
    expect((await detectTests(folder({ 'pom.xml': '<project/>' }))).tests).toEqual({ preset: 'maven' });
    const bare = await detectTests(folder({ 'Cargo.toml': '[package]\n' }));
    expect(bare.tests).toBeUndefined();
    expect(bare.notes.join('\n')).toContain('[profile.ci.junit]');
    const nextest = await detectTests(
      folder({
        'Cargo.toml': '[package]\n',
        '.config/nextest.toml': '[profile.ci.junit]\npath = "junit.xml"\n',
      }),
    );
    expect(nextest.tests).toEqual({ preset: 'cargo-nextest' });
  });

  it('writes nothing when two ecosystems both have a runner', async () => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { vitest: '1' } }), 'pytest.ini': '[pytest]\n' }),
    );
    expect(d.tests).toBeUndefined();
    expect(d.notes.join('\n')).toContain(
      'more than one test runner (vitest: found vitest in devDependencies; pytest: found [pytest] in pytest.ini)',
    );
  });

  it('says it found no runner in a repository without a manifest', async () => {
    const d = await detectTests(folder({ 'README.md': '' }));
    expect(d.tests).toBeUndefined();
    expect(d.notes.join('\n')).toContain('found no test runner');
  });
});

describe('detectTests: what npm test runs', () => {
  const pkg = (scripts: Record<string, string> | undefined, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name: 'x', ...(scripts ? { scripts } : {}), ...extra });

  it('takes node --test from scripts.test, with its flags (one word each) and test paths as tests.args', async () => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ test: 'node --import tsx --test --test-reporter=dot test/' }) }),
    );
    expect(d.tests).toEqual({ preset: 'node-test', args: ['--import=tsx', 'test/'] });
    expect(d.reasons[0]?.reason).toBe(
      'scripts.test runs node --test ("node --import tsx --test --test-reporter=dot test/")',
    );
    expect(d.reasons.find((r) => r.key === 'tests.args')?.value).toBe('--import=tsx test/');
  });

  it('follows npm run to the script that runs the tests', async () => {
    const d = await detectTests(
      folder({
        'package.json': pkg({ test: 'npm run test:unit', 'test:unit': 'node --test' }),
      }),
    );
    expect(d.tests).toEqual({ preset: 'node-test' });
    expect(d.reasons[0]?.reason).toContain('scripts.test → scripts.test:unit runs node --test');
  });

  it('says what it cannot carry over: a glob node 20 does not expand, a build step before the tests, variables', async () => {
    const d = await detectTests(
      folder({ 'package.json': pkg({ test: 'tsc && NODE_ENV=test node --test "dist/**/*.test.js"' }) }),
    );
    expect(d.tests).toEqual({ preset: 'node-test' });
    const notes = d.notes.join('\n');
    expect(notes).toContain('names the test files as the glob "dist/**/*.test.js"');
    expect(notes).toContain('scripts.test runs `tsc` before node --test');
    expect(notes).toContain('scripts.test sets NODE_ENV=test for node --test');
  });

  it('finds node:test from test files that import it when there is no scripts.test', async () => {
    const d = await detectTests(
      folder({
        'package.json': pkg(undefined),
        'test/a.test.mjs': "import { test } from 'node:test';\ntest('x', () => {});\n",
      }),
    );
    expect(d.tests).toEqual({ preset: 'node-test' });
    expect(d.reasons[0]?.reason).toBe(
      'test/a.test.mjs imports node:test and package.json has no scripts.test',
    );
    // No dependencies: nothing to install, and no note asking for a lockfile.
    expect(d.notes.join('\n')).not.toContain('lockfile');
  });

  it('reads vitest run and jest from scripts.test as before, and names node --test among what it knows', async () => {
    const v = await detectTests(
      folder({
        'package.json': pkg({ test: 'vitest run --coverage' }, { devDependencies: { vitest: '4' } }),
      }),
    );
    expect(v.tests?.preset).toBe('vitest');
    const none = await detectTests(folder({ 'package.json': pkg({ test: 'make check' }) }));
    expect(none.tests).toBeUndefined();
    expect(none.notes[0]).toContain('runs none of vitest, jest, mocha, node --test');
  });
});

describe('detectTests: where the repository runs its tests (CI, tox, nox, make)', () => {
  const WORKFLOW = (run: string, name = 'Run tests') =>
    `on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: ${name}\n        run: ${run}\n`;

  it('finds pytest declared only in tox.ini and test-requirements.txt, says where, and takes the test paths tox passes', async () => {
    const d = await detectTests(
      folder({
        'setup.py': 'from setuptools import setup\nsetup()\n',
        'test-requirements.txt': 'pytest\n',
        'tox.ini':
          '[tox]\nenvlist = py3\n\n[testenv]\ndeps = -rtest-requirements.txt\ncommands = pytest {posargs:tests}\n',
        'tests/test_a.py': 'def test_a():\n    pass\n',
      }),
    );
    expect(d.tests).toEqual({ preset: 'pytest', args: ['tests'] });
    expect(d.reasons).toEqual([
      {
        key: 'tests.preset',
        value: 'pytest',
        reason: 'found pytest in test-requirements.txt:1; tox.ini runs pytest: `pytest tests` (tox.ini:6)',
      },
      {
        key: 'tests.args',
        value: 'tests',
        reason: "what `pytest tests` (tox.ini:6) adds to the preset's pytest command",
      },
    ]);
  });

  it('finds a runner named only in a Makefile test target or a noxfile session', async () => {
    const make = await detectTests(
      folder({ Makefile: 'PY = python3\n\n.PHONY: test\ntest:\n\t$(PY) -m pytest -q\n', 'test_a.py': '' }),
    );
    expect(make.tests).toEqual({ preset: 'pytest' });
    expect(make.reasons[0]?.reason).toBe('Makefile runs pytest: `python3 -m pytest -q` (Makefile:5)');
    const nox = await detectTests(
      folder({
        'noxfile.py':
          'import nox\n\n# session.run("jest")\n@nox.session\ndef tests(session):\n    session.run("pytest", *session.posargs)\n',
      }),
    );
    expect(nox.tests).toEqual({ preset: 'pytest' });
    expect(nox.reasons[0]?.reason).toBe('noxfile.py runs pytest: `pytest` (noxfile.py:6)');
  });

  it('takes the CI test step as the strongest hint: it chooses between two manifests, and its -x is left out', async () => {
    const d = await detectTests(
      folder({
        'package.json': pkg({ devDependencies: { vitest: '1' } }),
        'pytest.ini': '[pytest]\n',
        'tests/test_a.py': '',
        '.github/workflows/ci.yml': WORKFLOW('python -m pytest tests/ -x -m "not slow"'),
      }),
    );
    expect(d.tests).toEqual({ preset: 'pytest', args: ['tests/', '-m', 'not slow'] });
    expect(d.reasons[0]?.reason).toBe(
      'found [pytest] in pytest.ini; the CI test step runs pytest: `python -m pytest tests/ -x -m "not slow"` (.github/workflows/ci.yml:8, step "Run tests")',
    );
    const notes = d.notes.join('\n');
    expect(notes).toContain('also found vitest (found vitest in devDependencies); the gate runs pytest');
    expect(notes).toContain('left out of tests.args what .github/workflows/ci.yml:8 also passes pytest (-x)');
  });

  it('takes a runner the CI names when no manifest does, and beats the task files', async () => {
    const d = await detectTests(
      folder({
        Makefile: 'test:\n\tnpx mocha\n',
        'tox.ini': '[testenv]\ncommands = pytest\n',
        '.gitlab-ci.yml': 'unit:\n  script:\n    - tox -e py\n',
      }),
    );
    expect(d.tests).toEqual({ preset: 'pytest' });
    expect(d.reasons[0]?.reason).toBe(
      'the CI test step runs pytest: `tox -e py` (.gitlab-ci.yml:3, step "unit") → `pytest` (tox.ini:2)',
    );
    // Without the CI's word, two task files naming two runners are a choice for a human.
    const unsure = await detectTests(
      folder({ Makefile: 'test:\n\tnpx mocha\n', 'tox.ini': '[testenv]\ncommands = pytest\n' }),
    );
    expect(unsure.tests).toBeUndefined();
    expect(unsure.notes.join('\n')).toContain(
      'the task files run more than one test runner (pytest: `pytest` (tox.ini:2); mocha: `npx mocha` (Makefile:2))',
    );
  });

  it('follows the CI step through npm test, and needs the runner installed by package.json when only the CI names it', async () => {
    const via = await detectTests(
      folder({
        'package.json': pkg({ scripts: { test: 'make check' }, devDependencies: { vitest: '1' } }),
        'package-lock.json': '{}',
        Makefile: 'check:\n\tvitest run\n',
        '.github/workflows/ci.yml': WORKFLOW('npm test'),
      }),
    );
    expect(via.tests).toEqual({ preset: 'vitest', setup: ['npm', 'ci'] });
    expect(via.reasons[0]?.reason).toBe(
      'found vitest in devDependencies; the CI test step runs vitest: `npm test` (.github/workflows/ci.yml:8, step "Run tests") → `make check` (package.json:1) → `vitest run` (Makefile:2)',
    );
    const missing = await detectTests(
      folder({ 'package.json': pkg({ name: 'x' }), '.github/workflows/ci.yml': WORKFLOW('npx vitest run') }),
    );
    expect(missing.tests).toBeUndefined();
    expect(missing.notes.join('\n')).toContain('but package.json does not list vitest in its dependencies');
  });

  it('lets the manifests decide when the CI runs two runners, and says so', async () => {
    const d = await detectTests(
      folder({
        'pytest.ini': '[pytest]\n',
        '.github/workflows/ci.yml':
          'jobs:\n  t:\n    steps:\n      - name: test py\n        run: pytest\n      - name: test go\n        run: go test ./...\n',
      }),
    );
    expect(d.tests).toEqual({ preset: 'pytest' });
    expect(d.reasons[0]?.reason).toContain('found [pytest] in pytest.ini; the CI test step runs pytest');
    const both = await detectTests(
      folder({
        '.github/workflows/ci.yml':
          'jobs:\n  t:\n    steps:\n      - name: test py\n        run: pytest\n      - name: test go\n        run: go test ./...\n',
      }),
    );
    expect(both.tests).toBeUndefined();
    expect(both.notes.join('\n')).toContain('the CI workflows run more than one test runner');
  });

  it('writes no tests for a runner only the CI names that the repository cannot run, and says what to add', async () => {
    const nextest = await detectTests(
      folder({
        'Cargo.toml': '[package]\n',
        '.github/workflows/ci.yml': WORKFLOW('cargo nextest run --workspace'),
      }),
    );
    expect(nextest.tests).toBeUndefined();
    expect(nextest.notes.join('\n')).toContain(
      'the CI test step runs cargo nextest: `cargo nextest run --workspace` (.github/workflows/ci.yml:8, step "Run tests"), but the cargo-nextest preset needs a JUnit report',
    );
    const noPackage = await detectTests(folder({ '.github/workflows/ci.yml': WORKFLOW('npx jest --ci') }));
    expect(noPackage.tests).toBeUndefined();
    expect(noPackage.notes.join('\n')).toContain('but there is no package.json to install jest from');
    const go = await detectTests(folder({ '.github/workflows/ci.yml': WORKFLOW('go test ./...') }));
    expect(go.tests).toEqual({ preset: 'go' });
  });

  it('names a CI runner without a preset and what to set instead', async () => {
    const d = await detectTests(
      folder({ '.github/workflows/ci.yml': WORKFLOW('python -m unittest discover') }),
    );
    expect(d.tests).toBeUndefined();
    expect(d.notes.join('\n')).toContain(
      'the CI test step runs python -m unittest: `python -m unittest discover` (.github/workflows/ci.yml:8, step "Run tests"), which has no preset; pytest runs unittest test cases',
    );
  });

  it('suggests the section a human most likely wants when it writes none', async () => {
    expect((await detectTests(folder({ 'setup.py': '' }))).suggestion).toEqual({ preset: 'pytest' });
    expect((await detectTests(folder({ 'README.md': '' }))).suggestion).toEqual({
      command: ['YOUR-TEST-COMMAND', '--junit-output={junit}'],
    });
    const two = await detectTests(
      folder({ 'package.json': pkg({ devDependencies: { vitest: '1' } }), 'pytest.ini': '[pytest]\n' }),
    );
    expect(two.suggestion).toEqual({ preset: 'vitest' });
  });
});
