/**
 * Node's command-line options that take a value (`--import x`, `--import=x`):
 * one list for every place that reads a node command line (the node-test
 * preset's `args` check, init's reading of `scripts.test`, the overlay's
 * reading of the runner's command), so they never disagree on which word is
 * a value and which a script or test path.
 */

/** Options whose value is a module node loads before the tests. */
export const NODE_MODULE_FLAGS: ReadonlySet<string> = new Set([
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
  '--env-file',
]);

/** Options whose value is a path node reads. */
export const NODE_PATH_FLAGS: ReadonlySet<string> = new Set(['--test-reporter']);

/** Every option that takes a value, as the next word or after `=`. */
export const NODE_VALUE_FLAGS: ReadonlySet<string> = new Set([
  ...NODE_MODULE_FLAGS,
  ...NODE_PATH_FLAGS,
  '--test-reporter-destination',
  '--test-name-pattern',
  '--test-skip-pattern',
  '--test-concurrency',
  '--test-timeout',
  '--test-shard',
  '--conditions',
  '-C',
  '--input-type',
  '--stack-size',
  '--max-old-space-size',
  '--title',
]);
