/**
 * Runs a base revision's suite for a baseline, the way the gate runs the
 * base: a private copy written from git's objects (never the working tree),
 * the tests' setup (or the user's installed dependencies, when the lockfiles
 * agree), every run in the sandbox with the scrubbed environment.
 * A suite that does not run (a module pytest cannot import stops the whole
 * session) is refused with the runner's own words: freezing it would freeze
 * a suite that tests nothing.
 */
import type { PatchgateConfig } from '../config/schema.js';
import { InputError } from '../errors.js';
import { Checkouts, pruneLeftovers } from '../git/checkouts.js';
import type { Git } from '../git/git.js';
import { configuredPrograms, programFindings } from '../layers/program-finding.js';
import { describeIsolation, type IsolationRecord, unsandboxedFinding } from '../layers/sandbox-finding.js';
import { testSideFor } from '../overlay/test-side.js';
import { outputTail } from '../runners/tests/output-tail.js';
import { type SuiteRun, TestSession } from '../runners/tests/session.js';
import { limitsFromConfig, openSandbox } from '../sandbox/open.js';
import { programView } from '../sandbox/program-view.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { isCollectionError } from './plan.js';

export interface BaselineRunOptions {
  git: Git;
  /**
   * The user's checkout of the main branch: its installed dependency folders
   * are lent to the revision's copy, read-only, when the lockfiles are the
   * same (as `check` lends them to the base for a working-tree head).
   */
  repoRoot: string;
  commit: string;
  config: PatchgateConfig;
  /** How many times the suite runs (a test whose outcome differs is flaky). */
  runs: number;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  ownerPid: number;
  sandbox?: Sandbox;
  onRuns?(done: number, total: number): void;
}

export interface BaselineRuns {
  runs: SuiteRun[];
  isolation: IsolationRecord;
  /** The sandbox warning to show, when head code ran without one outside CI. */
  warning?: string;
}

export async function runBaselineSuite(opts: BaselineRunOptions): Promise<BaselineRuns> {
  const tests = opts.config.tests;
  if (!tests) throw new InputError('BASELINE_REFUSED', 'the config has no `tests` section: nothing to run');
  await pruneLeftovers();
  const checkouts = new Checkouts(opts.git, opts.ownerPid);
  try {
    const root = await checkouts.add(opts.commit, 'baseline');
    const logDir = await checkouts.scratch('baseline-logs');
    const sandbox =
      opts.sandbox ??
      (await openSandbox(opts.env, {
        readOnly: opts.config.sandbox.readOnly,
        limits: limitsFromConfig(opts.config.sandbox.limits),
      }));
    const unsandboxed = unsandboxedFinding(sandbox.isolation, opts.config.sandbox.allowUnsandboxed, opts.env);
    if (unsandboxed?.severity === 'error') throw new InputError('BASELINE_REFUSED', unsandboxed.message);
    refuseHiddenPrograms(opts.config, sandbox);
    await sandbox.grant(root);
    await sandbox.grant(logDir);
    const session = new TestSession({
      tests,
      head: { root, dependenciesFrom: opts.repoRoot },
      base: { root },
      env: tests.env,
      sandbox,
      logDir,
      signal: opts.signal,
      isTestPath: testSideFor(opts.config).isTestPath,
      ...(opts.onRuns ? { onRuns: opts.onRuns } : {}),
    });
    const runs: SuiteRun[] = [await session.baseFullRun()];
    await refuseUncollected(runs[0]!);
    for (let i = 1; i < opts.runs; i++) {
      const again = await session.baseRunAgain();
      await refuseUncollected(again);
      runs.push(again);
    }
    return {
      runs,
      isolation: describeIsolation(sandbox.isolation),
      ...(unsandboxed ? { warning: unsandboxed.message } : {}),
    };
  } finally {
    await checkouts.dispose();
  }
}

/**
 * The check's pre-flight (PROGRAM_HIDDEN): a program of the suite's that the
 * sandbox cannot see would fail every run with `setpriv: failed to execute`,
 * far from the cause; the baseline says which, and the fix, before any run.
 */
function refuseHiddenPrograms(config: PatchgateConfig, sandbox: Sandbox): void {
  if (sandbox.isolation.mode !== 'bwrap') return;
  // Only the tests run here: the other layers' programs are the check's to look up.
  const programs = configuredPrograms(config, () => false, sandbox.environment());
  const hidden = programFindings(
    programs.map((program) => ({
      program,
      view: programView(program.program, program.searchPath, (p) => sandbox.visible(p)),
    })),
  ).find((f) => f.code === 'PROGRAM_HIDDEN');
  if (hidden === undefined) return;
  const message = hidden.message.replace(/: nothing of the head was run$/, ': the baseline ran nothing');
  throw new InputError('BASELINE_REFUSED', `${message}. Fix: ${String(hidden.evidence.next)}.`, {
    ...hidden.evidence,
    finding: hidden.code,
  });
}

/** pytest stops the whole session when a test module cannot be imported: that suite did not run. */
async function refuseUncollected(run: SuiteRun): Promise<void> {
  const broken = run.tests.filter(isCollectionError);
  if (broken.length === 0) return;
  const words = broken
    .map(
      (t) =>
        `${t.name}: ${(t.failures[0]?.body ?? t.failures[0]?.message ?? '').split('\n').slice(-3).join(' ').trim()}`,
    )
    .join('; ');
  const tail = await outputTail(run.run);
  throw new InputError(
    'BASELINE_REFUSED',
    `the suite did not run: pytest could not collect ${broken.length} test module(s) (${words}), so a baseline would freeze a suite that tests nothing. Fix the import, or leave the folder out of what pytest collects (its testpaths, or tests.args such as ["--ignore", "bench"]), and run the baseline again.${tail === '' ? '' : `\n${tail}`}`,
    { modules: broken.map((t) => t.name), exitCode: run.run.exitCode },
  );
}
