/**
 * A regression layer in which no base test ran to a verdict proved nothing:
 * every test of the overlay run skipped, xfailed or deselected (a run with
 * no testcase at all is TESTS_RUN_FAILED already, where the run is read).
 * The base's own full run says whose doing it is: it runs tests, so the
 * head's code stopped them (reject); it runs none either, so the gate cannot
 * decide (error).
 */
import type { TestOutcome } from '../../junit/model.js';
import type { SuiteRun, TestSession } from '../../runners/tests/session.js';
import type { Finding } from '../types.js';

const ranToVerdict = (t: TestOutcome) => t.status !== 'skipped' && t.status !== 'xfailed';

export async function nothingRanFinding(
  layer: string,
  overlay: SuiteRun,
  tests: TestSession,
  signal: AbortSignal,
): Promise<Finding | undefined> {
  if (overlay.tests.some(ranToVerdict)) return undefined;
  let base: SuiteRun | undefined;
  try {
    base = await tests.baseFullRun();
  } catch (err) {
    if (signal.aborted) throw err;
    base = undefined;
  }
  const baseRan = base ? base.tests.filter(ranToVerdict).length : 0;
  const skipped = overlay.tests.length;
  const blame =
    baseRan > 0
      ? `while the base's own run (${base?.label}) runs ${baseRan}: the head's code stopped them`
      : base
        ? `and the base's own run (${base.label}) runs none either: the gate cannot decide`
        : "and the base's own run could not be made: the gate cannot decide";
  return {
    code: 'TESTS_NONE_RAN',
    layer,
    severity: baseRan > 0 ? 'reject' : 'error',
    message: `no base test ran to a verdict on the head's code: the overlay run (${overlay.label}) reported ${skipped} test(s), every one skipped or xfailed, ${blame}`,
    evidence: {
      run: overlay.label,
      tests: skipped,
      ran: 0,
      ...(base ? { baseRun: base.label, baseRan } : {}),
      log: overlay.run.stdoutFile,
      next:
        baseRan > 0
          ? "find what skips every base test on the head's code (a skip at import, a shared fixture, a production module the conftest skips on) in the overlay run's log, and fix it"
          : "the base's suite runs no test: fix its test command or configuration in a human commit",
    },
  };
}
