/**
 * What a JUnit XML report says about each test, normalized across runners.
 *
 * Statuses, strongest first. A testcase carrying several result elements takes
 * the strongest (error > failure > skipped), so a report can never hide a
 * failure behind a skip; result elements always outrank attributes.
 *
 * - `error`: an `<error>` element (the test could not run to a verdict); with
 *   no result element, `status="error|errored"`.
 * - `failed`: a `<failure>` element; a testcase carrying only Surefire
 *   `<rerunFailure>`/`<rerunError>` elements (every run failed); with no result
 *   element, `status="failed|failure|fail"`.
 * - `skipped`: a `<skipped>` element; with no result element, a runner's skip
 *   marker on the testcase: `status="notrun|disabled|skipped|skip|ignored"`
 *   (googletest, jasmine, tst), `result="skipped|suppressed"` (googletest).
 * - `xfailed`: an expected failure that did fail: pytest's
 *   `<skipped type="pytest.xfail">`, unittest-xml-reporting's
 *   `<skipped type="XFAIL">`, nose2's `<skipped message="expected test
 *   failure">` (no type, on a testcase), and Playwright's `fail` annotation
 *   on a test that passed (Playwright reports expected failures as passes).
 * - `flaky`: passed after failing: `<flakyFailure>`/`<flakyError>` elements
 *   (Surefire, cargo-nextest) and no final failure.
 * - `passed`: none of the above.
 *
 * Some runners write a `<skipped>` element for a result that is not a skip.
 * Each is recognised by the exact text the runner writes (a `<skipped>`
 * without a `type`, on a testcase), and read as the element it stands for,
 * which then takes part in the precedence above (it is no skip: it sets no
 * `skipped`):
 *
 * - nose2's unexpected success, `<skipped message="test passes
 *   unexpectedly">`, is a `<failure>` of kind `unexpectedSuccess`.
 * - CTest's tests that never started although CTest counts them as failed,
 *   `status="notrun"` with `<skipped message="Unable to find executable">`
 *   (or `Required Files Missing`, `Fixture dependency failed`, `Missing
 *   Configuration`), are an `<error>` of kind `notrun`. CTest's real skips
 *   (`SKIP_RETURN_CODE=…`, `SKIP_REGULAR_EXPRESSION_MATCHED`) stay skips.
 *
 * The precedence has two exceptions, for runners that mark an expected
 * failure with a `<skipped>` beside the `<failure>`. Each needs the runner's
 * whole testcase shape, so a generic `<skipped>` next to a `<failure>` stays a
 * failure:
 *
 * - node:test's failing `todo` test is `skipped` (node exits 0 for it):
 *   exactly one `<skipped type="todo">` written before exactly one
 *   `<failure>`, no `<error>` or retry elements, and the `failure` attribute
 *   node puts on such a testcase. The skip's type `todo` marks it.
 * - Catch2's failing `[!mayfail]`/`[!shouldfail]` test is `xfailed`:
 *   `status="run"`, exactly one `<skipped>`, without a type, whose message
 *   is `TEST_CASE tagged with !mayfail` (Catch2 v2 and v3 write that for both
 *   tags; `…!shouldfail` is accepted too), written before one or more
 *   `<failure>`/`<error>`, and no retry elements.
 *
 * Either way the `<failure>`/`<error>` details are kept in `failures`.
 *
 * `<failure>`, `<error>` and `<skipped>` placed directly in a suite (a class
 * that failed to load, a TAP file that died) become one extra outcome per
 * suite, with the same precedence and the id `<suite>::<suite>`; the runner
 * shapes above apply to testcases only.
 */
export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped' | 'xfailed' | 'flaky';

export interface FailureDetail {
  /**
   * The `type` attribute; without one, the exception name leading the message
   * or body (`AssertionError`, `java.lang.IllegalStateException`), `panic` for
   * a Rust panic, the exception on a pytest traceback's last line
   * (`tests/t.py:25: AssertionError`), else the element name (`failure` or
   * `error`). A `<skipped>` read as a failure or error (see above) has kind
   * `unexpectedSuccess` (nose2) or `notrun` (CTest).
   */
  kind: string;
  /**
   * The `message` attribute as XML normalizes it (literal line breaks become
   * spaces, `&#10;` stays a line break); without one, the first non-blank line
   * of the body, or for a Rust panic printed location-first, the line after.
   */
  message: string;
  /** The element's own text and CDATA plus any `<stackTrace>` child, trimmed; never system-out/err. */
  body: string;
  /** Set when the message or body was cut at the size cap. */
  truncated?: true;
}

export interface RetryDetail {
  /** `failed` for rerunFailure/flakyFailure, `error` for rerunError/flakyError. */
  status: 'failed' | 'error';
  kind: string;
  message: string;
}

export interface SkipDetail {
  /** The `<skipped type>` attribute, or the status/result attribute value that marked the skip. */
  type?: string;
  message: string;
}

export interface TestOutcome {
  /**
   * Stable id: innermost named suite, classname and name joined with `::`,
   * each with whitespace folded: `com.x.FooTest::testBar` (Surefire, where
   * suite and classname agree), `pytest::tests.test_a.TestB::test_c`,
   * `src/a.test.ts::Describe › it works` (jest-junit). The classname is left
   * out when it is empty or the same as the suite; the suite when it is
   * empty. Suite names lose the suffixes runners add per run (cargo-nextest
   * `@stress-N`, unittest-xml-reporting `-YYYYMMDDhhmmss`), so the same test
   * keeps its id from run to run. Playwright reports (a `<testsuites id>`
   * root) prefix the project, `[chromium] `, as Playwright names tests
   * itself. Results placed directly in a suite get `<suite>::<suite>`.
   * Ids repeat when a report repeats a test (stress runs, retries written as
   * separate testcases, duplicated names): this parser never merges them.
   */
  id: string;
  /** Innermost named testsuite, whitespace folded. */
  suite: string;
  classname: string;
  name: string;
  /** The testcase's `file` attribute, else its nearest suite's. */
  file?: string;
  status: TestStatus;
  /**
   * `<failure>` and `<error>` elements in document order (a testcase may carry
   * several), including `<skipped>` elements read as one (see above).
   */
  failures: readonly FailureDetail[];
  skipped?: SkipDetail;
  /** Surefire/nextest rerunFailure, rerunError, flakyFailure and flakyError elements, in order. */
  retries?: RetryDetail[];
  /**
   * Seconds; absent when missing, negative or unparsable. Locale-formatted
   * times are read: a decimal comma (`0,014`, `1,234`: one comma, no dot),
   * English thousands separators (`2,503.1`, `1,234,567`) and German ones
   * (`1.234,5`).
   */
  time?: number;
  /** Testcase-level `<property>` elements (value attribute, else text); the last of a repeated name wins. */
  properties?: Record<string, string>;
}

export interface OutcomeCounts {
  /** Every outcome, suite-level ones included: elements counted, header attributes ignored. */
  tests: number;
  passed: number;
  failed: number;
  error: number;
  skipped: number;
  xfailed: number;
  flaky: number;
}

export interface JUnitReport {
  /** In document order (a suite's own results after its testcases); empty when `onTest` was given. */
  tests: TestOutcome[];
  counts: OutcomeCounts;
}

export interface ParseJUnitOptions {
  /** Named in error messages. */
  file?: string;
  /**
   * Cap, in UTF-8 bytes, on each message, body, skip message and property
   * value kept (default 64 KiB). The parser's own buffers are held to about
   * the same size, which is what bounds memory on reports with huge CDATA.
   */
  maxBodyBytes?: number;
  /** Receives each outcome as soon as its testcase closes; outcomes are then not retained. */
  onTest?: (test: TestOutcome) => void;
  signal?: AbortSignal;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
