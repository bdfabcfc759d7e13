/**
 * The run's one analysis of the test-side diff: which files it reads (test
 * side, runner configuration, a new conftest but not a new test file), how a
 * finding's test finds the edits behind it (its own, its file's, those of a
 * conftest above it or of a runner config or setup file, its snapshot, a
 * test moved to another file, a renamed file), and what is left unexplained.
 * Real parsers: the TypeScript compiler, Python's ast in the real sandbox.
 */
import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput } from '../../../../src/config/schema.js';
import type { Change } from '../../../../src/git/changes.js';
import { analyzeTestEdits, unitNameMatches } from '../../../../src/layers/test-edits/analysis.js';
import { configFacts } from '../../../../src/layers/test-edits/config-facts.js';
import type { LayerContext } from '../../../../src/layers/types.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();
type Texts = Record<string, string>;

function context(
  base: Texts,
  head: Texts,
  config: PatchgateConfigInput,
  renames: Record<string, string> = {},
) {
  const changes: Change[] = [];
  const renamedFrom = new Set(Object.values(renames));
  for (const p of [...new Set([...Object.keys(base), ...Object.keys(head)])].sort()) {
    if (renames[p] !== undefined) changes.push({ kind: 'renamed', path: p, from: renames[p] });
    else if (renamedFrom.has(p)) continue;
    else if (!(p in base)) changes.push({ kind: 'added', path: p });
    else if (!(p in head)) changes.push({ kind: 'deleted', path: p });
    else if (base[p] !== head[p]) changes.push({ kind: 'modified', path: p });
  }
  const revision = (texts: Texts) => ({ readCommitted: async (file: string) => texts[file] });
  // A test double: the analysis reads only these fields of the context.
  return {
    changes,
    config: configSchema.parse(config),
    base: revision(base),
    head: revision(head),
    overlay: { named: [] },
    sandbox,
    logDir: tempDir('pg-analysis-'),
    env: process.env,
    signal: new AbortController().signal,
  } as unknown as LayerContext;
}

const PYTEST = { tests: { preset: 'pytest' as const } };
const VITEST = { tests: { preset: 'vitest' as const } };
const TEST_A =
  'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n';

describe('which files the analysis reads', () => {
  it('a changed test, a new conftest (hooks), but not a new test file (it only adds tests)', async () => {
    const a = await analyzeTestEdits(
      context(
        { 'tests/test_a.py': TEST_A },
        {
          'tests/test_a.py': TEST_A.replace('== 5', '> 0'),
          'tests/sub/conftest.py': 'def pytest_collection_modifyitems(items):\n    items[:] = []\n',
          'tests/test_new.py': '@__import__("pytest").mark.skip\ndef test_new():\n    assert False\n',
          'src/calc.py': 'def add(a, b):\n    return a - b\n',
        },
        PYTEST,
      ),
    );
    expect(a.edits.map((e) => [e.kind, e.file, e.test])).toEqual([
      ['hook-added', 'tests/sub/conftest.py', undefined],
      ['assertion-weakened', 'tests/test_a.py', 'test_add'],
    ]);
  });

  it('a head copy that does not parse is an unreadable edit, not silence', async () => {
    const a = await analyzeTestEdits(
      context({ 'tests/test_a.py': TEST_A }, { 'tests/test_a.py': 'def test_add(:\n' }, PYTEST),
    );
    expect(a.edits).toEqual([
      expect.objectContaining({ kind: 'unreadable', file: 'tests/test_a.py', headLine: 1 }),
    ]);
  });

  it('runner config: vitest exclude added, pytest.ini --deselect added, pyproject testpaths narrowed', async () => {
    const a = await analyzeTestEdits(
      context(
        {
          'vitest.config.ts':
            "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { exclude: ['node_modules/**'] } });\n",
          'pytest.ini': '[pytest]\naddopts = -q\n',
          'pyproject.toml':
            '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests", "more"]\n',
        },
        {
          'vitest.config.ts':
            "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { exclude: ['node_modules/**', 'test/price.test.ts'] } });\n",
          'pytest.ini': '[pytest]\naddopts = -q --deselect tests/test_a.py::test_add\n',
          'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        },
        VITEST,
      ),
    );
    expect(a.edits.map((e) => e.description).sort()).toEqual([
      'added `test/price.test.ts` to `test.exclude`',
      'added `tests/test_a.py::test_add` to `addopts --deselect`',
      'removed `more` from `testpaths`',
    ]);
  });
});

describe('forTest: the edits behind one base test', () => {
  it('its own edits first, then a conftest above it; a conftest of another folder is not its', async () => {
    const a = await analyzeTestEdits(
      context(
        { 'tests/unit/test_a.py': TEST_A, 'tests/conftest.py': '', 'other/conftest.py': '' },
        {
          'tests/unit/test_a.py': TEST_A.replace('== 5', '> 0'),
          'tests/conftest.py': 'collect_ignore = ["x.py"]\n',
          'other/conftest.py': 'def pytest_configure(config):\n    pass\n',
        },
        PYTEST,
      ),
    );
    expect(
      a.forTest({ file: 'tests/unit/test_a.py', name: 'test_add' }).map((e) => [e.kind, e.file]),
    ).toEqual([
      ['assertion-weakened', 'tests/unit/test_a.py'],
      ['runner-exclude', 'tests/conftest.py'],
    ]);
    // Not the test's own edit: the weakened test_add is not test_zero's.
    expect(a.forTest({ file: 'tests/unit/test_a.py', name: 'test_zero' }).map((e) => e.kind)).toEqual([
      'runner-exclude',
    ]);
    // A test file the patch left alone still gets the conftest above it.
    expect(a.forTest({ file: 'tests/test_b.py', name: 'test_b' }).map((e) => e.file)).toEqual([
      'tests/conftest.py',
    ]);
    expect(a.forTest({ file: 'elsewhere/test_c.py', name: 'test_c' })).toEqual([]);
  });

  it('a pytest id with parameters is its test; a jest name (spaces) and a table title (%s) match their units', () => {
    expect(unitNameMatches('TestX::test_y', 'TestX::test_y[1-2]')).toBe(true);
    expect(unitNameMatches('price > takes a fifth off', 'price takes a fifth off')).toBe(true);
    expect(unitNameMatches('price > adds %i and %i', 'price > adds 1 and 2')).toBe(true);
    expect(unitNameMatches('price > adds $a', 'price > adds 3')).toBe(true);
    expect(unitNameMatches('price > adds', 'price > adds twice')).toBe(false);
  });

  it("a JavaScript setup file configures every test; an only on another test of the file is the test's edit too", async () => {
    const spec = (a: string) =>
      `import { it, expect } from 'vitest';\n${a}('a', () => { expect(f()).toBe(1); });\nit('b', () => { expect(g()).toBe(2); });\n`;
    const a = await analyzeTestEdits(
      context(
        { 'src/x.test.ts': spec('it'), 'test/setup.ts': "import { expect } from 'vitest';\n" },
        {
          'src/x.test.ts': spec('it.only'),
          'test/setup.ts': "import { expect, vi } from 'vitest';\nvi.stubGlobal('fetch', () => 1);\n",
        },
        VITEST,
      ),
    );
    expect(a.forTest({ file: 'src/x.test.ts', name: 'b' }).map((e) => [e.kind, e.file])).toEqual([
      ['focus-added', 'src/x.test.ts'],
      ['setup-mocks', 'test/setup.ts'],
    ]);
  });

  it("a snapshot of the test rewritten is the test's edit", async () => {
    const snap = (v: string) => `exports[\`renders 1\`] = \`"${v}"\`;\n`;
    const a = await analyzeTestEdits(
      context(
        { 'src/__snapshots__/x.test.ts.snap': snap('80') },
        { 'src/__snapshots__/x.test.ts.snap': snap('81') },
        VITEST,
      ),
    );
    expect(a.forTest({ file: 'src/x.test.ts', name: 'renders' }).map((e) => e.kind)).toEqual([
      'expected-changed',
    ]);
  });

  it('a test moved to another file is compared there; a deleted test and a deleted file are named', async () => {
    const a = await analyzeTestEdits(
      context(
        { 'tests/test_a.py': TEST_A, 'tests/test_gone.py': 'def test_g():\n    assert 1 == 1\n' },
        {
          'tests/test_a.py': 'from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
          'tests/test_b.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3)\n',
        },
        PYTEST,
      ),
    );
    expect(a.forTest({ file: 'tests/test_a.py', name: 'test_add' })).toEqual([
      expect.objectContaining({
        kind: 'assertion-weakened',
        file: 'tests/test_b.py',
        baseFile: 'tests/test_a.py',
      }),
    ]);
    expect(a.forTest({ file: 'tests/test_gone.py', name: 'test_g' })).toEqual([
      expect.objectContaining({ kind: 'file-deleted', file: 'tests/test_gone.py' }),
    ]);
  });

  it('a test deleted from its file is test-deleted', async () => {
    const a = await analyzeTestEdits(
      context(
        { 'tests/test_a.py': TEST_A },
        { 'tests/test_a.py': 'from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n' },
        PYTEST,
      ),
    );
    expect(a.forTest({ file: 'tests/test_a.py', name: 'test_add' })).toEqual([
      expect.objectContaining({ kind: 'test-deleted', test: 'test_add', baseLine: 4 }),
    ]);
  });

  it('a renamed file (git rename) is compared with its base copy, found by the base path', async () => {
    const a = await analyzeTestEdits(
      context(
        { 'tests/test_a.py': TEST_A },
        { 'tests/test_calc.py': TEST_A.replace('== 5', '== 6') },
        PYTEST,
        { 'tests/test_calc.py': 'tests/test_a.py' },
      ),
    );
    expect(a.forTest({ file: 'tests/test_a.py', name: 'test_add' })).toEqual([
      expect.objectContaining({
        kind: 'expected-changed',
        file: 'tests/test_calc.py',
        baseFile: 'tests/test_a.py',
      }),
    ]);
  });

  it('a seed property is found by its id, in whichever module defines it', async () => {
    const seed = (n: number) =>
      `import fc from 'fast-check';\nexport const p = defineSeedProperty({ id: 'adds', property: fc.property(fc.nat(), (x) => f(x) === x), params: { numRuns: ${n} } });\n`;
    const a = await analyzeTestEdits(
      context(
        { 'props/a.seed.ts': seed(200) },
        { 'props/a.seed.ts': seed(20) },
        { seeds: { properties: ['props/*.seed.ts'] } },
      ),
    );
    expect(a.forTest({ file: '', name: 'adds', kind: 'seed' }).map((e) => e.kind)).toEqual([
      'examples-lowered',
    ]);
  });
});

describe('explained and unexplained', () => {
  it("an edit shown as a finding's evidence is explained; the rest are left for TEST_WEAKENED", async () => {
    const a = await analyzeTestEdits(
      context(
        { 'tests/test_a.py': TEST_A },
        { 'tests/test_a.py': TEST_A.replace('== 5', '> 0').replace('== 0', '>= 0') },
        PYTEST,
      ),
    );
    expect(a.unexplained()).toHaveLength(2);
    a.explain(a.forTest({ file: 'tests/test_a.py', name: 'test_add' }));
    expect(a.unexplained().map((e) => e.test)).toEqual(['test_zero']);
  });
});

describe('config-facts', () => {
  it('a TOML file pytest would refuse is not read', async () => {
    const ts = (await import('typescript')).default;
    expect(configFacts(ts, 'pyproject.toml', '[tool.pytest\n')).toMatchObject({ ok: false });
  });
});
