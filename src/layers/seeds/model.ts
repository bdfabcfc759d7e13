import type { LimitBreach } from '../../sandbox/sandbox.js';

/**
 * What every seed runner reports, whatever the language: one replay per
 * (property, seed) and one count of the examples a property actually ran.
 * The layer turns these into findings; runners never decide verdicts.
 */

export type ReplayStatus =
  /** The seed ran and the property held. */
  | 'pass'
  /** The property failed on the seed: the counterexample is back. */
  | 'fail'
  /** The tape names a property or test the head no longer has. */
  | 'not-found'
  /** The seed did not run: skipped, xfailed, deselected, or the runner reported no result for it. */
  | 'not-run'
  /** The replay did not finish within its budget. */
  | 'timeout'
  /** The runner itself broke (crash, unreadable report): the gate cannot decide. */
  | 'error';

export interface SeedReplay {
  /** The tape row's id. */
  property: string;
  seed: string;
  status: ReplayStatus;
  /** Why, in a sentence: the assertion message, "skipped: …", "property not found …". */
  message?: string;
  /** The counterexample as the runner printed it (fast-check's stringify, Hypothesis's "Falsifying example"). */
  counterexample?: string;
  /** The shrunk value as data, where the runner gives one (fast-check: the tuple; pytest: the arguments by name). */
  shrunk?: unknown;
  /** fast-check's path to the counterexample, to record on the tape. */
  path?: string;
  /** How the failure was found: the seed's generated runs, its recorded path, or its stored counterexample. */
  via?: 'seed' | 'path' | 'counterexample';
  /** Examples that ran and passed in this replay, counted by the runner. */
  examples?: number;
  /** Log file of the process that ran it, when there was one. */
  log?: string;
  /** The sandbox cap the process hit (it was stopped): the replay has no result, and the head is to blame. */
  limit?: LimitBreach;
}

export interface ExampleCount {
  property: string;
  /** The fewest examples any counted run of the property executed. */
  counted: number;
  /** How the count was taken, for the evidence (e.g. "as declared: numRuns 20, seed 77"). */
  how: string;
  /** Why the runner stopped early, where it says (Hypothesis's "stopped because"). */
  stoppedBecause?: string;
}

export interface RunnerOutcome {
  replays: SeedReplay[];
  counts: ExampleCount[];
  /** Processes started, for the benchmark and the scorecard's notes. */
  processes: number;
}
