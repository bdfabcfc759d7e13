/**
 * Which recorded outcomes vote for a freeze-window entry, and what they say:
 * the same for a run `patchgate record` reads from JUnit and for the runs
 * `patchgate freeze window` reads from the run history.
 */
import type { TestOutcome } from '../junit/model.js';
import { pytestNodeId } from '../runners/tests/presets.js';
import type { ClaimLedger, RunResult } from './claim-ledger.js';

/** What a vote needs of an outcome. */
export type VoteOutcome = Pick<TestOutcome, 'id' | 'suite' | 'classname' | 'name' | 'status'> &
  Partial<Pick<TestOutcome, 'file'>>;

/**
 * The ids an outcome answers to: its own id (`suite::classname::name`), and
 * its pytest node id (`tests/test_x.py::TestY::test_z`), which is how a
 * claim matrix usually names a pytest check.
 */
export function outcomeIds(t: VoteOutcome): string[] {
  const node = pytestNodeId(t);
  return node === t.id ? [t.id] : [t.id, node];
}

/**
 * One entry's result in a run, from the outcomes its checks matched: `fail`
 * when any failed, errored or was flaky (a pass on a retry is still a
 * failure), `pass` when at least one voted and every vote passed, `absent`
 * when none voted. A skipped or xfailed test casts no vote (it did not run
 * to a verdict this time); the gate's other layers judge skips.
 */
export function entryResult(outcomes: readonly Pick<VoteOutcome, 'status'>[]): RunResult {
  let passed = false;
  for (const o of outcomes) {
    switch (o.status) {
      case 'passed':
        passed = true;
        break;
      case 'skipped':
      case 'xfailed':
        break;
      default:
        // failed, error, flaky, and anything this code does not know: fail closed.
        return 'fail';
    }
  }
  return passed ? 'pass' : 'absent';
}

/**
 * Every entry's result in one run: the outcomes of its `checks` (else the
 * tests the claim matrix binds to it), with a warning for an entry nothing
 * voted for.
 */
export function entryResults(
  ledger: ClaimLedger,
  outcomes: readonly VoteOutcome[],
  matrix: ReadonlyMap<string, readonly string[]>,
): { results: Map<string, RunResult>; warnings: string[] } {
  const byId = new Map<string, VoteOutcome[]>();
  for (const t of outcomes)
    for (const id of outcomeIds(t)) {
      const list = byId.get(id);
      if (list) list.push(t);
      else byId.set(id, [t]);
    }
  const results = new Map<string, RunResult>();
  const warnings: string[] = [];
  for (const [id, entry] of ledger.entries) {
    const checks = entry.checks ?? matrix.get(id);
    if (checks === undefined || checks.length === 0) {
      warnings.push(
        `${id}: no checks: the entry lists no \`checks\` and no claim binds a test to it, so it is recorded as '-' (did not run)`,
      );
      results.set(id, 'absent');
      continue;
    }
    const matched = checks.flatMap((c) => byId.get(c) ?? []);
    if (matched.length === 0)
      warnings.push(
        `${id}: none of its checks (${checks.join(', ')}) is in the report(s), so it is recorded as '-' (did not run); a renamed or deleted test stops voting here`,
      );
    results.set(id, entryResult(matched));
  }
  return { results, warnings };
}
