/**
 * The test files a sharded run deals out. The plan must be made before any
 * test runs and be the same on every CI job, so it is read from the trees
 * (git's objects of the base and the head), never from a runner's listing,
 * which is head code. It errs on the side of too many: a file handed to a
 * runner that would not collect it runs nothing (pytest's selection and
 * vitest's filters only narrow what the configuration collects), while a
 * test file left out would run on no shard at all.
 */
import { TestRunError } from './errors.js';
import { resolveTestCommand, type TestCommandConfig } from './presets.js';

const PYTHON = /\.py$/;
const JS = /\.[cm]?[jt]sx?$/;
const TYPES_ONLY = /\.d\.[cm]?ts$/;
/** pytest's default `python_files` and the names projects give them. */
const PYTHON_TEST = /(^|\/)(test[^/]*|[^/]*_tests?)\.py$/;
/** Jest's and vitest's default matches, node's own runner's and mocha's. */
const JS_TEST =
  /(^|\/)([^/]*[._-](test|spec)|test(-[^/]*)?)\.[cm]?[jt]sx?$|(^|\/)(__tests__|tests?)\/(.*\/)?[^/]+\.[cm]?[jt]sx?$/;
const VENDORED = /(^|\/)(node_modules|\.git|\.venv|venv|site-packages|__pycache__)\//;

const PYTHON_PRESETS = new Set(['pytest']);
const JS_PRESETS = new Set(['vitest', 'jest', 'mocha', 'node-test']);

/**
 * The files of `paths` a runner of `preset` may load as test modules: test
 * side by the base config's split, or named like tests by the runner's
 * conventions. Undefined for a runner whose files the gate cannot tell.
 */
export function shardableTestFiles(
  preset: string | undefined,
  paths: Iterable<string>,
  isTestPath: (file: string) => boolean,
): string[] | undefined {
  const py = PYTHON_PRESETS.has(preset ?? '');
  const js = JS_PRESETS.has(preset ?? '');
  if (!py && !js) return undefined;
  const out = new Set<string>();
  for (const p of paths) {
    if (VENDORED.test(p)) continue;
    if (py ? !PYTHON.test(p) : !JS.test(p) || TYPES_ONLY.test(p)) continue;
    if (isTestPath(p) || (py ? PYTHON_TEST : JS_TEST).test(p)) out.add(p);
  }
  return [...out];
}

/** Whether the configured command can run every test of given files (a preset with file arguments, and `{tests}`). */
export function commandSelectsFiles(config: TestCommandConfig): boolean {
  try {
    resolveTestCommand(config, { junitPath: 'junit.xml', files: ['a'] });
    return true;
  } catch (err) {
    if (err instanceof RangeError) return false;
    if (err instanceof TestRunError && err.code === 'SUBSET_UNSUPPORTED') return false;
    // A command that does not resolve at all is reported by the first run, in its words.
    return false;
  }
}
