/**
 * Runs `fn(0)` … `fn(n - 1)` with at most `parallelism` in flight, resolving
 * their results in index order (the stability probe compares run i with run
 * j, so results must not come back in completion order).
 *
 * After the first rejection nothing new starts; the ones already running
 * are awaited (a test run owns processes and files that must be finished
 * with), then that first error is thrown.
 */
export async function runRepeated<T>(
  n: number,
  parallelism: number,
  fn: (i: number) => Promise<T>,
): Promise<T[]> {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`runRepeated: n must be a non-negative integer, got ${n}`);
  }
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    throw new RangeError(`runRepeated: parallelism must be a positive integer, got ${parallelism}`);
  }
  const results = new Array<T>(n);
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (!failed && next < n) {
      const i = next++;
      try {
        results[i] = await fn(i);
      } catch (err) {
        if (!failed) {
          failed = true;
          firstError = err;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, parallelism) }, worker));
  if (failed) throw firstError;
  return results;
}
