import { contractReadOptions } from '../config/contract-file.js';
import type { ContractSnapshot } from '../config/contract-snapshot.js';
import type { PatchgateConfig } from '../config/schema.js';
import { readTapeIfExists } from '../contracts/seed-tape.js';
import { lockedFixtureDigests } from '../layers/fixtures/locked-digests.js';
import { configuredPrograms, programFindings } from '../layers/program-finding.js';
import type { ProgressReport } from '../layers/progress.js';
import {
  describeIsolation,
  networkFinding,
  networkSettings,
  unsandboxedFinding,
} from '../layers/sandbox-finding.js';
import type { Finding, Layer } from '../layers/types.js';
import { WrittenGuard } from '../layers/written-guard.js';
import { buildOverlay, type Overlay } from '../overlay/overlay-tree.js';
import { testSideFor } from '../overlay/test-side.js';
import type { Scorecard } from '../report/scorecard.js';
import { headOwnFiles } from '../runners/tests/head-own.js';
import { type SuiteRun, TestSession } from '../runners/tests/session.js';
import { limitsFromConfig, openSandbox } from '../sandbox/open.js';
import { programView } from '../sandbox/program-view.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ShardSlice } from '../shard/plan.js';
import { pushAll } from '../util/arrays.js';
import { TEST_GLOB_KEY } from '../util/named-glob.js';
import type { Rules } from './rules.js';
import { planShard, type ShardRequest, sessionShard } from './shard-plan.js';
import type { Workspace } from './workspace.js';

/**
 * Where head code runs and what watches it: the overlay (the head's tree
 * with the base's test side), the sandbox and what it could not give, the
 * logs folder, the test session, and the guards over files head code must
 * not write.
 */
export interface Runtime {
  readonly overlay: Overlay;
  /** The overlay's checkout: the head's own when the patch left the test side alone. */
  readonly overlayRoot: string;
  readonly sandbox: Sandbox;
  readonly isolation: Scorecard['isolation'];
  /** What the sandbox could not be (unsandboxed, offline, a hidden program), reported first. */
  readonly sandboxFindings: readonly Finding[];
  /** The first of those that stops head code from running at all. */
  readonly blocking: Finding | undefined;
  readonly logDir: string;
  readonly tests: TestSession | undefined;
  /** Each checks, after a layer that ran head code, that none of it wrote what it must not. */
  readonly guards: readonly WrittenGuard[];
  /** Whether any enabled layer runs head code. */
  readonly runsHeadCode: boolean;
  /** A sharded run's share of the work (check --shard i/n). */
  readonly slice?: ShardSlice;
}

export interface RuntimeOptions {
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  /** The door head code goes through; detected from the machine and the base config when absent. */
  sandbox?: Sandbox;
  /** Test runs reported under the layer that waits for them. */
  progress?: ProgressReport;
  /** Every suite run that reported, as it finishes (the run history keeps their outcomes). */
  onSuiteRun?(run: SuiteRun): void;
  /** This run is one shard of several: it plans the split and does its share. */
  shard?: ShardRequest;
}

/** An overlay that is the head itself: nothing to write, nothing restored. */
function headAsOverlay(headTree: string): Overlay {
  return {
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
}

/**
 * Builds the runtime. Nothing of the head runs yet: the test session starts
 * its runs when the first layer that needs them asks. A sandbox opened here
 * is handed to the caller, who stops what runs in it at the end.
 */
export async function openRuntime(ws: Workspace, rules: Rules, options: RuntimeOptions): Promise<Runtime> {
  const { repo, revs, headTree, checkouts, baseRoot, headRoot } = ws;
  const { config, configFile } = rules;
  const { signal } = options;
  const runsHeadCode = rules.enabled.some((l) => l.runsHeadCode);
  // Only head code runs on the overlay: with no such layer on, it is not even written out.
  const overlay = runsHeadCode
    ? await buildOverlay(repo, revs.baseCommit, headTree, config, configFile)
    : headAsOverlay(headTree);
  const overlayRoot = overlay.sameAsHead ? headRoot : await checkouts.add(overlay.tree, 'overlay');
  const sandbox =
    options.sandbox ??
    (await openSandbox(options.env, {
      readOnly: config.sandbox.readOnly,
      limits: limitsFromConfig(config.sandbox.limits),
    }));
  const sandboxFindings = await sandboxShortfalls(sandbox, rules, options.env, signal);
  const logDir = await checkouts.scratch('logs');
  await sandbox.grant(headRoot);
  await sandbox.grant(baseRoot);
  await sandbox.grant(overlayRoot);
  const slice = options.shard ? await planShard(ws, rules, overlay.named, options.shard) : undefined;
  const tests = config.tests
    ? await testSession(ws, rules, overlay, overlayRoot, sandbox, logDir, options, slice)
    : undefined;
  return {
    overlay,
    overlayRoot,
    sandbox,
    isolation: describeIsolation(sandbox.isolation),
    sandboxFindings,
    blocking: sandboxFindings.find((f) => f.severity === 'error'),
    logDir,
    tests,
    // What head code could rewrite in its own checkout, taken before any of it runs (and only when some
    // will: with no such layer on, nothing can write the checkout).
    guards: runsHeadCode ? await writeGuards(ws, rules, overlay, overlayRoot, signal) : [],
    runsHeadCode,
    ...(slice ? { slice } : {}),
  };
}

/** What the sandbox cannot be that the config asks for; an `error` among them runs no head code. */
async function sandboxShortfalls(
  sandbox: Sandbox,
  rules: Rules,
  env: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Finding[]> {
  const { config } = rules;
  const findings: Finding[] = [];
  const unsandboxed = unsandboxedFinding(sandbox.isolation, config.sandbox.allowUnsandboxed, env);
  if (unsandboxed) findings.push(unsandboxed);
  // Without a sandbox there is no network namespace to give (SANDBOX_UNAVAILABLE says so already).
  if (sandbox.isolation.mode !== 'bwrap') return findings;
  const asked = networkSettings(config, rules.isEnabled);
  if (asked.length > 0) {
    const offline = networkFinding(await sandbox.checkNetwork(), asked, env);
    if (offline) findings.push(offline);
  }
  // What each configured program is inside the sandbox: a home-folder interpreter is not there.
  const programs = configuredPrograms(
    config,
    rules.isEnabled,
    sandbox.environment(),
    await tapeRunsPython(rules.snapshot.base, config, signal),
  );
  pushAll(
    findings,
    programFindings(
      programs.map((program) => ({
        program,
        view: programView(program.program, program.searchPath, (p) => sandbox.visible(p)),
      })),
    ),
  );
  return findings;
}

async function testSession(
  ws: Workspace,
  rules: Rules,
  overlay: Overlay,
  overlayRoot: string,
  sandbox: Sandbox,
  logDir: string,
  options: RuntimeOptions,
  slice: ShardSlice | undefined,
): Promise<TestSession | undefined> {
  const tests = rules.config.tests;
  if (!tests) return undefined;
  // Where the overlay differs from the head only in test modules, the head's first run shares its outcomes.
  const headOwn = overlay.sameAsHead
    ? undefined
    : await headOwnFiles({
        preset: tests.preset,
        command: tests.command,
        restored: overlay.restored,
        headOnly: overlay.headOnly,
        merged: overlay.merged,
        fromBase: overlay.fromBase.map((f) => f.path),
        headPaths: (await ws.headFiles()).paths,
        read: async (paths) => (await ws.headFiles()).readMany(paths),
        testGlobs: overlay.named.filter((n) => TEST_GLOB_KEY.test(n.key)),
      });
  const { progress, onSuiteRun } = options;
  return new TestSession({
    tests,
    head: {
      root: ws.headRoot,
      // A working-tree head borrows the user's installed dependencies: they belong to that very tree.
      ...(ws.revs.head.worktree ? { dependenciesFrom: ws.revs.repoRoot } : {}),
    },
    base: { root: ws.baseRoot },
    // The regression layer asks for both runs: start the base's tests on the head's code with the head's.
    ...(overlay.sameAsHead
      ? {}
      : { overlay: { root: overlayRoot, withHead: true, ...(headOwn ? { headOwn } : {}) } }),
    env: sandbox.environment(tests.env),
    sandbox,
    logDir,
    signal: options.signal,
    census: rules.enabled.some((l) => l.testRuns?.census),
    isTestPath: testSideFor(rules.config, overlay.named).isTestPath,
    ...(progress ? { onRuns: (done: number, total: number) => progress('test runs', done, total) } : {}),
    ...(onSuiteRun ? { onSuiteRun } : {}),
    ...(slice ? { shard: sessionShard(slice) } : {}),
  });
}

async function writeGuards(
  ws: Workspace,
  rules: Rules,
  overlay: Overlay,
  overlayRoot: string,
  signal: AbortSignal,
): Promise<WrittenGuard[]> {
  const locked = await lockedFixtureDigests(
    rules.snapshot.base,
    rules.config,
    'the base revision',
    contractReadOptions(rules.config, signal),
  ).then(
    (m) => [...m.keys()],
    () => [],
  );
  return [
    await WrittenGuard.take(ws.headRoot, [...rules.snapshotPaths, ...locked], {
      kind: 'contract',
      committed: ws.committedBytes(ws.headTree),
    }),
    // The base's test side where the base's tests run: production code must not edit it meanwhile.
    await WrittenGuard.take(overlayRoot, overlay.testSide, {
      kind: 'test-side',
      committed: ws.committedBytes(overlay.tree),
    }),
  ];
}

/**
 * Whether the base's seed tape has a row `seeds.python` runs (a pytest row).
 * A tape the layer cannot read counts as one: the seeds layer reports it.
 */
async function tapeRunsPython(
  base: ContractSnapshot,
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

/** The layers (of those enabled) whose test runs the pipeline starts early. */
export function startsTestRuns(enabled: readonly Layer[]): { headRun: boolean; baseInventory: boolean } {
  return {
    headRun: enabled.some((l) => l.testRuns?.headRun),
    baseInventory: enabled.some((l) => l.testRuns?.baseInventory),
  };
}
