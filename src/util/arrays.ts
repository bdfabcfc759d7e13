/**
 * Array helpers for inputs of any size. Spreading an array into a call
 * (`out.push(...items)`, `Math.max(...values)`) puts every element on the
 * stack as an argument: past about a hundred thousand elements V8 throws
 * `RangeError: Maximum call stack size exceeded`. A lock, a JUnit report or
 * a test run the patch controls can be that large, so `src/` never spreads a
 * computed array into a call (the `no-spread-arguments` lint plugin); these
 * loop instead.
 */

/** Appends `items` to `target` in order, one at a time; returns `target`. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The largest of `values`, or `empty` when there are none. */
export function maxOf(values: Iterable<number>, empty: number): number {
  let max: number | undefined;
  for (const v of values) if (max === undefined || v > max) max = v;
  return max ?? empty;
}
