import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput } from '../../../../src/config/schema.js';
import type { Change } from '../../../../src/git/changes.js';
import { execFile } from '../../../../src/git/exec.js';
import { Git } from '../../../../src/git/git.js';
import { PYTHON_CHANGED_NAMES_PATH } from '../../../../src/layers/stability/changed-names.js';
import { reasonText } from '../../../../src/layers/stability/probe-report.js';
import { type ProbeScope, probeScope } from '../../../../src/layers/stability/probe-scope.js';
import { PYTHON_IMPORTS_PATH } from '../../../../src/layers/stability/scope-of-patch.js';
import { treeFiles } from '../../../../src/overlay/revision-files.js';
import { readRunnerFiles } from '../../../../src/overlay/runner-config/index.js';
import { testSideFor } from '../../../../src/overlay/test-side.js';
import { parsePythonTexts } from '../../../../src/runners/harness/python-parse.js';
import { type Files, GitDir, tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

interface Case {
  /** The head's tree. */
  files: Files;
  /** Changed paths (modified unless given as changes). */
  changed: (string | Change)[];
  /** The test files the head's first run reported; default: every file a test glob of the preset matches. */
  tests?: string[];
  config?: PatchgateConfigInput;
  toolchain?: string[];
  commands?: { text: string; where: string }[];
  packageDirMapped?: boolean;
  /**
   * The base's copies of paths whose head copy `files` holds: with it the
   * scope reads the base (changed names, test sections of manifests).
   */
  base?: Files;
  /** Whether a setup step installs dependencies (tests.setup); only read with `base`. */
  installs?: boolean;
}

const VITEST: PatchgateConfigInput = { tests: { preset: 'vitest' } };
const PYTEST: PatchgateConfigInput = { tests: { preset: 'pytest' } };

/** The scope over a real commit of `files`, with the base's runner files read as the gate reads them. */
async function scope(c: Case): Promise<ProbeScope> {
  const repo = GitDir.create(c.base ? { ...c.files, ...c.base } : c.files);
  const baseCommit = repo.head();
  if (c.base) repo.write(c.files).commit('head');
  const git = Git.forEnv(execFile, repo.dir, process.env);
  const config = configSchema.parse(c.config ?? VITEST);
  const files = await treeFiles(git, repo.head());
  const runner = await readRunnerFiles({
    files,
    config,
    configFile: 'patchgate.config.json',
    ts: () => ts,
    isTestSide: testSideFor(config).isTestPath,
  });
  const preset = config.tests?.preset ?? 'generic';
  const isTest = (p: string) =>
    preset === 'pytest' ? /(^|\/)test_[^/]*\.py$/.test(p) : /\.(test|spec)\.[cm]?[jt]sx?$/.test(p);
  const sandbox = await testSandbox();
  const logDir = tempDir('pg-scope-logs-');
  let n = 0;
  return probeScope({
    files,
    changes: c.changed.map((x) => (typeof x === 'string' ? { kind: 'modified', path: x } : x)),
    testFiles: c.tests ?? files.paths.filter(isTest),
    canSelectFiles: preset === 'vitest' || preset === 'pytest',
    preset,
    isTestPath: testSideFor(config, runner.named).isTestPath,
    named: runner.named,
    toolchain: c.toolchain ?? [],
    commands: c.commands ?? [],
    lockfiles: new Set(),
    packageDirMapped: c.packageDirMapped ?? false,
    ts: () => ts,
    parsePython: (texts) =>
      parsePythonTexts({
        sandbox,
        logDir,
        label: `imports-${++n}`,
        script: PYTHON_IMPORTS_PATH,
        python: 'python3',
        texts,
      }),
    ...(c.base
      ? {
          readBase: async (p: string) => {
            try {
              return repo.git('show', `${baseCommit}:${p}`);
            } catch {
              return undefined;
            }
          },
          diffPython: (texts: ReadonlyMap<string, string>, modules: readonly string[]) =>
            parsePythonTexts({
              sandbox,
              logDir,
              label: 'changed-names',
              script: PYTHON_CHANGED_NAMES_PATH,
              python: 'python3',
              texts,
              settings: { modules },
            }),
          installs: c.installs ?? false,
        }
      : {}),
  });
}

const probed = (s: ProbeScope) => s.probed.map((p) => p.file);
const chain = (s: ProbeScope, file: string) =>
  s.probed.find((p) => p.file === file)?.why[0]?.via.map((v) => v.file);

const PKG =
  '{"name": "app", "type": "module", "devDependencies": {"vitest": "4.0.15"}, "dependencies": {"lodash": "4"}}\n';

describe('probeScope: JavaScript and TypeScript import graphs', () => {
  it('probes the tests whose imports reach a changed module, with the chain, and no other', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'src/money.ts': 'export const cents = (x: number) => Math.round(x * 100);\n',
        'src/invoice.ts':
          "import { cents } from './money';\nexport const total = (xs: number[]) => xs.map(cents);\n",
        'src/clock.ts': 'export const now = () => Date.now();\n',
        'test/invoice.test.ts':
          "import { total } from '../src/invoice';\nimport { it } from 'vitest';\nit('t', () => total([1]));\n",
        'test/clock.test.ts':
          "import { now } from '../src/clock.js';\nimport { it } from 'vitest';\nit('c', () => now());\n",
      },
      changed: ['src/money.ts'],
    });
    expect(s.mode).toBe('affected');
    expect(probed(s)).toEqual(['test/invoice.test.ts']);
    expect(s.notProbed).toEqual(['test/clock.test.ts']);
    expect(chain(s, 'test/invoice.test.ts')).toEqual([
      'test/invoice.test.ts',
      'src/invoice.ts',
      'src/money.ts',
    ]);
    const why = s.probed[0]?.why[0];
    expect(why?.via[1]).toMatchObject({ by: "imports '../src/invoice'", line: 1 });
    expect(why && reasonText(why)).toBe("imports './money' → src/money.ts through src/invoice.ts");
  });

  it('resolves extensions, folder indexes, `./x.js` meaning `./x.ts`, require, dynamic import and re-exports', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'src/lib/index.ts': "export * from './parts.js';\n",
        'src/lib/parts.ts': 'export const p = 1;\n',
        'src/legacy.cjs': 'module.exports = 1;\n',
        'src/lazy.mjs': 'export default 2;\n',
        'test/a.test.ts': "import { p } from '../src/lib';\n",
        'test/b.test.js': "const l = require('../src/legacy.cjs');\n",
        'test/c.test.ts': "it('x', async () => { await import('../src/lazy.mjs'); });\n",
      },
      changed: ['src/lib/parts.ts', 'src/legacy.cjs', 'src/lazy.mjs'],
    });
    expect(probed(s)).toEqual(['test/a.test.ts', 'test/b.test.js', 'test/c.test.ts']);
    expect(chain(s, 'test/a.test.ts')).toEqual(['test/a.test.ts', 'src/lib/index.ts', 'src/lib/parts.ts']);
  });

  it('does not follow a type-only import (erased before anything runs)', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'src/types.ts': 'export interface T { a: number }\n',
        'test/t.test.ts': "import type { T } from '../src/types';\nconst x: T = { a: 1 };\n",
      },
      changed: ['src/types.ts'],
    });
    expect(probed(s)).toEqual([]);
  });

  it('a computed import could load any changed module: probed, saying where; not when only a document changed', async () => {
    const files = {
      'package.json': PKG,
      'src/a.ts': 'export const a = 1;\n',
      'README.md': '# app\n',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the test file's own text holds a template literal
      'test/plugins.test.ts': "const name = process.env.P ?? 'a';\nawait import(`../src/${name}.ts`);\n",
      'test/other.test.ts': "import { it } from 'vitest';\nit('o', () => {});\n",
    };
    const s = await scope({ files, changed: ['src/a.ts'] });
    expect(probed(s)).toEqual(['test/plugins.test.ts']);
    expect(s.probed[0]?.why[0]?.unresolved).toMatchObject({ file: 'test/plugins.test.ts', line: 2 });
    expect(s.probed[0]?.why[0]?.unresolved?.what).toMatch(
      /import\(…\) loads a module whose name the text does not say/,
    );
    expect((await scope({ files, changed: ['README.md'] })).probed).toEqual([]);
  });

  it('a bare name no package.json declares may be an alias: unresolved; a declared dependency and a builtin are not ours', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'src/a.ts': 'export const a = 1;\n',
        'test/dep.test.ts': "import _ from 'lodash';\nimport fs from 'node:fs';\nimport path from 'path';\n",
        'test/alias.test.ts': "import { a } from '~/a';\n",
      },
      changed: ['src/a.ts'],
    });
    expect(probed(s)).toEqual(['test/alias.test.ts']);
    expect(s.probed[0]?.why[0]?.unresolved?.what).toMatch(/'~\/a' is no file, no package of this repository/);
  });

  it("a name the runner's configuration may alias stays unresolved, even when it is the package's own", async () => {
    const s = await scope({
      files: {
        'package.json': '{"name": "yamlish", "type": "module", "devDependencies": {"vitest": "4"}}\n',
        'vitest.config.js':
          "import { resolve } from 'node:path';\nconst at = (n) => resolve(import.meta.dirname, 'src', n);\nexport default { test: { alias: { yamlish: at('index.ts') } } };\n",
        'src/index.ts': "export * from './parse';\n",
        'src/parse.ts': 'export const parse = 1;\n',
        'test/parse.test.ts': "import { parse } from 'yamlish';\n",
      },
      changed: ['src/parse.ts'],
    });
    expect(probed(s)).toEqual(['test/parse.test.ts']);
    expect(s.probed[0]?.why[0]?.unresolved?.what).toMatch(/may be an alias of the runner's configuration/);
  });

  it('follows tsconfig paths and workspace packages imported by name', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'tsconfig.json':
          '{ // paths for the app\n "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/*"] } } }\n',
        'src/a.ts': 'export const a = 1;\n',
        'packages/util/package.json': '{"name": "@me/util", "main": "dist/index.js"}\n',
        'packages/util/src/index.ts': 'export const u = 1;\n',
        'test/paths.test.ts': "import { a } from '@app/a';\n",
        'test/ws.test.ts': "import { u } from '@me/util';\n",
      },
      changed: ['src/a.ts', 'packages/util/src/index.ts'],
    });
    expect(probed(s)).toEqual(['test/paths.test.ts', 'test/ws.test.ts']);
    expect(chain(s, 'test/paths.test.ts')).toEqual(['test/paths.test.ts', 'src/a.ts']);
    expect(chain(s, 'test/ws.test.ts')).toEqual([
      'test/ws.test.ts',
      '(the production modules of packages/util)',
      'packages/util/src/index.ts',
    ]);
  });

  it("a module the runner's setup file imports reaches every test", async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'vitest.config.ts': "export default { test: { setupFiles: ['./test/setup.ts'] } };\n",
        'test/setup.ts': "import '../src/polyfill';\n",
        'src/polyfill.ts': 'globalThis.x = 1;\n',
        'test/a.test.ts': "it('a', () => {});\n",
        'test/b.test.ts': "it('b', () => {});\n",
      },
      changed: ['src/polyfill.ts'],
    });
    expect(probed(s)).toEqual(['test/a.test.ts', 'test/b.test.ts']);
    expect(chain(s, 'test/a.test.ts')).toEqual([
      'test/a.test.ts',
      "(the runner's configuration and setup files)",
      'test/setup.ts',
      'src/polyfill.ts',
    ]);
  });

  it('a data file is reached when a string of the closure names it or its folder; a document no test names is not', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'test/golden.test.ts':
          "import { readFileSync } from 'node:fs';\nimport path from 'node:path';\nconst dir = path.join(import.meta.dirname, 'fixtures');\n",
        'test/fixtures/invoice.json': '{}\n',
        'test/plain.test.ts': "it('p', () => {});\n",
        'docs/guide.md': '# guide\n',
      },
      changed: ['test/fixtures/invoice.json', 'docs/guide.md'],
    });
    expect(probed(s)).toEqual(['test/golden.test.ts']);
    expect(s.probed[0]?.why[0]?.via[1]).toMatchObject({
      file: 'test/fixtures/invoice.json',
      by: 'names "fixtures"',
    });
  });

  it('a module whose copies run the same code (formatting, comments, types) reaches no test; a change to its code does', async () => {
    const base = {
      'src/total.ts':
        "import type { Line } from './line';\n\nexport function total(lines: Line[]) {\n  return lines.reduce((a, l) => a + l.cents, 0);\n}\n",
    };
    const files = {
      'package.json': PKG,
      'src/line.ts': 'export interface Line { cents: number }\n',
      'src/total.ts':
        "import type { Line, Money } from './line'\n\n// The sum of the lines, in cents.\nexport function total(lines: readonly Line[]): Money {\n  return lines.reduce((a, l) => a + l.cents, 0)\n}\n",
      'test/total.test.ts': "import { total } from '../src/total';\nit('t', () => total([]));\n",
    };
    const same = await scope({ files, base, changed: ['src/total.ts'] });
    expect(probed(same)).toEqual([]);
    expect(same.changes.find((c) => c.path === 'src/total.ts')?.names).toEqual([]);
    const changed = await scope({
      files: { ...files, 'src/total.ts': files['src/total.ts'].replace('a + l.cents', 'a + l.cents + 0') },
      base,
      changed: ['src/total.ts'],
    });
    expect(probed(changed)).toEqual(['test/total.test.ts']);
  });

  it('a glob names the files it matches, not every file: a runner include of test sources is no name of a document', async () => {
    const files = {
      'package.json': PKG,
      'vitest.config.ts':
        "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.{js,ts}'] } });\n",
      'test/docs.test.ts': "const pages = import.meta.glob('../docs/**/*.md');\nit('d', () => {});\n",
      'test/alias.test.ts': "const star = '*';\nit('a', () => star);\n",
      'test/plain.test.ts': "it('p', () => {});\n",
      'docs/guide.md': '# guide\n',
      'notes/todo.md': '# todo\n',
    };
    const notes = await scope({ files, changed: ['notes/todo.md'] });
    expect(notes.mode).toBe('affected');
    expect(probed(notes)).toEqual([]);
    const guide = await scope({ files, changed: ['docs/guide.md'] });
    expect(probed(guide)).toEqual(['test/docs.test.ts']);
    expect(guide.probed[0]?.why[0]?.via[1]).toMatchObject({ by: 'names "../docs/**/*.md"' });
  });

  it('a test file the patch changed, and the test a snapshot belongs to, are probed', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'test/a.test.ts': "it('a', () => {});\n",
        'test/b.test.ts': "it('b', () => {});\n",
        'test/__snapshots__/b.test.ts.snap': 'exports[`b 1`] = `1`;\n',
        'test/c.test.ts': "it('c', () => {});\n",
      },
      changed: ['test/a.test.ts', 'test/__snapshots__/b.test.ts.snap'],
    });
    expect(probed(s)).toEqual(['test/a.test.ts', 'test/b.test.ts']);
    expect(s.probed[0]?.why[0]?.via).toEqual([{ file: 'test/a.test.ts', by: 'the patch changed it' }]);
  });

  it('an import of a module the patch deleted names no file of the head: probed', async () => {
    const s = await scope({
      files: {
        'package.json': PKG,
        'src/b.ts': 'export const b = 1;\n',
        'test/a.test.ts': "import { a } from '../src/a';\n",
      },
      changed: [{ kind: 'deleted', path: 'src/a.ts' }, 'src/b.ts'],
    });
    expect(probed(s)).toEqual(['test/a.test.ts']);
    expect(s.probed[0]?.why[0]?.unresolved?.what).toMatch(/'..\/src\/a' names no file of the head's tree/);
  });

  it("probes everything when the runner's configuration, a manifest, a tsconfig or the toolchain changed, saying why", async () => {
    const files = {
      'package.json': PKG,
      'vitest.config.ts': 'export default {};\n',
      'tsconfig.json': '{}\n',
      'src/a.ts': 'export const a = 1;\n',
      'test/a.test.ts': "it('a', () => {});\n",
      'test/b.test.ts': "it('b', () => {});\n",
    };
    for (const [changed, why] of [
      ['vitest.config.ts', /vitest\.config\.ts configures the test runner/],
      ['package.json', /package\.json is a dependency manifest or lockfile/],
      ['tsconfig.json', /tsconfig\.json is a mixed file/],
    ] as const) {
      const s = await scope({ files, changed: [changed] });
      expect(s.mode, changed).toBe('all');
      expect(probed(s)).toEqual(['test/a.test.ts', 'test/b.test.ts']);
      expect(s.reasons[0]).toMatch(why);
    }
    const tool = await scope({ files, changed: ['src/a.ts'], toolchain: ['package-lock.json'] });
    expect(tool.reasons).toEqual([
      "package-lock.json changes the test toolchain (TOOLCHAIN_CHANGED's rules)",
    ]);
  });

  it('probes everything when the runner cannot run chosen files, or a test says no file of the tree', async () => {
    const files = { 'package.json': PKG, 'src/a.ts': '', 'test/a.test.ts': '' };
    const jest = await scope({ files, changed: ['src/a.ts'], config: { tests: { preset: 'jest' } } });
    expect(jest.mode).toBe('all');
    expect(jest.reasons[0]).toMatch(/the jest runner, as configured, cannot run the tests of chosen files/);
    const lost = await scope({
      files,
      changed: ['src/a.ts'],
      tests: ['test/a.test.ts', 'elsewhere/b.test.ts'],
    });
    expect(lost.reasons).toEqual([
      "the first run reported tests of elsewhere/b.test.ts, which is no file of the head's tree",
    ]);
  });

  it('a file an install script or tests.setup runs by name reaches every test', async () => {
    const s = await scope({
      files: { 'package.json': PKG, 'scripts/gen.js': '', 'test/a.test.ts': '' },
      changed: ['scripts/gen.js'],
      commands: [{ text: 'node scripts/gen.js && tsc', where: 'package.json scripts.prepare' }],
    });
    expect(s.mode).toBe('all');
    expect(s.reasons).toEqual(['scripts/gen.js is run by package.json scripts.prepare before the tests']);
  });

  it('code no import graph follows (a C extension) reaches every test; an empty patch reaches none', async () => {
    const files = { 'package.json': PKG, 'native/fast.c': '', 'test/a.test.ts': '' };
    const c = await scope({ files, changed: ['native/fast.c'] });
    expect(c.reasons).toEqual(['native/fast.c is compiled or loaded in ways the import graph cannot follow']);
    const none = await scope({ files, changed: [] });
    expect(none).toMatchObject({ mode: 'affected', probed: [], notProbed: ['test/a.test.ts'] });
  });
});

describe('probeScope: Python import graphs (ast in the sandbox)', { timeout: 60_000 }, () => {
  const SRC = {
    'src/shop/__init__.py': 'from .cart import Cart\n',
    'src/shop/cart.py': 'from .money import cents\n\nclass Cart:\n    pass\n',
    'src/shop/money.py': 'def cents(x):\n    return round(x * 100)\n',
    'src/shop/clock.py': 'import time\n\ndef now():\n    return time.time()\n',
    'src/shop/report.py': 'from . import clock\n',
  };

  it('follows absolute and relative imports on a src layout; importing a submodule runs its package first', async () => {
    const s = await scope({
      config: PYTEST,
      files: {
        ...SRC,
        'tests/test_cart.py': 'from shop.cart import Cart\n',
        'tests/test_clock.py': 'import shop.clock\n',
        'tests/test_report.py': 'from shop import report\n',
        'tests/test_plain.py': 'import json\n\ndef test_x():\n    assert json.dumps(1)\n',
      },
      changed: ['src/shop/clock.py'],
    });
    // shop/__init__ imports cart (and money), not clock: only the tests that reach clock are probed.
    expect(probed(s)).toEqual(['tests/test_clock.py', 'tests/test_report.py']);
    expect(chain(s, 'tests/test_report.py')).toEqual([
      'tests/test_report.py',
      'src/shop/report.py',
      'src/shop/clock.py',
    ]);
    const money = await scope({
      config: PYTEST,
      files: { ...SRC, 'tests/test_clock.py': 'import shop.clock\n', 'tests/test_plain.py': 'import json\n' },
      changed: ['src/shop/money.py'],
    });
    expect(probed(money)).toEqual(['tests/test_clock.py']);
    expect(chain(money, 'tests/test_clock.py')).toEqual([
      'tests/test_clock.py',
      'src/shop/__init__.py',
      'src/shop/cart.py',
      'src/shop/money.py',
    ]);
  });

  it("a conftest's imports count for the tests of its folder and below; a changed conftest probes everything", async () => {
    const files = {
      ...SRC,
      'tests/api/conftest.py': 'import pytest\nfrom shop.clock import now\n',
      'tests/api/test_api.py': 'def test_a():\n    pass\n',
      'tests/test_top.py': 'def test_t():\n    pass\n',
    };
    const s = await scope({ config: PYTEST, files, changed: ['src/shop/clock.py'] });
    expect(probed(s)).toEqual(['tests/api/test_api.py']);
    expect(s.probed[0]?.why[0]?.via[1]).toMatchObject({
      file: 'tests/api/conftest.py',
      by: 'the conftest.py pytest loads for it',
    });
    const changed = await scope({ config: PYTEST, files, changed: ['tests/api/conftest.py'] });
    expect(changed.mode).toBe('all');
    expect(changed.reasons[0]).toMatch(
      /tests\/api\/conftest\.py configures the test runner, or runs before every test/,
    );
  });

  it('pytest_plugins and a literal importlib.import_module are imports; a computed one is a doubt', async () => {
    const s = await scope({
      config: PYTEST,
      files: {
        ...SRC,
        'tests/conftest.py': "pytest_plugins = ['tests.fixtures']\n",
        'tests/__init__.py': '',
        'tests/fixtures.py': 'import shop.clock\n',
        'tests/test_a.py': 'def test_a():\n    pass\n',
        'tests/test_dyn.py':
          "import importlib, os\nmod = importlib.import_module(os.environ.get('M', 'shop'))\n",
        'tests/test_lit.py': "import importlib\nimportlib.import_module('shop.report')\n",
      },
      changed: ['src/shop/clock.py'],
      tests: ['tests/test_dyn.py', 'tests/test_lit.py'],
    });
    expect(probed(s)).toEqual(['tests/test_dyn.py', 'tests/test_lit.py']);
    const dyn = s.probed.find((p) => p.file === 'tests/test_dyn.py');
    // Through the conftest's plugin first (a shorter chain), and the doubt is kept among the reasons.
    expect(dyn?.why.map((w) => w.unresolved?.what).filter(Boolean)).toEqual([
      'importlib.import_module() of a computed module name',
    ]);
  });

  it('a standard-library name never resolves to a file of the tree that shares it', async () => {
    const s = await scope({
      config: PYTEST,
      files: { 'tools/json.py': 'x = 1\n', 'tests/test_a.py': 'import json\n' },
      changed: ['tools/json.py'],
    });
    expect(probed(s)).toEqual([]);
  });

  it('an unknown name is installed code, unless the project maps package names to folders (package_dir)', async () => {
    const files = { 'lib/core.py': 'x = 1\n', 'tests/test_a.py': 'import mypkg.core\n' };
    expect(probed(await scope({ config: PYTEST, files, changed: ['lib/core.py'] }))).toEqual([]);
    const mapped = await scope({ config: PYTEST, files, changed: ['lib/core.py'], packageDirMapped: true });
    expect(probed(mapped)).toEqual(['tests/test_a.py']);
    expect(mapped.probed[0]?.why[0]?.unresolved?.what).toMatch(/maps package names to other folders/);
  });

  it('a file Python cannot parse cannot say what it imports: a doubt', async () => {
    const s = await scope({
      config: PYTEST,
      files: { ...SRC, 'tests/test_bad.py': 'def broken(:\n' },
      changed: ['src/shop/clock.py'],
    });
    expect(probed(s)).toEqual(['tests/test_bad.py']);
    expect(s.probed[0]?.why[0]?.unresolved?.what).toMatch(/it does not parse \(SyntaxError/);
  });

  it('fixtures a conftest lists by folder reach the tests it serves; a manifest probes everything', async () => {
    const files = {
      ...SRC,
      'tests/conftest.py': "import os\nstories = os.listdir('tests/test_fixtures')\n",
      'tests/test_fixtures/story_1.json': '{}\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
      'pyproject.toml': '[project]\nname = "shop"\n',
    };
    const s = await scope({ config: PYTEST, files, changed: ['tests/test_fixtures/story_1.json'] });
    expect(probed(s)).toEqual(['tests/test_a.py']);
    expect(s.probed[0]?.why[0]?.via.map((v) => v.by)).toEqual([
      undefined,
      'the conftest.py pytest loads for it',
      'names "tests/test_fixtures"',
    ]);
    const manifest = await scope({ config: PYTEST, files, changed: ['pyproject.toml'] });
    expect(manifest.reasons).toEqual([
      'pyproject.toml is a dependency manifest or lockfile: it decides what every test runs with',
    ]);
  });
  describe('what in a module the patch changed (both copies through ast)', () => {
    const LIB = {
      'src/shop/__init__.py': 'from .prices import total, tax\n\n__version__ = "1.0"\n',
      'src/shop/prices.py':
        'RATE = 0.2\n\n\ndef tax(x):\n    return x * RATE\n\n\ndef total(xs):\n    return sum(xs) + tax(sum(xs))\n\n\ndef label(x):\n    return f"{x:.2f}"\n',
      'tests/test_total.py': 'from shop import total\n\ndef test_total():\n    assert total([1]) == 1.2\n',
      'tests/test_label.py':
        'from shop.prices import label\n\ndef test_label():\n    assert label(1) == "1.00"\n',
      'tests/test_version.py': 'import shop\n\ndef test_version():\n    assert shop.__version__\n',
    };

    it('a version bump probes only the tests that mention the version; the chain says which file uses it', async () => {
      const s = await scope({
        config: PYTEST,
        files: { ...LIB, 'src/shop/__init__.py': 'from .prices import total, tax\n\n__version__ = "1.1"\n' },
        base: { 'src/shop/__init__.py': LIB['src/shop/__init__.py'] },
        changed: ['src/shop/__init__.py'],
      });
      expect(s.mode).toBe('affected');
      expect(probed(s)).toEqual(['tests/test_version.py']);
      expect(s.probed[0]?.why[0]?.uses).toEqual({ name: '__version__', file: 'tests/test_version.py' });
      expect(reasonText(s.probed[0]?.why[0] as never)).toMatch(
        /tests\/test_version\.py uses __version__, which the patch changed/,
      );
      expect(s.changes.find((c) => c.path === 'src/shop/__init__.py')?.names).toEqual(['__version__']);
    });

    it('a changed helper reaches the tests of its callers in the module, and not the others', async () => {
      const s = await scope({
        config: PYTEST,
        files: {
          ...LIB,
          'src/shop/prices.py': LIB['src/shop/prices.py'].replace('x * RATE', 'round(x * RATE, 2)'),
        },
        base: { 'src/shop/prices.py': LIB['src/shop/prices.py'] },
        changed: ['src/shop/prices.py'],
      });
      // tax changed, total calls tax: test_total (through shop/__init__, which names both) is probed; label's is not.
      expect(probed(s)).toEqual(['tests/test_total.py']);
      expect(s.changes.find((c) => c.path === 'src/shop/prices.py')?.names).toEqual(['tax', 'total']);
      expect(s.notProbed).toEqual(['tests/test_label.py', 'tests/test_version.py']);
    });

    it('a reformatted module changed nothing that runs: no test is probed', async () => {
      const s = await scope({
        config: PYTEST,
        files: {
          ...LIB,
          'src/shop/prices.py': `# prices\n${LIB['src/shop/prices.py'].replace('return x * RATE', 'return (\n        x * RATE  # the rate\n    )')}`,
        },
        base: { 'src/shop/prices.py': LIB['src/shop/prices.py'] },
        changed: ['src/shop/prices.py'],
      });
      expect(probed(s)).toEqual([]);
      expect(s.changes.find((c) => c.path === 'src/shop/prices.py')?.names).toEqual([]);
      // What only a type checker reads (an `if TYPE_CHECKING:` block) never runs either.
      const typing = (from: string) =>
        `from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ${from} import Self\n\n${LIB['src/shop/prices.py']}`;
      const checked = await scope({
        config: PYTEST,
        files: { ...LIB, 'src/shop/prices.py': typing('typing_extensions') },
        base: { 'src/shop/prices.py': typing('typing') },
        changed: ['src/shop/prices.py'],
      });
      expect(probed(checked)).toEqual([]);
    });

    it('a change to code that runs at import, or that import-time code uses, probes every test that loads the module', async () => {
      const imported = await scope({
        config: PYTEST,
        files: { ...LIB, 'src/shop/prices.py': `import random\n${LIB['src/shop/prices.py']}` },
        base: { 'src/shop/prices.py': LIB['src/shop/prices.py'] },
        changed: ['src/shop/prices.py'],
      });
      expect(probed(imported)).toEqual([
        'tests/test_label.py',
        'tests/test_total.py',
        'tests/test_version.py',
      ]);
      expect(imported.changes.find((c) => c.path === 'src/shop/prices.py')?.whole).toMatch(
        /code that runs when the module is imported changed \(line 1\)/,
      );
      const used = await scope({
        config: PYTEST,
        files: {
          ...LIB,
          'src/shop/prices.py': `${LIB['src/shop/prices.py'].replace('return f', 'return "%.2f" % x or f')}\nDEFAULT = label(0)\n`,
        },
        base: { 'src/shop/prices.py': `${LIB['src/shop/prices.py']}\nDEFAULT = label(0)\n` },
        changed: ['src/shop/prices.py'],
      });
      expect(probed(used)).toHaveLength(3);
      expect(used.changes.find((c) => c.path === 'src/shop/prices.py')?.whole).toMatch(/refers to label/);
    });

    it('a function behind an unknown decorator, or a test that reaches attributes by computed names, is probed', async () => {
      const decorated = `from .registry import register\n\n\n@register\ndef label(x):\n    return str(x)\n`;
      const reg = await scope({
        config: PYTEST,
        files: {
          ...LIB,
          'src/shop/registry.py': 'def register(f):\n    return f\n',
          'src/shop/fmt.py': decorated.replace('str(x)', 'repr(x)'),
          'tests/test_fmt.py': 'import shop.fmt\n',
        },
        base: { 'src/shop/fmt.py': decorated },
        changed: ['src/shop/fmt.py'],
      });
      expect(probed(reg)).toEqual(['tests/test_fmt.py']);
      const computed = await scope({
        config: PYTEST,
        files: {
          ...LIB,
          'src/shop/prices.py': LIB['src/shop/prices.py'].replace('x:.2f', 'x:.3f'),
          'tests/test_dynamic.py':
            'import shop.prices as p\n\ndef test_all():\n    for n in ("la" + "bel",):\n        getattr(p, n)(1)\n',
        },
        base: { 'src/shop/prices.py': LIB['src/shop/prices.py'] },
        changed: ['src/shop/prices.py'],
      });
      expect(probed(computed)).toEqual(['tests/test_dynamic.py', 'tests/test_label.py']);
      expect(computed.probed[0]?.why[0]?.uses).toMatchObject({
        file: 'tests/test_dynamic.py',
        computed: true,
      });
    });

    it('without a setup step a lockfile, or a manifest changed outside its test sections, probes nothing; with one, or a changed pytest section, everything', async () => {
      const files = {
        ...LIB,
        'pyproject.toml':
          '[project]\nname = "shop"\nversion = "1.1"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
        'uv.lock': 'version = 2\n',
      };
      const base = {
        'pyproject.toml': files['pyproject.toml'].replace('1.1', '1.0'),
        'uv.lock': 'version = 1\n',
      };
      const inert = await scope({ config: PYTEST, files, base, changed: ['pyproject.toml', 'uv.lock'] });
      expect(inert.mode).toBe('affected');
      expect(probed(inert)).toEqual([]);
      expect(inert.changes.find((c) => c.path === 'uv.lock')?.inert).toMatch(
        /no setup step installs from it/,
      );
      const installed = await scope({ config: PYTEST, files, base, changed: ['uv.lock'], installs: true });
      expect(installed.mode).toBe('all');
      const pytestSection = await scope({
        config: PYTEST,
        files,
        base: { 'pyproject.toml': files['pyproject.toml'].replace('"-q"', '"-x"') },
        changed: ['pyproject.toml'],
      });
      expect(pytestSection.mode).toBe('all');
    });
  });
});
