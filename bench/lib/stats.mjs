// Summaries of a benchmark's repeated measurements. `best` walks the list
// instead of spreading it into Math.min: `--runs` decides its length.

/** The median (the mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The smallest, the fastest of the runs. */
export function best(xs) {
  let min = Number.POSITIVE_INFINITY;
  for (const x of xs) if (x < min) min = x;
  return min;
}

/** Seconds as the CLI benchmarks print them. */
export const seconds = (s) => `${s.toFixed(3)} s`;
