/**
 * What a baseline freezes: from the runs of a base revision's suite, a row
 * for every failure and skip the suite already has, so that adopting
 * patchgate does not reject every patch for what was there before it.
 *
 * - A test that fails or skips the same way in every run gets a signature
 *   row per distinct failure or skip signature (`flake_signatures.json`),
 *   bound to the test when its template is generic, as `signatures add` does.
 * - A test whose outcome differs between the runs is flaky: it gets a
 *   stability row (when the stability layer is on) and a signature row for
 *   every failure it showed, since the head's run may catch it failing.
 * - A row that already covers a signature (whatever its state) is kept and
 *   not written again: a second baseline adds nothing.
 *
 * Every row carries `"source": "baseline"`, an owner, an expiry and the
 * action `review`; the human who commits the rows owns them from then on.
 * Nothing here runs anything or touches a file.
 */
import {
  bindingProblem,
  missingFields,
  rowKey,
  rowStatus,
  rowsMatching,
  type SignatureFreeze,
  type SignatureRow,
} from '../freeze/signature-freeze.js';
import type { StabilityFreezeRow } from '../freeze/stability-freeze.js';
import type { TestOutcome } from '../junit/model.js';
import { isGenericTemplate } from '../signatures/generic.js';
import type { SignatureScheme } from '../signatures/normalize.js';
import { failureSignature, skipKind } from '../signatures/signature.js';

export const BASELINE_ACTION = 'review';

export interface BaselinePlanInput {
  /** Every run of the suite, in order (at least one). */
  runs: readonly (readonly TestOutcome[])[];
  scheme: SignatureScheme;
  /** The freeze file as it is now (the working tree's). */
  signatures: SignatureFreeze;
  /** The stability freeze's test ids, when the stability layer is on. */
  stability?: { tests: ReadonlySet<string> };
  /** The owner of a test's rows: CODEOWNERS for its file, else the fallback. */
  ownerOf(test: TestOutcome): string;
  /** The revision the runs are of, for the rows' reason. */
  commit: string;
  today: string;
  expires: string;
}

export interface PlannedRow<T> {
  row: T;
  test: string;
}

export interface BaselinePlan {
  signatureRows: PlannedRow<SignatureRow>[];
  stabilityRows: PlannedRow<StabilityFreezeRow>[];
  /** Signatures an existing row already covers: nothing is written for them. */
  kept: { test: string; template: string; row: number; line?: number; state: string }[];
  /** Tests whose outcome differed between the runs. */
  flaky: string[];
  /** Tests that failed or skipped, counted once each. */
  failingOrSkipped: number;
}

/** A test's failure and skip signatures in one run. */
function signaturesOf(t: TestOutcome): { kind: string; message: string }[] {
  if (t.status === 'skipped' || t.status === 'xfailed')
    return [{ kind: skipKind(t.skipped, t.status), message: t.skipped?.message ?? '' }];
  if (t.status === 'flaky') return (t.retries ?? []).map((r) => ({ kind: r.kind, message: r.message }));
  if (t.status === 'failed' || t.status === 'error')
    return t.failures.length > 0
      ? t.failures.map((f) => ({ kind: f.kind, message: f.message }))
      : [{ kind: t.status, message: '' }];
  return [];
}

function verdict(t: TestOutcome): string {
  return t.status === 'xfailed' ? 'skipped' : t.status;
}

/** pytest's words for a test module it could not import: the suite around it did not run at all. */
export function isCollectionError(t: TestOutcome): boolean {
  return t.status === 'error' && t.failures.some((f) => f.message.trim() === 'collection failure');
}

export function planBaseline(input: BaselinePlanInput): BaselinePlan {
  const byTest = new Map<string, { first: TestOutcome; outcomes: (TestOutcome | undefined)[] }>();
  for (const [i, run] of input.runs.entries()) {
    for (const t of run) {
      let entry = byTest.get(t.id);
      if (!entry) {
        entry = { first: t, outcomes: [] };
        byTest.set(t.id, entry);
      }
      // A report that repeats a test keeps its worst outcome for this run.
      const prev = entry.outcomes[i];
      entry.outcomes[i] = prev === undefined || verdict(prev) === 'passed' ? t : prev;
    }
  }
  const plan: BaselinePlan = {
    signatureRows: [],
    stabilityRows: [],
    kept: [],
    flaky: [],
    failingOrSkipped: 0,
  };
  const planned = new Set<string>();
  const reason = (what: string) =>
    `${what} on ${input.commit.slice(0, 12)} when patchgate baseline ran on ${input.today}: pre-existing, not a patch's doing`;
  for (const [id, { first, outcomes }] of [...byTest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const seen = outcomes.filter((o): o is TestOutcome => o !== undefined);
    const verdicts = new Set(outcomes.map((o) => (o === undefined ? 'absent' : verdict(o))));
    const flaky = verdicts.size > 1 || seen.some((o) => o.status === 'flaky');
    const signatures = seen.flatMap(signaturesOf);
    if (signatures.length === 0) continue;
    plan.failingOrSkipped++;
    if (flaky) plan.flaky.push(id);
    const owner = input.ownerOf(first);
    for (const { kind, message } of signatures) {
      const sig = failureSignature(kind, message, input.scheme);
      const generic = isGenericTemplate(sig.template);
      const key = rowKey({ sha256: sig.sha256, test: generic ? id : undefined });
      if (planned.has(key)) continue;
      planned.add(key);
      // A row bound to another test, or a generic one bound to none, covers nothing here: this test gets its own.
      const existing = rowsMatching(input.signatures, kind, message).find(
        (m) => bindingProblem(m, id) === undefined,
      );
      if (existing) {
        const status = rowStatus(existing.row, input.today);
        const state =
          status === 'active'
            ? `expires ${existing.row.expires}`
            : status === 'expired'
              ? `expired on ${existing.row.expires}: edit that row's expiry`
              : `incomplete (it lacks ${missingFields(existing.row).join(', ')}): fill those in on that row`;
        plan.kept.push({
          test: id,
          template: sig.template,
          row: existing.row.index,
          ...(existing.row.line !== undefined ? { line: existing.row.line } : {}),
          state,
        });
        continue;
      }
      const skip = kind === 'skipped' || kind === 'xfailed';
      plan.signatureRows.push({
        test: id,
        row: {
          sha256: sig.sha256,
          template: sig.template,
          kind,
          scheme: input.scheme,
          owner,
          reason: reason(flaky ? `intermittent ${skip ? kind : 'failure'}` : skip ? `${kind}` : 'failing'),
          expires: input.expires,
          action: BASELINE_ACTION,
          example_test: id,
          ...(generic ? { test: id } : {}),
          source: 'baseline',
        },
      });
    }
    if (flaky && input.stability && !input.stability.tests.has(id)) {
      plan.stabilityRows.push({
        test: id,
        row: {
          test: id,
          owner,
          reason: reason(
            `flaky (${outcomes.map((o) => (o === undefined ? 'absent' : verdict(o))).join(', ')} in ${outcomes.length} runs)`,
          ),
          expires: input.expires,
          action: BASELINE_ACTION,
          source: 'baseline',
        },
      });
    }
  }
  return plan;
}
