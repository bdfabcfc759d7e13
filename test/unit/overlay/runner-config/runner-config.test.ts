import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput } from '../../../../src/config/schema.js';
import { execFile } from '../../../../src/git/exec.js';
import { Git } from '../../../../src/git/git.js';
import { treeFiles } from '../../../../src/overlay/revision-files.js';
import { type RunnerFiles, readRunnerFiles } from '../../../../src/overlay/runner-config/index.js';
import { testSideFor } from '../../../../src/overlay/test-side.js';
import { type Files, GitDir } from '../../../helpers/gitdir.js';

const VITEST: PatchgateConfigInput = { tests: { preset: 'vitest' } };

/** What the base's runner configuration names, read from a real commit, and the test side it gives. */
async function read(files: Files, input: PatchgateConfigInput = VITEST) {
  const repo = GitDir.create(files);
  const git = Git.forEnv(execFile, repo.dir, process.env);
  const config = configSchema.parse(input);
  const runner: RunnerFiles = await readRunnerFiles({
    files: await treeFiles(git, repo.head()),
    config,
    configFile: 'patchgate.config.json',
    ts: () => ts,
    isTestSide: testSideFor(config).isTestPath,
  });
  const side = testSideFor(config, runner.named);
  return { ...runner, test: (p: string) => side.isTestPath(p) };
}

const testSide = (r: { test: (p: string) => boolean }, paths: string[]) =>
  Object.fromEntries(paths.map((p) => [p, r.test(p)]));

describe('readRunnerFiles: vitest', () => {
  it('names the setup files a vitest config loads, however it spells their paths', async () => {
    const r = await read({
      'vitest.config.ts': `import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
const here = path.dirname(fileURLToPath(import.meta.url));
const GLOBAL = './config/global.ts';
export default defineConfig(() => ({
  test: {
    setupFiles: [
      './config/literal.ts',
      path.resolve(__dirname, 'config/resolved.ts'),
      path.join(here, 'config', 'joined.ts'),
      fileURLToPath(new URL('./config/url.ts', import.meta.url)),
      process.env.CI ? 'config/ci' : \`./config/\${'local'}.ts\`,
    ],
    globalSetup: GLOBAL,
    reporters: ['default', ['./tools/reporter.ts', { verbose: true }]],
    environment: './tools/env.ts',
    snapshotSerializers: ['./tools/serializer.ts'],
  },
}));
`,
      'src/a.ts': 'export const a = 1;\n',
    });
    expect(r.unread).toEqual([]);
    expect(
      testSide(r, [
        'config/literal.ts',
        'config/resolved.ts',
        'config/joined.ts',
        'config/url.ts',
        'config/ci.ts',
        'config/ci/index.js',
        'config/local.ts',
        'config/global.ts',
        'tools/reporter.ts',
        'tools/env.ts',
        'tools/serializer.ts',
        'src/a.ts',
        'config/other.ts',
      ]),
    ).toEqual({
      'config/literal.ts': true,
      'config/resolved.ts': true,
      'config/joined.ts': true,
      'config/url.ts': true,
      'config/ci.ts': true,
      'config/ci/index.js': true,
      'config/local.ts': true,
      'config/global.ts': true,
      'tools/reporter.ts': true,
      'tools/env.ts': true,
      'tools/serializer.ts': true,
      'src/a.ts': false,
      'config/other.ts': false,
    });
    expect(r.named).toContainEqual({
      path: 'config/literal.ts',
      from: 'vitest.config.ts',
      line: 9,
      key: 'test.setupFiles',
    });
  });

  it('takes every file a resolver may pick for a setup file named without its extension', async () => {
    const r = await read({
      'vitest.config.ts': "export default { test: { setupFiles: ['./config/setup'] } };\n",
      'config/setup.ts': 'export {};\n',
    });
    for (const p of ['config/setup.ts', 'config/setup.js', 'config/setup.mjs', 'config/setup/index.ts'])
      expect(r.test(p), p).toBe(true);
  });

  it("reads vite.config.* only when there is no vitest config, and a merged vite config's keys", async () => {
    const alone = await read({
      'vite.config.ts': "export default { test: { setupFiles: ['./tools/vite-setup.ts'] } };\n",
    });
    expect(alone.test('tools/vite-setup.ts')).toBe(true);
    const both = await read({
      'vite.config.ts': "export default { test: { setupFiles: ['./tools/vite-setup.ts'] } };\n",
      'vitest.config.ts': `import { mergeConfig, defineConfig } from 'vitest/config';
import viteConfig from './vite.config';
export default mergeConfig(viteConfig, defineConfig({ test: { globalSetup: './tools/global.ts' } }));
`,
    });
    expect(both.test('tools/global.ts')).toBe(true);
    expect(both.test('tools/vite-setup.ts')).toBe(true);
    const ignored = await read({
      'vite.config.ts': "export default { test: { setupFiles: ['./tools/vite-setup.ts'] } };\n",
      'vitest.config.ts': 'export default { test: {} };\n',
    });
    expect(ignored.test('tools/vite-setup.ts')).toBe(false);
  });

  it('takes its include globs minus its exclude globs as test files', async () => {
    const r = await read({
      'vitest.config.ts':
        "export default { test: { include: ['checks/**/*.check.ts'], exclude: ['checks/slow/**'] } };\n",
    });
    expect(
      testSide(r, ['checks/a.check.ts', 'checks/deep/b.check.ts', 'checks/slow/c.check.ts', 'checks/a.ts']),
    ).toEqual({
      'checks/a.check.ts': true,
      'checks/deep/b.check.ts': true,
      'checks/slow/c.check.ts': false,
      'checks/a.ts': false,
    });
  });

  it('takes a stub a test-only alias points at, but never a folder alias or an alias to production code', async () => {
    const r = await read({
      'vitest.config.ts': `import path from 'node:path';
export default {
  resolve: { alias: { '@': path.resolve(__dirname, 'src'), app: path.resolve(__dirname, 'src/index.ts') } },
  test: { alias: [{ find: 'virtual:env', replacement: path.resolve(__dirname, 'stubs/env.ts') }] },
};
`,
      'stubs/env.ts': 'export const env = {};\n',
      'src/index.ts': "export * from './lib';\n",
      'src/lib.ts': 'export const x = 1;\n',
    });
    expect(testSide(r, ['stubs/env.ts', 'src/index.ts', 'src/lib.ts'])).toEqual({
      'stubs/env.ts': true,
      'src/index.ts': false,
      'src/lib.ts': false,
    });
  });

  it('takes the modules the config imports, unless code imports them too (those are listed as shared)', async () => {
    const r = await read({
      'vitest.config.ts': `import { shared } from './vitest.shared';
import { PORT } from './src/constants';
export default { test: { ...shared, env: { PORT: String(PORT) } } };
`,
      'vitest.shared.ts':
        "import { helper } from './tools/helper';\nexport const shared = { setupFiles: ['./config/setup.ts'] };\n",
      'tools/helper.ts': 'export const helper = 1;\n',
      'src/constants.ts': 'export const PORT = 3000;\n',
      'src/server.ts': "import { PORT } from './constants';\nexport const port = PORT;\n",
    });
    expect(r.unread).toEqual([]);
    expect(
      testSide(r, ['vitest.shared.ts', 'tools/helper.ts', 'config/setup.ts', 'src/constants.ts']),
    ).toEqual({
      'vitest.shared.ts': true,
      'tools/helper.ts': true,
      'config/setup.ts': true,
      'src/constants.ts': false,
    });
    expect(r.shared).toEqual([
      { path: 'src/constants.ts', from: 'vitest.config.ts', line: 2, alsoFrom: 'src/server.ts' },
    ]);
  });

  it("reads every project's config, relative to its own folder", async () => {
    const r = await read({
      'vitest.config.ts':
        "export default { test: { projects: ['packages/*', { test: { name: 'inline', setupFiles: ['./tools/inline.ts'] } }] } };\n",
      'packages/a/vitest.config.ts': "export default { test: { setupFiles: ['./setup/a.ts'] } };\n",
      'packages/b/vite.config.ts': "export default { test: { globalSetup: 'setup/b.ts' } };\n",
    });
    expect(
      testSide(r, ['packages/a/setup/a.ts', 'packages/b/setup/b.ts', 'tools/inline.ts', 'setup/a.ts']),
    ).toEqual({
      'packages/a/setup/a.ts': true,
      'packages/b/setup/b.ts': true,
      'tools/inline.ts': true,
      'setup/a.ts': false,
    });
  });

  it('reports what it cannot read under a loading key, with the file, line, key and source text', async () => {
    const r = await read({
      'vitest.config.ts': `import base from '@acme/vitest-config';
import { computeSetup } from './tools/compute';
export default {
  test: {
    ...base,
    setupFiles: ['./known.ts', computeSetup()],
  },
};
`,
      'tools/compute.ts': 'export const computeSetup = () => "./x.ts";\n',
    });
    expect(r.test('known.ts')).toBe(true);
    expect(r.unread).toEqual([
      {
        file: 'vitest.config.ts',
        line: 6,
        key: 'test.setupFiles',
        value: 'computeSetup()',
        why: 'a call the gate does not evaluate',
      },
      {
        file: 'vitest.config.ts',
        line: 1,
        key: 'test.setupFiles',
        value: "'@acme/vitest-config'",
        why: 'a module from a package, which the repository does not hold',
      },
    ]);
  });

  it("reads the runner's own defaults spread into a key as the defaults the preset already covers", async () => {
    const r = await read({
      'vitest.config.ts': `import { configDefaults, defineConfig } from 'vitest/config';
export default defineConfig({ test: { include: [...configDefaults.include, 'checks/**/*.check.ts'], exclude: [...configDefaults.exclude, 'e2e/**'] } });
`,
    });
    expect(r.unread).toEqual([]);
    expect(r.test('checks/a.check.ts')).toBe(true);
  });

  it('reports a config whose export it cannot find', async () => {
    const r = await read({
      'vitest.config.ts': "import { make } from './make';\nexport default make();\n",
      'make.ts': '',
    });
    expect(r.unread).toEqual([
      expect.objectContaining({ file: 'vitest.config.ts', line: 2, key: '(configuration)', value: 'make()' }),
    ]);
  });
});

describe('readRunnerFiles: jest, Babel, mocha, node', () => {
  it('names what a jest config loads: <rootDir> paths, transforms, a stub mapper target, a preset', async () => {
    const r = await read(
      {
        'jest.config.js': `module.exports = {
  setupFilesAfterEnv: ['<rootDir>/support/jest-setup.js'],
  testEnvironment: './support/env.js',
  transform: { '^.+\\\\.js$': ['<rootDir>/support/transform.js', {}], '^.+\\\\.ts$': 'ts-jest' },
  moduleNameMapper: { '\\\\.css$': '<rootDir>/support/style-stub.js', '^@/(.*)$': '<rootDir>/src/$1' },
  preset: './support/preset',
  testMatch: ['<rootDir>/checks/**/*.check.js', '!**/skip/**'],
};
`,
        'support/style-stub.js': 'module.exports = {};\n',
        'support/preset/jest-preset.js': "module.exports = { globalSetup: '<rootDir>/support/global.js' };\n",
        'src/a.js': 'module.exports = 1;\n',
      },
      { tests: { preset: 'jest' } },
    );
    expect(r.unread).toEqual([]);
    expect(
      testSide(r, [
        'support/jest-setup.js',
        'support/env.js',
        'support/transform.js',
        'support/style-stub.js',
        'support/preset/jest-preset.js',
        'support/global.js',
        'checks/a.check.js',
        'checks/skip/b.check.js',
        'src/a.js',
      ]),
    ).toEqual({
      'support/jest-setup.js': true,
      'support/env.js': true,
      'support/transform.js': true,
      'support/style-stub.js': true,
      'support/preset/jest-preset.js': true,
      'support/global.js': true,
      'checks/a.check.js': true,
      'checks/skip/b.check.js': false,
      'src/a.js': false,
    });
  });

  it("reads package.json's jest and babel keys and a .babelrc's local plugins", async () => {
    const r = await read(
      {
        'package.json': JSON.stringify({
          name: 'x',
          jest: { setupFiles: ['./support/pkg-setup.js'] },
          babel: { plugins: ['./babel/pkg-plugin.js'] },
        }),
        '.babelrc':
          '{\n  // JSON5, as Babel reads it\n  plugins: ["./babel/rc-plugin", ["@babel/plugin-x", {}]],\n}\n',
      },
      { tests: { preset: 'jest' } },
    );
    expect(testSide(r, ['support/pkg-setup.js', 'babel/pkg-plugin.js', 'babel/rc-plugin.js'])).toEqual({
      'support/pkg-setup.js': true,
      'babel/pkg-plugin.js': true,
      'babel/rc-plugin.js': true,
    });
  });

  it("reads a YAML .mocharc's required modules and specs", async () => {
    const r = await read(
      {
        '.mocharc.yml':
          "require:\n  - ./support/register.js\nspec: 'checks/**/*.js'\nnode-option:\n  - import=./support/loader.mjs\n",
      },
      { tests: { preset: 'mocha' } },
    );
    expect(testSide(r, ['support/register.js', 'support/loader.mjs', 'checks/a.js', 'src/a.js'])).toEqual({
      'support/register.js': true,
      'support/loader.mjs': true,
      'checks/a.js': true,
      'src/a.js': false,
    });
  });

  it('reports a .mocharc.yml that is not YAML, naming the error', async () => {
    const r = await read({ '.mocharc.yml': 'require: [./a.js\n' }, { tests: { preset: 'mocha' } });
    expect(r.unread).toEqual([
      expect.objectContaining({
        file: '.mocharc.yml',
        key: '(configuration)',
        why: expect.stringMatching(/^not valid YAML: /),
      }),
    ]);
  });

  it('reads what `npm test` runs: node --test files and --import modules, NODE_OPTIONS too', async () => {
    const r = await read(
      {
        'package.json': JSON.stringify({
          name: 'x',
          scripts: {
            test: 'node --test --import ./support/register.mjs checks/',
            pretest: 'node tools/prepare.js',
          },
        }),
        'checks/a.test.mjs': '',
      },
      { tests: { command: ['npm', 'test'], env: { NODE_OPTIONS: '--require ./support/hook.cjs' } } },
    );
    expect(
      testSide(r, [
        'support/register.mjs',
        'checks/a.test.mjs',
        'checks/b.mjs',
        'tools/prepare.js',
        'support/hook.cjs',
        'src/a.js',
      ]),
    ).toEqual({
      'support/register.mjs': true,
      'checks/a.test.mjs': true,
      'checks/b.mjs': true,
      'tools/prepare.js': true,
      'support/hook.cjs': true,
      'src/a.js': false,
    });
    expect(r.named).toContainEqual(
      expect.objectContaining({
        path: 'support/register.mjs',
        from: 'package.json',
        key: 'scripts.test --import',
      }),
    );
  });
});

describe('readRunnerFiles: pytest', () => {
  it('names the plugins -p and pytest_plugins load, on every folder Python imports them from', async () => {
    const r = await read(
      {
        'pyproject.toml':
          '[tool.pytest.ini_options]\naddopts = "-p myplugins.greenwash -q"\npythonpath = ["lib"]\n',
        'tests/conftest.py': 'pytest_plugins = [\n    "tools.fixtures",  # shared\n    "tools.db",\n]\n',
        'src/calc.py': '',
      },
      { tests: { preset: 'pytest', env: { PYTHONPATH: 'src', PYTEST_PLUGINS: 'envplug' } } },
    );
    expect(r.unread).toEqual([]);
    expect(
      testSide(r, [
        'myplugins/greenwash.py',
        'src/myplugins/greenwash.py',
        'lib/myplugins/greenwash/__init__.py',
        'tests/tools/fixtures.py',
        'tools/db.py',
        'src/envplug.py',
        'src/calc.py',
        'src/myplugins/__init__.py',
      ]),
    ).toEqual({
      'myplugins/greenwash.py': true,
      'src/myplugins/greenwash.py': true,
      'lib/myplugins/greenwash/__init__.py': true,
      'tests/tools/fixtures.py': true,
      'tools/db.py': true,
      'src/envplug.py': true,
      'src/calc.py': false,
      // A plugin's parent package is code the plugin imports, not the plugin.
      'src/myplugins/__init__.py': false,
    });
    expect(r.named).toContainEqual({
      path: 'src/myplugins/greenwash.py',
      from: 'pyproject.toml',
      line: 2,
      key: 'addopts -p',
    });
  });

  it('takes python_files patterns under testpaths as test files, but never a pattern that is every module', async () => {
    const r = await read(
      { 'setup.cfg': '[tool:pytest]\ntestpaths = checks\npython_files = check_*.py *.py\n' },
      { tests: { preset: 'pytest' } },
    );
    expect(
      testSide(r, ['checks/check_a.py', 'checks/deep/check_b.py', 'src/check_c.py', 'checks/helper.py']),
    ).toEqual({
      'checks/check_a.py': true,
      'checks/deep/check_b.py': true,
      'src/check_c.py': false,
      'checks/helper.py': false,
    });
  });

  it('reports a pytest_plugins that is not a literal list of names', async () => {
    const r = await read(
      { 'conftest.py': 'import os\n\npytest_plugins = os.environ["PLUGINS"].split(",")\n' },
      { tests: { preset: 'pytest' } },
    );
    expect(r.unread).toEqual([
      {
        file: 'conftest.py',
        line: 3,
        key: 'pytest_plugins',
        value: 'pytest_plugins = os.environ["PLUGINS"].split(",")',
        why: 'pytest_plugins is not a literal list of module names',
      },
    ]);
  });
});
