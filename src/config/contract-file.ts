import { access, type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { ContractSnapshot } from './contract-snapshot.js';

const MiB = 1024 * 1024;

/**
 * The default cap on a contract file (and the config file). The largest
 * contract a real repository has is a fixture lock at about 150 bytes an
 * entry, so 256 MiB is some 1.7 million locked files, beyond any tree we
 * know of; the gate reads such a file in well under a minute on a small VM
 * (`bench/contracts`). It is also half of the longest string V8 can hold, so
 * a file under the cap always fits in one, and anything bigger is far more
 * likely a mistake (a generated blob committed under a contract's name) or
 * an attempt to stall the gate than a contract a human reviews.
 */
export const DEFAULT_CONTRACT_BYTES = 256 * MiB;

/** V8's longest string (2^29 - 24 UTF-16 units): a larger cap could not be honoured. */
export const MAX_CONTRACT_BYTES = 2 ** 29 - 24;

/** How a reader of contract files is bounded. */
export interface ContractReadOptions {
  /** Files larger than this are refused before they are read (`limits.contractBytes`). */
  maxBytes: number;
  /** When it fires, parsing stops between slices with ABORTED (the CLI's SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

function humanBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** The error for a file over its cap: the file, its size, the cap and how to raise it. */
export function tooLarge(read: CappedRead, size: number): InputError {
  return new InputError(
    'FILE_TOO_LARGE',
    `${read.label} is ${humanBytes(size)} (${size} bytes), more than the ${humanBytes(read.maxBytes)} (${read.maxBytes} bytes) ${read.what} may be; ${read.raise}`,
    { ...read.details, size, maxBytes: read.maxBytes },
  );
}

export interface CappedRead {
  /** How the file is named in messages, e.g. `FIXTURE_LOCK.json in the base revision`. */
  label: string;
  details: Record<string, unknown>;
  maxBytes: number;
  /** What is capped, e.g. `a contract file`. */
  what: string;
  /** What to do about a file over the cap. */
  raise: string;
}

/**
 * The text of `abs`, or undefined when it does not exist. The size is taken
 * from the open file, so a file swapped after the check is not the one read.
 */
export async function readCappedText(abs: string, read: CappedRead): Promise<string | undefined> {
  const { label, details, maxBytes } = read;
  let handle: FileHandle;
  try {
    handle = await open(abs, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError('FILE_UNREADABLE', `cannot read ${label}: ${(err as Error).message}`, details);
  }
  try {
    let size: number;
    let text: string;
    try {
      const stats = await handle.stat();
      // A directory's size says nothing, and a FIFO would never end.
      if (!stats.isFile()) {
        const what = stats.isDirectory() ? 'it is a directory' : 'it is not a regular file';
        throw new InputError('FILE_UNREADABLE', `cannot read ${label}: ${what}`, details);
      }
      size = stats.size;
      text = size <= maxBytes ? await handle.readFile('utf8') : '';
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError('FILE_UNREADABLE', `cannot read ${label}: ${(err as Error).message}`, details);
    }
    if (size > maxBytes) throw tooLarge(read, size);
    return text;
  } finally {
    await handle.close();
  }
}

const RAISE_CONTRACT_CAP =
  'if it really is meant to be this large, raise `limits.contractBytes` in the config in a human commit';

/**
 * Where contract files come from: a checkout on disk (the commands a human
 * runs on the working tree), or the gate's snapshot of a revision, read from
 * git's objects before any head code ran.
 */
export type ContractRoot = string | ContractSnapshot;

/** The text of `file` from `root`, under the cap `read` describes; undefined when it does not exist. */
export async function readRootText(
  root: ContractRoot,
  file: string,
  read: CappedRead,
): Promise<string | undefined> {
  if (typeof root === 'string') return readCappedText(path.join(root, file), read);
  const got = root.get(file);
  if ('text' in got) {
    const size = Buffer.byteLength(got.text, 'utf8');
    if (size > read.maxBytes) throw tooLarge(read, size);
    return got.text;
  }
  if ('tooLarge' in got) throw tooLarge(read, got.tooLarge);
  return undefined;
}

/** Whether `file` exists in `root`. */
export async function rootHas(root: ContractRoot, file: string): Promise<boolean> {
  if (typeof root !== 'string') return root.has(file);
  return access(path.join(root, file)).then(
    () => true,
    () => false,
  );
}

/** The text of a contract file, or undefined when it does not exist; any other read failure is an input error. */
export async function readContractTextIfExists(
  root: ContractRoot,
  file: string,
  revision: string,
  maxBytes: number,
): Promise<string | undefined> {
  return readRootText(root, file, {
    label: `${file} in ${revision}`,
    details: { file },
    maxBytes,
    what: 'a contract file',
    raise: RAISE_CONTRACT_CAP,
  });
}

/**
 * The text of a contract file the config names. A missing one is an input
 * error that says how a human creates it, never an empty contract.
 */
export async function readContractText(
  root: ContractRoot,
  file: string,
  revision: string,
  howToCreate: string,
  maxBytes: number,
): Promise<string> {
  const text = await readContractTextIfExists(root, file, revision, maxBytes);
  if (text === undefined) {
    throw new InputError('CONTRACT_INVALID', `${file} does not exist in ${revision}; ${howToCreate}`, {
      file,
    });
  }
  return text;
}

/** The read options a config sets: its cap, and the run's signal. */
export function contractReadOptions(
  config: { limits: { contractBytes: number } },
  signal?: AbortSignal,
): ContractReadOptions {
  return signal === undefined
    ? { maxBytes: config.limits.contractBytes }
    : { maxBytes: config.limits.contractBytes, signal };
}
