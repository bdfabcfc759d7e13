import type { ReasonCode } from '../codes.js';
import type { ContractSnapshot } from '../config/contract-snapshot.js';
import type { PatchgateConfig } from '../config/schema.js';
import type { ContractPath } from '../contracts/format.js';
import type { Change } from '../git/changes.js';
import type { Hunk } from '../git/hunks.js';
import type { MissingSubmodule } from '../git/submodules.js';
import type { TreeFiles } from '../overlay/revision-files.js';
import type { NamedPath, SharedImport, UnreadValue } from '../overlay/runner-config/types.js';
import type { TestSession } from '../runners/tests/session.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ShardSlice } from '../shard/plan.js';
import type { FlakeHistory } from './flake-history.js';
import type { ProgressReport } from './progress.js';
import type { ShardMerge } from './shard-merge.js';

/** `reject` blocks the merge; `warn` is recorded but does not; `error` means the gate could not decide. */
export type Severity = 'reject' | 'warn' | 'error';

export type Evidence = Record<string, unknown>;

export interface Finding {
  code: ReasonCode;
  layer: string;
  severity: Severity;
  message: string;
  evidence: Evidence;
}

/** A rule a human overrode for this run (e.g. FIXTURE_OVERRIDE). The token's value is never recorded. */
export interface Override {
  layer: string;
  code: ReasonCode;
  path: string;
  variable: string;
}

export interface Revision {
  side: 'base' | 'head';
  commit: string;
  /** Absolute path of the gate's private checkout of this revision (head code runs there, and may write it). */
  root: string;
  /** A file as the revision has it in git's objects, which head code cannot reach; undefined when absent. */
  readCommitted(file: string): Promise<string | undefined>;
  /** The revision's tree as git's objects have it (listed once, read in batches); head code cannot reach it. */
  tree?(): Promise<TreeFiles>;
  /** Submodules whose commit the repository does not have: their folders in the checkout are empty. */
  missingSubmodules?: readonly MissingSubmodule[];
}

/**
 * A contract file a layer reads from the base; the contracts layer protects
 * it. A glob's matches on the base become named contracts of their own.
 */
export type NamedContract = ContractPath;

export interface LayerContext {
  config: PatchgateConfig;
  /** Repo-relative path of the base config file. */
  configFile: string;
  base: Revision;
  head: Revision;
  /**
   * The head's tree with every test-side path taken from the base: where the
   * base's tests, properties and seed replays judge the head's code. Its root
   * is the head's own checkout when the patch left the test side alone.
   */
  overlay: Revision & {
    sameAsHead: boolean;
    restored: string[];
    headOnly: string[];
    merged: string[];
    /** Mixed files a copy of which did not parse, so the overlay has the base's copy whole. */
    fromBase: readonly { path: string; reason: string }[];
    /** Paths the base's runner configuration names, taken from the base. */
    named: readonly NamedPath[];
    /** Values under the runner's loading keys the gate could not read statically. */
    unread: readonly UnreadValue[];
    /** Modules the runner's configuration imports that other code imports too (they stay the head's). */
    shared: readonly SharedImport[];
  };
  changes: readonly Change[];
  /** Every contract file the enabled layers name, plus the config. */
  contracts: readonly NamedContract[];
  /**
   * Which human override tokens this run was given. A layer never sees the
   * gate's environment itself: CI secrets stay out of reach of every layer,
   * and head processes get theirs from the sandbox alone.
   */
  overrides: OverrideTokens;
  /** The date freezes are judged against (YYYY-MM-DD), injected by CI; never read from the repository. */
  today: string;
  /** Where layers keep the logs and reports of the processes they start. */
  logDir: string;
  /** Runs the repository's tests, when the config says how (`tests`). */
  tests?: TestSession;
  /** The run history's memory of flaky tests, when the run was given one (`check --history`). */
  flakeHistory?: FlakeHistory;
  /**
   * This run's share when it is one shard of several (check --shard i/n):
   * the test session already runs only its test files; a layer that splits
   * other work (properties, tape rows, claims) does the units it owns, and
   * leaves in its outcome what its `shards.merge` needs (see src/shard/).
   */
  shard?: ShardSlice;
  /** The one door head code goes through. */
  sandbox: Sandbox;
  /**
   * Every contract file of both revisions, read from git's objects before any
   * head code ran. Rules come from `snapshot.base`; the head's copies
   * (`snapshot.head`) are only compared against them. No layer reads a
   * contract from disk.
   */
  snapshot: { base: ContractSnapshot; head: ContractSnapshot };
  /** The patch's hunks (base..head, no context), computed once on first use. */
  hunks(): Promise<readonly Hunk[]>;
  /**
   * What the layers this one declares in `after` proved about properties
   * (see PropertyProof), as a copy: a layer cannot edit another's proofs, and
   * one that declares nothing is given none.
   */
  proofs: readonly PropertyProof[];
  /** The layers that ran before this one, in order (a skipped or disabled layer proves nothing). */
  layersRun: readonly string[];
  signal: AbortSignal;
  /**
   * Reports long work (`done` of `total` units of `task`, e.g. properties
   * scored, seed replays, test runs) for a progress display; absent when no
   * one listens. Never affects the verdict.
   */
  progress?: ProgressReport;
}

/** The human override tokens of a run: a variable counts when it holds something other than whitespace. */
export interface OverrideTokens {
  active(variable: string): boolean;
}

/** A flake a valid, human-owned freeze row covers: shown, never counted as a hit or a pass. */
export interface FrozenItem {
  layer: string;
  covers: string;
  cause?: string;
  /** What the freeze matched when that is not `covers` itself, e.g. a signature template. */
  matched?: string;
  /**
   * For a signature row: what showed the failure was already there, since a
   * row's wording alone excuses nothing (`pre-existing` on the base,
   * `renamed from <base test>`, `intermittent` on reruns).
   */
  excused?: string;
  owner: string;
  expires: string;
  action: string;
  source: { file: string; index: number; line?: number };
  /** `baseline`: the row was written by `patchgate baseline` (and committed by a human), not by hand. */
  origin?: 'baseline';
}

/**
 * What a layer established about one property in this run, for a later layer
 * to bind to (a claim's property cell). Only the gate's own runners produce
 * these: a patchgate property scored against its locked fixture, a seed-tape
 * row replayed at its recorded seeds.
 */
export interface PropertyProof {
  kind: 'hits' | 'seed';
  /** The property's name (hits) or the tape row's id (seeds). */
  name: string;
  /** `overlay`: the base's property code judged the head's code; `head`: the head's own, where they are the same. */
  side: 'head' | 'overlay';
  /** Whether the base revision has this property: one only the head has was written by the patch. */
  onBase: boolean;
  passed: boolean;
  /** hits: fixture fields whose perturbation fails the property (zero: it has no failure mode). */
  hits?: number;
  /** seeds: the fewest generated examples a counted run executed. */
  examples?: number;
  /** Why it did not pass, in a few words. */
  why?: string;
}

/** A file a layer wants written next to the scorecard (e.g. hit_report.head.json). */
export interface Artifact {
  name: string;
  /**
   * The file's text, or its chunks in order: a list of a million findings
   * may not fit in one string.
   */
  content: string | readonly string[];
}

/** Which tests a layer that reruns only what the patch can affect chose, for the scorecard. */
export interface ScopeSummary {
  /** `all`: every test file (see `reasons`); `affected`: only the files the patch can affect. */
  mode: 'all' | 'affected';
  reasons?: string[];
  probedFiles: number;
  notProbedFiles: number;
  /** The first probed files, each with its first reason (the artifact lists them all). */
  probed: { file: string; why: string }[];
  /** The out-folder file with every test file and every reason. */
  artifact: string;
}

export interface LayerOutcome {
  findings: Finding[];
  /** One line about what the layer did (shown next to its status in every report). */
  note?: string;
  scope?: ScopeSummary;
  overrides?: Override[];
  frozen?: FrozenItem[];
  artifacts?: Artifact[];
  proofs?: PropertyProof[];
  /**
   * On a shard: what the layer's `shards.merge` needs besides the rest of the
   * outcome, as plain JSON (what each shard saw of work only all of them
   * together can judge).
   */
  part?: unknown;
}

export interface Layer {
  readonly name: string;
  /** Runs only when every earlier layer passed (it judges only a patch the cheaper layers let through), unless the run asks for all layers. */
  readonly onlyAfterClean?: boolean;
  /** Starts head code (through the sandbox); never run when the sandbox is required and missing. */
  readonly runsHeadCode?: boolean;
  /**
   * What the layer reads of the test runs: the head's first run (the pipeline
   * starts it early, in the background, for such layers), the base's list of
   * its tests (started beside it), and the census of which tests generated
   * examples (asked of the runner on those runs).
   */
  readonly testRuns?: {
    readonly headRun?: boolean;
    readonly baseInventory?: boolean;
    readonly census?: boolean;
  };
  /**
   * Layers whose proofs this one reads. The pipeline refuses an order that
   * runs any of them after this one, and hands this layer their proofs only.
   */
  readonly after?: readonly string[];
  /**
   * How this layer's outcomes on the shards of a sharded run combine into
   * the outcome of one run (`patchgate merge`); absent, every shard must give
   * the same outcome (the layer's work is the whole repository's and cheap).
   */
  readonly shards?: ShardMerge;
  enabled(config: PatchgateConfig): boolean;
  /** Contract files this layer reads from the base, given the base config. */
  contractFiles(config: PatchgateConfig): NamedContract[];
  run(ctx: LayerContext): Promise<LayerOutcome>;
}
