/**
 * Every file a runner reads is test side. Each attack changes how the base's
 * tests run through a file the old defaults left to the head (a vite config,
 * a setup file the vitest config names, pytest options spelled as a TOML
 * dotted key or inline table, an interpreter start-up hook, a plugin's
 * entry point), over a real regression; the overlay must take that file
 * from the base so the base's test fails there. Real git repositories, the
 * built CLI, real vitest and pytest in the sandbox.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard, type Scorecard } from '../helpers/out.js';

async function judge(repo: GitDir, env: Record<string, string> = {}) {
  const out = tempDir('pg-testside-out-');
  const r = await runCli(['check', '--base', 'main', '--out', out, '--today', '2026-12-01'], {
    cwd: repo.dir,
    env,
  });
  const card = readScorecard(out, r);
  const overlayFile = path.join(out, 'overlay.json');
  let overlay: Record<string, unknown> | undefined;
  try {
    overlay = JSON.parse(readFileSync(overlayFile, 'utf8')) as Record<string, unknown>;
  } catch {
    overlay = undefined;
  }
  return { ...r, out, card, overlay, codes: card.findings.map((f) => f.code) };
}

function patch(repo: GitDir, files: Files, message: string): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit(message);
}

const regressions = (card: Scorecard) => card.findings.filter((f) => f.code === 'REGRESSION');

/** The price module and its test, on the shared vitest project. */
function priceRepo(extra: Files = {}): GitDir {
  return vitestRepo({
    'src/price.ts': 'export const net = (gross: number) => gross - Math.round(gross / 5);\n',
    'test/price.test.ts':
      "import { expect, it } from 'vitest';\nimport { net } from '../src/price.js';\nit('takes a fifth off', () => { expect(net(100)).toBe(80); });\n",
    'test/other.test.ts':
      "import { expect, it } from 'vitest';\nit('holds', () => { expect(1).toBe(1); });\n",
    ...extra,
  });
}
const BROKEN_TS = 'export const net = (gross: number) => gross - Math.round(gross / 4);\n';
const NEUTERED_SETUP =
  "import { expect } from 'vitest';\nexpect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n";

describe('every file vitest reads is test side', { timeout: 240_000 }, () => {
  it('rejects a vite.config.ts exclude when there is no vitest config (vitest reads the vite config)', async () => {
    const repo = priceRepo({
      'vite.config.ts': "export default { test: { include: ['test/**/*.test.ts'] } };\n",
    });
    patch(
      repo,
      {
        'src/price.ts': BROKEN_TS,
        'vite.config.ts':
          "export default { test: { include: ['test/**/*.test.ts'], exclude: ['test/price.test.ts'] } };\n",
      },
      'agent: faster CI',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card).map((f) => f.evidence.test)).toEqual([
      expect.stringMatching(/price\.test\.ts.*takes a fifth off/),
    ]);
    expect(r.overlay?.restored).toEqual(['vite.config.ts']);
  });

  it('rejects a neutered setup file the vitest config names outside the default test paths', async () => {
    const repo = priceRepo({
      'vitest.config.ts': "export default { test: { setupFiles: ['./config/vitest-env.ts'] } };\n",
      'config/vitest-env.ts': 'export {};\n',
    });
    patch(repo, { 'src/price.ts': BROKEN_TS, 'config/vitest-env.ts': NEUTERED_SETUP }, 'agent: env helpers');
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(r.codes).not.toContain('UNKNOWN_FAILURE_SIGNATURE');
    const f = regressions(r.card)[0];
    expect(f?.evidence).toMatchObject({ base: 'passed', overlay: 'failed' });
    expect(f?.evidence.test).toMatch(/price\.test\.ts.*takes a fifth off/);
    // The reviewer sees why that file was the base's: the config, line and key that name it.
    expect(r.overlay?.restored).toEqual(['config/vitest-env.ts']);
    expect(r.overlay?.named).toContainEqual({
      path: 'config/vitest-env.ts',
      from: 'vitest.config.ts',
      line: 1,
      key: 'test.setupFiles',
    });
  });

  it('rejects a setup file added next to the named one that a resolver would pick first', async () => {
    const repo = priceRepo({
      'vitest.config.ts': "export default { test: { setupFiles: ['./config/vitest-env'] } };\n",
      'config/vitest-env.ts': 'export {};\n',
    });
    // vite tries .mjs and .js before .ts: the head's file would be the one loaded.
    patch(repo, { 'src/price.ts': BROKEN_TS, 'config/vitest-env.js': NEUTERED_SETUP }, 'agent: js setup');
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card)).toHaveLength(1);
    expect(r.overlay?.headOnly).toEqual(['config/vitest-env.js']);
  });

  it('rejects an exclude list moved into a module the vitest config imports', async () => {
    const repo = priceRepo({
      'vitest.config.ts':
        "import { exclude } from './vitest.shared';\nexport default { test: { exclude } };\n",
      'vitest.shared.ts': "export const exclude = ['**/node_modules/**'];\n",
    });
    patch(
      repo,
      {
        'src/price.ts': BROKEN_TS,
        'vitest.shared.ts': "export const exclude = ['**/node_modules/**', 'test/price.test.ts'];\n",
      },
      'agent: skip slow',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card)).toHaveLength(1);
    expect(r.overlay?.restored).toEqual(['vitest.shared.ts']);
  });

  it('rejects a change to shared code the vitest config imports, and a human job may accept it', async () => {
    const repo = priceRepo({
      'vitest.config.ts':
        "import { TIMEOUT } from './src/limits';\nexport default { test: { testTimeout: TIMEOUT } };\n",
      'src/limits.ts': 'export const TIMEOUT = 5000;\n',
      'src/server.ts': "import { TIMEOUT } from './limits';\nexport const timeout = TIMEOUT;\n",
    });
    patch(repo, { 'src/limits.ts': 'export const TIMEOUT = 6000;\n' }, 'agent: longer timeout');
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = r.card.findings.find((x) => x.code === 'TEST_CONFIG_IMPORT_CHANGED');
    expect(f?.evidence).toMatchObject({
      path: 'src/limits.ts',
      change: 'modified',
      importedBy: 'vitest.config.ts',
      line: 1,
      alsoFrom: 'src/server.ts',
    });
    const human = await judge(repo, { PATCHGATE_TESTS_OVERRIDE: 'yes-by-hana' });
    expect(human.card.verdict).toBe('accept');
    expect(human.card.overrides.map((o) => o.code)).toEqual(['TEST_CONFIG_IMPORT_CHANGED']);
  });

  it('cannot decide when the vitest config names setup files through a call it cannot read', async () => {
    const repo = priceRepo({
      'vitest.config.ts':
        "import { setupFiles } from './tools/setup-list';\nexport default { test: { setupFiles: setupFiles() } };\n",
      'tools/setup-list.ts': "export const setupFiles = () => ['./config/env.ts'];\n",
      'config/env.ts': 'export {};\n',
    });
    patch(
      repo,
      { 'src/price.ts': 'export const net = (gross: number) => gross - gross / 5;\n' },
      'agent: simpler',
    );
    const r = await judge(repo);
    expect(r.code).toBe(2);
    expect(r.card.verdict).toBe('error');
    const f = r.card.findings.find((x) => x.code === 'TEST_CONFIG_UNREAD');
    expect(f).toMatchObject({ severity: 'error' });
    expect(f?.evidence).toMatchObject({
      path: 'vitest.config.ts',
      line: 2,
      key: 'test.setupFiles',
      value: 'setupFiles()',
      why: 'a call the gate does not evaluate',
    });
    expect(String(f?.evidence.next)).toContain('tests.paths');
  });

  it('only warns about a module alias computed by a call (its targets are production code), as eemeli/yaml writes it', async () => {
    const repo = priceRepo({
      'vitest.config.ts':
        "import { resolve } from 'node:path';\nconst at = (name: string) => resolve(import.meta.dirname, 'src', name + '.ts');\nexport default { test: { alias: { price: at('price') } } };\n",
    });
    patch(
      repo,
      { 'src/price.ts': 'export const net = (gross: number) => gross - gross / 5;\n' },
      'agent: simpler',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('accept');
    const f = r.card.findings.find((x) => x.code === 'TEST_CONFIG_UNREAD');
    expect(f).toMatchObject({ severity: 'warn', evidence: expect.objectContaining({ key: 'test.alias' }) });
    expect(String(f?.evidence.next)).toMatch(/an alias to production code needs nothing/);
  });

  it('only warns about an unreadable value when the base config lists the test side itself', async () => {
    const repo = priceRepo({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'vitest', paths: ['test/**', 'config/**', 'vitest.config.ts', 'tools/**'] },
        signatures: {},
      }),
      'vitest.config.ts':
        "import { setupFiles } from './tools/setup-list';\nexport default { test: { setupFiles: setupFiles() } };\n",
      'tools/setup-list.ts': "export const setupFiles = () => ['./config/env.ts'];\n",
      'config/env.ts': 'export {};\n',
    });
    patch(
      repo,
      { 'src/price.ts': 'export const net = (gross: number) => gross - gross / 5;\n' },
      'agent: simpler',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('accept');
    expect(r.card.findings).toEqual([
      expect.objectContaining({ code: 'TEST_CONFIG_UNREAD', severity: 'warn' }),
    ]);
  });

  it('accepts a benign new tsconfig paths entry and keeps the head code on the overlay', async () => {
    const tsconfig = (paths: Record<string, string[]>) =>
      `${JSON.stringify({ compilerOptions: { strict: true, baseUrl: '.', paths } }, null, 2)}\n`;
    const repo = priceRepo({ 'tsconfig.json': tsconfig({ '@/*': ['src/*'] }) });
    patch(
      repo,
      {
        'tsconfig.json': tsconfig({ '@/*': ['src/*'], '@lib/*': ['lib/*'] }),
        'src/price.ts': 'export const net = (gross: number) => gross - Math.round(gross * 0.2);\n',
      },
      'agent: lib alias',
    );
    const r = await judge(repo);
    expect(r.card.findings).toEqual([]);
    expect(r.card.verdict).toBe('accept');
  });
});

const CALC = 'def add(a, b):\n    return a + b\n';
const BROKEN_PY = 'def add(a, b):\n    return a + b + 1\n';
const TEST_ADD = 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';
const TEST_OTHER = 'def test_other():\n    assert True\n';
const PYPROJECT = '[project]\nname = "calc"\nversion = "1.0"\ndependencies = ["requests>=2"]\n';
const GREENWASH =
  'def pytest_collection_modifyitems(items):\n    items[:] = [i for i in items if "add" not in i.name]\n';

function pythonRepo(extra: Files = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      signatures: {},
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n',
    'pyproject.toml': PYPROJECT,
    'src/calc.py': CALC,
    'tests/test_add.py': TEST_ADD,
    'tests/test_other.py': TEST_OTHER,
    ...extra,
  });
}

const addRegression = (card: Scorecard) =>
  expect(regressions(card).map((f) => f.evidence.test)).toEqual([
    expect.stringMatching(/test_add::test_add$/),
  ]);

describe('every file pytest reads is test side', { timeout: 240_000 }, () => {
  it('rejects pytest options smuggled in pyproject.toml as a top-level dotted key', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': BROKEN_PY,
        'pyproject.toml': `tool.pytest.ini_options.addopts = "-k 'not test_add'"\n${PYPROJECT}`,
      },
      'agent: faster tests',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    addRegression(r.card);
    expect(r.overlay?.merged).toEqual(['pyproject.toml']);
  });

  it('rejects a plugin loaded through an inline table in pyproject.toml', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': BROKEN_PY,
        'src/greenwash.py': GREENWASH,
        'pyproject.toml': `tool = { pytest = { ini_options = { addopts = "-p greenwash" } } }\n${PYPROJECT}`,
      },
      'agent: tidy',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    addRegression(r.card);
  });

  it('rejects a sitecustomize.py that rewrites the pytest options as a regression, not only as a toolchain change', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': BROKEN_PY,
        'src/sitecustomize.py': 'import os\nos.environ["PYTEST_ADDOPTS"] = "-k \'not test_add\'"\n',
      },
      'agent: env',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    // The gate's loader never runs a sitecustomize of the checkout, so even the head's own run fails.
    expect(r.codes.sort()).toEqual(['REGRESSION', 'TOOLCHAIN_CHANGED', 'UNKNOWN_FAILURE_SIGNATURE']);
    // The overlay runs without the head's start-up hook, so the base's test says what the code does.
    addRegression(r.card);
    expect(r.overlay?.headOnly).toEqual(['src/sitecustomize.py']);
  });

  it("rejects a plugin registered through a committed dist-info's entry points", async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': BROKEN_PY,
        'src/greenwash.py': GREENWASH,
        'src/greenwash-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: greenwash\nVersion: 1.0\n',
        'src/greenwash-1.0.dist-info/entry_points.txt': '[pytest11]\ngreenwash = greenwash\n',
      },
      'agent: vendor helper',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    addRegression(r.card);
  });

  it('rejects a change to a plugin the base loads with -p from a production folder', async () => {
    const repo = pythonRepo({
      'pyproject.toml': `${PYPROJECT}\n[tool.pytest.ini_options]\naddopts = "-p calc_testing"\n`,
      'src/calc_testing.py': '',
    });
    patch(repo, { 'src/calc.py': BROKEN_PY, 'src/calc_testing.py': GREENWASH }, 'agent: helpers');
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    addRegression(r.card);
    expect(r.overlay?.named).toContainEqual({
      path: 'src/calc_testing.py',
      from: 'pyproject.toml',
      line: 7,
      key: 'addopts -p',
    });
  });

  it('accepts a dependency bump and a pytest option the head adds, running the head code on the overlay', async () => {
    const repo = pythonRepo({
      'pyproject.toml': `${PYPROJECT}\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n`,
    });
    patch(
      repo,
      {
        'src/calc.py': 'def add(a, b):\n    return sum((a, b))\n',
        'pyproject.toml': `${PYPROJECT.replace('requests>=2', 'requests>=2.31')}\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-q"\n`,
      },
      'agent: bump requests',
    );
    const r = await judge(repo);
    expect(r.card.findings).toEqual([]);
    expect(r.card.verdict).toBe('accept');
    expect(r.overlay?.merged).toEqual(['pyproject.toml']);
    expect(r.overlay?.overlayTests).toBe(2);
  });
});
