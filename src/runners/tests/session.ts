import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TestsConfig } from '../../config/schema.js';
import { parseJUnitFile } from '../../junit/index.js';
import type { TestOutcome } from '../../junit/model.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { pushAll } from '../../util/arrays.js';
import { checkRepoPath } from '../../util/repo-path.js';
import { shippedPythonFile } from '../harness/python-adapter.js';
import { TestRunError } from './errors.js';
import { outputTail } from './output-tail.js';
import { canSelectFiles, resolveTestCommand, type TestIdParts, testFileOf } from './presets.js';
import { junitPathFor, runTests, sidecarPathFor, type TestRunResult } from './run-tests.js';
import { prepareWorktree } from './setup.js';

const isRepoRelative = (file: string): boolean => checkRepoPath(file) === undefined;

const CENSUS = 'census.json';
export const PYTEST_CENSUS_PLUGIN_PATH: string = shippedPythonFile('patchgate_census.py');

/** What loads the census plugin into any pytest invocation, whatever the command line says. */
function censusEnv(env: Record<string, string>, report: string): Record<string, string> {
  const addopts = env.PYTEST_ADDOPTS;
  const pythonPath = env.PYTHONPATH;
  return {
    PATCHGATE_CENSUS_REPORT: report,
    PYTEST_ADDOPTS: [addopts, '-p patchgate_census'].filter(Boolean).join(' '),
    PYTHONPATH: [path.dirname(PYTEST_CENSUS_PLUGIN_PATH), pythonPath].filter(Boolean).join(path.delimiter),
  };
}

/**
 * The census a run wrote. The file sits in a folder head code could write, so
 * only well-formed entries are kept; a malformed file is no census at all
 * (every test then reads as "not known to be a property").
 */
async function readCensus(file: string): Promise<ReadonlyMap<string, TestCensus>> {
  const out = new Map<string, TestCensus>();
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return out;
  }
  if (doc === null || typeof doc !== 'object') return out;
  const { schema, tests } = doc as { schema?: unknown; tests?: unknown };
  if (schema !== 'patchgate/census@1' || tests === null || typeof tests !== 'object') return out;
  for (const [id, rec] of Object.entries(tests as Record<string, unknown>)) {
    const r = rec as { hypothesis?: unknown; examples?: unknown } | null;
    if (typeof r?.hypothesis !== 'boolean' || !Number.isSafeInteger(r.examples) || (r.examples as number) < 0)
      continue;
    out.set(id, { hypothesis: r.hypothesis, examples: r.examples as number });
  }
  return out;
}

/** One run of the suite (or of a subset of it): what the runner wrote, read back. */
export interface SuiteRun {
  label: string;
  run: TestRunResult;
  tests: TestOutcome[];
  /**
   * Per pytest node id, whether the test generated its inputs (Hypothesis)
   * and how many generated examples passed, from our census plugin. Absent
   * when the census was not asked for, or the runner is not pytest.
   */
  census?: ReadonlyMap<string, TestCensus>;
}

export interface TestCensus {
  hypothesis: boolean;
  examples: number;
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
  overlay?: { root: string; withHead: boolean };
  /** The scrubbed environment test commands run with. */
  env: Record<string, string>;
  sandbox: Sandbox;
  /** Where logs and reports of every run are kept. */
  logDir: string;
  signal: AbortSignal;
  /** Load our census plugin into pytest runs, so a layer can tell property tests from example tests. */
  census?: boolean;
  /** Called as suite runs start and finish: `done` of the `total` started so far (for a progress display). */
  onRuns?(done: number, total: number): void;
}

/**
 * Runs the repository's tests for the layers that need them. The first head
 * run is shared (signatures reads it, stability counts it as run 1), and each
 * checkout is prepared once: the user's working tree as it is, a temporary
 * worktree with the setup command or the head's dependencies when the
 * lockfiles are identical.
 */
export class TestSession {
  private readonly headRuns = new Map<number, Promise<SuiteRun>>();
  private prepared = new Map<string, Promise<unknown>>();
  private baseRunCount = 0;
  private runsStarted = 0;
  private runsDone = 0;
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

  private prepare(side: 'head' | 'base' | 'overlay'): Promise<unknown> {
    let p = this.prepared.get(side);
    if (p) return p;
    const { tests, head, base, overlay, env, logDir, signal, sandbox } = this.opts;
    const setup = (worktree: string, reuseFrom: Parameters<typeof prepareWorktree>[0]['reuseFrom']) =>
      this.timed(() =>
        prepareWorktree({
          sandbox,
          network: tests.setupNetwork,
          worktree,
          setup: tests.setup,
          ...(reuseFrom ? { reuseFrom } : {}),
          env,
          timeoutMs: tests.timeoutMs,
          outDir: logDir,
          label: `${side}-setup`,
          signal,
        }),
      );
    const reuse = { lockfiles: tests.reuse.lockfiles, dirs: tests.reuse.dirs };
    if (side === 'head') {
      p = setup(
        head.root,
        head.dependenciesFrom !== undefined
          ? { root: head.dependenciesFrom, ...reuse, sameTree: true }
          : undefined,
      );
    } else {
      // The base borrows the head's installed dependencies when the lockfiles match; the overlay holds the
      // head's dependency manifests, so it borrows what the head installed.
      const root = side === 'base' ? base.root : (overlay?.root ?? head.root);
      p = this.prepare('head').then(() => setup(root, { root: head.root, ...reuse }));
    }
    this.prepared.set(side, p);
    return p;
  }

  private async suite(
    root: string,
    label: string,
    subset?: TestIdParts[],
    files?: string[],
  ): Promise<SuiteRun> {
    this.runsStarted++;
    this.reportRuns();
    try {
      return await this.suiteRun(root, label, subset, files);
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

  private async suiteRun(
    root: string,
    label: string,
    subset?: TestIdParts[],
    files?: string[],
  ): Promise<SuiteRun> {
    const { tests, env, logDir, signal } = this.opts;
    await mkdir(logDir, { recursive: true });
    const junitPath = junitPathFor(logDir, label);
    const cmd = resolveTestCommand(
      { preset: tests.preset, command: tests.command },
      { junitPath, ...(subset ? { tests: subset } : {}), ...(files ? { files } : {}) },
    );
    const census = this.opts.census === true && tests.preset === 'pytest' && cmd.junitFrom === undefined;
    const run = await runTests({
      sandbox: this.opts.sandbox,
      network: tests.network,
      cwd: root,
      argv: cmd.argv,
      env: { ...env, ...cmd.env, ...(census ? censusEnv(env, sidecarPathFor(logDir, label, CENSUS)) : {}) },
      ...(census ? { sidecars: [CENSUS] } : {}),
      timeoutMs: tests.timeoutMs,
      outDir: logDir,
      label,
      junitFrom: cmd.junitFrom,
      signal,
    });
    if (run.breach) {
      const output = await outputTail(run);
      throw new TestRunError(
        'RESOURCE_LIMIT',
        `the test command (${label}) ${run.breach.message}; logs: ${run.stdoutFile}, ${run.stderrFile}`,
        { label, limit: run.breach.limit, cap: run.breach.cap, observed: run.breach.observed, output },
      );
    }
    if (run.timedOut) {
      const output = await outputTail(run);
      throw new TestRunError(
        'TESTS_TIMEOUT',
        `the test command (${label}) did not finish within ${tests.timeoutMs} ms and was killed; logs: ${run.stdoutFile}, ${run.stderrFile}${output === '' ? '' : `\n${output}`}`,
        { label, timeoutMs: tests.timeoutMs, stdout: run.stdoutFile, stderr: run.stderrFile, output },
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
    if (outcomes.length === 0 && (run.exitCode !== 0 || subset === undefined)) {
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
      run,
      tests: outcomes,
      ...(census && censusFile ? { census: await readCensus(censusFile) } : {}),
    };
  }

  /** Head run `i` (0-based), run once and shared by every layer that asks. */
  headRun(i: number): Promise<SuiteRun> {
    let p = this.headRuns.get(i);
    if (!p) {
      p = this.prepare('head').then(() => this.suite(this.opts.head.root, `head-run-${i + 1}`));
      this.headRuns.set(i, p);
      // Both are asked for by the gate: run them side by side rather than one after the other.
      if (i === 0 && this.opts.overlay?.withHead) void this.overlayRun().catch(() => undefined);
    }
    return p;
  }

  /**
   * Starts the head's first run (and the overlay's with it) in the background, so the suites run while
   * other layers work; a layer that asks for them later gets the same runs, and their failures.
   */
  prefetch(): void {
    void this.headRun(0).catch(() => undefined);
  }

  private overlayRunP: Promise<SuiteRun> | undefined;

  /** The base's tests (the overlay's test side) on the head's code; the head's first run when they are the same tree. */
  overlayRun(): Promise<SuiteRun> {
    const overlay = this.opts.overlay;
    if (!overlay) return this.headRun(0);
    this.overlayRunP ??= this.prepare('overlay').then(() => this.suite(overlay.root, 'overlay-run'));
    return this.overlayRunP;
  }

  /** A base run of every test in `files` (test files the patch changed), where the runner can select files. */
  async baseRunFiles(files: string[] | undefined): Promise<SuiteRun> {
    await this.prepare('base');
    const label = `base-rerun-${++this.baseRunCount}`;
    return files !== undefined && files.length > 0 && canSelectFiles(this.opts.tests.preset)
      ? this.suite(this.opts.base.root, label, undefined, files)
      : this.suite(this.opts.base.root, label);
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
  async baseRun(subset: TestIdParts[]): Promise<SuiteRun> {
    await this.prepare('base');
    const label = `base-rerun-${++this.baseRunCount}`;
    try {
      return await this.suite(this.opts.base.root, label, subset);
    } catch (err) {
      if ((err as { code?: string }).code === 'SUBSET_UNSUPPORTED')
        return this.suite(this.opts.base.root, label);
      throw err;
    }
  }
}
