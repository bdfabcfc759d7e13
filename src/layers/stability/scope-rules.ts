/**
 * What a changed path is, for the stability probe: something every test
 * loads (the runner's configuration, a conftest, a setup file, a manifest or
 * lockfile, the interpreter's start-up hooks), so every test is probed; a
 * module the import graph can follow; a file some test may read by name
 * (data, documents); or code the graph cannot follow (a C extension's
 * source), which again means every test.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import { sectionRuleFor } from '../../overlay/sections.js';

export type PathKind =
  /** Loaded by or before every test, or followed by no graph: every test is probed. */
  | { kind: 'all'; why: string; manifest?: true }
  /** A JavaScript/TypeScript (or JSON) module, or a Python module: reached through imports. */
  | { kind: 'module'; lang: 'js' | 'py' }
  /**
   * Read at run time by name, if at all (JSON too: a test may import it, or list its folder): reached
   * through an import, or when a string of a test's closure names it or a folder it is in.
   */
  | { kind: 'data' }
  /** A snapshot file, which belongs to the test file it is named after. */
  | { kind: 'snapshot'; test: string };

export const JS_MODULE = /\.(?:[cm]?[jt]sx?)$/;
const TYPE_ONLY = /\.d\.[cm]?ts$|\.pyi$/;

/** Dependency manifests and lockfiles: what is installed for every test. */
const MANIFESTS = new Set([
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'bun.lock',
  'bun.lockb',
  '.yarnrc',
  '.yarnrc.yml',
  '.npmrc',
  '.pnpmfile.cjs',
  'bunfig.toml',
  'setup.py',
  'setup.cfg',
  'pyproject.toml',
  'Pipfile',
  'Pipfile.lock',
  'poetry.lock',
  'uv.lock',
  'pdm.lock',
  'pip.conf',
  'MANIFEST.in',
]);
const REQUIREMENTS = /^(?:requirements.*\.(?:txt|in)|constraints.*\.txt)$/;

/** What a runner reads before, or around, every test it runs. */
const RUNNER_FILES = picomatch(
  [
    // pytest and the interpreter.
    '**/conftest.py',
    '**/pytest.ini',
    '**/.pytest.ini',
    '**/pytest.toml',
    '**/.pytest.toml',
    '**/tox.ini',
    '**/.coveragerc',
    '**/sitecustomize.py',
    '**/usercustomize.py',
    '**/*.pth',
    '**/*.dist-info/**',
    '**/*.egg-info/**',
    '**/.hypothesis/**',
    // JavaScript runners, their transpilers and the files vite loads in test mode.
    '**/vitest.config.*',
    '**/vite.config.*',
    '**/vitest.workspace.*',
    '**/vitest.projects.*',
    '**/vitest.setup.*',
    '**/jest.config.*',
    '**/jest.setup.*',
    '**/jest.preset.*',
    '**/jest-preset.*',
    '**/.mocharc',
    '**/.mocharc.*',
    '**/babel.config.*',
    '**/.babelrc',
    '**/.babelrc.*',
    '**/.swcrc',
    '**/.nycrc',
    '**/.nycrc.*',
    '**/.c8rc',
    '**/.c8rc.*',
    '**/*.setup.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
    '**/setupTests.{js,jsx,ts,tsx,mjs,cjs}',
    '**/test-setup.{js,ts,mjs,cjs}',
    // jest uses a module's __mocks__ twin for every test that mocks it, without an import naming the file.
    '**/__mocks__/**',
    '**/.env',
    '**/.env.*',
    '**/tsconfig*.json',
    '**/jsconfig*.json',
  ],
  { dot: true },
);

/** Source of code that is compiled or loaded in ways no import graph of ours follows. */
const NATIVE =
  /\.(?:c|h|cc|cpp|cxx|hpp|hh|m|mm|rs|go|pyx|pxd|pxi|zig|f|f90|java|kt|scala|swift|cs|wasm|wat|so|dylib|dll|node|pyd)$/i;

/**
 * The kind of a changed repository path. `lockfiles` are the config's
 * `tests.reuse` names, on top of the common ones.
 */
export function pathKind(p: string, lockfiles: ReadonlySet<string>): PathKind {
  const name = path.posix.basename(p);
  if (MANIFESTS.has(name) || REQUIREMENTS.test(name) || lockfiles.has(p) || lockfiles.has(name))
    return {
      kind: 'all',
      why: `${p} is a dependency manifest or lockfile: it decides what every test runs with`,
      manifest: true,
    };
  if (sectionRuleFor(p))
    return {
      kind: 'all',
      why: `${p} is a mixed file whose sections configure the test runner or the compiler`,
    };
  if (RUNNER_FILES(p))
    return { kind: 'all', why: `${p} configures the test runner, or runs before every test` };
  if (NATIVE.test(name))
    return { kind: 'all', why: `${p} is compiled or loaded in ways the import graph cannot follow` };
  const snap = /^(.*?)(?:^|\/)__snapshots__\/(.+)\.snap$/.exec(p);
  if (snap) return { kind: 'snapshot', test: path.posix.join(snap[1] ?? '', snap[2] ?? '') };
  if (TYPE_ONLY.test(name)) return { kind: 'data' };
  if (JS_MODULE.test(name)) return { kind: 'module', lang: 'js' };
  if (name.endsWith('.py')) return { kind: 'module', lang: 'py' };
  return { kind: 'data' };
}
