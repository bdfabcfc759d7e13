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

// Large reads keep thread-pool round trips rare; the parser still hands saxes
// 64 KiB slices. Measured in bench/junit.
const READ_CHUNK = 64 * 1024;

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
    return await parseJUnit(readChunks(fh, path), named);
  } finally {
    await fh.close();
  }
}

/**
 * Two buffers, so the next read is in flight while saxes parses the current
 * chunk. The parser consumes each chunk synchronously, so a buffer can be
 * reused as soon as the chunk after next is requested.
 */
async function* readChunks(fh: Awaited<ReturnType<typeof open>>, path: string): AsyncGenerator<Uint8Array> {
  const bufs = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)];
  let turn = 0;
  const read = (buf: Buffer) =>
    fh.read(buf, 0, READ_CHUNK, null).catch((err: unknown) => {
      throw unreadable(path, err);
    });
  let pending = read(bufs[turn]!);
  try {
    for (;;) {
      const { bytesRead, buffer } = await pending;
      if (bytesRead === 0) return;
      turn ^= 1;
      pending = read(bufs[turn]!);
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    // When the parser stops early (a parse error), the read in flight must
    // settle before the file is closed, and its failure is no longer news.
    await pending.catch(() => undefined);
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
