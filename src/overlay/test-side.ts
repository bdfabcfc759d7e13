/**
 * Which paths are the tests' ("test side") and which are the code under test
 * ("production side"). The overlay revision takes every test-side path from
 * the base, so what a patch does to its tests, their configuration or the
 * property modules can add evidence but never remove any.
 *
 * `tests.paths` in the base config lists the test side; without it each
 * preset has defaults covering what its runner loads. The modules the hits
 * and seeds layers name are always test side, whatever the preset.
 */
import picomatch from 'picomatch';
import type { PatchgateConfig } from '../config/schema.js';
import { SECTION_RULES, type SectionRule } from './sections.js';

const COMMON = ['test/**', 'tests/**', '**/__tests__/**', '**/__snapshots__/**', '**/__mocks__/**'];
const JS_TESTS = [
  '**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*.setup.{js,ts,mjs,cjs,mts}',
  '**/setupTests.{js,ts,mjs,cjs}',
  '**/test-setup.{js,ts,mjs,cjs}',
];

/** What each runner loads besides the code under test. */
export const PRESET_TEST_PATHS: Readonly<Record<string, readonly string[]>> = {
  vitest: [...COMMON, ...JS_TESTS, 'vitest.config.*', 'vitest.workspace.*', 'vitest.setup.*'],
  jest: [...COMMON, ...JS_TESTS, 'jest.config.*', 'jest.setup.*', 'jest.preset.*'],
  mocha: [...COMMON, ...JS_TESTS, '.mocharc.*'],
  pytest: [
    ...COMMON,
    '**/test_*.py',
    '**/*_test.py',
    '**/conftest.py',
    'pytest.ini',
    '.pytest.ini',
    'testing/**',
  ],
  go: ['**/*_test.go', '**/testdata/**'],
  'cargo-nextest': ['tests/**', '.config/nextest.toml', 'benches/**'],
  maven: ['src/test/**'],
  generic: COMMON,
};

export interface TestSide {
  /** True for a path the overlay takes from the base. */
  isTestPath(path: string): boolean;
  /** Mixed files, split by section. */
  sectionRules: readonly SectionRule[];
  /** The globs in force, for the scorecard. */
  globs: readonly string[];
}

export function testSideFor(config: PatchgateConfig): TestSide {
  const preset = config.tests?.preset ?? (config.tests?.command ? 'generic' : undefined);
  const base = config.tests?.paths ?? (preset ? (PRESET_TEST_PATHS[preset] ?? COMMON) : COMMON);
  const modules = [
    ...(config.hits?.properties ?? []),
    ...(config.hits?.python ?? []).map((p) => p.module),
    ...(config.seeds?.properties ?? []),
  ];
  const globs = [...new Set([...base, ...modules])];
  const match = picomatch(globs, { dot: true });
  const mixed = new Set(SECTION_RULES.map((r) => r.file));
  return {
    // A mixed file is split by section, never taken whole from either side.
    isTestPath: (p) => !mixed.has(p) && match(p),
    sectionRules: SECTION_RULES,
    globs,
  };
}
