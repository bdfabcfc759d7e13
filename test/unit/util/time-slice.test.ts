import { describe, expect, it } from 'vitest';
import { runInSlices, runToEnd, SliceBudget, type Sliced } from '../../../src/util/time-slice.js';

/** Work that yields between steps whenever its budget is due, and says what ran meanwhile. */
function* counting(steps: number, budget: SliceBudget, log: string[]): Sliced<number> {
  let done = 0;
  for (let i = 0; i < steps; i++) {
    if (budget.due()) {
      log.push(`yield after ${done}`);
      yield;
    }
    done++;
  }
  return done;
}

describe('SliceBudget', () => {
  it('is due once its slice is over, and not again until restarted and over', () => {
    const budget = new SliceBudget(0);
    let calls = 0;
    while (!budget.due()) calls++;
    // The clock is read every 256 calls, so a zero-length slice is due at the 256th.
    expect(calls).toBe(255);
    budget.restart();
    expect(budget.due()).toBe(false);
  });

  it('counts a weighted call as that many calls', () => {
    const budget = new SliceBudget(0);
    expect(budget.due(255)).toBe(false);
    expect(budget.due(1)).toBe(true);
  });

  it('is never due with an infinite slice', () => {
    const budget = new SliceBudget(Number.POSITIVE_INFINITY);
    let due = 0;
    for (let i = 0; i < 10_000; i++) if (budget.due()) due++;
    expect(due).toBe(0);
  });
});

describe('runToEnd', () => {
  it('runs the work to its result without ever yielding', () => {
    const log: string[] = [];
    expect(runToEnd((b) => counting(100_000, b, log))).toBe(100_000);
    expect(log).toEqual([]);
  });
});

describe('runInSlices', () => {
  it('lets the event loop run between slices', async () => {
    const log: string[] = [];
    const timer = new Promise<void>((resolve) =>
      setImmediate(() => {
        log.push('event loop');
        resolve();
      }),
    );
    const result = await runInSlices((b) => counting(2_000, b, log), undefined, 0);
    await timer;
    expect(result).toBe(2_000);
    // Due every 256 steps with zero-length slices, and the immediate ran at the first pause.
    expect(log.slice(0, 3)).toEqual(['yield after 255', 'event loop', 'yield after 511']);
  });

  it('rejects with ABORTED once the signal fires, and stops the work', async () => {
    const controller = new AbortController();
    let finished = false;
    let steps = 0;
    const endless = function* (budget: SliceBudget): Sliced<never> {
      try {
        for (;;) {
          steps++;
          if (steps === 1000) setImmediate(() => controller.abort());
          if (budget.due()) yield;
        }
      } finally {
        finished = true;
      }
    };
    await expect(runInSlices(endless, controller.signal, 0)).rejects.toMatchObject({
      code: 'ABORTED',
      kind: 'input',
    });
    expect(finished).toBe(true);
    const stepsAtAbort = steps;
    await new Promise((r) => setImmediate(r));
    expect(steps).toBe(stepsAtAbort);
  });

  it('does not start when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    let started = false;
    const work = (budget: SliceBudget) => {
      started = true;
      return counting(10, budget, []);
    };
    await expect(runInSlices(work, controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    expect(started).toBe(false);
  });
});
