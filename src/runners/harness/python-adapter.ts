/**
 * The Python harness adapter: where it is, and the command that runs one
 * property module with it. Shipped as a plain .py file that `tsc` does not
 * copy (see util/package-root.ts).
 */
import { shippedPythonFile } from '../../util/package-root.js';

/** Absolute path of `patchgate_harness.py`. */
export const PYTHON_ADAPTER_PATH: string = shippedPythonFile('patchgate_harness.py');

/**
 * The harness command for a Python property module: a `.py` path (relative to
 * the harness's cwd) or a dotted module name.
 */
export function pythonHarnessCommand(moduleOrPath: string, python = 'python3'): string[] {
  return [python, PYTHON_ADAPTER_PATH, moduleOrPath];
}
