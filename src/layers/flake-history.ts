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
