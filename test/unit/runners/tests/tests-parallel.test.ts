import { describe, expect, it } from 'vitest';
import { delay } from '../../../../src/runners/harness/process.js';
import { runRepeated } from '../../../../src/runners/tests/parallel.js';

describe('runRepeated', () => {
  it('returns results in index order whatever order they finish in', async () => {
    const finished: number[] = [];
    const results = await runRepeated(8, 4, async (i) => {
      await delay((8 - i) * 10);
      finished.push(i);
      return `run-${i}`;
    });
    expect(results).toEqual(Array.from({ length: 8 }, (_, i) => `run-${i}`));
    expect(finished).not.toEqual([...finished].sort((a, b) => a - b));
  });

  it('never has more than `parallelism` in flight, and uses all of it', async () => {
    let running = 0;
    let peak = 0;
    await runRepeated(10, 3, async () => {
      running++;
      peak = Math.max(peak, running);
      await delay(20);
      running--;
    });
    expect(peak).toBe(3);
    let serialPeak = 0;
    await runRepeated(4, 1, async () => {
      running++;
      serialPeak = Math.max(serialPeak, running);
      await delay(5);
      running--;
    });
    expect(serialPeak).toBe(1);
  });

  it('stops starting runs after a failure, waits for those running, then throws the first error', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const err = await runRepeated(10, 2, async (i) => {
      started.push(i);
      await delay(i === 1 ? 10 : 40);
      settled.push(i);
      if (i === 1) throw new Error('run 1 failed');
      return i;
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe('run 1 failed');
    expect(started).toEqual([0, 1]);
    expect(settled.sort()).toEqual([0, 1]);
  });

  it('handles zero runs and rejects nonsense bounds', async () => {
    expect(await runRepeated(0, 2, async () => 1)).toEqual([]);
    await expect(runRepeated(-1, 1, async () => 1)).rejects.toThrow(RangeError);
    await expect(runRepeated(2, 0, async () => 1)).rejects.toThrow(RangeError);
    await expect(runRepeated(1.5, 1, async () => 1)).rejects.toThrow(RangeError);
  });
});
