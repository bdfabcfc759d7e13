/**
 * Process plumbing shared by the harness client and the command fallback:
 * exit descriptions, bounded stderr tails, and a newline splitter for the
 * protocol channel. Starting and killing processes is the sandbox's.
 */
import { StringDecoder } from 'node:string_decoder';

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `was killed by ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}

/** The last `maxChars` characters written to a stream, decoded as UTF-8 across chunk boundaries. */
export class TextTail {
  private text = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly maxChars = 64 * 1024) {}

  push(chunk: Buffer): void {
    this.text += this.decoder.write(chunk);
    if (this.text.length > 2 * this.maxChars) this.text = this.text.slice(-this.maxChars);
  }

  /** Up to `count` last lines (trailing blank lines dropped). */
  lines(count = 20): string[] {
    const all = this.text.slice(-this.maxChars).split(/\r\n|\r|\n/);
    while (all.length > 0 && all[all.length - 1]!.trim() === '') all.pop();
    return all.slice(-count);
  }

  /** The last non-blank line, or '' if nothing was written. */
  lastLine(): string {
    return this.lines(1)[0]?.trim() ?? '';
  }
}

/** `lines` indented under a heading, for multi-line error messages; '' when there are none. */
export function formatTail(heading: string, lines: readonly string[]): string {
  if (lines.length === 0) return '';
  return `\n${heading}:\n${lines.map((l) => `  | ${l}`).join('\n')}`;
}

/**
 * Splits a byte stream into UTF-8 lines. Chunks may end anywhere (inside a
 * line or a character); a line may be many megabytes, each byte is scanned
 * once. A line longer than `maxLineBytes` is reported instead of buffered.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(
    private readonly maxLineBytes: number,
    /** Return false to stop (the rest of the chunk is dropped). */
    private readonly onLine: (line: string) => boolean,
    private readonly onError: (reason: string, prefix: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      const bytes = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.size = 0;
      if (bytes.length > this.maxLineBytes) {
        this.tooLong(bytes);
        return;
      }
      let line: string;
      try {
        line = this.decoder.decode(bytes);
      } catch {
        this.onError('a line that is not valid UTF-8', bytes.subarray(0, 200).toString('utf8'));
        return;
      }
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (!this.onLine(line)) return;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.parts.push(rest);
      this.size += rest.length;
      if (this.size > this.maxLineBytes) this.tooLong(Buffer.concat(this.parts));
    }
  }

  private tooLong(bytes: Buffer): void {
    const prefix = bytes.subarray(0, 200).toString('utf8');
    this.parts = [];
    this.size = 0;
    this.onError(`a line longer than ${this.maxLineBytes} bytes`, prefix);
  }
}

/** A promise that resolves after `ms`, without keeping the process alive. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
