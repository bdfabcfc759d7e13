/**
 * A failure no freeze row covers is rerun before it is named, never guessed:
 * a Hypothesis deadline exceeded on a loaded machine and a bug the patch
 * wrote look the same in one run.
 *
 * - the base's run of the same test fails the same way: **pre-existing**
 *   (a known failure that needs a human freeze row);
 * - otherwise the head's test reruns: failing every time, it is
 *   **deterministic** (a regression when the base passes that test); passing
 *   once, it is **intermittent** (a flake), and as many reruns of the base's
 *   say whether the base flakes too, beside the head's where they can be, so
 *   that both see the same machine load; never run again (skipped or absent
 *   in every rerun), it is **unconfirmed** and the one failure stands.
 *
 * The base reruns a test only once a head rerun has passed it: a failure
 * the head gives every time is judged by the base's first run, and a gate
 * that finds a regression does not pay for base runs nothing reads. With a
 * run history, an intermittent failure of a test that flaked on trusted runs
 * within the window is flaky on the base by that record, and is not rerun
 * there at all: the history has seen more base runs than two reruns would.
 */
import type { TestOutcome } from '../junit/model.js';
import type { TestIdParts } from '../runners/tests/presets.js';
import type { SuiteRun, TestSession } from '../runners/tests/session.js';
import type { SignatureScheme } from '../signatures/normalize.js';
import { failureSignature } from '../signatures/signature.js';
import type { FlakeHistory, FlakeRecord } from './flake-history.js';

export interface NewFailure {
  test: TestOutcome;
  kind: string;
  message: string;
}

export type FailureClass =
  | { kind: 'pre-existing'; baseRun: string }
  | {
      kind: 'deterministic';
      /** What the base's run of this test said: `passed` (a regression), `failed` (another way), `absent` (new). */
      base: string;
      reruns: string[];
    }
  | {
      /** The reruns never ran it (skipped or absent: a name the runner cannot select): the one failure stands. */
      kind: 'unconfirmed';
      base: string;
      reruns: string[];
    }
  | {
      kind: 'intermittent';
      reruns: string[];
      baseRuns: string[];
      baseFlaky: boolean;
      /** Whether the base has the test's file (a test only the head has cannot be flaky on the base). */
      onBase: boolean;
      /** The run history's record that made it flaky on the base (no base rerun was needed). */
      remembered?: FlakeRecord;
    };

export interface ClassifyOptions {
  /** The runs classification asks for: what the base has, the base's runs and the head's reruns. */
  tests: Pick<TestSession, 'baseHasTestFile' | 'baseRun' | 'headRerun'>;
  scheme: SignatureScheme;
  failures: readonly NewFailure[];
  /** Reruns on each side (default 2). */
  reruns?: number;
  /** The run history's memory of flaky tests, when the run has one. */
  history?: FlakeHistory;
}

function parts(t: TestOutcome): TestIdParts {
  return { suite: t.suite, classname: t.classname, name: t.name, ...(t.file ? { file: t.file } : {}) };
}

/** `passed`, `failed` (the same signature or any other), `skipped` or `absent`, for one test in one run. */
function verdictIn(run: SuiteRun | undefined, id: string): string {
  const list = run?.tests.filter((t) => t.id === id) ?? [];
  if (list.length === 0) return 'absent';
  if (list.some((t) => t.status === 'failed' || t.status === 'error' || t.status === 'flaky'))
    return 'failed';
  if (list.every((t) => t.status === 'skipped' || t.status === 'xfailed')) return 'skipped';
  return 'passed';
}

function failsTheSameWay(run: SuiteRun | undefined, f: NewFailure, scheme: SignatureScheme): boolean {
  const want = failureSignature(f.kind, f.message, scheme).sha256;
  return (run?.tests ?? []).some(
    (t) =>
      t.id === f.test.id &&
      [...t.failures, ...(t.retries ?? [])].some(
        (x) => failureSignature(x.kind, x.message, scheme).sha256 === want,
      ),
  );
}

/** For each failure, in order, what reruns show it to be. */
export async function classifyFailures(opts: ClassifyOptions): Promise<FailureClass[]> {
  const { tests, scheme, failures } = opts;
  const unique = (list: readonly NewFailure[]) => [
    ...new Map(list.map((f) => [f.test.id, parts(f.test)])).values(),
  ];
  const onBase: NewFailure[] = [];
  for (const f of failures) if ((await tests.baseHasTestFile(parts(f.test))) !== false) onBase.push(f);
  const baseSubset = unique(onBase);
  const rounds = opts.reruns ?? 2;
  // The base's own run and the head's first rerun are independent: side by side, under the same load.
  const [base, firstRerun] = await Promise.all([
    baseSubset.length > 0 ? tests.baseRun(baseSubset) : Promise.resolve(undefined),
    rounds > 0 ? tests.headRerun(unique(failures)) : Promise.resolve(undefined),
  ]);

  const out: (FailureClass | undefined)[] = failures.map((f) =>
    base && failsTheSameWay(base, f, scheme) ? { kind: 'pre-existing', baseRun: base.label } : undefined,
  );
  const open = failures.filter((_, i) => out[i] === undefined);
  const headReruns: SuiteRun[] = firstRerun ? [firstRerun] : [];
  // A base rerun is evidence only for a failure some head rerun passed (does the base flake too?): one that
  // fails every time is judged by the base's first run alone, and is not run on the base again.
  const baseReruns: { run: SuiteRun; ids: ReadonlySet<string> }[] = [];
  const passedOnce = (f: NewFailure) => headReruns.some((run) => verdictIn(run, f.test.id) === 'passed');
  const rerunOnBase = async (list: readonly NewFailure[]) => {
    const subset = unique(list);
    if (subset.length > 0)
      return { run: await tests.baseRun(subset), ids: new Set(list.map((f) => f.test.id)) };
    return undefined;
  };
  // Asked once, before any base rerun: a test the history saw flake on trusted runs needs none.
  const remembered = opts.history
    ? await opts.history.flakes([...new Set(onBase.map((f) => f.test.id))])
    : new Map<string, FlakeRecord>();
  const openOnBase = open.filter((f) => onBase.includes(f) && !remembered.has(f.test.id));
  for (let r = 1; r < rounds && open.length > 0; r++) {
    // Side by side: a failure of load shows on both, a failure of the patch on the head only.
    const [h, b] = await Promise.all([
      tests.headRerun(unique(open)),
      rerunOnBase(openOnBase.filter(passedOnce)),
    ]);
    headReruns.push(h);
    if (b) baseReruns.push(b);
  }
  // A failure the last rerun showed to be intermittent has had fewer base reruns than the others: the
  // missing ones now, after the head's (the same number of base runs whichever head rerun passed first).
  const runsOf = (f: NewFailure) => baseReruns.filter((b) => b.ids.has(f.test.id)).length;
  for (let k = 0; k < rounds - 1; k++) {
    const short = openOnBase.filter((f) => passedOnce(f) && runsOf(f) < rounds - 1);
    const b = await rerunOnBase(short);
    if (!b) break;
    baseReruns.push(b);
  }
  return failures.map((f, i) => {
    const known = out[i];
    if (known) return known;
    const reruns = headReruns.map((run) => verdictIn(run, f.test.id));
    const baseRuns = [base, ...baseReruns.filter((b) => b.ids.has(f.test.id)).map((b) => b.run)].map((run) =>
      verdictIn(run, f.test.id),
    );
    if (reruns.every((v) => v === 'failed'))
      return { kind: 'deterministic', base: baseRuns[0] ?? 'absent', reruns };
    // Only a pass is evidence of chance; a rerun that skipped or lost the test ran nothing.
    if (!reruns.includes('passed')) return { kind: 'unconfirmed', base: baseRuns[0] ?? 'absent', reruns };
    const record = onBase.includes(f) ? remembered.get(f.test.id) : undefined;
    if (record)
      return { kind: 'intermittent', reruns, baseRuns, baseFlaky: true, onBase: true, remembered: record };
    return {
      kind: 'intermittent',
      reruns,
      baseRuns,
      baseFlaky: onBase.includes(f) && baseRuns.some((v) => v === 'failed'),
      onBase: onBase.includes(f),
    };
  });
}
