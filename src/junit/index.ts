import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { InputError, PatchgateError } from '../errors.js';
import type { JUnitReport, ParseJUnitOptions } from './model.js';
import { JUnitStreamParser } from './parser.js';

export { JUnitParseError } from './errors.js';
export type {
  FailureDetail,
  JUnitReport,
  OutcomeCounts,
  ParseJUnitOptions,
  RetryDetail,
  SkipDetail,
  TestOutcome,
  TestStatus,
} from './model.js';
export { DEFAULT_MAX_BODY_BYTES } from './model.js';
export { JUnitStreamParser } from './parser.js';

/**
 * Reads a JUnit XML report from a byte stream. Memory stays bounded whatever
 * the report's size, except for the outcomes themselves: pass `onTest` to take
 * them one at a time instead of collecting them.
 */
export async function parseJUnit(
  source: AsyncIterable<Uint8Array | string> | Readable,
  opts: ParseJUnitOptions = {},
): Promise<JUnitReport> {
  const parser = new JUnitStreamParser(opts);
  const { signal } = opts;
  checkAborted(signal);
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    checkAborted(signal);
    parser.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  }
  return parser.end();
}

const READ_CHUNK = 64 * 1024;
// Sync reads of page-cached data beat the thread pool's round trips (measured
// in bench/junit: async reads cost about 10% of the parse); yielding to the
// event loop every few chunks keeps timers and the abort signal live.
const YIELD_EVERY = 16;

/** Reads a report file; `opts.file` defaults to `path` for error messages. */
export async function parseJUnitFile(path: string, opts: ParseJUnitOptions = {}): Promise<JUnitReport> {
  const named = { ...opts, file: opts.file ?? path };
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw unreadable(path, err);
  }
  try {
    return await parseJUnit(readChunks(fh.fd, path), named);
  } finally {
    await fh.close();
  }
}

/** The parser consumes each chunk before asking for the next, so one buffer serves them all. */
async function* readChunks(fd: number, path: string): AsyncGenerator<Uint8Array> {
  const buf = Buffer.allocUnsafe(READ_CHUNK);
  for (let n = 1; ; n++) {
    let bytesRead: number;
    try {
      bytesRead = readSync(fd, buf, 0, READ_CHUNK, null);
    } catch (err) {
      throw unreadable(path, err);
    }
    if (bytesRead === 0) return;
    yield buf.subarray(0, bytesRead);
    if (n % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

function unreadable(path: string, err: unknown): PatchgateError {
  if (err instanceof PatchgateError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return new InputError(
    'FILE_UNREADABLE',
    `cannot read ${path}: ${message}`,
    { file: path, os: code },
    { cause: err },
  );
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new InputError('ABORTED', 'reading the JUnit report was aborted', {}, { cause: signal.reason });
  }
}
