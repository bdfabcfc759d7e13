import type { PatchIdentity } from '../git/authors.js';
import type { IsolationRecord } from '../layers/sandbox-finding.js';
import type { Finding, FrozenItem, Override, ScopeSummary, Severity } from '../layers/types.js';
import { byCodePoint } from '../util/compare.js';
import { stableLine } from '../util/stable-json.js';

export const SCORECARD_SCHEMA = 'patchgate/scorecard@1';

export type Verdict = 'accept' | 'reject' | 'error';
export type LayerStatus = 'pass' | 'warn' | 'reject' | 'error' | 'skipped';

export interface LayerSummary {
  name: string;
  status: LayerStatus;
  findings: number;
  /** Why a layer did not run, when it did not. */
  reason?: string;
  /** What a layer that ran did, in a line (the stability probe: which tests it probed). */
  note?: string;
  /** The stability probe's scope: which test files it probed, and why. */
  scope?: ScopeSummary;
}

export interface Scorecard {
  schema: typeof SCORECARD_SCHEMA;
  verdict: Verdict;
  /** Set when verdict is `error`: `input` is the user's to fix (exit 2), `internal` is ours (exit 3). */
  errorKind?: 'input' | 'internal';
  base: { ref: string; requested: string; commit: string };
  head: { ref: string; commit: string; tree: string; worktree: boolean };
  /**
   * Who the patch's commits say wrote them (authors, committers,
   * `Co-authored-by`) and the head's branch: self-declared by the patch, for
   * telling agents' patches apart, never part of the verdict.
   */
  patch?: PatchIdentity;
  /**
   * On a shard's own scorecard (check --shard i/n): which share of the run
   * it is. Its verdict covers that share only: `patchgate merge` gives the
   * run's.
   */
  shard?: ShardOfRun;
  /** On a merged scorecard: the shards it was made of (bookkeeping, never part of the verdict). */
  shards?: MergedShards;
  config: { file: string; revision: 'base' };
  layers: LayerSummary[];
  findings: Finding[];
  overrides: Override[];
  /** Flakes a valid human-owned freeze covers: listed, never counted as a hit or a pass. */
  frozen: FrozenItem[];
  /** The date freezes were judged against. */
  today: string;
  /** How head code was isolated (bubblewrap, or plain processes) and why. */
  isolation: IsolationRecord;
  /**
   * The only part that may differ between two runs on the same inputs. It
   * accounts for the whole run: resolving and checking out the revisions,
   * installing dependencies (`tests.setup` or reuse), each layer without the
   * installs it triggered, and removing the worktrees.
   */
  timings: {
    totalMs: number;
    revisionsMs: number;
    setupMs: number;
    cleanupMs: number;
    layers: Record<string, number>;
  };
}

export interface ShardOfRun {
  index: number;
  total: number;
  /** The plan every shard of the run must share (a digest), and how it balanced. */
  plan: { digest: string; by: 'duration' | 'count' | 'suite' };
  /** How many test files this shard ran. */
  testFiles: number;
}

export interface MergedShards {
  total: number;
  plan: { digest: string; by: 'duration' | 'count' | 'suite'; files: number };
  /** Per shard, in order: its test files and its wall time. */
  parts: { index: number; testFiles: number; totalMs: number }[];
}

const RANK: Record<Severity, number> = { error: 0, reject: 1, warn: 2 };

export function layerStatus(findings: readonly Finding[]): LayerStatus {
  if (findings.some((f) => f.severity === 'error')) return 'error';
  if (findings.some((f) => f.severity === 'reject')) return 'reject';
  if (findings.some((f) => f.severity === 'warn')) return 'warn';
  return 'pass';
}

/** Error beats reject beats accept; a warning alone never rejects. */
export function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'error')) return 'error';
  if (findings.some((f) => f.severity === 'reject')) return 'reject';
  return 'accept';
}

/** Deterministic order: pipeline order of layers, then severity, code, and the evidence path. */
export function sortFindings(findings: readonly Finding[], layerOrder: readonly string[]): Finding[] {
  const key = (f: Finding) => String(f.evidence.path ?? f.evidence.file ?? '');
  // The evidence breaks the last ties: the order is a function of the findings alone, whatever order they
  // came in (a merge of shards gathers them in another order than one run).
  const whole = new Map<Finding, string>();
  const line = (f: Finding) => {
    let l = whole.get(f);
    if (l === undefined) {
      l = stableLine(f.evidence);
      whole.set(f, l);
    }
    return l;
  };
  return [...findings].sort(
    (a, b) =>
      layerOrder.indexOf(a.layer) - layerOrder.indexOf(b.layer) ||
      RANK[a.severity] - RANK[b.severity] ||
      byCodePoint(a.code, b.code) ||
      byCodePoint(key(a), key(b)) ||
      byCodePoint(a.message, b.message) ||
      byCodePoint(line(a), line(b)),
  );
}

/** Frozen items in pipeline order of their layers, then by what they cover, then whole. */
export function sortFrozen(items: readonly FrozenItem[], layerOrder: readonly string[]): FrozenItem[] {
  return [...items].sort(
    (a, b) =>
      layerOrder.indexOf(a.layer) - layerOrder.indexOf(b.layer) ||
      byCodePoint(a.covers, b.covers) ||
      byCodePoint(stableLine(a), stableLine(b)),
  );
}

/** Overrides by the path they accepted, then whole. */
export function sortOverrides(items: readonly Override[]): Override[] {
  return [...items].sort((a, b) => byCodePoint(a.path, b.path) || byCodePoint(stableLine(a), stableLine(b)));
}
