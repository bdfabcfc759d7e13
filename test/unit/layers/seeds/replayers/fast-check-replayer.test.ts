import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TapeRow, TapeSeed } from '../../../../../src/contracts/seed-tape.js';
import { replayFastCheck } from '../../../../../src/layers/seeds/replayers/fast-check.js';
import { tempDir } from '../../../../helpers/gitdir.js';
import { testSandbox } from '../../../../helpers/sandbox.js';

const sandbox = await testSandbox();

/**
 * The fast-check runner against real property modules in a temp checkout,
 * run in the real worker pool (the built worker in dist/).
 */

const SPLIT_OK = `export function split(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i < total % count ? 1 : 0));
}
`;
/** The bug the example's tape recorded: every installment rounded alone. */
const SPLIT_ROUNDED = `export function split(total: number, count: number): number[] {
  return Array.from({ length: count }, () => Math.round(total / count));
}
`;

function property(opts: { id?: string; arbs?: string; params?: string; extra?: string } = {}): string {
  return `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
import { split } from './split.js';
${opts.extra ?? ''}
export const adds = defineSeedProperty({
  id: '${opts.id ?? 'adds_up'}',
  property: fc.property(${opts.arbs ?? 'fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 12 })'}, (total, count) => {
    const parts = split(total, count);
    return parts.reduce((a, b) => a + b, 0) === total;
  }),
  params: ${opts.params ?? '{ numRuns: 200 }'},
});
`;
}

function checkout(files: Record<string, string>): string {
  const root = tempDir('pg-fc-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const row = (seeds: (string | TapeSeed)[], over: Partial<TapeRow> = {}): TapeRow => ({
  id: 'adds_up',
  runner: 'fast-check',
  min_examples: 100,
  seeds: seeds.map((s) => (typeof s === 'string' ? { seed: s } : s)),
  index: 0,
  ...over,
});

const replay = (root: string, rows: TapeRow[], timeoutMs = 5000) =>
  replayFastCheck({
    sandbox,
    root,
    modules: ['props/**/*.ts'],
    rows,
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs,
    workers: 2,
  });

// Seeds the example's explore run found against SPLIT_ROUNDED.
const FAILING_SEED = '2081211641';

describe('fast-check seed replay', () => {
  it('fails a recorded seed on buggy code with the shrunk counterexample and its path', async () => {
    const root = checkout({ 'props/split.ts': SPLIT_ROUNDED, 'props/adds.ts': property() });
    const out = await replay(root, [row([FAILING_SEED])]);
    const [r] = out.replays;
    expect(r).toMatchObject({ property: 'adds_up', seed: FAILING_SEED, status: 'fail', via: 'seed' });
    expect(r?.counterexample).toMatch(/^\[\d+,\d+\]$/);
    expect(r?.shrunk).toEqual(JSON.parse(r?.counterexample ?? 'null'));
    expect(r?.path).toMatch(/^\d+(:\d+)*$/);

    // The recorded path alone replays the same failure.
    const again = await replay(root, [row([{ seed: FAILING_SEED, path: r?.path ?? '' }])]);
    expect(again.replays[0]).toMatchObject({
      status: 'fail',
      via: 'path',
      counterexample: r?.counterexample,
    });
  });

  it('passes the same seed on fixed code and counts the examples', async () => {
    const root = checkout({ 'props/split.ts': SPLIT_OK, 'props/adds.ts': property() });
    const out = await replay(root, [row([FAILING_SEED, '-17'])]);
    expect(out.replays.map((r) => [r.seed, r.status, r.examples])).toEqual([
      [FAILING_SEED, 'pass', 200],
      ['-17', 'pass', 200],
    ]);
    // Counting stops at the floor: past it, more examples prove nothing more.
    expect(out.counts).toEqual([expect.objectContaining({ property: 'adds_up', counted: 100 })]);
    expect(out.fastCheck).toEqual({ version: '4.3.0', source: 'patchgate' });
  });

  it('replays a stored counterexample through a filtered generator that hides it from the seed', async () => {
    const filtered = property({
      arbs: 'fc.nat({ max: 1000 }).filter((t) => t % 20 === 0), fc.constantFrom(1, 2, 4, 5, 10)',
    });
    const root = checkout({ 'props/split.ts': SPLIT_ROUNDED, 'props/adds.ts': filtered });
    // The seed alone no longer finds the bug: the generator never yields an uneven split.
    const seedOnly = await replay(root, [row([FAILING_SEED])]);
    expect(seedOnly.replays[0]?.status).toBe('pass');
    // The stored counterexample goes straight to the predicate.
    const withCx = await replay(root, [row([{ seed: FAILING_SEED, counterexample: [4, 3] }])]);
    expect(withCx.replays[0]).toMatchObject({ status: 'fail', via: 'counterexample', shrunk: [4, 3] });
    expect(withCx.replays[0]?.path).toBeUndefined();
  });

  it('counts the examples the property declares, not the floor, while the replay itself runs the floor', async () => {
    const root = checkout({
      'props/split.ts': SPLIT_OK,
      'props/adds.ts': property({ params: '{ numRuns: 20 }' }),
    });
    const out = await replay(root, [row(['5'])]);
    expect(out.replays[0]).toMatchObject({ status: 'pass', examples: 100 });
    expect(out.counts[0]).toMatchObject({ counted: 20 });
    expect(out.counts[0]?.how).toMatch(/as declared \(numRuns 20\)/);
  });

  it('caps a huge declared numRuns so a patch cannot keep the gate busy forever', async () => {
    const root = checkout({
      'props/split.ts': SPLIT_OK,
      'props/adds.ts': property({ params: '{ numRuns: 1e9 }' }),
    });
    const out = await replay(root, [row(['5'])]);
    expect(out.replays[0]).toMatchObject({ status: 'pass', examples: 10_000 });
    expect(out.counts[0]).toMatchObject({ counted: 100 });
    expect(out.counts[0]?.how).toMatch(/numRuns 1000000000/);
  });

  it('counts examples lost to preconditions in the replay', async () => {
    const pre = property({
      extra: '',
      arbs: 'fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 12 }).map((c) => { fc.pre(c > 11); return c; })',
      params: '{ numRuns: 200, maxSkipsPerRun: 0.01 }',
    });
    const root = checkout({ 'props/split.ts': SPLIT_OK, 'props/adds.ts': pre });
    const out = await replay(root, [row(['5'])]);
    // Either the run gives up on skips (not run) or it counts fewer than its floor; never a clean pass at 200.
    const r = out.replays[0];
    const counted = out.counts[0]?.counted ?? 0;
    expect(r?.status === 'not-run' || counted < 100).toBe(true);
  });

  it("fixes the random generator, whatever the head's params say", async () => {
    const root = checkout({
      'props/split.ts': SPLIT_ROUNDED,
      'props/adds.ts': property({
        params: "{ numRuns: 200, randomType: 'congruential32', unbiased: true, seed: 1 }",
      }),
    });
    const plain = checkout({ 'props/split.ts': SPLIT_ROUNDED, 'props/adds.ts': property() });
    const [a, b] = await Promise.all([
      replay(root, [row([FAILING_SEED])]),
      replay(plain, [row([FAILING_SEED])]),
    ]);
    expect(a.replays[0]?.status).toBe('fail');
    expect(a.replays[0]?.counterexample).toBe(b.replays[0]?.counterexample);
    expect(a.replays[0]?.path).toBe(b.replays[0]?.path);
  });

  it('fails a tape row whose property was renamed, saying renaming does not escape the tape', async () => {
    const root = checkout({ 'props/split.ts': SPLIT_OK, 'props/adds.ts': property({ id: 'sums_match' }) });
    const out = await replay(root, [row(['1', '2'])]);
    expect(out.replays.map((r) => r.status)).toEqual(['not-found', 'not-found']);
    expect(out.replays[0]?.message).toMatch(
      /property 'adds_up' not found.*renaming does not escape the tape/,
    );
  });

  it('names a module that no longer loads in the not-found message', async () => {
    const root = checkout({ 'props/split.ts': SPLIT_OK, 'props/adds.ts': 'export const x = ;\n' });
    const out = await replay(root, [row(['1'])]);
    expect(out.replays[0]?.status).toBe('not-found');
    expect(out.replays[0]?.message).toMatch(/modules that failed to load: props\/adds\.ts/);
  });

  it('refuses to guess between two definitions with the same id', async () => {
    const root = checkout({
      'props/split.ts': SPLIT_OK,
      'props/adds.ts': property(),
      'props/adds2.ts': property().replace("'./split.js'", "'./split.js'"),
    });
    const out = await replay(root, [row(['1'])]);
    expect(out.replays[0]).toMatchObject({ status: 'not-found' });
    expect(out.replays[0]?.message).toMatch(/defined more than once \(props\/adds\.ts, props\/adds2\.ts\)/);
  });

  it('stops a property that hangs and still replays the others', async () => {
    const hang = `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
export const hangs = defineSeedProperty({
  id: 'hangs',
  property: fc.property(fc.nat(), (n) => { if (n >= 0) for (;;) {} return true; }),
});
`;
    const root = checkout({ 'props/split.ts': SPLIT_OK, 'props/adds.ts': property(), 'props/hang.ts': hang });
    const out = await replay(root, [row(['3']), row(['4', '5'], { id: 'hangs', index: 1 })], 300);
    const by = Object.fromEntries(out.replays.map((r) => [`${r.property}@${r.seed}`, r.status]));
    expect(by).toEqual({ 'adds_up@3': 'pass', 'hangs@4': 'timeout', 'hangs@5': 'not-run' });
  });

  it('never runs a fast-check the patch committed: its check that never fails is not the engine', async () => {
    const root = checkout({ 'props/split.ts': SPLIT_ROUNDED, 'props/adds.ts': property() });
    // A committed node_modules/fast-check whose check always reports success.
    const fake = path.join(root, 'node_modules', 'fast-check');
    mkdirSync(fake, { recursive: true });
    writeFileSync(
      path.join(fake, 'package.json'),
      '{"name":"fast-check","version":"99.0.0","main":"index.js"}',
    );
    writeFileSync(
      path.join(fake, 'index.js'),
      'const ok = () => ({ failed: false, interrupted: false, numRuns: 100000, numSkips: 0, counterexample: null, counterexamplePath: null, errorInstance: null });\n' +
        'module.exports = new Proxy({ check: ok, assert() {} }, { get: (t, k) => (k in t ? t[k] : () => ({})) });\n',
    );
    const out = await replay(root, [row(['2081211641'])]);
    expect(out.fastCheck.source).toBe('patchgate');
    expect(out.fastCheck.version).not.toBe('99.0.0');
    expect(out.replays[0]?.status).toBe('fail');
  });
});
