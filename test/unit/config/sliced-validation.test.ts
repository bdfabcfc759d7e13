import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { safeParseSliced } from '../../../src/config/sliced-validation.js';
import { fixtureLockSchema } from '../../../src/contracts/fixture-lock.js';
import { tapeSchema } from '../../../src/contracts/seed-tape.js';
import { flakeLedgerSchema } from '../../../src/freeze/flake-ledger.js';
import { signatureFreezeSchema } from '../../../src/freeze/signature-freeze.js';
import { stabilityFreezeSchema } from '../../../src/freeze/stability-freeze.js';
import { runToEnd, type SliceBudget } from '../../../src/util/time-slice.js';

/**
 * Validating a large field entry by entry must report exactly what one
 * `safeParse` of the whole reports: the same issues, in the same order,
 * with the same paths, and the same output.
 */

const ALWAYS_DUE = { due: () => true } as unknown as SliceBudget;

function sliced(schema: z.ZodType, value: unknown): { success: boolean; data?: unknown; issues?: unknown } {
  const it = safeParseSliced(schema, value, ALWAYS_DUE);
  for (;;) {
    const step = it.next();
    if (step.done) return step.value;
  }
}

function whole(schema: z.ZodType, value: unknown) {
  const r = schema.safeParse(value, { reportInput: true });
  return r.success ? { success: true, data: r.data } : { success: false, issues: r.error.issues };
}

function same(schema: z.ZodType, value: unknown): void {
  expect(sliced(schema, value)).toStrictEqual(whole(schema, value));
}

const SHA = 'e3b0c44298fc1c149afbf4c8996fb924'.repeat(2);

/** A value, or one of the ways a human or a generator gets an entry wrong. */
const corrupt = <T>(good: T) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(good) },
    fc.constant(null),
    fc.constant('a string'),
    fc.constant([good]),
    fc.constant({ ...(good as object), extra: 1 }),
    fc.constant({}),
  );

const lockEntry = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ sha256: SHA, owner: 'payments' }) },
  fc.constant({ sha256: SHA.toUpperCase(), owner: 'payments' }),
  fc.constant({ sha256: SHA, owner: '' }),
  corrupt({ sha256: SHA, owner: 'x' }),
);

const lockKey = fc.oneof(
  { weight: 10, arbitrary: fc.nat(10_000).map((n) => `testdata/f${n}.json`) },
  // `constructor` and `__proto__` are reserved (their own tests below): zod crashes on one, drops the other.
  fc.constantFrom('0', '17', 'toString', 'hasOwnProperty', ''),
);

const lock = fc
  .tuple(
    fc.array(fc.tuple(lockKey, lockEntry), { minLength: 1030, maxLength: 1300 }),
    fc.oneof({ weight: 5, arbitrary: fc.constant('FIXTURE_OVERRIDE') }, fc.constant('1bad'), fc.constant(7)),
    fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, fc.constant(true)),
  )
  .map(([entries, variable, extra]) => {
    const files: Record<string, unknown> = {};
    for (const [k, v] of entries)
      Object.defineProperty(files, k, { value: v, enumerable: true, writable: true, configurable: true });
    return { override_token_env: variable, files, ...(extra !== undefined ? { extra } : {}) };
  });

const ledgerRow = corrupt({
  property: 'p',
  cause_class: 'CLOCK',
  fixture_digest: SHA,
  owner: 'o',
  expires: '2026-10-04',
  action: 'fix it',
  freeze_hits: false,
});
const stabilityRow = corrupt({
  test: 's::c::t',
  owner: 'o',
  reason: 'r',
  expires: '2026-13-01',
  action: 'a',
});
const signatureRow = corrupt({
  sha256: SHA,
  template: 'AssertionError|x',
  owner: 'o',
  expires: '2026-01-01',
});
const tapeRow = corrupt({
  id: 'p',
  runner: 'fast-check',
  min_examples: 10,
  seeds: ['1', { seed: 2, path: '1:0' }, 'x'],
});

const rows = <T>(key: string, row: fc.Arbitrary<T>, extra: Record<string, unknown> = {}) =>
  fc.array(row, { minLength: 1030, maxLength: 1200 }).map((list) => ({ ...extra, [key]: list }));

describe('safeParseSliced: what one safeParse reports', () => {
  it('on fixture locks', () => {
    fc.assert(
      fc.property(lock, (v) => same(fixtureLockSchema, v)),
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('on flake ledgers', () => {
    fc.assert(
      fc.property(rows('rules', ledgerRow, { version: 1 }), (v) => same(flakeLedgerSchema, v)),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('on stability freezes', () => {
    fc.assert(
      fc.property(rows('freezes', stabilityRow), (v) => same(stabilityFreezeSchema, v)),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('on signature freezes', () => {
    fc.assert(
      fc.property(rows('signatures', signatureRow), (v) => same(signatureFreezeSchema, v)),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('on seed tapes, whose rows transform', () => {
    fc.assert(
      fc.property(rows('properties', tapeRow, { extra: 1 }), (v) => same(tapeSchema, v)),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('on records whose values change (trimmed, stripped, defaulted)', () => {
    const big = (value: unknown) =>
      Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, value]));
    same(z.strictObject({ r: z.record(z.string(), z.string().trim()) }), { r: big('  x  ') });
    same(z.strictObject({ r: z.record(z.string(), z.object({ a: z.int() })) }), { r: big({ a: 1, b: 2 }) });
    same(z.strictObject({ r: z.record(z.string(), z.strictObject({ a: z.int().default(3) })) }), {
      r: big({}),
    });
    same(z.strictObject({ r: z.array(z.string().trim()) }), { r: Object.values(big(' y ')) });
    // Key schemas that could fail keep the record in one call.
    same(z.strictObject({ r: z.record(z.string().min(3), z.int()) }), { r: big(1) });
  });

  it('on what is not an object, and on objects checked as a whole', () => {
    same(fixtureLockSchema, null);
    same(fixtureLockSchema, [1, 2]);
    same(fixtureLockSchema, { files: 'x' });
    const refined = z
      .strictObject({ r: z.array(z.int()) })
      .refine((v) => v.r.length > 2000, { message: 'too short' });
    same(refined, { r: Array.from({ length: 1500 }, (_, i) => i) });
  });
});

describe('safeParseSliced: what it saves', () => {
  it("keeps a large record as it is when the schema's output is its input", () => {
    const files = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`testdata/f${i}`, { sha256: SHA, owner: 'o' }]),
    );
    const r = sliced(fixtureLockSchema, { override_token_env: 'X', files });
    expect((r.data as { files: unknown }).files).toBe(files);
  });

  it.each([
    ['constructor', null],
    ['constructor', { sha256: SHA, owner: 'o' }],
    ['__proto__', { sha256: SHA, owner: 'o' }],
  ])('reports a reserved key %s as a located problem, where zod would crash or drop it', (key, value) => {
    const files: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`testdata/f${i}`, { sha256: SHA, owner: 'o' }]),
    );
    Object.defineProperty(files, key, { value, enumerable: true, writable: true, configurable: true });
    const r = sliced(fixtureLockSchema, { override_token_env: 'X', files });
    expect(r.success).toBe(false);
    expect(r.issues).toEqual([
      expect.objectContaining({ path: ['files', key], message: expect.stringContaining(`the key '${key}'`) }),
    ]);
  });

  it('yields between entries, so a slice never holds a whole large field', () => {
    const files = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`testdata/f${i}`, { sha256: SHA, owner: 'o' }]),
    );
    const it = safeParseSliced(fixtureLockSchema, { override_token_env: 'X', files }, ALWAYS_DUE);
    let yields = 0;
    while (!it.next().done) yields++;
    expect(yields).toBeGreaterThanOrEqual(2000);
  });
});

describe('runToEnd of safeParseSliced', () => {
  it('is the same result without any budget', () => {
    const v = { override_token_env: 'X', files: { 'testdata/a': { sha256: 'nope', owner: 'o' } } };
    expect(runToEnd((b) => safeParseSliced(fixtureLockSchema, v, b))).toStrictEqual(
      whole(fixtureLockSchema, v),
    );
  });
});
