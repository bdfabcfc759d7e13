import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CONTRACT_BYTES } from '../../config/contract-file.js';
import {
  type ClaimLedger,
  DEFAULT_CLAIM_LEDGER,
  formatTimestamp,
  isTimestamp,
  type RunResult,
  readClaimLedger,
  recordRun,
  serializeValidated,
} from '../../freeze/claim-ledger.js';
import { entryResults } from '../../freeze/claim-votes.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { runFromRecord } from '../../history/run.js';
import { writeRun } from '../../history/write.js';
import type { TestOutcome } from '../../junit/index.js';
import { testFileOf } from '../../runners/tests/presets.js';
import { assertRepoPath } from '../../util/repo-path.js';
import { writeFileAtomic } from '../atomic-write.js';
import { openRepoHistory } from '../history-store.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { RECORD } from '../specs.js';
import { usage } from '../usage.js';

/** What `record` needs of a JUnit outcome (the history also keeps failures and durations when there are). */
export type ReportOutcome = Pick<TestOutcome, 'id' | 'suite' | 'classname' | 'name' | 'file' | 'status'> &
  Partial<Pick<TestOutcome, 'failures' | 'retries' | 'time'>>;

export interface RecordDeps {
  /** Reads a JUnit XML report (the real one is `parseJUnitFile`); injected so the CLI picks the parser. */
  parseReport(file: string): Promise<{ tests: readonly ReportOutcome[] }>;
  /** The clock, used only when --at is not given. */
  now?(): Date;
  /** The configured ledger (`claims.ledger`), when there is a config. */
  ledgerPath?(root: string): Promise<string | undefined>;
  /** The test ids the claim matrix binds to each freeze id, for entries without `checks` of their own. */
  claimChecks?(root: string): Promise<Map<string, string[]>>;
}

/** The time a `--at` flag gives, or the clock's (`new Date()` when none is injected), as `YYYY-MM-DDTHH:MM:SSZ`. */
export function resolveAt(value: string | undefined, now: (() => Date) | undefined, command: string): string {
  if (value === undefined) return formatTimestamp(now ? now() : new Date());
  if (!isTimestamp(value))
    throw usage(
      `${command}: --at must be a UTC time such as 2026-09-12T21:14:00Z (YYYY-MM-DDTHH:MM:SSZ, a real date and time), got '${value}'`,
    );
  return value;
}

/** The repository root and the ledger's repo-relative path: --ledger, else the configured one, else the default. */
export async function locateLedger(
  io: CliIO,
  flag: string | undefined,
  configured: ((root: string) => Promise<string | undefined>) | undefined,
): Promise<{ root: string; file: string; abs: string; named: 'flag' | 'config' | 'default' }> {
  const root = await findRepoRoot(Git.forEnv(execFile, io.cwd, io.env, io.signal));
  const fromConfig = flag === undefined ? await configured?.(root) : undefined;
  const named = flag ?? fromConfig ?? DEFAULT_CLAIM_LEDGER;
  const file = assertRepoPath(named, flag !== undefined ? '--ledger' : 'claims.ledger');
  return {
    root,
    file,
    abs: path.join(root, file),
    named: flag !== undefined ? 'flag' : fromConfig !== undefined ? 'config' : 'default',
  };
}

/** Reads the ledger of the working tree; missing or invalid is an input error (nothing is written then). */
export async function readWorkingLedger(io: CliIO, root: string, file: string): Promise<ClaimLedger> {
  return readClaimLedger(root, file, `the working tree (${root})`, {
    maxBytes: DEFAULT_CONTRACT_BYTES,
    signal: io.signal,
  });
}

const RESULT_WORDS: Record<RunResult, string> = { pass: 'passed', fail: 'failed', absent: 'did not run' };

/** `patchgate record`: adds a CI run on the main branch to the freeze-window ledger. */
export async function recordCommand(args: string[], io: CliIO, deps: RecordDeps): Promise<number> {
  const parsed = parseCommand(RECORD, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const reports = values.junit ?? [];
  if (reports.length === 0)
    throw usage('record: --junit FILE is required (a JUnit XML report of the run; repeat it for several)');
  const runId = values['run-id'];
  if (runId !== undefined && runId.trim() === '')
    throw usage("record: --run-id must name the CI run (e.g. GitHub's run id); it must not be blank");
  const at = resolveAt(values.at, deps.now, 'record');
  const dryRun = values['dry-run'] === true;

  const located = await locateLedger(io, values.ledger, deps.ledgerPath);
  const { root, file, named } = located;
  // With --history, a repository that keeps no ledger (none named, none at the default path) records the history alone.
  const ledgerless = values.history && named === 'default' && !existsSync(located.abs);
  const git = Git.forEnv(execFile, root, io.env, io.signal);
  // Opened (and found usable) before anything is written, so the two records cannot come apart on a bad store.
  const history = values.history && !dryRun ? await openRepoHistory(io, git, root) : undefined;
  try {
    const outcomes: ReportOutcome[] = [];
    for (const report of reports) {
      const parsed = await deps.parseReport(path.resolve(io.cwd, report));
      for (const t of parsed.tests) outcomes.push(t);
    }
    // A run that ran nothing is no main-branch run: recorded, it would count as a run every test sat out.
    if (values.history && outcomes.length === 0)
      throw usage(
        `record: --history needs outcomes, and ${reports.join(', ')} hold(s) no test: nothing was written (was the suite selected at all?)`,
      );
    if (ledgerless)
      io.stdout.write(`no ledger at ${file} (none is configured): only the run history is written\n`);
    else await recordInLedger(io, deps, { ...located, outcomes, at, runId, dryRun });
    if (history) {
      const head = await git.out(['rev-parse', '--verify', 'HEAD^{commit}']);
      const branch = await git.try(['symbolic-ref', '-q', '--short', 'HEAD']);
      const id = await writeRun(
        history.db,
        runFromRecord({
          repository: history.repository,
          recordedAt: isoOf(at),
          headCommit: head,
          ...(branch.code === 0 && branch.stdout.trim() !== '' ? { branch: branch.stdout.trim() } : {}),
          ...(runId !== undefined ? { ciRun: runId } : {}),
          // A report without file attributes (pytest's) still says the file in a pytest id.
          tests: outcomes.map((t) => {
            const file = t.file ?? (t.suite === 'pytest' ? testFileOf('pytest', t) : undefined);
            return file === t.file ? t : { ...t, file };
          }),
        }),
      );
      io.stdout.write(
        `run ${id} written to the run history (${history.where}) as ${history.repository}: ${outcomes.length} outcome(s) of ${head.slice(0, 12)}\n`,
      );
    } else if (values.history) io.stdout.write('dry run: the run history was not written\n');
    return 0;
  } finally {
    await history?.db.close();
  }
}

/** `YYYY-MM-DDTHH:MM:SSZ` as the history stamps runs (with milliseconds, as `check` does). */
function isoOf(at: string): string {
  return new Date(at).toISOString();
}

interface LedgerRecording {
  root: string;
  file: string;
  abs: string;
  outcomes: readonly ReportOutcome[];
  at: string;
  runId: string | undefined;
  dryRun: boolean;
}

async function recordInLedger(
  io: CliIO,
  deps: RecordDeps,
  { root, file, abs, outcomes, at, runId, dryRun }: LedgerRecording,
): Promise<void> {
  const ledger = await readWorkingLedger(io, root, file);
  const needMatrix = [...ledger.entries.values()].some((e) => e.checks === undefined);
  const matrix = needMatrix && deps.claimChecks ? await deps.claimChecks(root) : new Map<string, string[]>();
  const { results, warnings } = entryResults(ledger, outcomes, matrix);
  for (const w of warnings) io.stderr.write(`patchgate: warning: ${w}\n`);

  const { ledger: next, changes } = recordRun(ledger, {
    results,
    at,
    ...(runId !== undefined ? { runId } : {}),
  });
  const text = serializeValidated(next, file);
  if (!dryRun) await writeFileAtomic(abs, text, file);

  const run = runId !== undefined ? `run ${runId}` : `the run at ${at}`;
  for (const c of changes)
    io.stdout.write(`${c.id}: ${c.from} → ${c.to} (${RESULT_WORDS[c.result]} in ${run})\n`);

  const counts: Record<RunResult, number> = { pass: 0, fail: 0, absent: 0 };
  for (const r of results.values()) counts[r]++;
  const blocked = [...next.entries.values()].filter((e) => e.status === 'blocked').length;
  const newly = changes.filter((c) => c.to === 'blocked').length;
  io.stdout.write(
    `${dryRun ? 'dry run: would record' : 'recorded'} ${run}${runId !== undefined ? ` (${at})` : ''} in ${file}: ` +
      `${next.entries.size} entries, ${counts.fail} failed, ${counts.pass} passed, ${counts.absent} did not run; ` +
      `${newly} newly blocked, ${blocked} blocked in all; ${next.runsRecorded ?? 0} run(s) recorded, window ${next.windowRuns} runs\n`,
  );
  io.stdout.write(
    dryRun
      ? `dry run: ${file} was not written\n`
      : `Commit ${file} from this job on the main branch (or open a pull request with it); never record from an agent's branch.\n`,
  );
}
