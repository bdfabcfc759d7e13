/**
 * A regression layer in which no base test ran to a verdict proved nothing:
 * every test of the overlay run skipped, xfailed or deselected (a run with
 * no testcase at all is TESTS_RUN_FAILED already, where the run is read).
 * The base's own full run says whose doing it is: it runs tests, so the
 * head's code stopped them (reject); it runs none either, so the gate cannot
 * decide (error). On shards, each tells what its share saw and the merge
 * decides over all of them: a shard whose files ran nothing is no finding
 * when another's ran tests.
 */
import type { TestOutcome } from '../../junit/model.js';
import type { SuiteRun, TestSession } from '../../runners/tests/session.js';
import type { Finding } from '../types.js';

const ranToVerdict = (t: TestOutcome) => t.status !== 'skipped' && t.status !== 'xfailed';

/** What a run in which nothing ran to a verdict saw: the overlay run, and the base's own. */
export interface NothingRan {
  run: string;
  /** Tests the overlay run reported (all skipped or xfailed). */
  tests: number;
  log: string;
  /** The base's full run; absent when it could not be made. */
  base?: { label: string; ran: number };
}

/** Undefined when some base test ran to a verdict on the head's code. */
export async function nothingRan(
  overlay: SuiteRun,
  tests: TestSession,
  signal: AbortSignal,
): Promise<NothingRan | undefined> {
  if (overlay.tests.some(ranToVerdict)) return undefined;
  let base: SuiteRun | undefined;
  try {
    base = await tests.baseFullRun();
  } catch (err) {
    if (signal.aborted) throw err;
    base = undefined;
  }
  return {
    run: overlay.label,
    tests: overlay.tests.length,
    log: overlay.run.stdoutFile,
    ...(base ? { base: { label: base.label, ran: base.tests.filter(ranToVerdict).length } } : {}),
  };
}

/** The shards' answers as one run's: nothing ran only if nothing ran on any of them. */
export function nothingRanOnAll(parts: readonly (NothingRan | undefined)[]): NothingRan | undefined {
  if (parts.length === 0 || parts.some((p) => p === undefined)) return undefined;
  const all = parts as NothingRan[];
  const withBase = all.every((p) => p.base !== undefined);
  const first = all[0] as NothingRan;
  return {
    run: first.run,
    tests: all.reduce((n, p) => n + p.tests, 0),
    log: all.find((p) => p.log !== '')?.log ?? first.log,
    ...(withBase
      ? { base: { label: first.base?.label ?? '', ran: all.reduce((n, p) => n + (p.base?.ran ?? 0), 0) } }
      : {}),
  };
}

export function nothingRanFinding(layer: string, facts: NothingRan): Finding {
  const { base } = facts;
  const baseRan = base?.ran ?? 0;
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
    message: `no base test ran to a verdict on the head's code: the overlay run (${facts.run}) reported ${facts.tests} test(s), every one skipped or xfailed, ${blame}`,
    evidence: {
      run: facts.run,
      tests: facts.tests,
      ran: 0,
      ...(base ? { baseRun: base.label, baseRan } : {}),
      log: facts.log,
      next:
        baseRan > 0
          ? "find what skips every base test on the head's code (a skip at import, a shared fixture, a production module the conftest skips on) in the overlay run's log, and fix it"
          : "the base's suite runs no test: fix its test command or configuration in a human commit",
    },
  };
}
