import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TestsConfig } from '../../config/schema.js';
import { parseJUnitFile } from '../../junit/index.js';
import type { TestOutcome } from '../../junit/model.js';
import { foldWhitespace } from '../../junit/text.js';
import { breachEvidence, type Sandbox } from '../../sandbox/sandbox.js';
import { pushAll } from '../../util/arrays.js';
import { checkRepoPath } from '../../util/repo-path.js';
import { CENSUS, CENSUS_MODULE, readCensus, type TestCensus } from './census.js';
import { TestRunError } from './errors.js';
import { withFileEdited } from './file-edit.js';
import type { HeadOwnFiles } from './head-own.js';
import { outputTail } from './output-tail.js';
import {
  canSelectFiles,
  namesBeatFiles,
  resolveTestCommand,
  type TestIdParts,
  testFileOf,
} from './presets.js';
import {
  checkGuard,
  describeProblems,
  GUARD_REPORT,
  type GuardResult,
  type GuardSpec,
  guardEnv,
} from './python-guard.js';
import { junitPathFor, runTests, sidecarPathFor, type TestRunResult } from './run-tests.js';
import { SELECT_ENV, SELECT_MODULE, writeSelection } from './selection.js';
import { ownDependencyDirs, prepareWorktree, sameLockfiles } from './setup.js';

export type { TestCensus } from './census.js';

const isRepoRelative = (file: string): boolean => checkRepoPath(file) === undefined;

/** Which checkout a run is of: the base's is the gate's reference, the others run the head's code. */
export type RunSide = 'head' | 'base' | 'overlay';

/** One run of the suite (or of a subset of it): what the runner wrote, read back. */
export interface SuiteRun {
  label: string;
  side: RunSide;
  run: TestRunResult;
  tests: TestOutcome[];
  /**
   * Per pytest node id, whether the test generated its inputs (Hypothesis)
   * and how many generated examples passed, from our census plugin. Absent
   * when the census was not asked for, or the runner is not pytest.
   */
  census?: ReadonlyMap<string, TestCensus>;
  /** What the gate's pytest guard saw (pytest runs). */
  guard?: GuardResult;
  /**
   * A head run whose outcomes outside `files` are the overlay run's (`label`):
   * the two trees differ only in those test modules (see head-own).
   */
  sharedWith?: { label: string; files: string[] };
}

/** One test the base's suite selects, keyed as `inventoryKey` keys a run's outcomes. */
export interface InventoryTest {
  key: string;
  classname: string;
  name: string;
  /** The repository file it lives in, when known. */
  file?: string;
}

/** Every test the base's suite selects, listed without running them where the runner can. */
export interface Inventory {
  /** `collected`: listed by the runner (pytest --collect-only, a name filter that matches nothing); `ran`: a full run. */
  how: 'collected' | 'ran';
  label: string;
  tests: InventoryTest[];
  /** With `ran`: that run, whose outcomes say which of them pass on the base. */
  run?: SuiteRun;
}

/** A test's key across runs of one runner: its classname and name as the JUnit report gives them. */
export function inventoryKey(t: { classname: string; name: string }): string {
  return `${foldWhitespace(t.classname)}\u241f${foldWhitespace(t.name)}`;
}

export interface TestSessionOptions {
  tests: TestsConfig;
  /**
   * `dependenciesFrom`: for a head copied from the user's working tree, that
   * tree, whose installed dependencies (node_modules…) belong to the very
   * files the copy holds, so they are borrowed without comparing lockfiles.
   */
  head: { root: string; dependenciesFrom?: string };
  base: { root: string };
  /**
   * The overlay (the head's tree with the base's test side). Absent when it
   * is the head's own tree; `withHead` starts its run together with the
   * head's first, since a layer will ask for both.
   */
  overlay?: { root: string; withHead: boolean; headOwn?: HeadOwnFiles };
  /** The scrubbed environment test commands run with. */
  env: Record<string, string>;
  sandbox: Sandbox;
  /** Where logs and reports of every run are kept. */
  logDir: string;
  signal: AbortSignal;
  /** Load our census plugin into pytest runs, so a layer can tell property tests from example tests. */
  census?: boolean;
  /**
   * Whether a repository path is test side (the base config's split): a
   * module of the checkout that shadows a standard name counts against the
   * patch only when it is production code.
   */
  isTestPath?(file: string): boolean;
  /** Called as suite runs start and finish: `done` of the `total` started so far (for a progress display). */
  onRuns?(done: number, total: number): void;
  /** Called with every run that reported, as it finishes; a throwing listener is ignored. */
  onSuiteRun?(run: SuiteRun): void;
  /**
   * A sharded run's share of the suite (see src/shard/): each run of the
   * whole suite runs `files` only (nothing when there are none), and every
   * run keeps only the outcomes of files this shard owns, so each test is
   * judged by exactly one shard even where a runner's file filter matches
   * more than the file named. When the runner cannot select files, the
   * shard that owns the suite runs it whole (`whole`), the others nothing
   * (`none`).
   */
  shard?: SessionShard;
}

/** What a test session of one shard runs: see TestSessionOptions.shard. */
export interface SessionShard {
  files: readonly string[];
  /** `whole`: this shard runs the suite unsplit; `none`: no test runs at all; `files`: `files` only. */
  mode: 'files' | 'whole' | 'none';
  ownsFile(file: string): boolean;
}

/** Failures of a head-code run that the base's run of the same command can show to be the patch's doing. */
const BLAMEABLE = new Set(['TESTS_NO_REPORT', 'TESTS_RUN_FAILED', 'TESTS_TIMEOUT', 'SETUP_FAILED']);

interface SuiteRequest {
  side: RunSide;
  label: string;
  subset?: TestIdParts[];
  files?: string[];
  collect?: boolean;
  /** On a shard: keep every outcome, whichever shard owns its file (a lookup, not a run of tests to judge). */
  anyShard?: boolean;
  /** Besides the session's environment. */
  env?: Record<string, string>;
  /** Instead of the config's `tests.timeoutMs`. */
  timeoutMs?: number;
  /** A run of changed code (a mutant): never told to `onSuiteRun`, since its failures are the gate's doing. */
  unrecorded?: boolean;
  /** End at the first failing test, where the runner can (the preset's `failFastArgs`). */
  failFast?: boolean;
}

/** A file of a checkout as one run sees it: the mutation probe's mutant. */
export interface FileEdit {
  /** Repository path. */
  file: string;
  text: string;
}

/** What `TestSession.editedRun` runs. */
export interface EditedRunRequest {
  /** The test files to run (every test where the runner cannot select files, or when undefined). */
  files?: readonly string[];
  /** Only these tests, where the runner can select tests; `files` otherwise. */
  tests?: readonly TestIdParts[];
  /** The file as this run sees it; the checkout as it is when undefined. */
  edit?: FileEdit;
  label: string;
  timeoutMs: number;
  /** End at the first failing test where the runner can: for a run that asks only whether some test fails. */
  failFast?: boolean;
}

/** An edited run, and what it selected: the tests asked for, their files, or every test. */
export type EditedRun = SuiteRun & { selected: 'tests' | 'files' | 'all' };

/**
 * Python's bytecode for a mutant run: none written, and none read but what
 * this run compiles (a fresh folder in the sandbox's private /tmp), so
 * neither a cache of the original nor one head code planted in the checkout
 * is taken for the mutant.
 */
const MUTANT_ENV: Readonly<Record<string, string>> = {
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONPYCACHEPREFIX: '/tmp/patchgate-mutant-pycache',
};

/**
 * Runs the repository's tests for the layers that need them. The first head
 * run is shared (signatures reads it, stability counts it as run 1), and each
 * checkout is prepared once.
 *
 * Installed dependencies are lent only by a checkout no head process wrote:
 * the base (its own setup, from its own lockfiles) lends to the head and the
 * overlay when their lockfiles are the same; otherwise the overlay installs
 * its own and lends to the head. A working-tree head borrows the user's
 * installed folders, read-only. Once a checkout's setup is done, its
 * dependency folders are sealed: read-only to every later head process, so a
 * head test cannot plant a runner in them for the base's rerun to use.
 */
export class TestSession {
  private readonly headRuns = new Map<number, Promise<SuiteRun>>();
  private prepared = new Map<RunSide, Promise<unknown>>();
  /**
   * Reruns are counted per side and purpose (`base-excuse-2`, `head-rerun-1`):
   * a run's label says what it was for, and is the same whichever other
   * reruns came before it (on a shard, or in one run).
   */
  private readonly counts = new Map<string, number>();
  private baseFullCount = 0;
  private runsStarted = 0;
  private runsDone = 0;
  private inventoryP: Promise<Inventory> | undefined;
  private baseFullP: Promise<SuiteRun> | undefined;
  /** Wall time spent getting checkouts ready (setup commands, dependency reuse), for the scorecard's timings. */
  setupMs = 0;

  constructor(private readonly opts: TestSessionOptions) {}

  private async timed<T>(fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.setupMs += performance.now() - started;
    }
  }

  private rootOf(side: RunSide): string {
    if (side === 'base') return this.opts.base.root;
    if (side === 'overlay') return this.opts.overlay?.root ?? this.opts.head.root;
    return this.opts.head.root;
  }

  private prepare(side: RunSide): Promise<unknown> {
    // The overlay is the head's own tree when the patch left the test side alone.
    if (side === 'overlay' && this.opts.overlay === undefined) return this.prepare('head');
    let p = this.prepared.get(side);
    if (!p) {
      p = this.prepareOnce(side);
      this.prepared.set(side, p);
    }
    return p;
  }

  private async prepareOnce(side: RunSide): Promise<void> {
    try {
      await this.install(side);
    } catch (err) {
      throw side === 'base' ? err : await this.blameSetup(side, err);
    }
    for (const dir of await ownDependencyDirs(this.rootOf(side), this.opts.tests.reuse.dirs))
      this.opts.sandbox.seal(dir);
  }

  private async install(side: RunSide): Promise<void> {
    const { tests, head, base, env, logDir, signal, sandbox } = this.opts;
    const root = this.rootOf(side);
    const reuse = {
      lockfiles: tests.reuse.lockfiles,
      manifests: tests.reuse.manifests,
      dirs: tests.reuse.dirs,
    };
    const setup = (reuseFrom: Parameters<typeof prepareWorktree>[0]['reuseFrom']) =>
      this.timed(() =>
        prepareWorktree({
          sandbox,
          network: tests.setupNetwork,
          worktree: root,
          setup: tests.setup,
          ...(reuseFrom ? { reuseFrom } : {}),
          env,
          timeoutMs: tests.timeoutMs,
          outDir: logDir,
          label: `${side}-setup`,
          signal,
        }),
      );
    if (head.dependenciesFrom !== undefined) {
      // The user's own installed dependencies, for the files of the user's own tree: read-only to head code.
      await setup({ root: head.dependenciesFrom, ...reuse, sameTree: side !== 'base' });
    } else if (side === 'base') {
      await setup(undefined);
    } else if ((await sameLockfiles(base.root, root, tests.reuse.lockfiles, tests.reuse.manifests)).same) {
      await this.prepare('base');
      await setup({ root: base.root, ...reuse });
    } else if (side === 'head' && this.opts.overlay !== undefined) {
      // The overlay holds the head's manifests and lockfiles: it installs them, and the head borrows.
      await this.prepare('overlay');
      await setup({ root: this.opts.overlay.root, ...reuse });
    } else {
      await setup(undefined);
    }
  }

  /** A head-code checkout's own setup failed: the patch's doing when the base's setup works. */
  private async blameSetup(side: RunSide, err: unknown): Promise<unknown> {
    if (!(err instanceof TestRunError) || err.code !== 'SETUP_FAILED' || this.opts.signal.aborted) return err;
    try {
      await this.prepare('base');
    } catch {
      return err;
    }
    return new TestRunError(
      'HEAD_RUN_BROKEN',
      `${err.message}\nThe base's setup with the same command works: the patch broke it.`,
      { ...err.details, side, failed: 'SETUP_FAILED', base: { setup: 'ok' } },
      { cause: err },
    );
  }

  private async suite(req: SuiteRequest): Promise<SuiteRun> {
    this.runsStarted++;
    this.reportRuns();
    try {
      const run = await this.suiteRun(req);
      try {
        if (req.unrecorded !== true) this.opts.onSuiteRun?.(run);
      } catch {
        // A listener (the run history) is never worth a test run.
      }
      return run;
    } catch (err) {
      throw req.side === 'base' ? err : await this.blameRun(req, err);
    } finally {
      this.runsDone++;
      this.reportRuns();
    }
  }

  private reportRuns(): void {
    try {
      this.opts.onRuns?.(this.runsDone, this.runsStarted);
    } catch {
      // Progress is never worth a test run.
    }
  }

  /**
   * A run of head code that broke (no report, no test, a timeout) is the
   * patch's doing when the base's run of the same command reports: it becomes
   * HEAD_RUN_BROKEN, with the runner's own words. Otherwise the base cannot
   * run either, and the error stands (the gate cannot decide).
   */
  private async blameRun(req: SuiteRequest, err: unknown): Promise<unknown> {
    if (!(err instanceof TestRunError) || !BLAMEABLE.has(err.code) || this.opts.signal.aborted) return err;
    // Only a whole-suite run is compared with the base's: a subset rerun that selects nothing may be the
    // runner's filter failing on a name, which is no evidence against the patch.
    if (req.subset !== undefined || req.files !== undefined) return err;
    let base: SuiteRun;
    try {
      base = await this.baseFullRun();
    } catch {
      return err;
    }
    if (base.tests.length === 0) return err;
    return new TestRunError(
      'HEAD_RUN_BROKEN',
      `${err.message}\nThe base's run of the same command reported ${base.tests.length} test(s) (${base.label}): the patch broke the test run.`,
      {
        ...err.details,
        side: req.side,
        failed: err.code,
        base: { label: base.label, tests: base.tests.length },
      },
      { cause: err },
    );
  }

  private guardSpec(root: string, label: string, plugins: string[]): GuardSpec {
    return {
      root,
      trusted: this.opts.sandbox.sealedDirs,
      report: sidecarPathFor(this.opts.logDir, label, GUARD_REPORT),
      plugins,
      addopts: plugins,
    };
  }

  /**
   * A shard's request: the whole suite becomes the shard's files, or no run at
   * all; what any run reports of another shard's files is left to that shard.
   */
  private async suiteRun(req: SuiteRequest): Promise<SuiteRun> {
    const shard = this.opts.shard;
    if (!shard || shard.mode === 'whole') return this.runOnce(req);
    const whole = req.subset === undefined && req.files === undefined;
    const files = whole ? shard.files : req.files;
    if (shard.mode === 'none' || (files !== undefined && files.length === 0)) return this.emptyRun(req);
    const run = await this.runOnce(whole ? { ...req, files: [...shard.files] } : req);
    if (req.anyShard) return run;
    const preset = this.opts.tests.preset;
    const mine = (t: TestIdParts) => {
      const file = testFileOf(preset, t);
      return file === undefined || shard.ownsFile(file);
    };
    const tests = run.tests.filter(mine);
    return tests.length === run.tests.length ? run : { ...run, tests };
  }

  /** A run a shard with no test file of its own never starts: no outcome, and no log. */
  private async emptyRun(req: SuiteRequest): Promise<SuiteRun> {
    await mkdir(this.opts.logDir, { recursive: true });
    return {
      label: req.label,
      side: req.side,
      run: {
        exitCode: 0,
        signal: null,
        timedOut: false,
        durationMs: 0,
        stdoutFile: '',
        stderrFile: '',
        junitFiles: [],
      },
      tests: [],
      // The census a run of no test would have written: an empty one, where runs take one.
      ...(this.opts.census === true && this.opts.tests.preset === 'pytest' && !req.collect
        ? { census: new Map() }
        : {}),
      // An empty listing, as the runner's would be for no file: the inventory reads it, never a run.
      ...(req.collect ? { guard: { problems: [], started: true, collected: [], refused: [] } } : {}),
    };
  }

  private async runOnce(req: SuiteRequest): Promise<SuiteRun> {
    const { tests, env, logDir, signal } = this.opts;
    const { label, subset, files } = req;
    const root = this.rootOf(req.side);
    await mkdir(logDir, { recursive: true });
    const junitPath = junitPathFor(logDir, label);
    const cmd = resolveTestCommand(
      { preset: tests.preset, command: tests.command, args: tests.args },
      {
        junitPath,
        ...(subset ? { tests: subset } : {}),
        ...(files ? { files } : {}),
        ...(req.collect ? { collect: true } : {}),
        ...(req.failFast ? { failFast: true } : {}),
      },
    );
    const pytest = tests.preset === 'pytest';
    const census = this.opts.census === true && pytest && cmd.junitFrom === undefined && !req.collect;
    const selection = cmd.selection ? await writeSelection(logDir, label, cmd.selection) : undefined;
    const plugins = [...(census ? [CENSUS_MODULE] : []), ...(selection ? [SELECT_MODULE] : [])];
    const guard = pytest ? this.guardSpec(root, label, plugins) : undefined;
    const run = await runTests({
      sandbox: this.opts.sandbox,
      network: tests.network,
      cwd: root,
      argv: cmd.argv,
      env: {
        ...env,
        ...req.env,
        ...cmd.env,
        ...(guard ? guardEnv({ ...env, ...req.env, ...cmd.env }, guard) : {}),
        ...(census ? { PATCHGATE_CENSUS_REPORT: sidecarPathFor(logDir, label, CENSUS) } : {}),
        ...(selection ? { [SELECT_ENV]: selection } : {}),
      },
      ...(selection ? { readOnly: [selection] } : {}),
      ...(guard ? { channel: true } : {}),
      ...(cmd.junitFrom === undefined
        ? { sidecars: [...(guard ? [GUARD_REPORT] : []), ...(census ? [CENSUS] : [])] }
        : {}),
      timeoutMs: req.timeoutMs ?? tests.timeoutMs,
      outDir: logDir,
      label,
      junitFrom: cmd.junitFrom,
      signal,
    });
    const checked = guard
      ? await checkGuard({
          spec: { ...guard, report: run.sidecars?.[GUARD_REPORT] ?? `${guard.report}.absent` },
          manifest: run.channel,
          // Only the preset's own command is known to start Python with this environment.
          required: tests.command === undefined,
          isTestPath: this.opts.isTestPath ?? (() => false),
        })
      : undefined;
    if (checked && checked.problems.length > 0) {
      throw new TestRunError(
        'INSTRUMENT_SHADOWED',
        `the test command (${label}) ran with the gate's instruments replaced or bypassed: ${describeProblems(checked.problems)}; logs: ${run.stdoutFile}, ${run.stderrFile}`,
        { label, side: req.side, problems: checked.problems },
      );
    }
    if (run.breach) {
      const output = await outputTail(run);
      throw new TestRunError(
        'RESOURCE_LIMIT',
        `the test command (${label}) ${run.breach.message}; logs: ${run.stdoutFile}, ${run.stderrFile}`,
        { label, side: req.side, ...breachEvidence(run.breach), output },
      );
    }
    if (run.timedOut) {
      const output = await outputTail(run);
      throw new TestRunError(
        'TESTS_TIMEOUT',
        `the test command (${label}) did not finish within ${req.timeoutMs ?? tests.timeoutMs} ms and was killed; logs: ${run.stdoutFile}, ${run.stderrFile}${output === '' ? '' : `\n${output}`}`,
        {
          label,
          timeoutMs: req.timeoutMs ?? tests.timeoutMs,
          stdout: run.stdoutFile,
          stderr: run.stderrFile,
          output,
        },
      );
    }
    if (run.junitFiles.length === 0) {
      // No report means no evidence: never read as "no failures".
      const output = await outputTail(run);
      throw new TestRunError(
        'TESTS_NO_REPORT',
        `the test command (${label}) exited ${run.exitCode ?? run.signal} without writing a JUnit report; logs: ${run.stdoutFile}, ${run.stderrFile}${output === '' ? '' : `\n${output}`}`,
        { label, exitCode: run.exitCode, stdout: run.stdoutFile, stderr: run.stderrFile, output },
      );
    }
    const outcomes: TestOutcome[] = [];
    for (const file of run.junitFiles) pushAll(outcomes, (await parseJUnitFile(file, { signal })).tests);
    // A collection run of pytest reports no testcase: its inventory is the guard's list.
    const listed = req.collect === true && checked?.collected !== undefined;
    // pytest's configuration collects none of the selected tests or files (exit 5, "no tests collected"): that
    // is the runner's answer, as a full run would give it, not a run that broke.
    const noneSelected = selection !== undefined && run.exitCode === 5 && checked?.collected?.length === 0;
    if (outcomes.length === 0 && !listed && !noneSelected && (run.exitCode !== 0 || subset === undefined)) {
      // A run that ran nothing is no evidence of anything, least of all that a test does not exist.
      const output = await outputTail(run);
      throw new TestRunError(
        'TESTS_RUN_FAILED',
        `the test command (${label}) ran no test (exit ${run.exitCode ?? run.signal}); logs: ${run.stdoutFile}, ${run.stderrFile}${output === '' ? '' : `\n${output}`}`,
        { label, exitCode: run.exitCode, stdout: run.stdoutFile, stderr: run.stderrFile, output },
      );
    }
    const censusFile = run.sidecars?.[CENSUS];
    return {
      label,
      side: req.side,
      run,
      tests: outcomes,
      ...(census && censusFile ? { census: await readCensus(censusFile) } : {}),
      ...(checked ? { guard: checked } : {}),
    };
  }

  /** Head run `i` (0-based), run once and shared by every layer that asks. */
  headRun(i: number): Promise<SuiteRun> {
    let p = this.headRuns.get(i);
    if (!p) {
      const own = i === 0 ? this.opts.overlay?.headOwn : undefined;
      p = this.prepare('head').then(() =>
        own ? this.composedHeadRun(own) : this.suite({ side: 'head', label: `head-run-${i + 1}` }),
      );
      this.headRuns.set(i, p);
      // Both are asked for by the gate: run them side by side rather than one after the other.
      if (i === 0 && this.opts.overlay?.withHead) void this.overlayRun().catch(() => undefined);
    }
    return p;
  }

  /**
   * The head's first run when its tree differs from the overlay's only in
   * test modules (see head-own): the head runs its copies of those, and the
   * overlay's outcomes of every other test file are the head's. When the
   * overlay's run fails, or names a test without its file, the head runs
   * whole: a failure of the base's tests is the overlay's, never the head's.
   */
  private async composedHeadRun(own: HeadOwnFiles): Promise<SuiteRun> {
    const label = 'head-run-1';
    const shard = this.opts.shard;
    // A shard runs its own share of the head's changed test files.
    const ownRun =
      shard === undefined || shard.mode === 'whole'
        ? own.run
        : shard.mode === 'none'
          ? []
          : own.run.filter((f) => shard.ownsFile(f));
    const mine = ownRun.length > 0 ? this.suite({ side: 'head', label, files: ownRun }) : undefined;
    mine?.catch(() => undefined);
    const preset = this.opts.tests.preset;
    let overlay: SuiteRun | undefined;
    try {
      overlay = await this.overlayRun();
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      overlay = undefined;
    }
    const fileOf = (t: TestOutcome) => testFileOf(preset, t);
    // A share that broke is judged as a whole run that broke is (the base's run tells whose doing it is).
    const whole = () => this.suite({ side: 'head', label: 'head-run-1-whole' });
    if (overlay === undefined || overlay.tests.some((t) => fileOf(t) === undefined)) {
      await mine?.catch(() => undefined);
      return whole();
    }
    const drop = new Set(own.drop);
    const shared = overlay.tests.filter((t) => !drop.has(fileOf(t) as string));
    let ran: SuiteRun | undefined;
    try {
      ran = mine ? await mine : undefined;
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      return whole();
    }
    const census = new Map([...(overlay.census ?? []), ...(ran?.census ?? [])]);
    return {
      label,
      side: 'head',
      run: ran?.run ?? overlay.run,
      tests: [...shared, ...(ran?.tests ?? [])],
      ...(overlay.census || ran?.census ? { census } : {}),
      ...(ran?.guard ? { guard: ran.guard } : {}),
      sharedWith: { label: overlay.label, files: ownRun },
    };
  }

  /**
   * Starts the head's first run (and the overlay's with it) in the background, so the suites run while
   * other layers work; a layer that asks for them later gets the same runs, and their failures.
   */
  prefetch(also: { inventory?: boolean } = {}): void {
    void this.headRun(0).catch(() => undefined);
    if (also.inventory) void this.baseInventory().catch(() => undefined);
  }

  private overlayRunP: Promise<SuiteRun> | undefined;

  /** The base's tests (the overlay's test side) on the head's code; the head's first run when they are the same tree. */
  overlayRun(): Promise<SuiteRun> {
    const overlay = this.opts.overlay;
    if (!overlay) return this.headRun(0);
    this.overlayRunP ??= this.prepare('overlay').then(() =>
      this.suite({ side: 'overlay', label: 'overlay-run' }),
    );
    return this.overlayRunP;
  }

  private nextLabel(side: RunSide, purpose: string): string {
    const key = `${side}-${purpose}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return `${key}-${n}`;
  }

  /** The given tests again on the head's tree (to tell an intermittent failure from one it gives every time). */
  async headRerun(subset: TestIdParts[], purpose = 'rerun'): Promise<SuiteRun> {
    await this.prepare('head');
    return this.subsetRun('head', this.nextLabel('head', purpose), subset);
  }

  /** Every test of `files` again on the head's tree (the stability probe's reruns of what the patch can affect). */
  async headRunFiles(files: string[], label: string): Promise<SuiteRun> {
    await this.prepare('head');
    return this.suite({ side: 'head', label, files });
  }

  /** The given tests again on the overlay (the head's code with the base's tests). */
  async overlayRerun(subset: TestIdParts[], purpose = 'rerun'): Promise<SuiteRun> {
    await this.prepare('overlay');
    return this.subsetRun('overlay', this.nextLabel('overlay', purpose), subset);
  }

  /** A base run of every test in `files` (test files the patch changed), where the runner can select files. */
  async baseRunFiles(
    files: string[] | undefined,
    purpose = 'files',
    /** A lookup of what the base's tests in `files` do, whichever shard owns them (a renamed test's old file). */
    lookup = false,
  ): Promise<SuiteRun> {
    if (files === undefined || files.length === 0 || !canSelectFiles(this.opts.tests.preset))
      return this.baseFullRun();
    await this.prepare('base');
    return this.suite({
      side: 'base',
      label: this.nextLabel('base', purpose),
      files,
      ...(lookup ? { anyShard: true } : {}),
    });
  }

  /** The base's whole suite, run once and shared (the inventory where the runner cannot list, blame's proof). */
  baseFullRun(): Promise<SuiteRun> {
    this.baseFullP ??= this.prepare('base').then(() =>
      this.suite({ side: 'base', label: `base-run-${++this.baseFullCount}` }),
    );
    return this.baseFullP;
  }

  /**
   * The base's whole suite once more, after `baseFullRun` (a baseline tells a
   * test that fails every time from one that fails now and then).
   */
  async baseRunAgain(): Promise<SuiteRun> {
    await this.baseFullRun();
    return this.suite({ side: 'base', label: `base-run-${++this.baseFullCount}` });
  }

  /**
   * Every test the base's suite selects: listed by the runner where it can
   * (pytest's `--collect-only`, vitest's and jest's name filter), else from
   * the base's full run. Run once and shared.
   */
  baseInventory(): Promise<Inventory> {
    this.inventoryP ??= this.listBase();
    return this.inventoryP;
  }

  private async listBase(): Promise<Inventory> {
    const preset = this.opts.tests.preset;
    await this.prepare('base');
    try {
      const run = await this.suite({ side: 'base', label: 'base-collect', collect: true });
      const shard = this.opts.shard;
      const collected = run.guard?.collected?.filter(
        (c) => shard === undefined || shard.ownsFile(c.nodeid.split('::')[0] ?? c.nodeid),
      );
      if (collected !== undefined) {
        return {
          how: 'collected',
          label: run.label,
          tests: collected.map((c) => ({
            key: inventoryKey(c),
            classname: c.classname,
            name: c.name,
            file: c.nodeid.split('::')[0] ?? c.nodeid,
          })),
        };
      }
      if (preset !== 'pytest' && run.tests.length > 0) return { how: 'collected', ...this.fromRun(run) };
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      // The runner cannot list (a custom command without `{tests}`, an older runner): the full run says it.
    }
    const run = await this.baseFullRun();
    return { how: 'ran', ...this.fromRun(run), run };
  }

  private fromRun(run: SuiteRun): { label: string; tests: InventoryTest[] } {
    const preset = this.opts.tests.preset;
    return {
      label: run.label,
      tests: run.tests.map((t) => {
        const file = testFileOf(preset, t);
        return {
          key: inventoryKey(t),
          classname: t.classname,
          name: t.name,
          ...(file !== undefined ? { file } : {}),
        };
      }),
    };
  }

  /**
   * Whether the base checkout has the file a test lives in: false is proof the
   * test is new (so it is never asked of the base runner, which would answer
   * "file not found" and run nothing), undefined when the id does not say.
   */
  async baseHasTestFile(id: TestIdParts): Promise<boolean | undefined> {
    const file = testFileOf(this.opts.tests.preset, id);
    if (file === undefined || !isRepoRelative(file)) return undefined;
    try {
      return (await stat(path.join(this.opts.base.root, file))).isFile();
    } catch {
      return false;
    }
  }

  /** A base run of only the given tests (the whole suite when the runner cannot select). */
  async baseRun(subset: TestIdParts[], purpose = 'rerun'): Promise<SuiteRun> {
    await this.prepare('base');
    return this.subsetRun('base', this.nextLabel('base', purpose), subset);
  }

  private readonly editing = new Map<string, Promise<unknown>>();

  /**
   * A run on the base's checkout or the overlay with `edit` in place for this
   * run only (see withFileEdited), or as it is: of `tests` where the runner
   * can select them and naming them beats naming their `files` (see
   * namesBeatFiles), else of `files` where it can select files, else of
   * every test (`selected` says which). Runs of one checkout take turns, so
   * no other run sees the edit. Never recorded in the run history;
   * `timeoutMs` bounds it (a mutant that loops).
   */
  async editedRun(side: 'base' | 'overlay', req: EditedRunRequest): Promise<EditedRun> {
    await this.prepare(side);
    const root = this.rootOf(side);
    const { files, tests, edit, label, timeoutMs } = req;
    const byFiles = files !== undefined && canSelectFiles(this.opts.tests.preset);
    const suite = async (): Promise<EditedRun> => {
      const common = {
        side,
        label,
        env: MUTANT_ENV,
        timeoutMs,
        unrecorded: true,
        anyShard: true,
        ...(req.failFast ? { failFast: true } : {}),
      } as const;
      if (tests !== undefined && tests.length > 0 && (!byFiles || namesBeatFiles(this.opts.tests.preset))) {
        try {
          return { ...(await this.suite({ ...common, subset: [...tests] })), selected: 'tests' };
        } catch (err) {
          if ((err as { code?: string }).code !== 'SUBSET_UNSUPPORTED') throw err;
        }
      }
      return {
        ...(await this.suite({ ...common, ...(byFiles ? { files: [...files] } : {}) })),
        selected: byFiles ? 'files' : 'all',
      };
    };
    const run = () => (edit ? withFileEdited(root, edit.file, edit.text, suite) : suite());
    const before = this.editing.get(root) ?? Promise.resolve();
    const mine = before.then(run, run);
    this.editing.set(
      root,
      mine.catch(() => undefined),
    );
    return mine;
  }

  private async subsetRun(side: RunSide, label: string, subset: TestIdParts[]): Promise<SuiteRun> {
    try {
      return await this.suite({ side, label, subset });
    } catch (err) {
      if ((err as { code?: string }).code === 'SUBSET_UNSUPPORTED') return this.suite({ side, label });
      throw err;
    }
  }
}
