/**
 * Where the shipped Python files live (the harness adapter, the seed replay
 * plugin). They are plain .py files that `tsc` does not copy, so a path is
 * resolved from the package root, where `src/runners/harness/python/` is
 * shipped: the same answer whether this module runs from `src/` (tests) or
 * `dist/` (the build).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of one of the Python files shipped in `src/runners/harness/python/`. */
export function shippedPythonFile(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // <root>/src/runners/harness or <root>/dist/runners/harness
  const packageRoot = path.resolve(here, '..', '..', '..');
  const candidates = [
    // next to this module: src/, or a build that copies the .py into dist/
    path.join(here, 'python', name),
    path.join(packageRoot, 'src', 'runners', 'harness', 'python', name),
  ];
  return candidates.find((c) => existsSync(c)) ?? candidates[candidates.length - 1]!;
}

/** Absolute path of `patchgate_harness.py`. */
export const PYTHON_ADAPTER_PATH: string = shippedPythonFile('patchgate_harness.py');

/**
 * The harness command for a Python property module: a `.py` path (relative to
 * the harness's cwd) or a dotted module name.
 */
export function pythonHarnessCommand(moduleOrPath: string, python = 'python3'): string[] {
  return [python, PYTHON_ADAPTER_PATH, moduleOrPath];
}
