/**
 * What a layer may ask the run history: whether tests flaked on trusted runs
 * (the base's checks on the base's code, main-branch records) within a
 * window. The history lives above the layers (src/history/); the gate hands
 * a layer this narrow view of it, only when the run asked for the history.
 */
export interface FlakeRecord {
  /** Trusted runs in the window in which the test flaked, and in which it ran at all. */
  flakyRuns: number;
  runs: number;
  lastSeen: string;
  /** The latest flaky run's failure template, when it had one. */
  template?: string;
  /** The window's start (UTC date) and the store, for the evidence. */
  since: string;
  where: string;
}

export interface FlakeHistory {
  /** The tests among `testIds` that flaked on a trusted run since the window's start. */
  flakes(testIds: readonly string[]): Promise<ReadonlyMap<string, FlakeRecord>>;
}

/** The record as a finding's `evidence.history`. */
export function historyEvidence(r: FlakeRecord): Record<string, unknown> {
  return {
    flakyRuns: r.flakyRuns,
    runs: r.runs,
    since: r.since,
    lastSeen: r.lastSeen,
    where: r.where,
    ...(r.template !== undefined ? { template: r.template } : {}),
  };
}

/** The record in a finding's message: why the base counts as flaky without a rerun. */
export function historyWords(r: FlakeRecord): string {
  return `the run history saw it flake in ${r.flakyRuns} of ${r.runs} trusted run(s) since ${r.since}, last on ${r.lastSeen}`;
}
