import type { SkipDetail, TestStatus } from './model.js';

/**
 * Runners that write a `<skipped>` element for a result that is not a plain
 * skip (the rules are specified in the header of model.ts). Each is
 * recognised by the exact text the runner writes, never by a loose match:
 * reading a failure as anything milder must take the runner's whole shape,
 * or a report could hide a failure behind a skip.
 */

// nose2's junitxml plugin writes an unexpected success, and an expected
// failure (with its traceback as the body), as skips with these messages.
const NOSE2_UNEXPECTED_SUCCESS = 'test passes unexpectedly';
const NOSE2_EXPECTED_FAILURE = 'expected test failure';

// CTest writes every test that did not start as status="notrun" plus a skip
// whose message is the reason. These are the reasons CTest itself counts as
// failures; its real skips (SKIP_RETURN_CODE=…, SKIP_REGULAR_EXPRESSION_MATCHED)
// are not among them.
const CTEST_FAILED_TO_START = new Set([
  'Unable to find executable',
  'Required Files Missing',
  'Fixture dependency failed',
  'Missing Configuration',
]);

// Catch2 (v2 and v3) writes this for [!mayfail] and [!shouldfail] alike; the
// second spelling names the other tag, should a release ever write it.
const CATCH2_OK_TO_FAIL = new Set(['TEST_CASE tagged with !mayfail', 'TEST_CASE tagged with !shouldfail']);

/** A `<skipped>` element that stands for another result element, and the failure kind it gets. */
export interface SkipAsResult {
  element: 'failure' | 'error';
  kind: string;
}

/**
 * What a testcase's `<skipped>` element stands for, if a runner writes
 * another result that way. `type` is the folded type attribute ('' when
 * absent), `message` the message attribute as written.
 */
export function skipAsResult(
  type: string,
  message: string | undefined,
  statusAttr: string | undefined,
): SkipAsResult | undefined {
  if (type !== '' || message === undefined) return undefined;
  if (message === NOSE2_UNEXPECTED_SUCCESS) return { element: 'failure', kind: 'unexpectedSuccess' };
  if (statusAttr === 'notrun' && CTEST_FAILED_TO_START.has(message))
    return { element: 'error', kind: 'notrun' };
  return undefined;
}

/** Whether a testcase's `<skipped>` is a runner's expected failure that failed, told by its message alone. */
export function skipIsExpectedFailure(type: string, message: string | undefined): boolean {
  return type === '' && message === NOSE2_EXPECTED_FAILURE;
}

const CATCH2_SHAPE = /^s[fe]+$/;

export interface CaseShape {
  /**
   * The testcase's result elements in document order, one letter each: `s`
   * skipped, `f` failure, `e` error, `r` a rerun or flaky element, `x` a skip
   * read as a failure or error. The exceptions below match it whole.
   */
  shape: string;
  statusAttr: string | undefined;
  /** Whether the testcase has a `failure` attribute (node:test writes one with each failure). */
  failureAttr: boolean;
  /** The first `<skipped>` element. */
  skipped: SkipDetail | undefined;
}

/**
 * The status of a testcase whose runner marks an expected failure with a
 * `<skipped>` beside the failure, or undefined to apply the usual precedence.
 */
export function expectedFailureStatus(c: CaseShape): TestStatus | undefined {
  const skip = c.skipped;
  if (skip === undefined) return undefined;
  // node:test: a failing `todo` test; node exits 0 for it.
  if (c.shape === 'sf' && skip.type === 'todo' && c.failureAttr) return 'skipped';
  // Catch2: a failing [!mayfail] or [!shouldfail] test.
  if (
    c.statusAttr === 'run' &&
    skip.type === undefined &&
    CATCH2_OK_TO_FAIL.has(skip.message) &&
    CATCH2_SHAPE.test(c.shape)
  ) {
    return 'xfailed';
  }
  return undefined;
}
