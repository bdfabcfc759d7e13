/**
 * Replays pytest + Hypothesis rows of the seed tape.
 *
 * The (test, seed) pairs of the rows that use the default seed switch run in
 * one pytest process per core, all at once, each with whole test files when
 * there are at least as many files as processes, else with a share of the
 * files' pairs: the plugin runs each test once per seed
 * with the seed set on the test itself (as `@seed()` does), so starting
 * Python and collecting are paid once per process, not once per seed. A row
 * with a switch of its own gets one process per distinct rendered switch.
 * Nothing is passed on pytest's command line: it collects what the project's
 * configuration says (`testpaths`, `python_files`…), the `patchgate_select`
 * plugin keeps only the process's files of that (a stale node id cannot abort
 * the batch), and the `patchgate_seeds` plugin deselects everything else and
 * writes a JSON report with each wanted test's outcome, its falsifying example
 * and the examples Hypothesis counted.
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_SEED_SWITCH, type TapeRow } from '../../../contracts/seed-tape.js';
import { describeExit } from '../../../runners/harness/process.js';
import { TestRunError } from '../../../runners/tests/errors.js';
import { withTail } from '../../../runners/tests/output-tail.js';
import {
  checkGuard,
  describeProblems,
  GUARD_REPORT,
  type GuardSpec,
  guardEnv,
} from '../../../runners/tests/python-guard.js';
import { type LoggedRun, runLogged } from '../../../runners/tests/run-tests.js';
import { SELECT_ENV, SELECT_MODULE } from '../../../runners/tests/selection.js';
import { pushAll } from '../../../util/arrays.js';
import { byCodePoint } from '../../../util/compare.js';
import { shippedPythonFile } from '../../../util/package-root.js';
import type { ExampleCount, RunnerOutcome, SeedReplay } from '../model.js';
import { type ReplayerOptions, readJsonReport, seconds } from './output.js';

/**
 * Rows with runner === 'pytest' are replayed; others are ignored. Node ids are
 * relative to `root`; PYTHONPATH gets the plugin's folder prepended.
 */
export interface PytestReplayOptions extends ReplayerOptions {
  /** Interpreter, e.g. 'python3' (looked up on the sandbox's PATH). */
  python: string;
  /** Per process. */
  timeoutMs: number;
  /** runLogged outDir: `seeds-pytest-<n>.{stdout,stderr}.log`, `.want.json`, `.report.json`. */
  logDir: string;
  /**
   * Processes at once for the (test, seed) pairs of the default switch
   * (default: the number of cores; never more than the pairs).
   */
  workers?: number;
  /** Told how many seeds a process replayed, as each one ends. */
  onReplayed?(seeds: number): void;
  /** Whether a repository path is test side: a test-side module shadowing a standard name is not production code's doing. */
  isTestPath?(file: string): boolean;
}

const PLUGIN_MODULE = 'patchgate_seeds';
/** Absolute path of `patchgate_seeds.py`; its folder goes on PYTHONPATH. */
export const PYTEST_SEEDS_PLUGIN_PATH: string = shippedPythonFile(`${PLUGIN_MODULE}.py`);

/** pytest's exit codes that mean the session ran to its end and reported. */
const CLEAN_EXITS = new Set([0, 1, 5]);

const EXIT_MEANING: Record<number, string> = {
  2: 'interrupted, usually by errors while collecting tests',
  3: 'internal error in pytest or a plugin',
  4: 'usage error: check the seed switch and the pytest configuration',
};

const testRecord = z.object({
  outcome: z.enum(['passed', 'failed', 'skipped', 'xfailed', 'error', 'notrun', 'deselected']),
  items: z.array(z.string()),
  reason: z.string().optional(),
  message: z.string().optional(),
  falsifying: z.string().optional(),
  arguments: z.record(z.string(), z.json()).optional(),
  error_when: z.string().optional(),
  examples: z.number().int().nonnegative().nullable(),
  stopped_because: z.string().nullable().optional(),
  hypothesis_runs: z.number().int().nonnegative(),
  explicit: z.number().int().nonnegative(),
});
type TestRecord = z.output<typeof testRecord>;

const pluginReport = z.object({
  version: z.literal(1),
  distributed: z.boolean(),
  collected: z.array(z.string()),
  collect_errors: z.array(z.object({ path: z.string(), message: z.string() })),
  tests: z.record(z.string(), testRecord),
});
type PluginReport = z.output<typeof pluginReport>;

interface Member {
  row: TapeRow;
  seed: string;
  /** The stored counterexample (the test's arguments by name), replayed as an explicit example first. */
  counterexample?: unknown;
  nodeid: string;
  file: string;
  /** Position in the outcome's replays. */
  slot: number;
}

interface Batch {
  seed: string;
  /** Every member in one process, the seed per test (the default switch); else the switch sets it. */
  pairs: boolean;
  switchArgs: string[];
  key: string;
  members: Member[];
}

/** What a passing replay's count rests on, for ExampleCount.how. */
interface CountNote {
  hadStatistics: boolean;
  stoppedBecause?: string;
  explicit: number;
}

/** As the plugin does, so the ids sent and the ids reported compare equal. */
function normalizeNodeid(nodeid: string): string {
  let id = nodeid.replace(/\\/g, '/');
  while (id.startsWith('./')) id = id.slice(2);
  return id;
}

function fileOf(nodeid: string): string {
  const at = nodeid.indexOf('::');
  return at < 0 ? nodeid : nodeid.slice(0, at);
}

/** Split on whitespace so a two-token switch (`--seed {seed}`) works; no shell quoting. */
function renderSwitch(seedSwitch: string, seed: string): string[] {
  return seedSwitch
    .split(/\s+/)
    .filter((a) => a !== '')
    .map((a) => a.replaceAll('{seed}', seed));
}

async function isFileUnder(root: string, rel: string): Promise<boolean> {
  const abs = path.resolve(root, rel);
  const inside = path.relative(root, abs);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return false;
  try {
    return (await stat(abs)).isFile();
  } catch {
    return false;
  }
}

/** A row's test in a file that exists but that pytest, as the project configures it, did not collect. */
function notCollected(nodeid: string, file: string): string {
  return notFound(
    nodeid,
    `${file} exists, but pytest as the project configures it (testpaths, python_files, norecursedirs, collect_ignore) does not collect it there, or not under that name`,
  );
}

function notFound(nodeid: string, detail?: string): string {
  return `test '${nodeid}' not found${detail ? ` (${detail})` : ''}: the tape still lists it (renaming does not escape the tape)`;
}

export async function replayPytest(opts: PytestReplayOptions): Promise<RunnerOutcome> {
  const root = path.resolve(opts.root);
  const logDir = path.resolve(opts.logDir);
  const rows = opts.rows.filter((r) => r.runner === 'pytest');
  const replays: SeedReplay[] = [];
  const notes = new Map<number, CountNote>();
  const batches = new Map<string, Batch>();
  const fileExists = new Map<string, Promise<boolean>>();

  for (const row of rows) {
    for (const { seed, counterexample } of row.seeds) {
      const slot = replays.push({ property: row.id, seed, status: 'not-run' }) - 1;
      if (row.nodeid === undefined) {
        replays[slot] = { property: row.id, seed, status: 'error', message: 'the pytest row has no nodeid' };
        continue;
      }
      const nodeid = normalizeNodeid(row.nodeid);
      const file = fileOf(nodeid);
      let exists = fileExists.get(file);
      if (exists === undefined) {
        exists = isFileUnder(root, file);
        fileExists.set(file, exists);
      }
      if (!(await exists)) {
        replays[slot] = {
          property: row.id,
          seed,
          status: 'not-found',
          message: notFound(row.nodeid, `${file} does not exist`),
        };
        continue;
      }
      const pairs = (row.seed_switch ?? DEFAULT_SEED_SWITCH) === DEFAULT_SEED_SWITCH;
      const switchArgs = pairs ? [] : renderSwitch(row.seed_switch ?? DEFAULT_SEED_SWITCH, seed);
      const key = pairs ? '' : switchArgs.join('\0');
      let batch = batches.get(key);
      if (batch === undefined) {
        batch = { seed, pairs, switchArgs, key, members: [] };
        batches.set(key, batch);
      }
      batch.members.push({
        row,
        seed,
        nodeid,
        file,
        slot,
        ...(counterexample !== undefined ? { counterexample } : {}),
      });
    }
  }

  const ordered = [...batches.values()].sort(
    (a, b) => byCodePoint(a.seed, b.seed) || byCodePoint(a.key, b.key),
  );
  // The default switch's pairs: one process per core, all at once.
  const workers = Math.max(1, opts.workers ?? os.availableParallelism());
  const runs = ordered.flatMap((b) => (b.pairs ? splitByFile(b, workers) : [b]));
  let processes = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const i = next++;
      const batch = runs[i] as Batch;
      if (await runBatch(opts, root, logDir, batch, i + 1, replays, notes)) processes++;
      opts.onReplayed?.(batch.members.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, runs.length) }, worker));

  return { replays, counts: countExamples(rows, replays, notes), processes };
}

/**
 * The pairs of one batch as up to `workers` batches. With at least as many
 * files as processes each gets whole files (a file is collected once, its
 * module-level code run once), the largest files first onto the process with
 * the fewest pairs so far. With fewer files the pairs are cut into runs of
 * nearly equal length, file by file: a tape whose properties sit in one file
 * (the common case) would otherwise replay on one core. A file then loads in
 * more than one process, as it does in pytest-xdist's workers and in the
 * stability probe's parallel runs.
 */
function splitByFile(batch: Batch, workers: number): Batch[] {
  const byFile = new Map<string, Member[]>();
  for (const m of batch.members) {
    const list = byFile.get(m.file);
    if (list) list.push(m);
    else byFile.set(m.file, [m]);
  }
  const n = Math.min(workers, batch.members.length);
  if (n <= 1) return [batch];
  const groups = Array.from({ length: n }, () => [] as Member[]);
  if (byFile.size >= n) {
    const files = [...byFile].sort((a, b) => b[1].length - a[1].length || byCodePoint(a[0], b[0]));
    for (const [, members] of files) {
      let least = 0;
      for (let g = 1; g < n; g++) if ((groups[g]?.length ?? 0) < (groups[least]?.length ?? 0)) least = g;
      pushAll(groups[least] as Member[], members);
    }
  } else {
    const ordered = [...byFile].sort((a, b) => byCodePoint(a[0], b[0])).flatMap(([, members]) => members);
    ordered.forEach((m, i) => {
      (groups[Math.floor((i * n) / ordered.length)] as Member[]).push(m);
    });
  }
  // Each process replays its pairs in tape order, as the single process did.
  return groups.map((members) => ({ ...batch, members: members.sort((a, b) => a.slot - b.slot) }));
}

/** Runs one batch and fills its members' replays; false when the process could not start. */
async function runBatch(
  opts: PytestReplayOptions,
  root: string,
  logDir: string,
  batch: Batch,
  n: number,
  replays: SeedReplay[],
  notes: Map<number, CountNote>,
): Promise<boolean> {
  const label = `seeds-pytest-${n}`;
  // The only folder of the gate's pytest may write: its own, fresh, so a report left by an earlier
  // run with this label cannot pass for this one's.
  const io = path.join(logDir, `${label}.io`);
  const wantFile = path.join(io, 'want.json');
  const selectFile = path.join(io, 'select.json');
  const reportFile = path.join(io, 'report.json');
  const nodeids = [...new Set(batch.members.map((m) => m.nodeid))].sort(byCodePoint);
  const files = [...new Set(batch.members.map((m) => m.file))].sort(byCodePoint);
  await rm(io, { recursive: true, force: true });
  await mkdir(io, { recursive: true });
  const want = batch.pairs
    ? {
        pairs: batch.members.map((m) =>
          m.counterexample === undefined ? [m.nodeid, m.seed] : [m.nodeid, m.seed, m.counterexample],
        ),
      }
    : nodeids;
  await writeFile(wantFile, `${JSON.stringify(want, null, 1)}\n`);
  await writeFile(selectFile, `${JSON.stringify({ nodeids: [], files })}\n`);
  await opts.sandbox.grant(io);

  // The gate's loader, guard and seed plugin load before anything of the checkout can stand in for them;
  // plugin autoload is off, and only entry points installed outside the checkout are honoured.
  const guard: GuardSpec = {
    root,
    trusted: opts.sandbox.sealedDirs,
    report: path.join(io, GUARD_REPORT),
    plugins: [PLUGIN_MODULE, SELECT_MODULE],
    addopts: [SELECT_MODULE],
  };
  const env: Record<string, string> = {
    ...opts.env,
    ...guardEnv(opts.env, guard),
    PATCHGATE_SEEDS_WANT: wantFile,
    PATCHGATE_SEEDS_REPORT: reportFile,
    [SELECT_ENV]: selectFile,
    // Hypothesis writes `.hypothesis/` (cached constants, patches for failing
    // examples) under the cwd unless told otherwise; the checkout is not ours to write in.
    HYPOTHESIS_STORAGE_DIRECTORY: path.join(io, 'hypothesis'),
  };
  const argv = [
    opts.python,
    '-m',
    'pytest',
    '-p',
    PLUGIN_MODULE,
    '-p',
    'no:cacheprovider',
    '-q',
    '-rN',
    '--hypothesis-show-statistics',
    ...batch.switchArgs,
  ];

  const fill = (member: Member, replay: Omit<SeedReplay, 'property' | 'seed'>): void => {
    replays[member.slot] = { property: member.row.id, seed: member.seed, ...replay };
  };

  let run: LoggedRun;
  try {
    run = await runLogged({
      sandbox: opts.sandbox,
      cwd: root,
      writable: [root, io],
      ...(opts.network ? { network: true } : {}),
      argv,
      env,
      channel: true,
      timeoutMs: opts.timeoutMs,
      outDir: logDir,
      label,
      signal: opts.signal,
    });
  } catch (e) {
    if (!(e instanceof TestRunError && e.code === 'SPAWN_FAILED')) throw e;
    for (const m of batch.members)
      fill(m, { status: 'error', message: `pytest could not be started: ${e.message}` });
    return false;
  }
  const checked = await checkGuard({
    spec: guard,
    manifest: run.channel,
    required: true,
    isTestPath: opts.isTestPath ?? (() => false),
  });
  if (checked.problems.length > 0) {
    // Nothing this process reported can count: the replay ran with the gate's instruments replaced.
    throw new TestRunError(
      'INSTRUMENT_SHADOWED',
      `the seed replay (${label}) ran with the gate's instruments replaced or bypassed: ${describeProblems(checked.problems)}; logs: ${run.stdoutFile}, ${run.stderrFile}`,
      { label, problems: checked.problems },
    );
  }
  const log = run.stdoutFile;
  const tests = `${nodeids.length} test${nodeids.length === 1 ? '' : 's'}`;
  const what = batch.pairs
    ? `${batch.members.length} (test, seed) pair${batch.members.length === 1 ? '' : 's'}, ${tests}`
    : `seed ${batch.seed}, ${tests}`;

  if (run.breach) {
    const message = `pytest ${run.breach.message} (${what})`;
    for (const m of batch.members) fill(m, { status: 'error', message, log, limit: run.breach });
    return true;
  }
  if (run.timedOut) {
    const message = `pytest did not finish within ${seconds(opts.timeoutMs)} (${what})`;
    for (const m of batch.members) fill(m, { status: 'timeout', message, log });
    return true;
  }

  const read = await readReport(reportFile);
  const report = typeof read === 'string' ? undefined : read;
  const collectErrors = new Map((report?.collect_errors ?? []).map((e) => [e.path, e.message]));
  const exitCode = run.exitCode;
  const clean = exitCode !== null && CLEAN_EXITS.has(exitCode);

  let broken: string | undefined;
  if (!clean) {
    const meaning = exitCode !== null ? EXIT_MEANING[exitCode] : undefined;
    broken = await withTail(
      `pytest ${describeExit(exitCode, run.signal as NodeJS.Signals | null)}${meaning ? ` (${meaning})` : ''} (${what})`,
      run,
    );
  } else if (report?.distributed) {
    broken =
      `pytest ran the tests distributed by pytest-xdist (-n in the project's pytest options), so no single process saw them all (${what}); ` +
      'seed replays need one process: drop -n from the options pytest reads, or make it -n 0';
  } else if (typeof read === 'string') {
    broken = await withTail(
      `pytest ${describeExit(exitCode, null)} but the seed plugin's report ${reportFile} ${read}, so no result can be trusted (${what})`,
      run,
    );
  }

  for (const m of batch.members) {
    const collectError = collectErrors.get(m.file);
    if (collectError !== undefined) {
      fill(m, { status: 'error', message: `pytest could not collect ${m.file}: ${collectError}`, log });
    } else if (broken !== undefined || report === undefined) {
      fill(m, { status: 'error', message: broken ?? 'no report', log });
    } else {
      const rec = report.tests[batch.pairs ? `${m.nodeid}\u0000${m.seed}` : m.nodeid];
      if (rec === undefined || !report.collected.includes(m.nodeid)) {
        // pytest collected the file when it found another of the tape's tests in it: this one was renamed.
        const fileCollected = report.collected.some((id) => fileOf(id) === m.file);
        const nodeid = m.row.nodeid ?? m.nodeid;
        fill(m, {
          status: 'not-found',
          message: fileCollected ? notFound(nodeid) : notCollected(nodeid, m.file),
          log,
        });
        continue;
      }
      fill(m, { ...fromRecord(rec), log });
      if (rec.outcome === 'passed') {
        notes.set(m.slot, {
          hadStatistics: rec.hypothesis_runs > 0,
          ...(rec.stopped_because ? { stoppedBecause: rec.stopped_because } : {}),
          explicit: rec.explicit,
        });
      }
    }
  }
  return true;
}

async function readReport(file: string): Promise<PluginReport | string> {
  const read = await readJsonReport(file, 'was never written');
  if ('problem' in read) return read.problem;
  const value = read.value;
  const parsed = pluginReport.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `does not have the expected shape (${issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : 'unknown problem'})`;
  }
  return parsed.data;
}

function fromRecord(rec: TestRecord): Omit<SeedReplay, 'property' | 'seed'> {
  const reason = rec.reason?.trim() || undefined;
  switch (rec.outcome) {
    case 'passed':
      return { status: 'pass', examples: rec.examples ?? 0 };
    case 'failed':
      return {
        status: 'fail',
        message: rec.message ?? 'the test failed',
        ...(rec.falsifying ? { counterexample: rec.falsifying } : {}),
        ...(rec.arguments ? { shrunk: rec.arguments } : {}),
        // Hypothesis names an explicit example's failure so: the tape's stored counterexample found it.
        ...(rec.falsifying?.startsWith('Falsifying explicit example')
          ? { via: 'counterexample' as const }
          : {}),
      };
    case 'skipped':
      return { status: 'not-run', message: `skipped: ${reason ?? 'no reason given'}` };
    case 'xfailed':
      return { status: 'not-run', message: `xfailed: ${reason ?? 'marked xfail'}` };
    case 'deselected':
      return { status: 'not-run', message: `deselected: ${reason ?? 'by the test configuration'}` };
    case 'notrun':
      return { status: 'not-run', message: `did not run: ${reason ?? 'no result was reported'}` };
    case 'error':
      return {
        status: 'error',
        message: `error in ${rec.error_when ?? 'setup'}: ${rec.message ?? 'no message'}`,
      };
  }
}

function countExamples(
  rows: readonly TapeRow[],
  replays: readonly SeedReplay[],
  notes: ReadonlyMap<number, CountNote>,
): ExampleCount[] {
  const counts: ExampleCount[] = [];
  let slot = 0;
  for (const row of rows) {
    let best: { replay: SeedReplay; note: CountNote | undefined } | undefined;
    for (let i = 0; i < row.seeds.length; i++, slot++) {
      const replay = replays[slot]!;
      if (replay.status !== 'pass' || replay.examples === undefined) continue;
      if (best === undefined || replay.examples < best.replay.examples!)
        best = { replay, note: notes.get(slot) };
    }
    if (best === undefined) continue;
    const { replay, note } = best;
    const explicit =
      note && note.explicit > 0
        ? `; ${note.explicit} @example case${note.explicit === 1 ? '' : 's'} not counted`
        : '';
    counts.push({
      property: row.id,
      counted: replay.examples!,
      how: note?.hadStatistics
        ? `Hypothesis statistics, seed ${replay.seed}${explicit}`
        : `passed without Hypothesis statistics (not a @given test any more), seed ${replay.seed}`,
      ...(note?.stoppedBecause ? { stoppedBecause: note.stoppedBecause } : {}),
    });
  }
  return counts;
}
