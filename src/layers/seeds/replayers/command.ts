/**
 * Replays `command` rows of the seed tape: any property runner patchgate has
 * no adapter for. There is no batch protocol, so each (row, seed) is its own
 * process. The exit code says pass or fail; the count comes from the report
 * file the command writes, because a pass whose examples nobody counted
 * cannot be held to the tape's floor.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { TapeRow } from '../../../contracts/seed-tape.js';
import { describeExit } from '../../../runners/harness/process.js';
import { TestRunError } from '../../../runners/tests/errors.js';
import { outputTail, withTail } from '../../../runners/tests/output-tail.js';
import { runLogged } from '../../../runners/tests/run-tests.js';
import type { ExampleCount, RunnerOutcome, SeedReplay } from '../model.js';
import { type ReplayerOptions, readJsonReport, seconds } from './output.js';

/** Rows with runner === 'command' are replayed; others are ignored. */
export interface CommandReplayOptions extends ReplayerOptions {
  /** Per process. */
  timeoutMs: number;
  /** runLogged outDir: `seeds-command-<n>.{stdout,stderr}.log` and `.report.json`. */
  logDir: string;
  /** Told as each seed's process ends. */
  onReplayed?(seeds: number): void;
}

const EXPECTED =
  'expected JSON {"examples": <integer >= 0>, "counterexample"?: <string>, "shrunk"?: <any JSON>}';

interface CommandReport {
  examples?: number;
  counterexample?: string;
  shrunk?: unknown;
}

/** Replaces `{seed}`, `{nodeid}`, `{min_examples}` and `{report}` inside each argument; other braces stay. */
export function renderCommand(
  command: readonly string[],
  values: { seed: string; nodeid: string; min_examples: number; report: string },
): string[] {
  return command.map((arg) =>
    arg.replace(/\{(seed|nodeid|min_examples|report)\}/g, (_, name: keyof typeof values) =>
      String(values[name]),
    ),
  );
}

export async function replayCommands(opts: CommandReplayOptions): Promise<RunnerOutcome> {
  const root = path.resolve(opts.root);
  const logDir = path.resolve(opts.logDir);
  const rows = opts.rows.filter((r) => r.runner === 'command');
  const replays: SeedReplay[] = [];
  const counts: ExampleCount[] = [];
  let processes = 0;
  let n = 0;

  for (const row of rows) {
    let fewest: SeedReplay | undefined;
    for (const { seed } of row.seeds) {
      n++;
      const { replay, started } = await replayOne(opts, root, logDir, row, seed, n);
      if (started) processes++;
      opts.onReplayed?.(1);
      replays.push(replay);
      if (replay.status === 'pass' && replay.examples !== undefined) {
        if (fewest === undefined || replay.examples < fewest.examples!) fewest = replay;
      }
    }
    if (fewest !== undefined) {
      counts.push({
        property: row.id,
        counted: fewest.examples!,
        how: `command report, seed ${fewest.seed}`,
      });
    }
  }
  return { replays, counts, processes };
}

async function replayOne(
  opts: CommandReplayOptions,
  root: string,
  logDir: string,
  row: TapeRow,
  seed: string,
  n: number,
): Promise<{ replay: SeedReplay; started: boolean }> {
  const base = { property: row.id, seed };
  if (row.command === undefined || row.command.length === 0) {
    return {
      replay: { ...base, status: 'error', message: 'the command row has no command' },
      started: false,
    };
  }
  const label = `seeds-command-${n}`;
  // The only folder of the gate's the command may write: its own, fresh, so a stale report cannot pass for its own.
  const io = path.join(logDir, `${label}.io`);
  const reportFile = path.join(io, 'report.json');
  await rm(io, { recursive: true, force: true });
  await mkdir(io, { recursive: true });
  await opts.sandbox.grant(io);
  const argv = renderCommand(row.command, {
    seed,
    nodeid: row.nodeid ?? '',
    min_examples: row.min_examples,
    report: reportFile,
  });

  let run: Awaited<ReturnType<typeof runLogged>>;
  try {
    run = await runLogged({
      sandbox: opts.sandbox,
      cwd: root,
      writable: [root, io],
      ...(opts.network ? { network: true } : {}),
      argv,
      env: opts.env,
      timeoutMs: opts.timeoutMs,
      outDir: logDir,
      label,
      signal: opts.signal,
    });
  } catch (e) {
    if (!(e instanceof TestRunError && e.code === 'SPAWN_FAILED')) throw e;
    return {
      replay: { ...base, status: 'error', message: `the seed command could not be started: ${e.message}` },
      started: false,
    };
  }
  const log = run.stdoutFile;

  if (run.breach) {
    return {
      replay: {
        ...base,
        status: 'error',
        message: `the seed command ${run.breach.message}`,
        log,
        limit: run.breach,
      },
      started: true,
    };
  }
  if (run.timedOut) {
    return {
      replay: {
        ...base,
        status: 'timeout',
        message: `the seed command did not finish within ${seconds(opts.timeoutMs)}`,
        log,
      },
      started: true,
    };
  }
  const read = await readCommandReport(reportFile);

  if (run.exitCode === null) {
    // Killed by a signal nobody sent on purpose: a crash, not a verdict on the property.
    const message = await withTail(
      `the seed command ${describeExit(null, run.signal as NodeJS.Signals)}`,
      run,
    );
    return { replay: { ...base, status: 'error', message, log }, started: true };
  }

  if (run.exitCode !== 0) {
    const report = typeof read === 'string' ? undefined : read;
    const tail = await outputTail(run, 10);
    const note =
      typeof read === 'string' && read !== 'missing'
        ? `; its report ${reportFile} ${read}, so it was ignored`
        : '';
    return {
      replay: {
        ...base,
        status: 'fail',
        message: `the seed command exited with code ${run.exitCode}${note}${tail ? `; last output:\n${tail}` : ''}`,
        ...(report?.counterexample !== undefined ? { counterexample: report.counterexample } : {}),
        ...(report !== undefined && 'shrunk' in report ? { shrunk: report.shrunk } : {}),
        ...(report?.examples !== undefined ? { examples: report.examples } : {}),
        log,
      },
      started: true,
    };
  }

  if (typeof read === 'string' || read.examples === undefined) {
    const problem =
      typeof read !== 'string' ? 'has no "examples"' : read === 'missing' ? 'was never written' : read;
    return {
      replay: {
        ...base,
        status: 'error',
        message: `the seed command exited 0 but its report ${reportFile} ${problem}; ${EXPECTED}. A pass whose examples were not counted is not trusted.`,
        log,
      },
      started: true,
    };
  }
  return { replay: { ...base, status: 'pass', examples: read.examples, log }, started: true };
}

/** The report, or why it cannot be used: 'missing', or a phrase that follows "its report <path>". */
async function readCommandReport(file: string): Promise<CommandReport | string> {
  const read = await readJsonReport(file, 'missing');
  if ('problem' in read) return read.problem;
  const value = read.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `holds ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}, not an object`;
  }
  const obj = value as Record<string, unknown>;
  const report: CommandReport = {};
  if ('examples' in obj) {
    const e = obj.examples;
    if (typeof e !== 'number' || !Number.isSafeInteger(e) || e < 0) {
      return `has "examples": ${JSON.stringify(e)}, which is not a whole number >= 0`;
    }
    report.examples = e;
  }
  if (obj.counterexample !== undefined) {
    report.counterexample =
      typeof obj.counterexample === 'string' ? obj.counterexample : JSON.stringify(obj.counterexample);
  }
  if ('shrunk' in obj) report.shrunk = obj.shrunk;
  return report;
}
