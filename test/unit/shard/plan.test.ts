import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashOwner,
  parseShardSpec,
  planDigest,
  planTestFiles,
  ShardSlice,
  ShardSpecError,
} from '../../../src/shard/plan.js';

const files = (n: number) =>
  Array.from({ length: n }, (_, i) => `tests/test_${String(i).padStart(3, '0')}.py`);

describe('--shard I/N', () => {
  it('reads the index and the total', () => {
    expect(parseShardSpec('2/4')).toEqual({ index: 2, total: 4 });
    expect(parseShardSpec(' 1 / 1 ')).toEqual({ index: 1, total: 1 });
  });

  it.each([
    ['2', /INDEX\/TOTAL/],
    ['a/b', /INDEX\/TOTAL/],
    ['0/4', /index must be 1 to 4/],
    ['5/4', /index must be 1 to 4/],
    ['1/0', /total must be 1 to 256/],
    ['1/257', /total must be 1 to 256/],
    ['-1/4', /INDEX\/TOTAL/],
  ])('refuses %s, saying what it expected', (text, why) => {
    expect(() => parseShardSpec(text)).toThrow(ShardSpecError);
    expect(() => parseShardSpec(text)).toThrow(why);
  });
});

describe('the plan of test files', () => {
  it('deals sorted files round-robin by count without durations: every file on exactly one shard', () => {
    const plan = planTestFiles([...files(10)].reverse(), 3);
    expect(plan.by).toBe('count');
    expect(plan.shards.map((s) => s.length)).toEqual([4, 3, 3]);
    expect(plan.shards.flat().sort()).toEqual(files(10));
    expect(plan.shards[0]).toEqual([
      'tests/test_000.py',
      'tests/test_003.py',
      'tests/test_006.py',
      'tests/test_009.py',
    ]);
  });

  it('balances by recorded duration, longest first, a file the history lacks counting as the median', () => {
    const ms = new Map([
      ['a.py', 1000],
      ['b.py', 600],
      ['c.py', 500],
      ['d.py', 400],
    ]);
    const plan = planTestFiles(['a.py', 'b.py', 'c.py', 'd.py', 'new.py'], 2, {
      ms,
      runs: 3,
      before: '2026-12-01T00:00:00.000Z',
    });
    expect(plan.by).toBe('duration');
    // Longest first, each to the lighter shard: a → 1; b → 2; new (the median, 600) → 2; c → 1; d → 2.
    expect(plan.shards).toEqual([
      ['a.py', 'c.py'],
      ['b.py', 'd.py', 'new.py'],
    ]);
    expect(plan.load).toEqual([1500, 1600]);
    expect(plan.durations).toEqual({ runs: 3, before: '2026-12-01T00:00:00.000Z', known: 4 });
  });

  it('falls back to count when the history knows none of the files', () => {
    const plan = planTestFiles(files(4), 2, { ms: new Map([['other.py', 5]]), runs: 1, before: 'x' });
    expect(plan.by).toBe('count');
  });

  it('gives the whole suite to shard 1 when the runner cannot select files', () => {
    const plan = planTestFiles(files(5), 3, undefined, false);
    expect(plan.by).toBe('suite');
    const slices = [1, 2, 3].map((index) => new ShardSlice({ index, total: 3 }, plan));
    expect(slices.map((s) => s.runsSuite)).toEqual([true, false, false]);
    expect(slices.map((s) => s.owns('test-file', 'tests/test_004.py'))).toEqual([true, false, false]);
  });

  it('is a function of its inputs: the same plan and digest whatever order the files come in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}\.py$/), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        (names, n) => {
          const a = planTestFiles(names, n);
          const b = planTestFiles([...names].reverse(), n);
          expect(a).toEqual(b);
          expect(planDigest(n, a)).toBe(planDigest(n, b));
          // Every file is owned by exactly one shard.
          const slices = Array.from({ length: n }, (_, i) => new ShardSlice({ index: i + 1, total: n }, a));
          for (const f of names) expect(slices.filter((s) => s.owns('test-file', f))).toHaveLength(1);
        },
      ),
    );
  });

  it('gives a different digest to a different split', () => {
    const a = planTestFiles(files(6), 2);
    const b = planTestFiles(files(6), 3);
    const c = planTestFiles(files(6), 2, { ms: new Map([['tests/test_000.py', 100]]), runs: 1, before: 'x' });
    expect(new Set([planDigest(2, a), planDigest(3, b), planDigest(2, c)]).size).toBe(3);
  });
});

describe('units the plan does not list', () => {
  it('go to exactly one shard by a hash of their name, the same on every shard', () => {
    const plan = planTestFiles([], 4);
    const slices = [1, 2, 3, 4].map((index) => new ShardSlice({ index, total: 4 }, plan));
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 400; i++) {
      const owners = slices.filter((s) => s.owns('property', `prop_${i}`));
      expect(owners).toHaveLength(1);
      const at = (owners[0]?.spec.index ?? 1) - 1;
      counts[at] = (counts[at] ?? 0) + 1;
      expect(slices.filter((s) => s.owns('test-file', `unplanned/test_${i}.py`))).toHaveLength(1);
    }
    // Roughly even: no shard gets less than half its share of 400 names.
    for (const c of counts) expect(c).toBeGreaterThan(50);
    expect(hashOwner('anything', 1)).toBe(1);
  });

  it('keeps kinds apart: a property and a tape row of one name may land on different shards', () => {
    const plan = planTestFiles([], 8);
    const s = new ShardSlice({ index: 1, total: 8 }, plan);
    const differ = Array.from({ length: 50 }, (_, i) => `n${i}`).some(
      (n) => s.ownerOf('property', n) !== s.ownerOf('tape-row', n),
    );
    expect(differ).toBe(true);
  });
});
