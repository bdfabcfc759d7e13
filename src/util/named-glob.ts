/**
 * Reading what the base's runner configuration names: whether a named glob
 * (with the exceptions the runner takes out again) matches a path, and which
 * keys name test files rather than code every test loads.
 */
import picomatch from 'picomatch';

/** Whether a NamedPath-style glob list (with exceptions) matches a path. */
export function namedMatcher(glob: string, except: readonly string[] | undefined): (p: string) => boolean {
  const yes = picomatch(glob, { dot: true });
  const no = except && except.length > 0 ? picomatch([...except], { dot: true }) : () => false;
  return (p) => yes(p) && !no(p);
}

/** Keys whose value is the runner's test-file globs (vitest's `include`, jest's `testMatch`, mocha's `spec`). */
export const TEST_GLOB_KEY = /(?:^|\.)(?:include|testMatch|spec)$/;

/** Keys of a runner's configuration that select test files rather than load code into every test. */
export const SELECTING_KEY =
  /(?:^|\.)(?:include|exclude|testMatch|testRegex|testPathIgnorePatterns|spec|python_files|testpaths|projects|workspace|roots)$/;
