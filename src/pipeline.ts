import path from 'node:path';
import { loadConfig } from './config/load.js';
import { asPatchgateError, InputError } from './errors.js';
import { changedPaths, snapshotWorkingTree } from './git/changes.js';
import { Git } from './git/git.js';
import { resolveRevisions } from './git/revisions.js';
import { Worktrees } from './git/worktree.js';
import { contractsLayer } from './layers/contracts/contracts-layer.js';
import { fixturesLayer } from './layers/fixtures/fixtures-layer.js';
import { hitsLayer } from './layers/hits/hits-layer.js';
import { seedsLayer } from './layers/seeds/seeds-layer.js';
import { signaturesLayer } from './layers/signatures/signatures-layer.js';
import { stabilityLayer } from './layers/stability/stability-layer.js';
import type {
  Artifact,
  Finding,
  FrozenItem,
  Layer,
  LayerContext,
  NamedContract,
  Override,
} from './layers/types.js';
import {
  type LayerSummary,
  layerStatus,
  SCORECARD_SCHEMA,
  type Scorecard,
  sortFindings,
  verdictOf,
} from './report/scorecard.js';
import { TestSession } from './runners/tests/session.js';
import { type Exec, execFile } from './util/exec.js';
import { isInside, toPosix } from './util/repo-path.js';
import { scrubbedEnv } from './util/scrub-env.js';

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
  stabilityLayer,
];

export interface Clock {
  now(): number;
}

/** Optional progress hooks, for a terminal spinner or a test that needs a pause point. */
export interface GateHooks {
  onRevisionsReady?(info: { baseRoot: string; headRoot: string }): void | Promise<void>;
  onLayerStart?(name: string): void | Promise<void>;
  onLayerEnd?(summary: LayerSummary): void | Promise<void>;
  /** A report a layer produced besides its findings (e.g. hit_report.head.json). */
  onArtifact?(artifact: Artifact): void | Promise<void>;
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
  /** Where layers keep logs and reports of the commands they run (test runs); a temp dir when absent. */
  logDir?: string;
  /** Run layers marked `onlyAfterClean` even when an earlier layer rejected (CLI: --all-layers). */
  allLayers?: boolean;
  /** The layers to run, in order; defaults to LAYERS. Contracts should stay first. */
  layers?: readonly Layer[];
}

const systemClock: Clock = { now: () => performance.now() };

function errorFinding(layer: string, err: unknown): Finding {
  const e = asPatchgateError(err);
  return {
    code: e.kind === 'internal' ? 'INTERNAL_ERROR' : 'CONFIG_INVALID',
    layer,
    severity: 'error',
    message: e.message,
    evidence: { error: e.code, kind: e.kind, ...e.details },
  };
}

export async function runGate(options: RunGateOptions): Promise<Scorecard> {
  const clock = options.clock ?? systemClock;
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const started = clock.now();
  const signal = options.signal ?? new AbortController().signal;
  const git = new Git(options.exec ?? execFile, path.resolve(options.cwd), signal);
  const revs = await resolveRevisions(git, options.base, options.head);
  const repo = git.at(revs.repoRoot);
  const worktrees = new Worktrees(repo);
  try {
    const baseRoot = await worktrees.add(revs.baseCommit, 'base');
    let headRoot: string;
    let headTree: string;
    if (revs.head.worktree) {
      headRoot = revs.repoRoot;
      const exclude = (options.excludeFromHead ?? [])
        .map((p) => path.resolve(options.cwd, p))
        .filter((p) => isInside(revs.repoRoot, p) && p !== revs.repoRoot)
        .map((p) => toPosix(path.relative(revs.repoRoot, p)));
      headTree = await snapshotWorkingTree(repo, { ...options.env }, exclude);
    } else {
      headRoot = await worktrees.add(revs.head.commit, 'head');
      headTree = await repo.out(['rev-parse', `${revs.head.commit}^{tree}`]);
    }
    await options.hooks?.onRevisionsReady?.({ baseRoot, headRoot });
    if (signal.aborted) throw new InputError('ABORTED', 'the run was interrupted');

    // The base is the source of truth: the head's config is only ever compared against it.
    const { config, file: configFile } = await loadConfig(
      baseRoot,
      `the base revision ${revs.baseCommit.slice(0, 12)}`,
      { signal },
    );
    const changes = await changedPaths(repo, revs.baseCommit, headTree);
    const pipeline = options.layers ?? LAYERS;
    const contracts: NamedContract[] = pipeline
      .filter((l) => l.enabled(config))
      .flatMap((l) => l.contractFiles(config));

    const logDir = options.logDir ?? (await worktrees.scratch('logs'));
    const tests = config.tests
      ? new TestSession({
          tests: config.tests,
          head: { root: headRoot, isWorkingTree: revs.head.worktree },
          base: { root: baseRoot },
          env: scrubbedEnv(options.env),
          logDir,
          signal,
        })
      : undefined;
    const ctx: LayerContext = {
      config,
      configFile,
      base: { side: 'base', commit: revs.baseCommit, root: baseRoot },
      head: { side: 'head', commit: revs.head.commit, root: headRoot },
      changes,
      contracts,
      env: options.env,
      today,
      logDir,
      ...(tests ? { tests } : {}),
      signal,
    };

    const findings: Finding[] = [];
    const overrides: Override[] = [];
    const frozen: FrozenItem[] = [];
    const layers: LayerSummary[] = [];
    const timings: Record<string, number> = {};
    for (const layer of pipeline) {
      if (!layer.enabled(config)) {
        layers.push({
          name: layer.name,
          status: 'skipped',
          findings: 0,
          reason: `not enabled in ${configFile}`,
        });
        continue;
      }
      if (layer.onlyAfterClean && !options.allLayers && verdictOf(findings) !== 'accept') {
        layers.push({
          name: layer.name,
          status: 'skipped',
          findings: 0,
          reason: 'an earlier layer did not pass (use --all-layers to run it anyway)',
        });
        continue;
      }
      await options.hooks?.onLayerStart?.(layer.name);
      const t0 = clock.now();
      let layerFindings: Finding[];
      try {
        const outcome = await layer.run(ctx);
        layerFindings = outcome.findings;
        overrides.push(...(outcome.overrides ?? []));
        frozen.push(...(outcome.frozen ?? []));
        for (const artifact of outcome.artifacts ?? []) await options.hooks?.onArtifact?.(artifact);
      } catch (err) {
        if (signal.aborted) throw err;
        // A layer that throws can never let the patch through.
        layerFindings = [errorFinding(layer.name, err)];
      }
      timings[layer.name] = Math.round(clock.now() - t0);
      const summary = {
        name: layer.name,
        status: layerStatus(layerFindings),
        findings: layerFindings.length,
      };
      layers.push(summary);
      findings.push(...layerFindings);
      await options.hooks?.onLayerEnd?.(summary);
    }

    const verdict = verdictOf(findings);
    const errorKind =
      verdict !== 'error'
        ? undefined
        : findings.some((f) => f.severity === 'error' && f.code === 'INTERNAL_ERROR')
          ? 'internal'
          : 'input';
    return {
      schema: SCORECARD_SCHEMA,
      verdict,
      ...(errorKind ? { errorKind } : {}),
      base: { ref: revs.requestedBase.ref, requested: revs.requestedBase.commit, commit: revs.baseCommit },
      head: { ref: revs.head.ref, commit: revs.head.commit, tree: headTree, worktree: revs.head.worktree },
      config: { file: configFile, revision: 'base' },
      layers,
      findings: sortFindings(
        findings,
        pipeline.map((l) => l.name),
      ),
      overrides: overrides.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      frozen,
      today,
      timings: { totalMs: Math.round(clock.now() - started), layers: timings },
    };
  } finally {
    await worktrees.dispose();
  }
}
