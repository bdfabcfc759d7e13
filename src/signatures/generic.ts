/**
 * Whether a signature template says anything of its own. Runners write many
 * failures and skips with no text a human wrote: vitest and jest skip with no
 * message, pytest's bare `@pytest.mark.skip` says "unconditional skip", JUnit
 * 5 says "This test was disabled.", node:test says "true". Every such skip of every test has the same
 * template, so a row frozen by the hash of one would cover all of them. A
 * generic template therefore only ever covers the test a row names.
 *
 * The test errs on the side of "generic": calling a template generic only
 * binds its row to one test (a rename then needs a new row), while calling a
 * generic template distinctive would let one freeze excuse every skip.
 */

/** Words runners use in the text they generate for a skip or failure without a reason. */
const BOILERPLATE = new Set([
  'a',
  'an',
  'as',
  'at',
  'assert',
  'assertion',
  'assertionerror',
  'been',
  'by',
  'class',
  'collection',
  'disabled',
  'error',
  'errored',
  'exception',
  'executed',
  'expected',
  'fail',
  'failed',
  'failure',
  'given',
  'has',
  'ignored',
  'is',
  'marked',
  'message',
  'no',
  'not',
  'notrun',
  'object',
  'pending',
  'reason',
  'run',
  'skip',
  'skipped',
  'skipping',
  'test',
  'tests',
  'the',
  'this',
  'to',
  'todo',
  'traceback',
  // node:test writes `message="true"` for `{ skip: true }` and `{ todo: true }`.
  'true',
  'unconditional',
  'unconditionally',
  'user',
  'was',
  'xfail',
  'xfailed',
]);

/** Placeholders the normalizer writes (see normalize.ts); they carry no identity either. */
const PLACEHOLDER = /<(?:TS|UUID|HEX|TMP|DUR|N)>/g;

/** True when the message half of `kind|message` is empty or runner boilerplate only. */
export function isGenericTemplate(template: string): boolean {
  const bar = template.indexOf('|');
  const message = (bar < 0 ? template : template.slice(bar + 1)).replace(PLACEHOLDER, ' ');
  const words = message.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.every((w) => BOILERPLATE.has(w));
}
