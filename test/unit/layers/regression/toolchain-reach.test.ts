import { describe, expect, it } from 'vitest';
import type { PatchgateConfigInput } from '../../../../src/config/schema.js';
import { reachFindings } from '../../../../src/layers/regression/reach.js';
import { toolchainFindings } from '../../../../src/layers/regression/toolchain.js';
import type { Finding } from '../../../../src/layers/types.js';
import { reachContext, type Texts } from '../../../helpers/reach-context.js';

const toolchain = async (base: Texts, head: Texts) =>
  toolchainFindings(await reachContext(base, head), 'regression');
const reach = async (base: Texts, head: Texts, config?: PatchgateConfigInput) =>
  reachFindings(await reachContext(base, head, config), 'regression');

const pkg = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
const changesOf = (f: Finding | undefined) => (f?.evidence.changes ?? []) as string[];

describe('toolchainFindings: package.json', () => {
  const base = {
    devDependencies: { vitest: '^2.0.0', typescript: '^5.0.0' },
    dependencies: { lodash: '^4.0.0' },
  };

  it('reports a changed devDependencies.vitest version', async () => {
    const head = { ...base, devDependencies: { ...base.devDependencies, vitest: '^3.0.0' } };
    const findings = await toolchain({ 'package.json': pkg(base) }, { 'package.json': pkg(head) });
    expect(findings).toHaveLength(1);
    const [f] = findings;
    expect(f).toMatchObject({
      code: 'TOOLCHAIN_CHANGED',
      layer: 'regression',
      severity: 'reject',
      evidence: { path: 'package.json' },
    });
    expect(changesOf(f)).toEqual(['changed devDependencies.vitest']);
    expect(f?.message).toContain('changed devDependencies.vitest');
  });

  it('reports nothing for an unrelated dependency change (lodash, typescript)', async () => {
    const head = {
      ...base,
      devDependencies: { ...base.devDependencies, typescript: '^5.9.0' },
      dependencies: { lodash: '^4.17.21', zod: '^4.0.0' },
    };
    expect(await toolchain({ 'package.json': pkg(base) }, { 'package.json': pkg(head) })).toEqual([]);
  });

  it('reports a test tool added as a dependency or forced through overrides', async () => {
    const head = {
      ...base,
      dependencies: { ...base.dependencies, 'fast-check': '^3.0.0' },
      overrides: { vitest: '1.0.0' },
    };
    const [f] = await toolchain({ 'package.json': pkg(base) }, { 'package.json': pkg(head) });
    expect(changesOf(f).sort()).toEqual(['added dependencies.fast-check', 'added overrides.vitest']);
  });

  it('reports scoped runner packages (@vitest/*) too', async () => {
    const head = { ...base, devDependencies: { ...base.devDependencies, '@vitest/coverage-v8': '^2.0.0' } };
    const [f] = await toolchain({ 'package.json': pkg(base) }, { 'package.json': pkg(head) });
    expect(changesOf(f)).toEqual(['added devDependencies.@vitest/coverage-v8']);
  });
});

describe('toolchainFindings: lockfiles', () => {
  const lock = (vitest: string, lodash = '4.17.20') =>
    pkg({
      name: 'app',
      lockfileVersion: 3,
      packages: {
        '': { name: 'app' },
        'node_modules/vitest': {
          version: vitest,
          resolved: `https://r/vitest-${vitest}.tgz`,
          integrity: 'sha512-x',
        },
        'node_modules/lodash': { version: lodash },
      },
    });

  it('reports a changed packages["node_modules/vitest"].version in package-lock.json', async () => {
    const findings = await toolchain(
      { 'package-lock.json': lock('2.0.0') },
      { 'package-lock.json': lock('2.0.1') },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.path).toBe('package-lock.json');
    expect(changesOf(findings[0])).toEqual(['changed node_modules/vitest']);
  });

  it('reports nothing when only a non-tool package moves in package-lock.json', async () => {
    expect(
      await toolchain(
        { 'package-lock.json': lock('2.0.0') },
        { 'package-lock.json': lock('2.0.0', '4.17.21') },
      ),
    ).toEqual([]);
  });

  it('reports a changed vitest stanza in yarn.lock, and not a lodash one', async () => {
    const yarn = (vitest: string, lodash: string) =>
      [
        'lodash@^4.0.0:',
        `  version "${lodash}"`,
        `  resolved "https://r/lodash-${lodash}.tgz"`,
        '',
        'vitest@^2.0.0:',
        `  version "${vitest}"`,
        `  resolved "https://r/vitest-${vitest}.tgz"`,
        '',
      ].join('\n');
    const findings = await toolchain(
      { 'yarn.lock': yarn('2.0.0', '4.0.0') },
      { 'yarn.lock': yarn('2.0.1', '4.0.0') },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.path).toBe('yarn.lock');
    expect(changesOf(findings[0]).some((c) => c.includes('vitest@^2.0.0') && c.includes('2.0.1'))).toBe(true);
    expect(
      await toolchain({ 'yarn.lock': yarn('2.0.0', '4.0.0') }, { 'yarn.lock': yarn('2.0.0', '4.1.0') }),
    ).toEqual([]);
  });
});

describe('toolchainFindings: Python requirements', () => {
  const base = 'requests==2.31.0\npytest==8.0.0\n';

  it('reports a changed pytest pin in requirements.txt', async () => {
    const findings = await toolchain(
      { 'requirements.txt': base },
      { 'requirements.txt': base.replace('8.0.0', '7.0.0') },
    );
    expect(findings).toHaveLength(1);
    expect(changesOf(findings[0]).sort()).toEqual(['added pytest==7.0.0', 'removed pytest==8.0.0']);
  });

  it('reports an --index-url line added to requirements.txt', async () => {
    const findings = await toolchain(
      { 'requirements.txt': base },
      { 'requirements.txt': `--index-url https://pypi.example.com/simple\n${base}` },
    );
    expect(findings).toHaveLength(1);
    expect(changesOf(findings[0])).toEqual(['added --index-url https://pypi.example.com/simple']);
  });

  it('reports nothing for a changed non-tool pin', async () => {
    expect(
      await toolchain({ 'requirements.txt': base }, { 'requirements.txt': base.replace('2.31.0', '2.32.0') }),
    ).toEqual([]);
  });

  it('reports a pytest plugin added to requirements-dev.txt', async () => {
    const findings = await toolchain({}, { 'requirements-dev.txt': 'pytest-randomly==3.0\n' });
    expect(changesOf(findings[0])).toEqual(['added pytest-randomly==3.0']);
  });
});

describe('toolchainFindings: vendored tools and start-up hooks', () => {
  it('reports a committed node_modules once, not once per file', async () => {
    const findings = await toolchain(
      {},
      {
        'node_modules/foo/index.js': 'module.exports = 1;\n',
        'node_modules/foo/package.json': pkg({ name: 'foo', version: '1.0.0' }),
        'node_modules/foo/lib/util.js': 'exports.x = 1;\n',
      },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.path).toBe('node_modules');
    // The message names the folder and how much of it, not the first file alone.
    expect(findings[0]?.message).toMatch(/^node_modules: .*: 3 files$/);
    expect(findings[0]?.evidence.changes).toHaveLength(3);
  });

  it("reports a committed node_modules package's package.json changed on its own", async () => {
    // A runner's manifest rewritten to load another entry point: no dependency entry changes.
    const manifest = (main: string) =>
      pkg({ name: 'vitest', version: '2.0.0', main, dependencies: { tinyspy: '1' } });
    const findings = await toolchain(
      { 'node_modules/vitest/package.json': manifest('index.js') },
      { 'node_modules/vitest/package.json': manifest('evil.js') },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.path).toBe('node_modules');
    expect(String(findings[0]?.evidence.what)).toContain('committed node_modules');
  });

  it('names a committed node_modules as such even when its package.json lists test tools', async () => {
    const findings = await toolchain(
      {},
      {
        'node_modules/foo/package.json': pkg({ name: 'foo', devDependencies: { vitest: '1' } }),
        'node_modules/foo/index.js': 'module.exports = 1;\n',
      },
    );
    expect(findings).toHaveLength(1);
    expect(String(findings[0]?.evidence.what)).toContain('committed node_modules');
  });

  it('reports an added src/sitecustomize.py', async () => {
    const findings = await toolchain({}, { 'src/sitecustomize.py': 'import os\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toMatchObject({
      path: 'src/sitecustomize.py',
      changes: ['added src/sitecustomize.py'],
    });
  });

  it('reports a module shadowing pytest and a .pth file', async () => {
    const findings = await toolchain({}, { 'src/pytest.py': 'x = 1\n', 'src/hook.pth': 'import evil\n' });
    expect(findings.map((f) => f.evidence.path).sort()).toEqual(['src/hook.pth', 'src/pytest.py']);
  });

  it('reports nothing for an unrelated src/a.py', async () => {
    expect(
      await toolchain({ 'src/a.py': 'x = 1\n' }, { 'src/a.py': 'x = 2\n', 'src/b.py': 'y = 1\n' }),
    ).toEqual([]);
  });
});

describe('reachFindings: JavaScript production code', () => {
  it("reports production src/a.ts newly importing 'vitest', with its line", async () => {
    const findings = await reach(
      { 'src/a.ts': 'export const a = 1;\n' },
      { 'src/a.ts': "export const a = 1;\n\nimport { vi } from 'vitest';\n" },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      code: 'PRODUCTION_REACHES_TESTS',
      layer: 'regression',
      severity: 'reject',
      evidence: { path: 'src/a.ts', line: 3 },
    });
    expect(findings[0]?.message).toContain("src/a.ts:3: production code imports the test module 'vitest'");
  });

  it("reports src/a.ts importing '../test/helpers.js' (test side under the vitest preset)", async () => {
    const findings = await reach(
      {},
      { 'src/a.ts': "import { fake } from '../test/helpers.js';\nexport const a = fake;\n" },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toMatchObject({ path: 'src/a.ts', line: 1 });
    expect(String(findings[0]?.evidence.reach)).toBe("imports test-side code '../test/helpers.js'");
  });

  it('reports nothing for a relative import of production code', async () => {
    expect(await reach({}, { 'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n" })).toEqual([]);
  });

  it('reports reading process.env.VITEST', async () => {
    const findings = await reach(
      { 'src/a.ts': 'export const a = 1;\n' },
      { 'src/a.ts': 'export const a = process.env.VITEST ? 2 : 1;\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toMatchObject({ path: 'src/a.ts', line: 1 });
    expect(findings[0]?.message).toContain('VITEST');
  });

  it('reports only the reaches the patch added, not one the base file already had', async () => {
    const before = "import { vi } from 'vitest';\nexport const a = 1;\n";
    expect(await reach({ 'src/a.ts': before }, { 'src/a.ts': `${before}export const b = 2;\n` })).toEqual([]);
    const findings = await reach(
      { 'src/a.ts': before },
      { 'src/a.ts': `${before}export const on = process.env.VITEST_WORKER_ID;\n` },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.line).toBe(3);
  });

  it('reports nothing for a test-side file importing vitest', async () => {
    expect(
      await reach(
        {},
        {
          'src/a.test.ts':
            "import { expect, it } from 'vitest';\nit('x', () => expect(process.env.VITEST).toBeDefined());\n",
          'test/helpers.ts': "import { vi } from 'vitest';\n",
        },
      ),
    ).toEqual([]);
  });

  it('reports nothing for a deleted production file', async () => {
    expect(await reach({ 'src/a.ts': "import 'vitest';\n" }, {})).toEqual([]);
  });
});

describe('reachFindings: Python production code', () => {
  const PYTEST: PatchgateConfigInput = { tests: { preset: 'pytest' } };

  it('reports import pytest in src/calc.py', async () => {
    const findings = await reach(
      { 'src/calc.py': 'def add(a, b):\n    return a + b\n' },
      { 'src/calc.py': 'import pytest\n\ndef add(a, b):\n    return a + b\n' },
      PYTEST,
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toMatchObject({ path: 'src/calc.py', line: 1 });
    expect(String(findings[0]?.evidence.reach)).toBe("imports the test module 'pytest'");
  });

  it.each([
    "os.environ['PYTEST_CURRENT_TEST']",
    "os.environ.get('PYTEST_CURRENT_TEST')",
  ])('reports reading %s', async (read) => {
    const findings = await reach(
      { 'src/calc.py': 'import os\n\ndef add(a, b):\n    return a + b\n' },
      { 'src/calc.py': `import os\n\ndef add(a, b):\n    if ${read}:\n        return 3\n    return a + b\n` },
      PYTEST,
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toMatchObject({ path: 'src/calc.py', line: 4 });
    expect(findings[0]?.message).toContain('PYTEST_CURRENT_TEST');
  });

  it('reports importing a test-side module (tests.helpers) from production code', async () => {
    const findings = await reach({}, { 'src/calc.py': 'from tests.helpers import fake\n' }, PYTEST);
    expect(findings).toHaveLength(1);
    expect(String(findings[0]?.evidence.reach)).toBe("imports test-side code 'tests.helpers'");
  });

  it('reports only the Python reaches the patch added', async () => {
    const before = 'import pytest\n\nX = 1\n';
    expect(await reach({ 'src/calc.py': before }, { 'src/calc.py': `${before}Y = 2\n` }, PYTEST)).toEqual([]);
  });

  it('reports nothing for a test file importing pytest, or production importing the standard library', async () => {
    expect(
      await reach(
        {},
        {
          'tests/test_calc.py': 'import pytest\n',
          'src/calc.py': 'import os, sys\nfrom json import loads\n',
        },
        PYTEST,
      ),
    ).toEqual([]);
  });
});
