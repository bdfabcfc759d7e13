import { displayText } from '../util/display-text.js';

export interface OutStream {
  write(s: string): unknown;
  isTTY?: boolean;
  /** The terminal's width, when the stream knows it. */
  columns?: number;
}

/** Everything the CLI takes from the process, so `main` can be driven by tests. */
export interface CliIO {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: OutStream;
  stderr: OutStream;
  signal: AbortSignal;
  /** The process id, naming the run's temp folders so a later run can prune them if this one is killed. */
  pid?: number;
  /** The script node ran (`process.argv[1]`), so a printed hint starts patchgate the same way (src/cli/invocation.ts). */
  script?: string;
}

export function useColor(io: CliIO): boolean {
  const noColor = io.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  if (io.env.FORCE_COLOR && io.env.FORCE_COLOR !== '0') return true;
  return io.stdout.isTTY === true && io.env.TERM !== 'dumb';
}

/** A stream whose writes go through displayText, with the stream underneath kept as `raw`. */
export interface DisplaySafeStream extends OutStream {
  readonly raw: OutStream;
}

/**
 * `stream` with every write made display-safe: whatever a command prints
 * (an error that quotes a runner's output, a test id, a path) cannot send a
 * terminal escape sequence, reorder a line with a bidi override or be read
 * by a CI runner as a workflow command. The escapes are JSON's, so JSON
 * output still parses to the same value. Output that carries escape
 * sequences of its own (the coloured table, the progress line, GitHub
 * annotations) makes what the patch wrote display-safe piece by piece and is
 * written to {@link rawStream}.
 */
export function displaySafe(stream: OutStream): DisplaySafeStream {
  if ('raw' in stream) return stream as DisplaySafeStream;
  return {
    raw: stream,
    write: (s: string) => stream.write(displayText(s)),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}

/** The stream under a display-safe one (or the stream itself): for output already made safe piece by piece. */
export function rawStream(stream: OutStream): OutStream {
  return 'raw' in stream ? (stream as DisplaySafeStream).raw : stream;
}
