/**
 * A freeze excuses only what was already failing. A signature row matches a
 * failure by its wording, never by the test's name, so that renaming a test
 * does not escape the row; but wording alone cannot tell a known failure from
 * a new one the patch's code raises in a test the row was never about, worded
 * the same. So a row's match counts only with evidence that the failure was
 * there before the patch, or is a flake:
 *
 * - the base's run of the same test shows the same signature (pre-existing);
 * - a test the patch deleted or renamed away shows it on the base, and the
 *   failing test is new on the head (a rename);
 * - reruns on the head's tree do not reproduce it every time (intermittent).
 *
 * Anything else is new, whatever its wording.
 */
import type { TestOutcome } from '../junit/model.js';
import type { TestIdParts } from '../runners/tests/presets.js';
import type { SuiteRun, TestSession } from '../runners/tests/session.js';
import type { SignatureScheme } from '../signatures/normalize.js';
import { failureSignature, skipKind } from '../signatures/signature.js';

/** A failure (or skip) of one test that a freeze row's signature matched. */
export interface ExcuseCandidate {
  test: TestOutcome;
  kind: string;
  message: string;
  /** A skip or xfail: only the base's evidence can excuse it (reruns skip the same way). */
  skip: boolean;
}

export type Excuse =
  | { how: 'pre-existing'; baseRun: string }
  | { how: 'renamed'; baseTest: string; baseRun: string }
  | { how: 'intermittent'; passedIn: string }
  | { how: 'none'; why: string };

export interface ExcuseOptions {
  tests: TestSession;
  scheme: SignatureScheme;
  candidates: readonly ExcuseCandidate[];
  /** The tree whose reruns can show a failure intermittent: the head's (its own run) or the overlay's. */
  rerunOn: 'head' | 'overlay';
  /** Test files the patch deleted or renamed away (base paths): where a renamed test's old self lives. */
  goneTestFiles: readonly string[];
  /** Every test id of the run the candidates come from: a base test still there was not renamed. */
  runIds: ReadonlySet<string>;
  /** How many more runs may show a failure intermittent (default 2). */
  reruns?: number;
  /** The base is known to pass these tests (a regression): do not ask it again. */
  skipBase?: boolean;
}

function parts(t: TestOutcome): TestIdParts {
  return { suite: t.suite, classname: t.classname, name: t.name, ...(t.file ? { file: t.file } : {}) };
}

/** The signatures (sha256) of every failure and skip of a test's outcomes in a run. */
function signaturesOf(tests: readonly TestOutcome[] | undefined, scheme: SignatureScheme): Set<string> {
  const out = new Set<string>();
  for (const t of tests ?? []) {
    if (t.status === 'skipped' || t.status === 'xfailed')
      out.add(failureSignature(skipKind(t.skipped, t.status), t.skipped?.message ?? '', scheme).sha256);
    const failures =
      t.failures.length > 0 ? t.failures : t.status === 'failed' ? [{ kind: 'failed', message: '' }] : [];
    for (const f of [...failures, ...(t.retries ?? [])])
      out.add(failureSignature(f.kind, f.message, scheme).sha256);
  }
  return out;
}

function byId(run: SuiteRun | undefined): Map<string, TestOutcome[]> {
  const out = new Map<string, TestOutcome[]>();
  for (const t of run?.tests ?? []) {
    const list = out.get(t.id);
    if (list) list.push(t);
    else out.set(t.id, [t]);
  }
  return out;
}

/** For each candidate, in order, what (if anything) shows its failure was already there. */
export async function excuses(opts: ExcuseOptions): Promise<Excuse[]> {
  const { tests, scheme, candidates } = opts;
  const out: (Excuse | undefined)[] = candidates.map(() => undefined);
  const sig = (c: ExcuseCandidate) => failureSignature(c.kind, c.message, scheme).sha256;

  // 1. The same test on the base.
  const onBase: number[] = [];
  for (const [i, c] of candidates.entries())
    if ((await tests.baseHasTestFile(parts(c.test))) !== false) onBase.push(i);
  const subset = opts.skipBase
    ? []
    : [...new Map(onBase.map((i) => [candidates[i]!.test.id, parts(candidates[i]!.test)])).values()];
  const base = subset.length > 0 ? await tests.baseRun(subset, 'excuse') : undefined;
  const baseById = byId(base);
  for (const i of onBase) {
    const c = candidates[i]!;
    if (signaturesOf(baseById.get(c.test.id), scheme).has(sig(c)))
      out[i] = { how: 'pre-existing', baseRun: base!.label };
  }

  // 2. A test the patch renamed: the old one, gone from the head's run, failed the same way on the base.
  const open = () => candidates.map((_, i) => i).filter((i) => out[i] === undefined);
  if (open().length > 0 && opts.goneTestFiles.length > 0) {
    const gone = await tests.baseRunFiles([...opts.goneTestFiles].sort(), 'renamed', true);
    const bySig = new Map<string, string>();
    for (const t of gone.tests) {
      if (opts.runIds.has(t.id)) continue;
      for (const s of signaturesOf([t], scheme)) if (!bySig.has(s)) bySig.set(s, t.id);
    }
    for (const i of open()) {
      const c = candidates[i]!;
      if (baseById.has(c.test.id)) continue;
      const from = bySig.get(sig(c));
      if (from !== undefined) out[i] = { how: 'renamed', baseTest: from, baseRun: gone.label };
    }
  }

  // 3. Reruns on the same tree: a failure that does not come back every time is a flake.
  const failing = open().filter((i) => !candidates[i]!.skip);
  const rerunSubset = [
    ...new Map(failing.map((i) => [candidates[i]!.test.id, parts(candidates[i]!.test)])).values(),
  ];
  for (let r = 0; r < (opts.reruns ?? 2) && rerunSubset.length > 0; r++) {
    const pending = failing.filter((i) => out[i] === undefined);
    if (pending.length === 0) break;
    const run =
      opts.rerunOn === 'head'
        ? await tests.headRerun(rerunSubset, 'excuse')
        : await tests.overlayRerun(rerunSubset, 'excuse');
    const again = byId(run);
    for (const i of pending) {
      const list = again.get(candidates[i]!.test.id);
      if (list?.some((t) => t.status === 'passed')) out[i] = { how: 'intermittent', passedIn: run.label };
    }
  }

  const reruns = opts.reruns ?? 2;
  const tree = opts.rerunOn === 'head' ? "the head's tree" : "the head's code";
  return out.map((e, i) => {
    if (e) return e;
    const checked: string[] = [];
    if (!opts.skipBase)
      checked.push(
        `the base's run of this test does not ${candidates[i]!.skip ? 'skip it' : 'fail'} this way`,
      );
    if (opts.goneTestFiles.length > 0) checked.push('no test the patch renamed or deleted did');
    if (!candidates[i]!.skip) checked.push(`${reruns} more run(s) on ${tree} failed the same way every time`);
    return { how: 'none' as const, why: checked.join(', ') };
  });
}
