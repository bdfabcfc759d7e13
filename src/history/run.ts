import { createHash } from 'node:crypto';
import type { PatchAuthor } from '../git/authors.js';
import type { TestOutcome } from '../junit/model.js';
import type { Artifact } from '../layers/types.js';
import type { Scorecard, Verdict } from '../report/scorecard.js';
import { type FailureSignature, failureSignature } from '../signatures/signature.js';

/**
 * Whose code a recorded test result ran: the base's checks on the base's code
 * (`base`) and a main-branch run (`main`) are evidence the patch under
 * judgement cannot have shaped; `head` and `overlay` runs ran its code, and
 * are kept for reading, never for deciding what is pre-existing.
 */
export type HistorySide = 'base' | 'head' | 'overlay' | 'main';

export const TRUSTED_SIDES: readonly HistorySide[] = ['base', 'main'];

/** The trusted sides as an SQL list, `('base', 'main')`: our own constants, never a value from a run. */
export const TRUSTED_SQL = `(${TRUSTED_SIDES.map((s) => `'${s}'`).join(', ')})`;

/** One test's results in one side of one run: every time that side ran it, folded. */
export interface TestResult {
  side: HistorySide;
  testId: string;
  file?: string;
  runs: number;
  passed: number;
  /** failed, error, and passes that needed a retry (the runner's own `flaky`). */
  failed: number;
  skipped: number;
  /** It both passed and failed in this run, or passed only on a retry. */
  flaky: boolean;
  /** The mean of the runs that reported a time. */
  durationMs?: number;
  /** The latest failure's signature (patchgate scheme), so a flake is known by its message, not its name. */
  signature?: FailureSignature;
}

export interface HistoryFinding {
  code: string;
  layer: string;
  severity: string;
  file?: string;
  line?: number;
}

/** What one gate run (`check`) or one main-branch CI run (`record`) leaves in the history. */
export interface HistoryRun {
  /** Which repository: several may share one store. */
  repository: string;
  kind: 'check' | 'record';
  /** UTC, ISO 8601. */
  recordedAt: string;
  baseCommit?: string;
  headCommit: string;
  verdict?: Verdict;
  errorKind?: string;
  branch?: string;
  commits?: number;
  ciRun?: string;
  /** A merged sharded run: how many shards (`index` absent); its shard layout is kept as the artifact shards.json. */
  shard?: { index?: number; count: number };
  durationMs?: number;
  authors: readonly PatchAuthor[];
  findings: readonly HistoryFinding[];
  tests: readonly TestResult[];
  artifacts: readonly { name: string; content: string }[];
}

/** What the history reads of a JUnit outcome. */
export type HistoryOutcome = Pick<TestOutcome, 'id' | 'status'> &
  Partial<Pick<TestOutcome, 'file' | 'failures' | 'retries' | 'time'>>;

/** A suite run as the gate saw it, with whose code it ran. */
export interface SideRun {
  side: HistorySide;
  tests: readonly HistoryOutcome[];
}

function signatureOf(t: HistoryOutcome): FailureSignature | undefined {
  const f = t.failures?.[0] ?? t.retries?.[0];
  if (f) return failureSignature(f.kind, f.message, 'patchgate');
  if (t.status === 'failed' || t.status === 'error') return failureSignature(t.status, '', 'patchgate');
  return undefined;
}

/**
 * Folds every outcome of every run into one result per side and test id, in
 * the order tests were first seen. A test a report repeats (stress runs,
 * retries written as testcases) counts once per repetition.
 */
export function foldTestRuns(runs: readonly SideRun[]): TestResult[] {
  const acc = new Map<string, TestResult & { timed: number; totalMs: number }>();
  for (const run of runs) {
    for (const t of run.tests) {
      const key = `${run.side}\u0000${t.id}`;
      let r = acc.get(key);
      if (!r) {
        r = {
          side: run.side,
          testId: t.id,
          ...(t.file !== undefined ? { file: t.file } : {}),
          runs: 0,
          passed: 0,
          failed: 0,
          skipped: 0,
          flaky: false,
          timed: 0,
          totalMs: 0,
        };
        acc.set(key, r);
      }
      r.runs++;
      if (t.status === 'passed') r.passed++;
      else if (t.status === 'skipped' || t.status === 'xfailed') r.skipped++;
      else {
        // failed, error, flaky (a pass on a retry is still a failure), and anything unknown: fail closed.
        r.failed++;
        if (t.status === 'flaky') r.flaky = true;
        const sig = signatureOf(t);
        if (sig) r.signature = sig;
      }
      if (t.time !== undefined) {
        r.timed++;
        r.totalMs += t.time * 1000;
      }
    }
  }
  return [...acc.values()].map(({ timed, totalMs, ...r }) => ({
    ...r,
    flaky: r.flaky || (r.passed > 0 && r.failed > 0),
    ...(timed > 0 ? { durationMs: Math.round(totalMs / timed) } : {}),
  }));
}

/** The reports worth keeping per run: hit surfaces, seed replays and a merged run's shard layout (the rest are in the scorecard). */
const KEPT_ARTIFACT = /^(hit_report\.[a-z]+|seed_replay(\.[a-z]+)?|shards)\.json$/;

/** Beyond this an artifact keeps only its digest: one run must not grow a CI cache by gigabytes. */
export const MAX_ARTIFACT_CHARS = 8 * 1024 * 1024;

export function keptArtifacts(artifacts: readonly Artifact[]): { name: string; content: string }[] {
  const out: { name: string; content: string }[] = [];
  for (const a of artifacts) {
    if (!KEPT_ARTIFACT.test(a.name)) continue;
    out.push({ name: a.name, content: typeof a.content === 'string' ? a.content : a.content.join('') });
  }
  return out;
}

export function artifactDigest(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

function findingsOf(card: Scorecard): HistoryFinding[] {
  return card.findings.map((f) => {
    const file = f.evidence.file;
    const line = f.evidence.line;
    return {
      code: f.code,
      layer: f.layer,
      severity: f.severity,
      ...(typeof file === 'string' ? { file } : {}),
      ...(typeof line === 'number' && Number.isInteger(line) ? { line } : {}),
    };
  });
}

export interface CheckRunInput {
  repository: string;
  recordedAt: string;
  card: Scorecard;
  runs: readonly SideRun[];
  artifacts: readonly Artifact[];
  ciRun?: string;
}

/** A `check`'s run, from its scorecard (verdict, findings, the patch's identity) and the suite runs it saw. */
export function runFromCheck(input: CheckRunInput): HistoryRun {
  const { card } = input;
  return {
    repository: input.repository,
    kind: 'check',
    recordedAt: input.recordedAt,
    baseCommit: card.base.commit,
    headCommit: card.head.commit,
    verdict: card.verdict,
    ...(card.errorKind ? { errorKind: card.errorKind } : {}),
    ...(card.patch?.branch !== undefined ? { branch: card.patch.branch } : {}),
    ...(card.patch ? { commits: card.patch.commits } : {}),
    ...(input.ciRun !== undefined ? { ciRun: input.ciRun } : {}),
    ...(card.shards ? { shard: { count: card.shards.total } } : {}),
    durationMs: Math.round(card.timings.totalMs),
    authors: card.patch?.authors ?? [],
    findings: findingsOf(card),
    tests: foldTestRuns(input.runs),
    artifacts: keptArtifacts([
      ...input.artifacts,
      ...(card.shards ? [{ name: 'shards.json', content: `${JSON.stringify(card.shards, null, 2)}\n` }] : []),
    ]),
  };
}

export interface RecordRunInput {
  repository: string;
  recordedAt: string;
  headCommit: string;
  branch?: string;
  ciRun?: string;
  tests: readonly HistoryOutcome[];
}

/** A main-branch CI run (`record`): its JUnit outcomes, on the commit it tested. */
export function runFromRecord(input: RecordRunInput): HistoryRun {
  return {
    repository: input.repository,
    kind: 'record',
    recordedAt: input.recordedAt,
    headCommit: input.headCommit,
    ...(input.branch !== undefined ? { branch: input.branch } : {}),
    ...(input.ciRun !== undefined ? { ciRun: input.ciRun } : {}),
    authors: [],
    findings: [],
    tests: foldTestRuns([{ side: 'main', tests: input.tests }]),
    artifacts: [],
  };
}
