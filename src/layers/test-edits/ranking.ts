/**
 * How much an assertion pins down, from 3 (one value) to 0 (nothing). An
 * assertion the head replaced by one of a lower rank lets more wrong outputs
 * through; that is the "weakened" edit. The ranking (docs/test-edits.md has
 * the same table):
 *
 * | rank | pins | JavaScript (vitest, jest, node:assert, chai) | Python (pytest, unittest) |
 * | --- | --- | --- | --- |
 * | 3 | one value | `toBe`, `toEqual`, `toStrictEqual`, `toBeNull`, `toBeUndefined`, `toBeNaN`, `toBeCloseTo`, snapshots, `toHaveBeenCalledWith`…, `toThrow('msg' \| /re/)`, `assert.strictEqual`, `deepStrictEqual`, `equal`, chai `equal`/`eql` | `==`, `== approx(...)`, `is None`, `assertEqual` and its kin, `assertIs`, `assertIsNone`, `assertAlmostEqual`, `raises(E, match=...)`, `assertRaisesRegex` |
 * | 2 | a property of it | `toMatchObject`, `toContain`, `toContainEqual`, `toHaveProperty`, `toMatch`, `toHaveLength`, `toBeGreaterThan`…, `toBeInstanceOf`, `toHaveBeenCalledTimes`, `toSatisfy`, `toThrow(ErrorClass)`, `assert.match`, a predicate's `return` | `in`, `not in`, `<`, `<=`, `>`, `>=`, `isinstance`, `assertIn`, `assertGreater`…, `assertIsInstance`, `assertRegex`, `raises(SpecificError)` |
 * | 1 | that there is one | `toBeDefined`, `toBeTruthy`, `toBeFalsy`, `toHaveBeenCalled`, `toThrow()`, `toThrow(Error)`, any `.not.` matcher, `assert(x)`, `assert.ok` | `assert x`, `assert not x`, `!=`, `is not`, `is not None`, `assertTrue`, `assertFalse`, `assertIsNotNone`, `raises(Exception)` |
 * | 0 | nothing | `expect(x)` without a matcher, an assertion on a literal (`expect(true).toBe(true)`), `return true` | `assert True`, `assert 1`, `assert "text"`, `assert (a, b)` (a tuple is always true) |
 *
 * A matcher not in the table ranks 2: it checks something, and the gate
 * does not claim to know how much.
 */
import type { Assertion } from './model.js';

const EXACT = new Set([
  // JavaScript
  'toBe',
  'toEqual',
  'toStrictEqual',
  'toBeNull',
  'toBeUndefined',
  'toBeNaN',
  'toBeCloseTo',
  'toMatchSnapshot',
  'toMatchInlineSnapshot',
  'toMatchFileSnapshot',
  'toThrowErrorMatchingSnapshot',
  'toThrowErrorMatchingInlineSnapshot',
  'toHaveBeenCalledWith',
  'toHaveBeenLastCalledWith',
  'toHaveBeenNthCalledWith',
  'toBeCalledWith',
  'toHaveReturnedWith',
  'toHaveLastReturnedWith',
  'toHaveNthReturnedWith',
  'toBeTrue',
  'toBeFalse',
  'strictEqual',
  'deepStrictEqual',
  'equal',
  'deepEqual',
  'eql',
  'equals',
  'true',
  'false',
  'null',
  'undefined',
  // Python
  '==',
  'approx',
  'is None',
  'is',
  'assertEqual',
  'assertEquals',
  'assertDictEqual',
  'assertListEqual',
  'assertTupleEqual',
  'assertSetEqual',
  'assertSequenceEqual',
  'assertMultiLineEqual',
  'assertCountEqual',
  'assertIs',
  'assertIsNone',
  'assertAlmostEqual',
  'assertAlmostEquals',
]);

const PRESENCE = new Set([
  'toBeDefined',
  'toBeTruthy',
  'toBeFalsy',
  'toHaveBeenCalled',
  'toBeCalled',
  'toHaveReturned',
  'ok',
  'exist',
  'assert',
  // Python
  'truthy',
  'falsy',
  '!=',
  'is not',
  'is not None',
  'assertTrue',
  'assertFalse',
  'assert_',
  'assertIsNotNone',
  'assertNotEqual',
  'assertIsNot',
]);

/** Matchers that check that something throws: ranked by what they say about the error. */
const THROWS = new Set([
  'toThrow',
  'toThrowError',
  'throws',
  'rejects',
  'raises',
  'assertRaises',
  'assertRaisesRegex',
]);

export function rankOf(a: Assertion): number {
  if (a.matcher === '' || a.matcher === 'const') return 0;
  if (a.matcher === 'return') return a.expected === 'true' ? 0 : 2;
  if (THROWS.has(a.matcher)) {
    if (a.swallowed) return 1;
    return a.arg === 'literal' ? 3 : a.arg === 'name' ? 2 : 1;
  }
  if (a.negated) return 1;
  if (EXACT.has(a.matcher)) return 3;
  if (PRESENCE.has(a.matcher)) return 1;
  return 2;
}

const VALUE_WORDS = [
  'checks nothing',
  'checks only that there is a value',
  'checks a property of the value',
  'checks the value',
];
const THROW_WORDS = [
  'checks nothing',
  'checks only that something is thrown',
  "checks the error's type",
  "checks the error's message",
];

/** A rank in words, for an edit's description. */
export function rankWords(a: Assertion, rank: number): string {
  return (THROWS.has(a.matcher) ? THROW_WORDS : VALUE_WORDS)[rank] ?? '';
}
