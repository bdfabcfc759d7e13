/** Everything the CLI takes from the process, so `main` can be driven by tests. */
export interface CliIO {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  signal: AbortSignal;
  /** The process id, naming the run's temp folders so a later run can prune them if this one is killed. */
  pid?: number;
}

export function useColor(io: CliIO): boolean {
  const noColor = io.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  if (io.env.FORCE_COLOR && io.env.FORCE_COLOR !== '0') return true;
  return io.stdout.isTTY === true && io.env.TERM !== 'dumb';
}
