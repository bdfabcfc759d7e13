/**
 * When the head's first run need not run the whole suite again. The overlay
 * is the head's tree with the base's test side; where the two trees differ
 * only in test modules the runner collects directly (no conftest, setup
 * file, configuration or helper another file imports), every other test file
 * runs the same code with the same test code in both, in a process shaped by
 * the same configuration. Its outcomes in the overlay's run are then the
 * head's too, and the head's run need only run its own copies of the
 * differing files: one suite run less for every patch that edits or adds a
 * test next to the code.
 *
 * Anything less plain (a mixed file merged, a file the overlay took whole
 * from the base, a test module some other file names, a runner that cannot
 * run chosen files) and the head runs whole, as before.
 */
import path from 'node:path';
import { namedMatcher } from '../../util/named-glob.js';
import { canSelectFiles } from './presets.js';

/** The head's share of its first run, when the overlay's run can stand in for the rest. */
export interface HeadOwnFiles {
  /** The head's copies of the differing test files: the head runs these. */
  run: string[];
  /** Every differing test file: the overlay's outcomes from these are not the head's. */
  drop: string[];
}

export interface HeadOwnInput {
  preset: string | undefined;
  /** A custom command that cannot run chosen files (no `{tests}`) cannot run a share. */
  command: string[] | undefined;
  /** The overlay's restored (base copy over the head's) and head-only paths. */
  restored: readonly string[];
  headOnly: readonly string[];
  /** Mixed files merged section by section, and files the overlay took whole from the base. */
  merged: readonly string[];
  fromBase: readonly string[];
  /** Every path of the head's tree, and a reader of the head's committed texts. */
  headPaths: readonly string[];
  read(paths: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * The test-file globs of the base's runner configuration (vitest's
   * `include` with its `exclude`, jest's `testMatch` …): a JavaScript file
   * they match is a test module, whatever its name.
   */
  testGlobs?: readonly { path: string; except?: readonly string[] }[];
}

const PYTEST_MODULE = /^(?:test_[^/]*|[^/]*_test)\.py$/;
const JS_TEST_MODULE = /\.(?:test|spec)\.[cm]?[jt]sx?$/;
const CODE = /\.(?:py|[cm]?[jt]sx?)$/;

const JS_PRESETS = new Set(['vitest', 'jest', 'mocha', 'node-test']);
const JS_FILE = /\.[cm]?[jt]sx?$/;

function testModuleStem(
  preset: string | undefined,
  file: string,
  isConfiguredTest: (p: string) => boolean,
): string | undefined {
  const name = path.posix.basename(file);
  if (preset === 'pytest') return PYTEST_MODULE.test(name) ? name.replace(/\.py$/, '') : undefined;
  if (preset !== undefined && JS_PRESETS.has(preset) && JS_FILE.test(name))
    return JS_TEST_MODULE.test(name) || isConfiguredTest(file) ? name.replace(JS_FILE, '') : undefined;
  return undefined;
}

/** Module specifiers a JavaScript or TypeScript file loads (imports, re-exports, require, import()). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"`])([^'"`\n]+)\1/g;

/** Whether a JavaScript file loads one of `files`: a relative specifier resolving to it, or any specifier ending in its name (an alias). */
function jsLoadsAny(from: string, text: string, files: ReadonlyMap<string, string>): boolean {
  const targets = new Set([...files.keys()].map((f) => f.replace(JS_FILE, '')));
  const stems = new Set(files.values());
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[2] ?? '';
    const bare = spec.replace(JS_FILE, '');
    if (spec.startsWith('.')) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), bare));
      if (targets.has(resolved)) return true;
    } else if (stems.has(path.posix.basename(bare))) return true;
  }
  return false;
}

/** The head's own files to run, or undefined when the head must run whole. */
export async function headOwnFiles(input: HeadOwnInput): Promise<HeadOwnFiles | undefined> {
  if (!canSelectFiles(input.preset)) return undefined;
  if (input.command !== undefined && !input.command.some((a) => a.includes('{tests}'))) return undefined;
  if (input.merged.length > 0 || input.fromBase.length > 0) return undefined;
  const differing = [...new Set([...input.restored, ...input.headOnly])].sort();
  if (differing.length === 0) return undefined;
  const globs = (input.testGlobs ?? []).map((g) => namedMatcher(g.path, g.except));
  const isConfiguredTest = (p: string) => globs.some((m) => m(p));
  const stems = new Map<string, string>();
  for (const f of differing) {
    const stem = testModuleStem(input.preset, f, isConfiguredTest);
    if (stem === undefined) return undefined;
    stems.set(f, stem);
  }
  // A test module another file names (an import of its helpers) is not a leaf: its change reaches that file.
  const others = input.headPaths.filter(
    (p) => CODE.test(p) && !stems.has(p) && !p.split('/').includes('node_modules'),
  );
  const texts = await input.read(others);
  if (input.preset === 'pytest') {
    // As a whole word: `test_unit_1` is no name of `test_unit_10`.
    const named = [...new Set(stems.values())].map(
      (w) => new RegExp(`(?<![\\w])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`, 'u'),
    );
    for (const text of texts.values()) if (named.some((re) => re.test(text))) return undefined;
  } else
    for (const [file, text] of texts)
      if (JS_FILE.test(file) && jsLoadsAny(file, text, stems)) return undefined;
  const present = new Set(input.headPaths);
  return { run: differing.filter((f) => present.has(f)), drop: differing };
}
