import { describe, expect, it } from 'vitest';
import {
  exploreCommand,
  freshSeeds,
  type RandomSource,
  seedsAddArgv,
} from '../../../../src/cli/commands/explore.js';
import { shellCommand, shellQuote } from '../../../../src/cli/shell-quote.js';
import { memoryIO } from '../../../helpers/cli-io.js';
import { GitDir } from '../../../helpers/gitdir.js';

/** explore starts python3 for pytest rows: the search path is all it needs. */
const exploreIO = (cwd: string) => memoryIO(cwd, { PATH: process.env.PATH });

/** Hands out the given values in turn, recording the ranges it was asked for. */
function pinned(values: number[]): RandomSource & { asked: [number, number][] } {
  let i = 0;
  const asked: [number, number][] = [];
  return {
    asked,
    int(min, max) {
      asked.push([min, max]);
      const v = values[i++ % values.length];
      if (v === undefined) throw new Error('no pinned values');
      return v;
    },
  };
}

describe('freshSeeds', () => {
  it('draws fast-check seeds from the signed 32-bit range and process seeds from [0, 2^31)', () => {
    const fc = pinned([1, 2]);
    expect(freshSeeds(2, 'fast-check', fc)).toEqual(['1', '2']);
    expect(fc.asked).toEqual([
      [-(2 ** 31), 2 ** 31],
      [-(2 ** 31), 2 ** 31],
    ]);
    const py = pinned([3]);
    freshSeeds(1, 'pytest', py);
    freshSeeds(1, 'command', py);
    expect(py.asked).toEqual([
      [0, 2 ** 31],
      [0, 2 ** 31],
    ]);
  });

  it('keeps seeds distinct and gives up on a source that only repeats itself', () => {
    expect(freshSeeds(3, 'fast-check', pinned([5, 5, 6, 5, 7]))).toEqual(['5', '6', '7']);
    expect(freshSeeds(3, 'fast-check', pinned([4]))).toEqual(['4']);
  });
});

describe('seedsAddArgv', () => {
  it('attaches values that start with a dash and puts a dash-led id after --', () => {
    expect(
      seedsAddArgv({ property: 'p', seed: '-5', path: '1:2', shrunk: [-1, 'a b'] }, 'fast-check'),
    ).toEqual([
      'patchgate',
      'seeds',
      'add',
      'p',
      '--seed=-5',
      '--path',
      '1:2',
      '--counterexample',
      '[-1,"a b"]',
    ]);
    expect(seedsAddArgv({ property: '-odd', seed: '5' }, 'pytest')).toEqual([
      'patchgate',
      'seeds',
      'add',
      '--seed',
      '5',
      '--',
      '-odd',
    ]);
  });

  it('records only the seed for a process row, which cannot replay a path or counterexample', () => {
    expect(seedsAddArgv({ property: 'p', seed: '9', path: '1', shrunk: [1] }, 'command')).toEqual([
      'patchgate',
      'seeds',
      'add',
      'p',
      '--seed',
      '9',
    ]);
  });

  it("offers a pytest row's failing arguments by name as its counterexample, never a path", () => {
    expect(
      seedsAddArgv({ property: 'split', seed: '7', path: '1', shrunk: { total: 1, count: 2 } }, 'pytest'),
    ).toEqual([
      'patchgate',
      'seeds',
      'add',
      'split',
      '--seed',
      '7',
      '--counterexample',
      '{"total":1,"count":2}',
    ]);
  });

  it('quotes for the shell, single quotes included', () => {
    expect(shellQuote('plain-1:2')).toBe('plain-1:2');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote(`it's [1,"x"]`)).toBe(`'it'\\''s [1,"x"]'`);
    expect(shellCommand(seedsAddArgv({ property: "o'k", seed: '1', shrunk: ["'"] }, 'fast-check'))).toBe(
      `patchgate seeds add 'o'\\''k' --seed 1 --counterexample '["'\\''"]'`,
    );
  });
});

describe('explore with pinned seeds', () => {
  const MODULE = `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
// Bug: the running total starts from the second element.
const total = (xs: number[]) => xs.slice(1).reduce((s, x) => s + x, 0);
export const p = defineSeedProperty({
  id: 'total_is_sum',
  property: fc.property(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), (xs) => {
    let sum = 0;
    for (const x of xs) sum += x;
    return total(xs) === sum;
  }),
  params: { numRuns: 20 },
});
`;

  it('replays exactly the seeds the source gives, so a failure reproduces', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({ seeds: { properties: ['props/*.ts'] } }),
      'props/total.ts': MODULE,
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'total_is_sum', runner: 'fast-check', min_examples: 10, seeds: [] }],
      }),
    });
    const runs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { io, out } = exploreIO(repo.dir);
      const code = await exploreCommand(['--runs', '2', '--json'], io, { random: pinned([42, -42]) });
      expect(code).toBe(1);
      runs.push(out());
    }
    expect(runs[0]).toBe(runs[1]);
    const result = JSON.parse(runs[0] ?? '');
    expect(result.properties[0].seeds).toEqual(['42', '-42']);
    expect(result.counterexamples.map((c: { seed: string }) => c.seed)).toEqual(['42', '-42']);
    expect(result.counterexamples[0].shrunk).toEqual([[1]]);
    expect(result.counterexamples[1].command).toBe(
      `patchgate seeds add total_is_sum --seed=-42 --path ${result.counterexamples[1].path} --counterexample '[[1]]'`,
    );
  });
});
