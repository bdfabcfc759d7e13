/**
 * Which paths are the tests' ("test side") and which are the code under test
 * ("production side"). The overlay revision takes every test-side path from
 * the base, so what a patch does to its tests, their configuration or the
 * property modules can add evidence but never remove any.
 *
 * `tests.paths` in the base config lists the test side; without it each
 * preset has defaults covering every file its runner reads for
 * configuration or loads before the tests. The modules the hits and seeds
 * layers name are always test side, whatever the preset, and so are the
 * files the base's runner configuration names (see runner-config/).
 */
import picomatch from 'picomatch';
import type { PatchgateConfig } from '../config/schema.js';
import type { NamedPath } from './runner-config/types.js';
import { SECTION_RULES, type SectionRule, sectionRuleFor } from './sections.js';

const COMMON = ['test/**', 'tests/**', '**/__tests__/**', '**/__snapshots__/**', '**/__mocks__/**'];
const JS_TESTS = [
  '**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*.setup.{js,ts,mjs,cjs,mts}',
  '**/setupTests.{js,ts,mjs,cjs}',
  '**/test-setup.{js,ts,mjs,cjs}',
];
/** What a JavaScript runner reads besides its own config: transpiler and coverage configs. */
const JS_TOOLING = [
  '**/babel.config.*',
  '**/.babelrc',
  '**/.babelrc.*',
  '**/.swcrc',
  '**/.nycrc',
  '**/.nycrc.*',
  '**/.c8rc',
  '**/.c8rc.*',
];
/**
 * What the Python interpreter and pytest load before any test: config files
 * in every folder (pytest looks upward from each argument), conftest files,
 * start-up hooks (`sitecustomize`, `usercustomize`, `.pth` files run by
 * `site`), the metadata folders whose `entry_points.txt` pytest and
 * Hypothesis load plugins from, coverage's config, Hypothesis's database.
 */
const PYTHON_START = [
  '**/conftest.py',
  '**/pytest.ini',
  '**/.pytest.ini',
  '**/pytest.toml',
  '**/.pytest.toml',
  '**/.coveragerc',
  '**/sitecustomize.py',
  '**/usercustomize.py',
  '**/*.pth',
  '**/*.dist-info/**',
  '**/*.egg-info/**',
  '.hypothesis/**',
];

/** What each runner loads besides the code under test. */
export const PRESET_TEST_PATHS: Readonly<Record<string, readonly string[]>> = {
  vitest: [
    ...COMMON,
    ...JS_TESTS,
    ...JS_TOOLING,
    // vitest reads vite.config.* when there is no vitest.config.*, and every project's config.
    '**/vitest.config.*',
    '**/vite.config.*',
    '**/vitest.workspace.*',
    '**/vitest.projects.*',
    '**/vitest.setup.*',
    // vite loads these for the `test` mode only.
    '**/.env.test',
    '**/.env.test.local',
  ],
  jest: [
    ...COMMON,
    ...JS_TESTS,
    ...JS_TOOLING,
    '**/jest.config.*',
    '**/jest.setup.*',
    '**/jest.preset.*',
    '**/jest-preset.*',
  ],
  mocha: [...COMMON, ...JS_TESTS, ...JS_TOOLING, '**/.mocharc', '**/.mocharc.*'],
  // What `node --test` finds without arguments (Node 20): these names, and every file under a `test` folder.
  'node-test': [
    ...COMMON,
    ...JS_TESTS,
    ...JS_TOOLING,
    '**/test/**',
    '**/*-test.{js,mjs,cjs}',
    '**/*_test.{js,mjs,cjs}',
    '**/test-*.{js,mjs,cjs}',
    '**/test.{js,mjs,cjs}',
  ],
  pytest: [...COMMON, '**/test_*.py', '**/*_test.py', ...PYTHON_START, 'testing/**'],
  go: ['**/*_test.go', '**/testdata/**'],
  'cargo-nextest': ['tests/**', '.config/nextest.toml', 'benches/**'],
  maven: ['src/test/**'],
  generic: COMMON,
};

export interface TestSide {
  /** True for a path the overlay takes from the base. */
  isTestPath(path: string): boolean;
  /** The rule that splits a mixed file by section, if the path is one. */
  ruleFor(path: string): SectionRule | undefined;
  /** Every section rule. */
  sectionRules: readonly SectionRule[];
  /** The globs in force, for the scorecard. */
  globs: readonly string[];
  /** Paths the base's runner configuration names, each with where it is named. */
  named: readonly NamedPath[];
}

/** The config's globs, or the preset's defaults, plus the hits and seeds modules. */
export function testSideGlobs(config: PatchgateConfig): string[] {
  const preset = config.tests?.preset ?? (config.tests?.command ? 'generic' : undefined);
  const base = config.tests?.paths ?? (preset ? (PRESET_TEST_PATHS[preset] ?? COMMON) : COMMON);
  const modules = [
    ...(config.hits?.properties ?? []),
    ...(config.hits?.python ?? []).map((p) => p.module),
    ...(config.seeds?.properties ?? []),
  ];
  return [...new Set([...base, ...modules])];
}

export function testSideFor(config: PatchgateConfig, named: readonly NamedPath[] = []): TestSide {
  const globs = testSideGlobs(config);
  const match = picomatch(globs, { dot: true });
  const extra = named.map((n) => {
    const yes = picomatch(n.path, { dot: true });
    const no = n.except && n.except.length > 0 ? picomatch([...n.except], { dot: true }) : () => false;
    return (p: string) => yes(p) && !no(p);
  });
  const matches = (p: string) => match(p) || extra.some((m) => m(p));
  // A mixed file's name inside a test folder (a fixture project's package.json under test/) is test data.
  const ruleFor = (p: string) => {
    const rule = sectionRuleFor(p);
    const slash = p.lastIndexOf('/');
    return rule && !(slash > 0 && matches(`${p.slice(0, slash)}/\u0000`)) ? rule : undefined;
  };
  return {
    // A mixed file is split by section, never taken whole from either side.
    isTestPath: (p) => !ruleFor(p) && matches(p),
    ruleFor,
    sectionRules: SECTION_RULES,
    globs,
    named,
  };
}
