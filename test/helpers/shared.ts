import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in `<root>/test/helpers`). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The shared folder holding the seeds and their reference scripts, used as
 * oracles. Throws instead of letting tests skip: an oracle test that silently
 * does not run would read as a pass.
 */
export function sharedDir(): string {
  const fromEnv = process.env.PATCHGATE_SHARED_DIR;
  const dir =
    fromEnv !== undefined && fromEnv !== '' ? path.resolve(fromEnv) : path.resolve(repoRoot, '..', 'shared');
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    const how = fromEnv
      ? `PATCHGATE_SHARED_DIR is set to ${fromEnv}`
      : `PATCHGATE_SHARED_DIR is not set, so it defaults to ${dir}`;
    throw new Error(
      `shared folder not found: ${how}. Point PATCHGATE_SHARED_DIR at the folder with seeds/ and reference/.`,
    );
  }
  return dir;
}

/** A file under the shared folder, which must exist. */
export function sharedFile(...segments: string[]): string {
  const file = path.join(sharedDir(), ...segments);
  try {
    if (statSync(file).isFile()) return file;
  } catch {
    // reported below with the full path
  }
  throw new Error(`expected file missing from the shared folder: ${file}`);
}

/**
 * Environment for running Python oracles: UTF-8 text I/O whatever the locale
 * (the seed scripts call `read_text()` with the locale's encoding), and
 * CPython's default integer-string limit even if the caller's shell changed it.
 */
export function pythonEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUTF8: '1', PYTHONIOENCODING: 'utf-8' };
  delete env.PYTHONINTMAXSTRDIGITS;
  delete env.PYTHONSTARTUP;
  return env;
}
