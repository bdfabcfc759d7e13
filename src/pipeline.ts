import path from 'node:path';
import picomatch from 'picomatch';
import { isReasonCode } from './codes.js';
import { contractReadOptions, DEFAULT_CONTRACT_BYTES } from './config/contract-file.js';
import { FrozenContracts } from './config/frozen-contracts.js';
import { CONFIG_FILE_NAMES, loadConfig } from './config/load.js';
import type { PatchgateConfig } from './config/schema.js';
import { asPatchgateError, InputError } from './errors.js';
import { changedPaths, snapshotWorkingTree } from './git/changes.js';
import { Checkouts, pruneLeftovers } from './git/checkouts.js';
import { type Exec, execFile } from './git/exec.js';
import { Git } from './git/git.js';
import { diffHunks, type Hunk } from './git/hunks.js';
import { resolveRevisions } from './git/revisions.js';
import { listTree } from './git/tree.js';
import { claimsLayer } from './layers/claims/claims-layer.js';
import { contractsLayer } from './layers/contracts/contracts-layer.js';
import { fixturesLayer } from './layers/fixtures/fixtures-layer.js';
import { lockedFixtureDigests } from './layers/fixtures/locked-digests.js';
import { hitsLayer } from './layers/hits/hits-layer.js';
import { configuredPrograms, programFindings } from './layers/program-finding.js';
import { regressionLayer } from './layers/regression/regression-layer.js';
import {
  describeIsolation,
  networkFinding,
  networkSettings,
  unsandboxedFinding,
} from './layers/sandbox-finding.js';
import { seedsLayer } from './layers/seeds/seeds-layer.js';
import { readTapeIfExists } from './layers/seeds/tape.js';
import { signaturesLayer } from './layers/signatures/signatures-layer.js';
import { stabilityLayer } from './layers/stability/stability-layer.js';
import { missingSubmoduleWarnings } from './layers/submodule-finding.js';
import { testEditsLayer } from './layers/test-edits/test-edits-layer.js';
import type {
  Artifact,
  Finding,
  FrozenItem,
  Layer,
  LayerContext,
  NamedContract,
  Override,
  PropertyProof,
} from './layers/types.js';
import { WrittenGuard } from './layers/written-guard.js';
import { buildOverlay } from './overlay/overlay-tree.js';
import { type TreeFiles, treeFiles } from './overlay/revision-files.js';
import { testSideFor } from './overlay/test-side.js';
import { aggregateFindings } from './report/aggregate.js';
import { boundFinding } from './report/bounded.js';
import { relocateLogPaths } from './report/log-paths.js';
import {
  type LayerSummary,
  layerStatus,
  SCORECARD_SCHEMA,
  type Scorecard,
  sortFindings,
  verdictOf,
} from './report/scorecard.js';
import { headOwnFiles } from './runners/tests/head-own.js';
import { TestSession } from './runners/tests/session.js';
import { limitsFromConfig, openSandbox } from './sandbox/open.js';
import { programView } from './sandbox/program-view.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { pushAll } from './util/arrays.js';
import { TEST_GLOB_KEY } from './util/named-glob.js';
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
  regressionLayer,
  testEditsLayer,
  stabilityLayer,
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
  /** The door head code goes through; detected from the machine and the base config when absent. */
  sandbox?: Sandbox;
  /** This process's id: names its temp folders, so a later run can prune them if this one is killed. */
  ownerPid?: number;
  /** Whether a process is alive (to prune temp folders of killed runs); asks /proc when absent. */
  isAlive?(pid: number): boolean;
  /** Run layers marked `onlyAfterClean` even when an earlier layer rejected (CLI: --all-layers). */
  allLayers?: boolean;
  /** The layers to run, in order; defaults to LAYERS. Contracts should stay first. */
  layers?: readonly Layer[];
}

const systemClock: Clock = { now: () => performance.now() };

/**
 * Errors that are the patch's doing when head code produced them: a cap it
 * hit, an instrument it replaced, a run it broke that works on the base. On
 * the base's own run they mean the base could not run: an error.
 */
const HEAD_BLAME: ReadonlySet<string> = new Set(['RESOURCE_LIMIT', 'INSTRUMENT_SHADOWED', 'HEAD_RUN_BROKEN']);

function errorFinding(layer: string, err: unknown): Finding {
  const e = asPatchgateError(err);
  // An error whose code is a reason code of its own (a test run that timed out, an unreadable report)
  // keeps it: calling it CONFIG_INVALID would send the user to the wrong file.
  const code = e.kind === 'internal' ? 'INTERNAL_ERROR' : isReasonCode(e.code) ? e.code : 'CONFIG_INVALID';
  return {
    code,
    layer,
    severity: HEAD_BLAME.has(code) && e.details.side !== 'base' ? 'reject' : 'error',
    message: e.message,
    evidence: { error: e.code, kind: e.kind, ...e.details },
  };
}

/**
 * Reads `treeish:file` from git's objects, as UTF-8 text; undefined when the
 * revision has no such file (a folder is not a file).
 */
function committedReader(git: Git, treeish: string): (file: string) => Promise<string | undefined> {
  const bytes = committedBytes(git, treeish);
  return async (file) => (await bytes(file))?.toString('utf8');
}

/** `treeish:file` from git's objects, as bytes; undefined when the revision has no such file. */
function committedBytes(git: Git, treeish: string): (file: string) => Promise<Buffer | undefined> {
  return async (file) => {
    const r = await git.tryBuffer(['cat-file', '--batch', '--follow-symlinks'], `${treeish}:${file}\n`);
    const nl = r.indexOf(10);
    const header = r.subarray(0, nl === -1 ? r.length : nl).toString('utf8');
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!m) return undefined;
    return r.subarray(nl + 1, nl + 1 + Number(m[1]));
  };
}

/**
 * The files contract globs match: the base's become named contracts (read,
 * and missing-checked by their readers), the head's extra ones are frozen too
 * so a layer can tell what the patch added.
 */
async function expandContractGlobs(
  repo: Git,
  baseCommit: string,
  headTree: string,
  named: readonly NamedContract[],
): Promise<{ base: NamedContract[]; headOnly: string[] }> {
  const globs = named.filter((c) => c.glob);
  if (globs.length === 0) return { base: [], headOnly: [] };
  const matchers = globs.map((g) => ({ role: g.role, match: picomatch(g.path, { dot: true }) }));
  const blobs = async (treeish: string) =>
    (await listTree(repo, treeish)).filter((e) => e.type === 'blob').map((e) => e.path);
  const [baseFiles, headFiles] = await Promise.all([blobs(baseCommit), blobs(headTree)]);
  const base: NamedContract[] = [];
  for (const p of baseFiles) {
    const m = matchers.find((x) => x.match(p));
    if (m) base.push({ path: p, role: m.role });
  }
  const onBase = new Set(base.map((c) => c.path));
  const headOnly = headFiles.filter((p) => !onBase.has(p) && matchers.some((x) => x.match(p)));
  return { base, headOnly };
}

export async function runGate(options: RunGateOptions): Promise<Scorecard> {
  const clock = options.clock ?? systemClock;
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const started = clock.now();
  const signal = options.signal ?? new AbortController().signal;
  const git = Git.forEnv(options.exec ?? execFile, path.resolve(options.cwd), options.env, signal);
  // Folders a killed run left behind (SIGKILL gives no chance to clean up) go first.
  await pruneLeftovers(options.isAlive);
  const revs = await resolveRevisions(git, options.base, options.head);
  const repo = git.at(revs.repoRoot);
  const checkouts = new Checkouts(repo, options.ownerPid ?? 0);
  let card: Omit<Scorecard, 'timings'>;
  const timings: Record<string, number> = {};
  const phases = { revisionsMs: 0, setupMs: 0, cleanupMs: 0 };
  let tests: TestSession | undefined;
  let sandbox: Sandbox | undefined;
  let isolation: Scorecard['isolation'] = { mode: 'process' };
  try {
    let headTree: string;
    if (revs.head.worktree) {
      const exclude = (options.excludeFromHead ?? [])
        .map((p) => path.resolve(options.cwd, p))
        .filter((p) => isInside(revs.repoRoot, p) && p !== revs.repoRoot)
        .map((p) => toPosix(path.relative(revs.repoRoot, p)));
      headTree = await snapshotWorkingTree(repo, exclude);
    } else {
      headTree = await repo.out(['rev-parse', `${revs.head.commit}^{tree}`]);
    }
    // Head code never runs in the user's working tree, nor in anything git manages: both revisions are
    // private copies written from git's objects.
    const [baseRoot, headRoot] = await Promise.all([
      checkouts.add(revs.baseCommit, 'base'),
      checkouts.add(headTree, 'head'),
    ]);
    await options.hooks?.onRevisionsReady?.({ baseRoot, headRoot });
    if (signal.aborted) throw new InputError('ABORTED', 'the run was interrupted');

    // The base is the source of truth: the head's config is only ever compared against it. Every rule is
    // read from git's objects, before any head code runs, into one snapshot per revision.
    const baseLabel = `the base revision ${revs.baseCommit.slice(0, 12)}`;
    const configs = await FrozenContracts.read(
      repo,
      revs.baseCommit,
      CONFIG_FILE_NAMES,
      baseLabel,
      DEFAULT_CONTRACT_BYTES,
    );
    const { config, file: configFile } = await loadConfig(configs, baseLabel, {
      signal,
      moduleRoot: baseRoot,
    });
    const changes = await changedPaths(repo, revs.baseCommit, headTree);
    const pipeline = options.layers ?? LAYERS;
    const named: NamedContract[] = pipeline
      .filter((l) => l.enabled(config))
      .flatMap((l) => l.contractFiles(config));
    const globbed = await expandContractGlobs(repo, revs.baseCommit, headTree, named);
    const contracts: NamedContract[] = [...named, ...globbed.base];
    const frozenPaths = [
      configFile,
      ...CONFIG_FILE_NAMES,
      ...contracts.filter((c) => !c.glob).map((c) => c.path),
      ...globbed.headOnly,
    ];
    const snapshot = {
      base: await FrozenContracts.read(
        repo,
        revs.baseCommit,
        frozenPaths,
        baseLabel,
        config.limits.contractBytes,
      ),
      head: await FrozenContracts.read(repo, headTree, frozenPaths, 'the head', config.limits.contractBytes),
    };

    // Only head code runs on the overlay: with no such layer on, it is not even written out.
    const overlayTree = pipeline.some((l) => l.runsHeadCode && l.enabled(config))
      ? await buildOverlay(repo, revs.baseCommit, headTree, config, configFile)
      : {
          tree: headTree,
          sameAsHead: true,
          restored: [],
          headOnly: [],
          merged: [],
          fromBase: [],
          testSide: [],
          named: [],
          unread: [],
          shared: [],
        };
    const overlayRoot = overlayTree.sameAsHead ? headRoot : await checkouts.add(overlayTree.tree, 'overlay');
    sandbox =
      options.sandbox ??
      (await openSandbox(options.env.PATH, {
        readOnly: config.sandbox.readOnly,
        limits: limitsFromConfig(config.sandbox.limits),
      }));
    isolation = describeIsolation(sandbox.isolation);
    const sandboxFindings: Finding[] = [];
    const unsandboxed = unsandboxedFinding(sandbox.isolation, config.sandbox.allowUnsandboxed, options.env);
    if (unsandboxed) sandboxFindings.push(unsandboxed);
    // Without a sandbox there is no network namespace to give (SANDBOX_UNAVAILABLE says so already).
    const asked = networkSettings(config, (name) =>
      pipeline.some((l) => l.name === name && l.enabled(config)),
    );
    if (sandbox.isolation.mode === 'bwrap' && asked.length > 0) {
      const offline = networkFinding(await sandbox.checkNetwork(), asked, options.env);
      if (offline) sandboxFindings.push(offline);
    }
    // What each configured program is inside the sandbox: a home-folder interpreter is not there.
    if (sandbox.isolation.mode === 'bwrap') {
      const box = sandbox;
      const programs = configuredPrograms(
        config,
        (name) => pipeline.some((l) => l.name === name && l.enabled(config)),
        scrubbedEnv(options.env),
        await tapeRunsPython(snapshot.base, config, signal),
      );
      pushAll(
        sandboxFindings,
        programFindings(
          programs.map((program) => ({
            program,
            view: programView(program.program, program.searchPath, (p) => box.visible(p)),
          })),
        ),
      );
    }
    // A sandbox that cannot be what the config asks for runs no head code (the finding says which).
    const blocking = sandboxFindings.find((f) => f.severity === 'error');
    const logDir = await checkouts.scratch('logs');
    await sandbox.grant(headRoot);
    await sandbox.grant(baseRoot);
    await sandbox.grant(overlayRoot);
    // The layer running now: progress a layer reports (or the test runs it waits for) is shown under its name.
    let currentLayer = '';
    const onProgress = options.hooks?.onProgress;
    const progress = onProgress
      ? (task: string, done: number, total: number) => {
          try {
            onProgress({ layer: currentLayer, task, done, total });
          } catch {
            // A progress display is never worth a verdict.
          }
        }
      : undefined;
    let headFilesP: Promise<TreeFiles> | undefined;
    const headFiles = () => {
      headFilesP ??= treeFiles(repo, headTree);
      return headFilesP;
    };
    // Where the overlay differs from the head only in test modules, the head's first run shares its outcomes.
    const headOwn =
      config.tests && !overlayTree.sameAsHead
        ? await headOwnFiles({
            preset: config.tests.preset,
            command: config.tests.command,
            restored: overlayTree.restored,
            headOnly: overlayTree.headOnly,
            merged: overlayTree.merged,
            fromBase: overlayTree.fromBase.map((f) => f.path),
            headPaths: (await headFiles()).paths,
            read: async (paths) => (await headFiles()).readMany(paths),
            testGlobs: overlayTree.named.filter((n) => TEST_GLOB_KEY.test(n.key)),
          })
        : undefined;
    tests = config.tests
      ? new TestSession({
          tests: config.tests,
          head: {
            root: headRoot,
            // A working-tree head borrows the user's installed dependencies: they belong to that very tree.
            ...(revs.head.worktree ? { dependenciesFrom: revs.repoRoot } : {}),
          },
          base: { root: baseRoot },
          // The regression layer asks for both runs: start the base's tests on the head's code with the head's.
          ...(overlayTree.sameAsHead
            ? {}
            : { overlay: { root: overlayRoot, withHead: true, ...(headOwn ? { headOwn } : {}) } }),
          env: { ...scrubbedEnv(options.env), ...config.tests.env },
          sandbox,
          logDir,
          signal,
          // The claims layer tells property tests from example tests by what pytest generated.
          census: pipeline.some((l) => l.name === 'claims' && l.enabled(config)),
          isTestPath: testSideFor(config, overlayTree.named).isTestPath,
          ...(progress
            ? { onRuns: (done: number, total: number) => progress('test runs', done, total) }
            : {}),
        })
      : undefined;
    let hunksP: Promise<readonly Hunk[]> | undefined;
    const proofs: PropertyProof[] = [];
    const layersRun: string[] = [];
    const ctx: LayerContext = {
      config,
      configFile,
      base: {
        side: 'base',
        commit: revs.baseCommit,
        root: baseRoot,
        readCommitted: committedReader(repo, revs.baseCommit),
        missingSubmodules: checkouts.missingSubmodules(baseRoot),
      },
      head: {
        side: 'head',
        commit: revs.head.commit,
        root: headRoot,
        readCommitted: committedReader(repo, headTree),
        tree: headFiles,
        missingSubmodules: checkouts.missingSubmodules(headRoot),
      },
      overlay: {
        side: 'head',
        commit: overlayTree.tree,
        root: overlayRoot,
        readCommitted: committedReader(repo, overlayTree.tree),
        missingSubmodules: checkouts.missingSubmodules(overlayRoot),
        sameAsHead: overlayTree.sameAsHead,
        restored: overlayTree.restored,
        headOnly: overlayTree.headOnly,
        merged: overlayTree.merged,
        fromBase: overlayTree.fromBase,
        named: overlayTree.named,
        unread: overlayTree.unread,
        shared: overlayTree.shared,
      },
      changes,
      contracts,
      env: options.env,
      today,
      logDir,
      ...(tests ? { tests } : {}),
      frozen: snapshot,
      hunks: () => {
        hunksP ??= diffHunks(repo, revs.baseCommit, headTree).then((d) => d.hunks);
        return hunksP;
      },
      proofs,
      layersRun,
      sandbox,
      signal,
      ...(progress ? { progress } : {}),
    };

    // Revisions resolved and checked out, the snapshot taken, the config read: everything before the layers.
    phases.revisionsMs = Math.round(clock.now() - started);
    const findings: Finding[] = [...sandboxFindings];
    pushAll(findings, missingSubmoduleWarnings(checkouts.missingSubmodules(headRoot)));
    // What head code could rewrite in its own checkout, taken before any of it runs (and only when some
    // will: with no such layer on, nothing can write the checkout).
    const runsHeadCode = pipeline.some((l) => l.runsHeadCode && l.enabled(config));
    const guards = runsHeadCode
      ? [
          await WrittenGuard.take(
            headRoot,
            [
              ...frozenPaths,
              ...(await lockedFixtureDigests(
                snapshot.base,
                config,
                'the base revision',
                contractReadOptions(config, signal),
              ).then(
                (m) => m.keys(),
                () => [],
              )),
            ],
            { kind: 'contract', committed: committedBytes(repo, headTree) },
          ),
          // The base's test side where the base's tests run: production code must not edit it meanwhile.
          await WrittenGuard.take(overlayRoot, overlayTree.testSide, {
            kind: 'test-side',
            committed: committedBytes(repo, overlayTree.tree),
          }),
        ]
      : [];
    const overrides: Override[] = [];
    const frozen: FrozenItem[] = [];
    const layers: LayerSummary[] = [];
    let prefetched = false;
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
      if (blocking && layer.runsHeadCode) {
        layers.push({
          name: layer.name,
          status: 'skipped',
          findings: 0,
          reason:
            blocking.code === 'SANDBOX_UNAVAILABLE'
              ? 'head code runs only in the sandbox here (see SANDBOX_UNAVAILABLE)'
              : blocking.code === 'PROGRAM_HIDDEN'
                ? 'a program the config runs is not in the sandbox (see PROGRAM_HIDDEN)'
                : "head code given network runs only with the sandbox's own network (see SANDBOX_NETWORK_UNAVAILABLE)",
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
      // The test runs every test layer needs start with the first layer that runs head code (never before:
      // the fixtures layer reads the head's checkout, which head code must not be writing meanwhile).
      if (
        layer.runsHeadCode &&
        !prefetched &&
        tests &&
        pipeline.some((l) => l.usesTestRuns && l.enabled(config))
      ) {
        prefetched = true;
        // The base's list of its tests is base code on the base's checkout: it can run alongside.
        tests.prefetch({ inventory: pipeline.some((l) => l.name === 'regression' && l.enabled(config)) });
      }
      currentLayer = layer.name;
      await options.hooks?.onLayerStart?.(layer.name);
      const t0 = clock.now();
      const setupBefore = tests?.setupMs ?? 0;
      let layerFindings: Finding[];
      let told: Pick<LayerSummary, 'note' | 'scope'> = {};
      try {
        const outcome = await layer.run(ctx);
        layerFindings = outcome.findings;
        told = {
          ...(outcome.note !== undefined ? { note: outcome.note } : {}),
          ...(outcome.scope !== undefined ? { scope: outcome.scope } : {}),
        };
        pushAll(overrides, outcome.overrides ?? []);
        pushAll(frozen, outcome.frozen ?? []);
        pushAll(proofs, outcome.proofs ?? []);
        for (const artifact of outcome.artifacts ?? []) await options.hooks?.onArtifact?.(artifact);
      } catch (err) {
        if (signal.aborted) throw err;
        // A layer that throws can never let the patch through.
        layerFindings = [errorFinding(layer.name, err)];
      }
      // An interrupted layer's findings are the interruption's, not the patch's: no verdict is given.
      if (signal.aborted) throw new InputError('ABORTED', 'the run was interrupted');
      if (layer.runsHeadCode) for (const g of guards) pushAll(layerFindings, await g.check(layer.name));
      // Installing dependencies is the setup's time, not the layer's that first needed it.
      timings[layer.name] = Math.round(clock.now() - t0 - ((tests?.setupMs ?? 0) - setupBefore));
      const summary = {
        name: layer.name,
        status: layerStatus(layerFindings),
        findings: layerFindings.length,
        ...told,
      };
      // Evidence head code shaped is bounded before anything walks it; thousands of findings of one code
      // become one with the count, the full list an artifact. A log path names the out folder's copy
      // (tests/…): the temp folder is gone by the time anyone reads it.
      const shown = aggregateFindings(layerFindings.map((f) => relocateLogPaths(boundFinding(f), logDir)));
      for (const artifact of shown.artifacts) await options.hooks?.onArtifact?.(artifact);
      layers.push(summary);
      layersRun.push(layer.name);
      pushAll(findings, shown.findings);
      await options.hooks?.onLayerEnd?.(summary);
    }

    const verdict = verdictOf(findings);
    const errorKind =
      verdict !== 'error'
        ? undefined
        : findings.some((f) => f.severity === 'error' && f.code === 'INTERNAL_ERROR')
          ? 'internal'
          : 'input';
    card = {
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
      isolation,
    };
    // Every head process is gone by now: the logs are copied out while their folder still exists.
    await options.hooks?.onLogs?.(logDir);
  } finally {
    phases.setupMs = Math.round(tests?.setupMs ?? 0);
    const t0 = clock.now();
    // A run left going when another failed first (the base's inventory beside a head run that hit a cap)
    // ends before its checkout is removed.
    await sandbox?.stopAll();
    await checkouts.dispose();
    phases.cleanupMs = Math.round(clock.now() - t0);
  }
  // The whole run, removal of worktrees and installed dependencies included.
  return { ...card, timings: { totalMs: Math.round(clock.now() - started), ...phases, layers: timings } };
}

/**
 * Whether the base's seed tape has a row `seeds.python` runs (a pytest row).
 * A tape the layer cannot read counts as one: the seeds layer reports it.
 */
async function tapeRunsPython(
  base: Parameters<typeof readTapeIfExists>[0],
  config: PatchgateConfig,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (!config.seeds) return false;
  try {
    const tape = await readTapeIfExists(
      base,
      config.seeds.tape,
      'the base revision',
      contractReadOptions(config, signal),
    );
    return tape === undefined || tape.rows.some((r) => r.runner === 'pytest');
  } catch {
    return true;
  }
}
