/**
 * What every worker that runs head code shares. Importing it silences the
 * thread: head code's console output would interleave with the gate's own
 * report.
 */
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table'] as const) {
  console[method] = () => undefined;
}
process.stdout.write = (() => true) as typeof process.stdout.write;
process.stderr.write = (() => true) as typeof process.stderr.write;

/** What head code threw, as one bounded line for a report. */
export function errorLine(err: unknown, max = 300): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`;
  return (text.split('\n')[0] ?? text).slice(0, max);
}
