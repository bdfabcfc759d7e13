/**
 * What the base's tests said about the head's code: the overlay run (base
 * test side, head production side) against what the same tests say on the
 * base. Pure: runs in, verdicts per test out.
 */
import type { TestOutcome } from '../../junit/model.js';

export type Outcome = 'passed' | 'failed' | 'skipped' | 'absent';

export function outcomeOf(tests: readonly TestOutcome[] | undefined): Outcome {
  if (!tests || tests.length === 0) return 'absent';
  // A test a report repeats (retries as testcases) failed if any attempt failed: a retry is no acquittal.
  if (tests.some((t) => t.status === 'failed' || t.status === 'error' || t.status === 'flaky'))
    return 'failed';
  if (tests.every((t) => t.status === 'skipped' || t.status === 'xfailed')) return 'skipped';
  return 'passed';
}

export function byId(tests: readonly TestOutcome[]): Map<string, TestOutcome[]> {
  const out = new Map<string, TestOutcome[]>();
  for (const t of tests) {
    const list = out.get(t.id);
    if (list) list.push(t);
    else out.set(t.id, [t]);
  }
  return out;
}

export interface Disagreement {
  id: string;
  /** What the base's test did on the head's code. */
  overlay: Outcome;
  /** What it did on the base's own code. */
  base: Outcome;
  /** The overlay's testcases (failure messages), when it ran. */
  tests: TestOutcome[];
}

/**
 * Every test that passed on the base but not on the overlay: failed, skipped
 * (a skip is a fail) or gone. `expected` are ids that should be in the
 * overlay run (the base's own run of the files the patch touched, the head's
 * run of the test files it left alone), so a missing one is seen; `base` must
 * hold the base's run of every id that did not pass.
 */
export function disagreements(
  overlay: ReadonlyMap<string, TestOutcome[]>,
  base: ReadonlyMap<string, TestOutcome[]>,
  expected: ReadonlySet<string>,
): Disagreement[] {
  const out: Disagreement[] = [];
  const ids = new Set([...overlay.keys(), ...expected]);
  for (const id of [...ids].sort()) {
    const o = outcomeOf(overlay.get(id));
    if (o === 'passed') continue;
    const b = outcomeOf(base.get(id));
    // Failing, skipped or not run on the base too: the patch did not do it (the signatures layer judges the
    // head's own run).
    if (b !== 'passed') continue;
    out.push({ id, overlay: o, base: b, tests: overlay.get(id) ?? [] });
  }
  return out;
}
