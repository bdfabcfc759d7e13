/**
 * Where patchgate is installed, and the files it ships there.
 *
 * Computed from this module's own location, which is always two folders
 * below the package: `src/util/` under the test runner, `dist/util/` for the
 * library, and `dist/cli/` when this module is part of the bundled CLI (the
 * bundle keeps that depth on purpose). No other module may compute the root
 * from its own location: once bundled, its code no longer sits where its
 * source file did.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** The tree this code runs from: the package's `src/` under the test runner, its `dist/` otherwise. */
export function runningTree(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** The built JavaScript of a module that runs as its own process, by its path under `src/` without extension. */
export function builtFile(relativeToSrc: string): string {
  // Under the test runner the gate is TypeScript in src/; the processes it starts run the build.
  return path.join(packageRoot(), 'dist', `${relativeToSrc}.js`);
}

/** A Python file shipped in `src/runners/harness/python/` (the package's `files` include it). */
export function shippedPythonFile(name: string): string {
  return path.join(packageRoot(), 'src', 'runners', 'harness', 'python', name);
}
