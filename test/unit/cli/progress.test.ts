import { describe, expect, it } from 'vitest';
import {
  estimateRemainingMs,
  formatDuration,
  ProgressLine,
  progressText,
} from '../../../src/cli/progress.js';
import { ProgressTally } from '../../../src/layers/progress.js';

function terminal(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return {
    stream: { isTTY, ...(columns !== undefined ? { columns } : {}), write: (s: string) => writes.push(s) },
    writes,
  };
}

function clock(start = 1000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequence is what we look for
const CLEAR = /^\r\u001b\[2K/;

describe('ETA', () => {
  it('extrapolates the rate since the first report to what is left', () => {
    // 10 of 40 done in 5 s since the first report (at 0 done): 30 left at 2 per second.
    expect(estimateRemainingMs({ at: 0, done: 0 }, 5000, 10, 40)).toBe(15_000);
    // Units done before the first report do not count towards the rate.
    expect(estimateRemainingMs({ at: 0, done: 8 }, 4000, 10, 40)).toBe(60_000);
  });

  it('has no estimate before a unit finished, and none left when done', () => {
    expect(estimateRemainingMs({ at: 0, done: 3 }, 5000, 3, 10)).toBeUndefined();
    expect(estimateRemainingMs({ at: 5000, done: 0 }, 5000, 2, 10)).toBeUndefined();
    expect(estimateRemainingMs({ at: 0, done: 0 }, 5000, 10, 10)).toBe(0);
  });

  it('prints durations in seconds, minutes and hours', () => {
    expect(formatDuration(44_600)).toBe('45s');
    expect(formatDuration(185_000)).toBe('3m05s');
    expect(formatDuration(3_720_000)).toBe('1h02m');
  });
});

describe('the progress line', () => {
  it('redraws in place on a terminal with counts, percentage and ETA', () => {
    const t = terminal(true);
    const c = clock();
    const line = new ProgressLine(t.stream, { clock: c, minIntervalMs: 0 });
    line.layerStart('hits');
    line.update({ layer: 'hits', task: 'properties scored', done: 0, total: 40 });
    c.advance(5000);
    line.update({ layer: 'hits', task: 'properties scored', done: 10, total: 40 });
    expect(t.writes[0]).toMatch(CLEAR);
    expect(t.writes[0]).toContain('patchgate: running hits…');
    expect(t.writes[1]).toBe('\r\u001b[2Kpatchgate: hits · properties scored 0/40 (0%) · ETA …');
    expect(t.writes[2]).toBe('\r\u001b[2Kpatchgate: hits · properties scored 10/40 (25%) · ETA 15s');
    // Never a newline: each draw replaces the last.
    expect(t.writes.join('')).not.toContain('\n');
    line.clear();
    expect(t.writes.at(-1)).toBe('\r\u001b[2K');
  });

  it('writes nothing at all off a terminal', () => {
    const t = terminal(false);
    const line = new ProgressLine(t.stream, { clock: clock(), minIntervalMs: 0 });
    expect(line.enabled).toBe(false);
    line.layerStart('hits');
    line.update({ layer: 'hits', task: 'properties scored', done: 1, total: 2 });
    line.clear();
    expect(t.writes).toEqual([]);
  });

  it('keeps every line within 100 columns (one short of the edge), and within a narrower terminal', () => {
    const long = { layer: 'stability', task: `${'very long task name '.repeat(8)}`, done: 3, total: 7 };
    for (const [columns, max] of [
      [undefined, 99],
      [200, 99],
      [60, 59],
    ] as const) {
      const t = terminal(true, columns);
      const line = new ProgressLine(t.stream, { clock: clock(), minIntervalMs: 0 });
      line.update(long);
      line.layerStart('x'.repeat(300));
      for (const w of t.writes) expect(w.replace(CLEAR, '').length).toBeLessThanOrEqual(max);
    }
  });

  it('skips redraws of one task closer than the interval, but never the last one', () => {
    const t = terminal(true);
    const c = clock();
    const line = new ProgressLine(t.stream, { clock: c, minIntervalMs: 100 });
    const ev = (done: number) => ({ layer: 'seeds', task: 'seed replays', done, total: 3 });
    line.update(ev(1));
    c.advance(10);
    line.update(ev(2));
    c.advance(10);
    line.update(ev(3));
    expect(t.writes.map((w) => w.replace(CLEAR, ''))).toEqual([
      progressText(ev(1), undefined),
      'patchgate: seeds · seed replays 3/3 (100%) · done',
    ]);
  });
});

describe('ProgressTally', () => {
  it('adds totals from several producers and reports running counts', () => {
    const seen: string[] = [];
    const tally = new ProgressTally((task, done, total) => seen.push(`${task} ${done}/${total}`), 'props');
    tally.expect(2);
    tally.expect(3);
    tally.finish(2);
    tally.finish();
    expect(seen).toEqual(['props 0/2', 'props 0/5', 'props 2/5', 'props 3/5']);
  });

  it('never lets a throwing listener reach the work', () => {
    const tally = new ProgressTally(() => {
      throw new Error('broken terminal');
    }, 'x');
    expect(() => {
      tally.expect(1);
      tally.finish();
    }).not.toThrow();
  });
});
