import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput, TEST_PRESETS } from '../../../src/config/schema.js';
import { PRESET_TEST_PATHS, testSideFor } from '../../../src/overlay/test-side.js';

/** A config as the gate runs on it: through the real schema, defaults filled in. */
const config = (input: PatchgateConfigInput) => configSchema.parse(input);

describe('PRESET_TEST_PATHS', () => {
  it('has defaults for every test preset', () => {
    for (const preset of TEST_PRESETS) expect(PRESET_TEST_PATHS[preset], preset).toBeDefined();
  });
});

describe('testSideFor: preset defaults', () => {
  it('puts tests/**, conftest.py anywhere and pytest.ini on the test side under pytest', () => {
    const side = testSideFor(config({ tests: { preset: 'pytest' } }));
    for (const p of [
      'tests/test_calc.py',
      'tests/data/case.json',
      'conftest.py',
      'src/conftest.py',
      'src/pkg/deep/conftest.py',
      'pytest.ini',
      'src/pkg/test_util.py',
      'src/pkg/util_test.py',
    ])
      expect(side.isTestPath(p), p).toBe(true);
    for (const p of ['src/calc.py', 'src/pkg/__init__.py', 'setup.py', 'README.md', 'src/testing.py'])
      expect(side.isTestPath(p), p).toBe(false);
  });

  it('puts *.test.ts and vitest.config.* on the test side under vitest', () => {
    const side = testSideFor(config({ tests: { preset: 'vitest' } }));
    for (const p of [
      'src/a.test.ts',
      'src/deep/b.spec.tsx',
      'test/helpers.ts',
      'vitest.config.ts',
      'vitest.config.mjs',
      'src/__snapshots__/a.test.ts.snap',
      'src/__mocks__/fs.ts',
    ])
      expect(side.isTestPath(p), p).toBe(true);
    for (const p of ['src/a.ts', 'src/test-utils.ts', 'tsconfig.json', 'jest.config.js', 'src/vite.ts'])
      expect(side.isTestPath(p), p).toBe(false);
  });

  it('puts vite.config.*, project configs, workspace files, Babel and coverage configs on the test side under vitest', () => {
    const side = testSideFor(config({ tests: { preset: 'vitest' } }));
    for (const p of [
      'vite.config.ts',
      'vite.config.mjs',
      'packages/web/vite.config.ts',
      'packages/api/vitest.config.mts',
      'vitest.workspace.ts',
      'vitest.projects.json',
      'babel.config.js',
      '.babelrc',
      '.babelrc.json',
      '.swcrc',
      '.nycrc.json',
      '.c8rc',
      '.env.test',
      '.env.test.local',
    ])
      expect(side.isTestPath(p), p).toBe(true);
    for (const p of ['.env', '.env.production', 'src/vite-env.d.ts'])
      expect(side.isTestPath(p), p).toBe(false);
  });

  it('puts every file pytest and the interpreter load at start-up on the test side under pytest', () => {
    const side = testSideFor(config({ tests: { preset: 'pytest' } }));
    for (const p of [
      'pytest.toml',
      '.pytest.toml',
      'src/pkg/pytest.ini',
      'src/.pytest.ini',
      '.coveragerc',
      'sitecustomize.py',
      'src/sitecustomize.py',
      'src/usercustomize.py',
      'src/evil.pth',
      'src/greenwash-1.0.dist-info/entry_points.txt',
      'src/greenwash.egg-info/entry_points.txt',
      '.hypothesis/examples/ab/cd',
    ])
      expect(side.isTestPath(p), p).toBe(true);
    for (const p of ['src/site.py', 'src/custom.py', 'src/pkg/path.py', 'docs/dist-info.md'])
      expect(side.isTestPath(p), p).toBe(false);
  });

  it('puts jest and mocha configs, presets and Babel configs on the test side under their presets', () => {
    const jest = testSideFor(config({ tests: { preset: 'jest' } }));
    for (const p of ['jest.config.ts', 'packages/a/jest.config.js', 'jest-preset.js', 'babel.config.cjs'])
      expect(jest.isTestPath(p), p).toBe(true);
    const mocha = testSideFor(config({ tests: { preset: 'mocha' } }));
    for (const p of ['.mocharc.yml', '.mocharc.cjs', 'packages/a/.mocharc.json', '.babelrc'])
      expect(mocha.isTestPath(p), p).toBe(true);
  });

  it('matches dot files and dot folders on the test side', () => {
    const side = testSideFor(config({ tests: { preset: 'mocha' } }));
    expect(side.isTestPath('.mocharc.yml')).toBe(true);
    expect(side.isTestPath('test/.fixtures/a.json')).toBe(true);
  });

  it("does not take one runner's files as another's (pytest files are production under vitest)", () => {
    const side = testSideFor(config({ tests: { preset: 'vitest' } }));
    expect(side.isTestPath('src/conftest.py')).toBe(false);
    expect(side.isTestPath('pytest.ini')).toBe(false);
  });

  it('uses the generic defaults for a command without a preset, and for no tests section', () => {
    const generic = testSideFor(config({ tests: { command: ['make', 'test'] } }));
    expect([...generic.globs].sort()).toEqual([...(PRESET_TEST_PATHS.generic ?? [])].sort());
    expect(generic.isTestPath('tests/a.sh')).toBe(true);
    expect(generic.isTestPath('src/a.test.ts')).toBe(false);
    const none = testSideFor(config({}));
    expect(none.isTestPath('test/a.ts')).toBe(true);
    expect(none.isTestPath('src/a.ts')).toBe(false);
  });
});

describe('testSideFor: tests.paths', () => {
  it("replaces the preset's defaults rather than adding to them", () => {
    const side = testSideFor(config({ tests: { preset: 'vitest', paths: ['spec/**'] } }));
    expect(side.globs).toEqual(['spec/**']);
    expect(side.isTestPath('spec/a.ts')).toBe(true);
    expect(side.isTestPath('src/a.test.ts')).toBe(false);
    expect(side.isTestPath('vitest.config.ts')).toBe(false);
    expect(side.isTestPath('test/helpers.ts')).toBe(false);
  });
});

describe('testSideFor: property modules', () => {
  it('always puts the modules hits and seeds name on the test side', () => {
    const side = testSideFor(
      config({
        tests: { preset: 'vitest', paths: ['spec/**'] },
        hits: {
          properties: ['props/**/*.props.ts'],
          python: [{ module: 'checks/properties.py', fixture: 'testdata/f.json' }],
        },
        seeds: { properties: ['seeds/*.ts'] },
      }),
    );
    for (const p of ['props/a/b.props.ts', 'checks/properties.py', 'seeds/s.ts', 'spec/x.ts'])
      expect(side.isTestPath(p), p).toBe(true);
    expect(side.isTestPath('props/a/b.ts')).toBe(false);
    expect(side.globs).toEqual(
      expect.arrayContaining(['spec/**', 'props/**/*.props.ts', 'checks/properties.py', 'seeds/*.ts']),
    );
  });

  it('adds the modules even without a tests section', () => {
    const side = testSideFor(config({ hits: { properties: ['src/props.ts'] } }));
    expect(side.isTestPath('src/props.ts')).toBe(true);
    expect(side.isTestPath('src/other.ts')).toBe(false);
  });
});

describe('testSideFor: mixed files', () => {
  it('never takes package.json or pyproject.toml whole, even when a glob names them', () => {
    const side = testSideFor(
      config({
        tests: { preset: 'pytest', paths: ['package.json', 'pyproject.toml', 'setup.cfg', 'tox.ini', '*'] },
      }),
    );
    for (const p of ['package.json', 'pyproject.toml', 'setup.cfg', 'tox.ini'])
      expect(side.isTestPath(p), p).toBe(false);
    expect(side.isTestPath('pytest.ini')).toBe(true);
    expect(side.sectionRules.map((r) => r.name)).toEqual(
      expect.arrayContaining(['package.json', 'pyproject.toml', 'setup.cfg', 'tox.ini']),
    );
  });

  it('splits the copies in every folder, but one under a test folder is test data, taken whole', () => {
    const side = testSideFor(config({ tests: { preset: 'vitest' } }));
    expect(side.isTestPath('test/fixture-app/package.json')).toBe(true);
    expect(side.ruleFor('test/fixture-app/package.json')).toBeUndefined();
    for (const p of ['package.json', 'packages/web/package.json', 'packages/web/tsconfig.json']) {
      expect(side.isTestPath(p), p).toBe(false);
      expect(side.ruleFor(p), p).toBeDefined();
    }
    const py = testSideFor(config({ tests: { preset: 'pytest' } }));
    expect(py.ruleFor('src/pkg/pyproject.toml')?.kind).toBe('toml');
    expect(py.isTestPath('tests/data/pyproject.toml')).toBe(true);
  });
});
