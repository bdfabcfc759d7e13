import { createHash } from 'node:crypto';
import { InternalError } from './errors.js';
import type { Exec } from './git/exec.js';
import type { TestOutcome } from './junit/model.js';
import { claimsLayer } from './layers/claims/claims-layer.js';
import { contractsLayer } from './layers/contracts/contracts-layer.js';
import { fixturesLayer } from './layers/fixtures/fixtures-layer.js';
import type { FlakeHistory } from './layers/flake-history.js';
import { hitsLayer } from './layers/hits/hits-layer.js';
import { mutationLayer } from './layers/mutation/mutation-layer.js';
import { regressionLayer } from './layers/regression/regression-layer.js';
import { seedsLayer } from './layers/seeds/seeds-layer.js';
import { signaturesLayer } from './layers/signatures/signatures-layer.js';
import { stabilityLayer } from './layers/stability/stability-layer.js';
import { missingSubmoduleWarnings } from './layers/submodule-finding.js';
import { testEditsLayer } from './layers/test-edits/test-edits-layer.js';
import type { Artifact, Layer } from './layers/types.js';
import { LOGS_IN_OUT } from './report/log-paths.js';
import type { LayerSummary, Scorecard } from './report/scorecard.js';
import { testFileOf } from './runners/tests/presets.js';
import type { RunSide } from './runners/tests/session.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { layerContext } from './steps/layer-context.js';
import { type MergeResult, mergeParts, type SourcedPart } from './steps/merge-parts.js';
import { readRules } from './steps/rules.js';
import { runLayers } from './steps/run-layers.js';
import { openRuntime, type Runtime } from './steps/runtime.js';
import { buildScorecard } from './steps/scorecard.js';
import { SHARD_PART_SCHEMA, type ShardPart } from './steps/shard-part.js';
import type { ShardRequest } from './steps/shard-plan.js';
import { openWorkspace } from './steps/workspace.js';
import { stableLine } from './util/stable-json.js';

/**
 * The gate, in order. Contracts run first and their findings are never
 * hidden by what follows; each later layer plugs in here.
 */
export const LAYERS: readonly Layer[] = [
  contractsLayer,
  fixturesLayer,
  hitsLayer,
  seedsLayer,
  signaturesLayer,
  regressionLayer,
  testEditsLayer,
  stabilityLayer,
  mutationLayer,
  claimsLayer,
];

export interface Clock {
  now(): number;
}

/** Long work of a layer: `done` of `total` units of `task` (properties scored, test runs, seed replays). */
export interface ProgressEvent {
  layer: string;
  task: string;
  done: number;
  total: number;
}

/** Optional progress hooks, for a terminal spinner or a test that needs a pause point. */
export interface GateHooks {
  onRevisionsReady?(info: { baseRoot: string; headRoot: string }): void | Promise<void>;
  onLayerStart?(name: string): void | Promise<void>;
  /**
   * Counts of long work inside a layer, as it goes (synchronous, best-effort:
   * a throwing listener is ignored). The gate's core never draws anything;
   * the CLI renders these on a terminal.
   */
  onProgress?(event: ProgressEvent): void;
  onLayerEnd?(summary: LayerSummary): void | Promise<void>;
  /** A report a layer produced besides its findings (e.g. hit_report.head.json). */
  onArtifact?(artifact: Artifact): void | Promise<void>;
  /** The folder of the run's logs, once every head process is gone and before it is removed. */
  onLogs?(dir: string): void | Promise<void>;
  /**
   * Every suite run that reported, as it finishes (synchronous; a throwing
   * listener is ignored): which checkout it ran in and its outcomes, for the
   * run history. A `head` or `overlay` run ran the patch's code.
   */
  onTestRun?(run: GateTestRun): void;
}

/** One suite run the gate saw: `base` ran the base's code, `head` and `overlay` the patch's. */
export interface GateTestRun {
  label: string;
  side: RunSide;
  tests: readonly TestOutcome[];
}

export interface RunGateOptions {
  /** A directory inside the repository. */
  cwd: string;
  /** The revision the patch targets (e.g. origin/main); the merge-base with the head is what is judged against. */
  base: string;
  /** A revision to judge; omitted, the working tree (tracked and untracked-not-ignored files) is the head. */
  head?: string;
  /** The environment the gate may read, e.g. override tokens. The library never reads process.env itself. */
  env: Readonly<Record<string, string | undefined>>;
  /** Today's date (YYYY-MM-DD) for freeze expiry, injected by CI (CI_DATE / --today); defaults to the clock's UTC date. */
  today?: string;
  /** Paths (absolute) to leave out of the working-tree snapshot, such as the output folder. */
  excludeFromHead?: string[];
  signal?: AbortSignal;
  clock?: Clock;
  exec?: Exec;
  hooks?: GateHooks;
  /**
   * The door head code goes through; detected from the machine and the base
   * config when absent. One given here composes each head process's
   * environment from the `hostEnv` it was made with (`env` is not handed
   * on): give it `{ hostEnv: env }`, or head processes get no PATH.
   */
  sandbox?: Sandbox;
  /** This process's id: names its temp folders, so a later run can prune them if this one is killed. */
  ownerPid?: number;
  /** Whether a process is alive (to prune temp folders of killed runs); asks /proc when absent. */
  isAlive?(pid: number): boolean;
  /** Run layers marked `onlyAfterClean` even when an earlier layer rejected (CLI: --all-layers). */
  allLayers?: boolean;
  /** The layers to run, in order; defaults to LAYERS. Contracts should stay first. */
  layers?: readonly Layer[];
  /**
   * The run history's memory of flaky tests: a failure the head's reruns show
   * intermittent, and that flaked on trusted runs in the window, is
   * pre-existing without a base rerun.
   */
  flakeHistory?: FlakeHistory;
}

/** A sharded run's shard (check --shard i/n): see runShard. */
export interface RunShardOptions extends RunGateOptions {
  shard: ShardRequest;
}

const systemClock: Clock = { now: () => performance.now() };

/**
 * The gate, as its steps: the workspace (revisions and private copies), the
 * rules (config, changes, contracts, their snapshots), the runtime (overlay,
 * sandbox, logs, test session, guards), the layers, and the scorecard.
 */
export async function runGate(options: RunGateOptions): Promise<Scorecard> {
  return (await gate(options)).card;
}

/**
 * One shard of a sharded run: the whole-repository checks in full and the
 * expensive work of the units this shard owns (test files, properties, tape
 * rows). Its scorecard covers that share; its part is what `mergeShards`
 * needs to give the run's verdict.
 */
export async function runShard(options: RunShardOptions): Promise<{ card: Scorecard; part: ShardPart }> {
  const { card, part } = await gate(options, options.shard);
  if (!part) throw new InternalError('a sharded run left no part');
  return { card, part };
}

async function gate(
  options: RunGateOptions,
  shard?: ShardRequest,
): Promise<{ card: Scorecard; part?: ShardPart }> {
  const clock = options.clock ?? systemClock;
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const started = clock.now();
  const signal = options.signal ?? new AbortController().signal;
  const pipeline = options.layers ?? LAYERS;
  const phases = { revisionsMs: 0, setupMs: 0, cleanupMs: 0 };
  const hooks = options.hooks ?? {};
  const ws = await openWorkspace({
    cwd: options.cwd,
    base: options.base,
    ...(options.head !== undefined ? { head: options.head } : {}),
    env: options.env,
    ...(options.excludeFromHead ? { excludeFromHead: options.excludeFromHead } : {}),
    ...(options.exec ? { exec: options.exec } : {}),
    signal,
    ...(options.ownerPid !== undefined ? { ownerPid: options.ownerPid } : {}),
    ...(options.isAlive ? { isAlive: options.isAlive } : {}),
    ...(hooks.onRevisionsReady ? { onRevisionsReady: hooks.onRevisionsReady } : {}),
  });
  let card: Omit<Scorecard, 'timings'>;
  let partBody: Omit<ShardPart, 'timings'> | undefined;
  let rt: Runtime | undefined;
  let timings: Record<string, number> = {};
  try {
    const rules = await readRules(ws, pipeline, signal);
    // The layer running now: progress a layer reports (or the test runs it waits for) is shown under its name.
    let currentLayer = '';
    const onProgress = hooks.onProgress;
    const progress = onProgress
      ? (task: string, done: number, total: number) => {
          try {
            onProgress({ layer: currentLayer, task, done, total });
          } catch {
            // A progress display is never worth a verdict.
          }
        }
      : undefined;
    rt = await openRuntime(ws, rules, {
      env: options.env,
      signal,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(progress ? { progress } : {}),
      ...(hooks.onTestRun
        ? {
            onSuiteRun: (run: { label: string; side: RunSide; tests: readonly TestOutcome[] }) =>
              hooks.onTestRun?.({
                label: run.label,
                side: run.side,
                // Each outcome names its file as the runner's preset reads it (pytest's JUnit has no file attribute).
                tests: run.tests.map((t) => {
                  const file = t.file ?? testFileOf(rules.config.tests?.preset, t);
                  return file === t.file ? t : { ...t, file };
                }),
              }),
          }
        : {}),
      ...(shard ? { shard } : {}),
    });
    const slice = rt.slice;
    const context = layerContext(ws, rules, rt, {
      env: options.env,
      today,
      signal,
      ...(progress ? { progress } : {}),
      ...(options.flakeHistory ? { flakeHistory: options.flakeHistory } : {}),
    });
    // Revisions resolved and checked out, the snapshot taken, the config read: everything before the layers.
    phases.revisionsMs = Math.round(clock.now() - started);
    const prelude = [
      ...rt.sandboxFindings,
      ...missingSubmoduleWarnings(ws.checkouts.missingSubmodules(ws.headRoot)),
    ];
    const run = await runLayers({
      pipeline,
      isEnabled: (l) => rules.isEnabled(l.name),
      configFile: rules.configFile,
      context,
      findings: prelude,
      blocking: rt.blocking,
      guards: rt.guards,
      tests: rt.tests,
      logDir: rt.logDir,
      ...(slice ? { logsTo: shardLogs(slice.spec.index), recordParts: true } : {}),
      allLayers: options.allLayers ?? false,
      signal,
      now: () => clock.now(),
      onLayer: (name) => {
        currentLayer = name;
      },
      hooks,
    });
    timings = run.timings;
    card = buildScorecard({
      revs: ws.revs,
      identity: ws.identity,
      headTree: ws.headTree,
      configFile: rules.configFile,
      layerOrder: pipeline.map((l) => l.name),
      run,
      today,
      isolation: rt.isolation,
      ...(slice
        ? {
            shard: {
              index: slice.spec.index,
              total: slice.spec.total,
              plan: { digest: slice.digest, by: slice.plan.by },
              testFiles: slice.testFiles.length,
            },
          }
        : {}),
    });
    if (slice) {
      partBody = {
        schema: SHARD_PART_SCHEMA,
        shard: {
          index: slice.spec.index,
          total: slice.spec.total,
          plan: {
            digest: slice.digest,
            by: slice.plan.by,
            files: slice.plan.files.length,
            load: [...slice.plan.load],
            ...(slice.plan.durations ? { durations: slice.plan.durations } : {}),
          },
          testFiles: [...slice.testFiles],
        },
        configDigest: configDigest(rules.config),
        run: {
          base: card.base,
          head: card.head,
          ...(card.patch ? { patch: card.patch } : {}),
          config: card.config,
          today: card.today,
          isolation: card.isolation,
        },
        skips: {
          allLayers: options.allLayers ?? false,
          ...(rt.blocking ? { blocking: rt.blocking.code } : {}),
          enabled: pipeline.filter((l) => rules.isEnabled(l.name)).map((l) => l.name),
          configFile: rules.configFile,
        },
        layerOrder: pipeline.map((l) => l.name),
        prelude,
        layers: run.parts ?? [],
      };
    }
    // Every head process is gone by now: the logs are copied out while their folder still exists.
    await hooks.onLogs?.(rt.logDir);
  } finally {
    phases.setupMs = Math.round(rt?.tests?.setupMs ?? 0);
    const t0 = clock.now();
    // A run left going when another failed first (the base's inventory beside a head run that hit a cap)
    // ends before its checkout is removed.
    await rt?.sandbox.stopAll();
    await ws.checkouts.dispose();
    phases.cleanupMs = Math.round(clock.now() - t0);
  }
  // The whole run, removal of worktrees and installed dependencies included.
  const all = { totalMs: Math.round(clock.now() - started), ...phases, layers: timings };
  return { card: { ...card, timings: all }, ...(partBody ? { part: { ...partBody, timings: all } } : {}) };
}

/**
 * The run's scorecard from the parts of its shards (`patchgate merge`): as
 * one run would have written it but for timings and the shards' own
 * bookkeeping, or an error naming a missing, duplicated or foreign part.
 */
export function mergeShards(
  parts: readonly SourcedPart[],
  options: { layers?: readonly Layer[]; clock?: Clock } = {},
): Promise<MergeResult> {
  const clock = options.clock ?? systemClock;
  return mergeParts(parts, options.layers ?? LAYERS, () => clock.now());
}

/** Where a shard's logs sit in its out folder, and in the merged one. */
export function shardLogs(index: number): string {
  return `${LOGS_IN_OUT}/shard-${index}`;
}

/** The base config as the run read it: every shard of one run must have judged by the same rules. */
function configDigest(config: unknown): string {
  return createHash('sha256').update(stableLine(config)).digest('hex');
}
