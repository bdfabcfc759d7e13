/**
 * The head and tail of a logged process's output, for messages that must
 * explain a failure without the whole log: a crash or a failed install puts
 * its headline first ("npm error code EUSAGE", "ImportError while loading
 * conftest") and a long usage text or stack after it, so both ends are shown.
 */
import { open } from 'node:fs/promises';
import type { LoggedRun } from './run-tests.js';

const TAIL_BYTES = 64 * 1024;

/**
 * The lines of a file's first or last 64 KiB, trailing blank lines dropped; []
 * when it is missing or empty.
 */
async function linesOf(file: string, end: 'head' | 'tail'): Promise<string[]> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const start = end === 'tail' ? size - length : 0;
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, start);
    const lines = buffer.toString('utf8').split(/\r\n|\r|\n/);
    // A cut may land mid-line (or mid-character): drop the partial line.
    if (length < size) {
      if (end === 'tail') lines.shift();
      else lines.pop();
    }
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    return lines;
  } catch {
    return [];
  } finally {
    await handle?.close();
  }
}

/** The last `count` lines of a file; [] when it is missing or empty. */
export async function tailLines(file: string, count: number): Promise<string[]> {
  return (await linesOf(file, 'tail')).slice(-count);
}

/**
 * stderr's first and last lines, then stdout's last lines, as one block ('' when
 * the process wrote nothing). A crash puts its headline ("Fatal Python error",
 * "ImportError while loading conftest") first and a long stack after it.
 */
export async function outputTail(
  run: Pick<LoggedRun, 'stdoutFile' | 'stderrFile'>,
  count = 15,
): Promise<string> {
  const HEAD = 5;
  const [head, err, out] = await Promise.all([
    linesOf(run.stderrFile, 'head'),
    tailLines(run.stderrFile, HEAD + count + 1),
    tailLines(run.stdoutFile, count),
  ]);
  // Lines are only left out when the head and the tail do not meet.
  const errShown = err.length > HEAD + count ? [...head.slice(0, HEAD), '[…]', ...err.slice(-count)] : err;
  const parts: string[] = [];
  if (errShown.length > 0) parts.push(`stderr:\n${errShown.join('\n')}`);
  if (out.length > 0) parts.push(`stdout:\n${out.join('\n')}`);
  return parts.join('\n');
}

/** `message` followed by the output tail, when there is one. */
export async function withTail(
  message: string,
  run: Pick<LoggedRun, 'stdoutFile' | 'stderrFile'>,
  count?: number,
): Promise<string> {
  const tail = await outputTail(run, count);
  return tail === '' ? message : `${message}; last output:\n${tail}`;
}
