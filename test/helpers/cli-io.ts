import type { CliIO } from '../../src/cli/io.js';

/** A CliIO whose output is kept in memory, to drive a command in-process and read what it printed. */
export function memoryIO(cwd: string, env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    argv: [],
    cwd,
    env,
    stdout: {
      write: (s: string) => {
        stdout += s;
        return true;
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s;
        return true;
      },
    },
    signal: new AbortController().signal,
  };
  return { io, out: () => stdout, err: () => stderr };
}
