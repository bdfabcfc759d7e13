import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getCurrentTest } from 'vitest/suite';

/** The repository root (this file lives in `<root>/test/helpers`). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Whether this run is CI's, as the gate reads it (src/layers/sandbox-finding.ts): `CI=true` or `CI=1`. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CI === '1';
}

/**
 * Where the shared folder (the seeds and their reference scripts, used as
 * oracles) is, or what was looked for and why it is missing.
 */
export function sharedStatus(env: NodeJS.ProcessEnv = process.env): { dir: string } | { missing: string } {
  const fromEnv = env.PATCHGATE_SHARED_DIR;
  const dir =
    fromEnv !== undefined && fromEnv !== '' ? path.resolve(fromEnv) : path.resolve(repoRoot, '..', 'shared');
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir) return { dir };
  const how = fromEnv
    ? `PATCHGATE_SHARED_DIR is set to ${fromEnv}`
    : `PATCHGATE_SHARED_DIR is not set, so it defaults to ${dir}`;
  return {
    missing: `shared folder not found: ${how}. Point PATCHGATE_SHARED_DIR at the folder with seeds/ and reference/.`,
  };
}

let skipSaid = false;

/**
 * The shared folder. In CI (`CI=true`) a missing folder throws: an oracle
 * test that silently does not run would read as a pass. Elsewhere (a clone
 * without this project's ../shared) the test that asked is skipped, and the
 * file says why once, on one line. Outside a running test (at collection, in
 * a hook) there is no test to skip, so it throws there too: call it from the
 * test body.
 */
export function sharedDir(): string {
  const status = sharedStatus();
  if ('dir' in status) return status.dir;
  const test = inCi() ? undefined : getCurrentTest();
  if (test?.context === undefined) throw new Error(status.missing);
  sayOnce(status.missing);
  return test.context.skip(status.missing);
}

function sayOnce(missing: string): void {
  if (skipSaid) return;
  skipSaid = true;
  console.warn(`skipping the tests that need the shared folder (CI is not true): ${missing}`);
}

/**
 * For a suite that reads the shared folder before its tests (in a hook):
 * true when it is missing outside CI, saying why once (then
 * `describe.skipIf(skipWithoutShared())`). In CI it is false, so the suite
 * runs and its first read of the folder fails loudly.
 */
export function skipWithoutShared(): boolean {
  const status = sharedStatus();
  if ('dir' in status || inCi()) return false;
  sayOnce(status.missing);
  return true;
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
