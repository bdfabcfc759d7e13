/**
 * One file of one of the gate's own checkouts, changed for the length of a
 * test run and put back (the mutation probe's mutants). Head code has run
 * in these checkouts and can leave anything in them, so the gate writes
 * only a regular file reached through real folders: a symlink planted at
 * the path, or at a folder on the way, would turn the gate's write (made
 * with the user's rights, outside the sandbox) into a write anywhere.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import { checkRepoPath } from '../../util/repo-path.js';

/** Why the gate would not change a checkout's file: what is at the path is not the plain file it wrote. */
export class EditRefused extends Error {
  readonly code = 'EDIT_REFUSED';
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`the gate will not change ${file}: ${why}`);
    this.name = 'EditRefused';
  }
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW;

/** The file's status, after checking every folder on the way is a real folder and it is a regular file. */
async function plainFile(root: string, file: string): Promise<Stats> {
  const bad = checkRepoPath(file);
  if (bad !== undefined) throw new EditRefused(file, `its path ${bad}`);
  const parts = file.split('/');
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => undefined);
    const last = i === parts.length - 1;
    if (st === undefined) throw new EditRefused(file, `${last ? 'it' : `the folder ${at}`} is not there`);
    if (st.isSymbolicLink())
      throw new EditRefused(
        file,
        `${last ? 'it' : `the folder ${at}`} is a symbolic link, not the committed ${last ? 'file' : 'folder'}`,
      );
    if (last ? !st.isFile() : !st.isDirectory())
      throw new EditRefused(file, `${last ? 'it is not a regular file' : `${at} is not a folder`}`);
    if (last) return st;
  }
  throw new EditRefused(file, 'its path is empty');
}

async function writePlain(
  root: string,
  file: string,
  bytes: Uint8Array | string,
  mtime: Date,
  atime: Date,
): Promise<void> {
  await plainFile(root, file);
  const full = path.join(root, file);
  const handle = await open(full, WRITE_FLAGS);
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
  await utimes(full, atime, mtime);
}

/**
 * Runs `fn` with `file` (repository path under `root`) holding `text`, and
 * puts the file's own bytes and times back afterwards, whatever `fn` did.
 * The changed file gets a modification time of its own: bytecode cached for
 * the original (keyed by size and time) is never taken for it.
 */
export async function withFileEdited<T>(
  root: string,
  file: string,
  text: string,
  fn: () => Promise<T>,
): Promise<T> {
  const st = await plainFile(root, file);
  const full = path.join(root, file);
  const original = await readFile(full);
  const shifted = new Date(
    Math.floor(st.mtimeMs / 1000) * 1000 - 86_400_000 - Math.floor(Math.random() * 86_400) * 1000,
  );
  await writePlain(root, file, text, shifted, st.atime);
  try {
    return await fn();
  } finally {
    await writePlain(root, file, original, st.mtime, st.atime);
  }
}
