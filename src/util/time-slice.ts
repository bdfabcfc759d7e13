import { setImmediate as nextTurn } from 'node:timers/promises';
import { InputError } from '../errors.js';

/**
 * Long synchronous work (parsing and validating a contract file of a million
 * entries) would keep the event loop from running a SIGTERM handler until it
 * is done. Such work is written once, as a generator that asks its budget
 * whether the current slice is used up and yields when it is; a driver
 * decides what a yield means:
 *
 * - {@link runToEnd} ignores the budget (small inputs, synchronous callers);
 * - {@link runInSlices} lets the event loop turn at every yield and stops
 *   with `ABORTED` once the caller's signal has fired.
 */
export type Sliced<T> = Generator<undefined, T, undefined>;

/** How often `due()` looks at the clock: reading it costs more than a cheap step of the work. */
const CALLS_PER_CLOCK_READ = 256;

/**
 * Asked between steps of sliced work. The work yields when `due()` is true
 * and is resumed in a fresh slice.
 */
export class SliceBudget {
  private deadline: number;
  private countdown = CALLS_PER_CLOCK_READ;

  /** `sliceMs` of Infinity makes a budget that is never due. */
  constructor(private readonly sliceMs: number) {
    this.deadline = performance.now() + sliceMs;
  }

  /**
   * True when the current slice has used its time; cheap enough to call once
   * per entry. A caller that does more between calls (a chunk of entries)
   * says how many entries' worth as `weight`, so the clock is still read often
   * enough.
   */
  due(weight = 1): boolean {
    this.countdown -= weight;
    if (this.countdown > 0) return false;
    this.countdown = CALLS_PER_CLOCK_READ;
    return performance.now() >= this.deadline;
  }

  /** Starts a new slice. */
  restart(): void {
    this.countdown = CALLS_PER_CLOCK_READ;
    this.deadline = performance.now() + this.sliceMs;
  }
}

/**
 * The longest the event loop waits on one slice. Well under the second
 * within which the gate must answer SIGTERM, and long enough that the
 * yields themselves cost nothing measurable.
 */
export const DEFAULT_SLICE_MS = 50;

/** Runs sliced work synchronously, start to end. */
export function runToEnd<T>(work: (budget: SliceBudget) => Sliced<T>): T {
  const it = work(new SliceBudget(Number.POSITIVE_INFINITY));
  for (;;) {
    const step = it.next();
    if (step.done) return step.value;
  }
}

/** What a run interrupted by its signal rejects with; the CLI turns it into exit 130/143. */
export function abortedError(): InputError {
  return new InputError('ABORTED', 'the run was interrupted');
}

/**
 * Runs sliced work, letting the event loop turn between slices, so signal
 * handlers and timers run while a large file is read. Rejects with
 * `ABORTED` (and stops the work) as soon as `signal` has fired.
 */
export async function runInSlices<T>(
  work: (budget: SliceBudget) => Sliced<T>,
  signal: AbortSignal | undefined,
  sliceMs = DEFAULT_SLICE_MS,
): Promise<T> {
  if (signal?.aborted) throw abortedError();
  const budget = new SliceBudget(sliceMs);
  const it = work(budget);
  for (;;) {
    const step = it.next();
    if (step.done) return step.value;
    await nextTurn();
    if (signal?.aborted) {
      it.return(undefined as never);
      throw abortedError();
    }
    budget.restart();
  }
}
