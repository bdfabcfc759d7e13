import { spawn } from 'node:child_process';

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface ExecOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  signal?: AbortSignal;
}

/**
 * The one way the core starts a process. Tests drive the real thing; the
 * interface exists so a layer never reaches for child_process itself.
 */
export type Exec = (file: string, args: readonly string[], options: ExecOptions) => Promise<ExecResult>;

export const execFile: Exec = async (file, args, options) => {
  const r = await execFileBuffer(file, args, options);
  return { stdout: r.stdout.toString('utf8'), stderr: r.stderr, code: r.code };
};

/** Like `execFile`, but stdout as bytes: blob contents are measured in bytes, not UTF-16 units. */
export function execFileBuffer(
  file: string,
  args: readonly string[],
  options: ExecOptions,
): Promise<{ stdout: Buffer; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      signal: options.signal,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code, sig) =>
      resolve({
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
        code: code ?? (sig ? 128 : 1),
      }),
    );
    // A command that exits before reading all its input closes the pipe: its exit code says why, not EPIPE.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
