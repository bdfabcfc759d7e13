import type { Finding } from '../layers/types.js';

/**
 * Evidence can carry values head code produced: a counterexample a property
 * shrank to, a report a runner wrote. JSON nests as deep as its writer
 * likes, and every reader of a finding (the scorecard's sorted JSON, the
 * terminal table, report.html) walks it recursively: a value a few thousand
 * levels deep ends the run in `Maximum call stack size exceeded`, with no
 * scorecard. Past {@link MAX_EVIDENCE_DEPTH} levels a value is replaced by a
 * note that says so; no real evidence comes near that depth.
 */
export const MAX_EVIDENCE_DEPTH = 64;

/** What stands where a value nested too deep was cut. */
export function cutNote(depth: number): string {
  return `[patchgate: nested deeper than ${depth} levels; cut here]`;
}

const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object';

/** Whether `value` nests deeper than `max` levels; walks with its own stack, never the call stack. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (!isContainer(v)) continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A copy cut at `max` levels; called only on a value that needs it, and recursing at most `max` deep. */
function cut(value: unknown, max: number, depth: number): unknown {
  if (!isContainer(value)) return value;
  if (depth >= max) return cutNote(max);
  if (Array.isArray(value)) return value.map((x) => cut(x, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = cut(v, max, depth + 1);
  return out;
}

/** `value` itself when it nests at most `max` levels (the common case, no copy), else a copy cut there. */
export function boundDepth<T>(value: T, max = MAX_EVIDENCE_DEPTH): T {
  return deeperThan(value, max) ? (cut(value, max, 0) as T) : value;
}

/** The finding with its evidence bounded in depth (the same object when nothing needed cutting). */
export function boundFinding(f: Finding, max = MAX_EVIDENCE_DEPTH): Finding {
  const evidence = boundDepth(f.evidence, max);
  return evidence === f.evidence ? f : { ...f, evidence };
}
