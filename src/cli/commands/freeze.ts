import { InputError } from '../../errors.js';
import {
  reopenEntry,
  serializeValidated,
  type WindowRun,
  windowFromRuns,
} from '../../freeze/claim-ledger.js';
import { entryResults, type VoteOutcome } from '../../freeze/claim-votes.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { type MainRun, type MainRunTest, mainBranchRuns } from '../../history/main-runs.js';
import { writeFileAtomic } from '../atomic-write.js';
import { openRepoHistory } from '../history-store.js';
import type { CliIO } from '../io.js';
import { parseCommand, renderGroupHelp } from '../options.js';
import { FREEZE, FREEZE_REOPEN, FREEZE_WINDOW } from '../specs.js';
import { usage } from '../usage.js';
import { locateLedger, readWorkingLedger, resolveAt } from './record.js';

export interface FreezeDeps {
  /** The clock, used only when --at is not given. */
  now?(): Date;
  /** The configured ledger (`claims.ledger`), when there is a config. */
  ledgerPath?(root: string): Promise<string | undefined>;
  /** The test ids the claim matrix binds to each freeze id, for entries without `checks` of their own. */
  claimChecks?(root: string): Promise<Map<string, string[]>>;
}

/** `patchgate freeze <subcommand>`: human-only edits of the freeze-window ledger. */
export async function freezeCommand(args: string[], io: CliIO, deps: FreezeDeps = {}): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'reopen':
      return freezeReopen(rest, io, deps);
    case 'window':
      return freezeWindow(rest, io, deps);
    case '--help':
    case '-h':
      io.stdout.write(renderGroupHelp(FREEZE));
      return 0;
    case undefined:
      throw usage(
        'freeze needs a subcommand: patchgate freeze reopen ID --reason TEXT --owner WHO, or patchgate freeze window',
      );
    default:
      throw usage(`unknown freeze subcommand '${sub}' (expected: reopen, window)`);
  }
}

function requiredText(value: string | undefined, flag: string, what: string): string {
  const v = value?.trim();
  if (v === undefined || v === '') throw usage(`freeze reopen: --${flag} is required: ${what}`);
  return v;
}

async function freezeReopen(args: string[], io: CliIO, deps: FreezeDeps): Promise<number> {
  const parsed = parseCommand(FREEZE_REOPEN, args, io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const [id, ...extra] = positionals;
  if (id === undefined || id.trim() === '')
    throw usage(
      'freeze reopen: name the entry to reopen: patchgate freeze reopen ID --reason TEXT --owner WHO',
    );
  if (extra.length > 0)
    throw usage(`freeze reopen: one entry at a time; unexpected ${extra.map((a) => `'${a}'`).join(', ')}`);
  const reason = requiredText(values.reason, 'reason', 'why the entry may vote again');
  const owner = requiredText(values.owner, 'owner', 'the person or team answering for the reopen');
  const at = resolveAt(values.at, deps.now, 'freeze reopen');

  const { root, file, abs } = await locateLedger(io, values.ledger, deps.ledgerPath);
  const ledger = await readWorkingLedger(io, root, file);
  const next = reopenEntry(ledger, id, { owner, reason, at });
  const before = ledger.entries.get(id);
  const text = serializeValidated(next, file);
  await writeFileAtomic(abs, text, file);

  const recent = before?.recent !== undefined ? `, recent '${before.recent}' → ''` : ", recent → ''";
  const lastFail = before?.lastFail !== undefined ? `; last_fail ${before.lastFail} kept` : '';
  io.stdout.write(
    `reopened ${id} in ${file}: blocked → open\n` +
      `  fails_in_window ${before?.failsInWindow ?? 0} → 0${recent} (the window starts again)${lastFail}\n` +
      `  reopened by ${owner} at ${at}: ${reason}\n`,
  );
  io.stdout.write(
    `\nThis is the human path: commit ${file} in its own commit, never inside an agent's diff:\n` +
      `  git add ${file} && git commit -m "patchgate: reopen freeze ${id}"\n`,
  );
  return 0;
}

/** A history test id (`suite::classname::name`) as the outcome a vote reads; the file says the pytest node id. */
function voteOf(t: MainRunTest): VoteOutcome {
  const parts = t.testId.split('::');
  const [suite, classname, name] =
    parts.length >= 3
      ? [parts[0] ?? '', parts[1] ?? '', parts.slice(2).join('::')]
      : ['', parts[0] ?? '', parts[1] ?? t.testId];
  const status = t.failed > 0 || t.flaky ? 'failed' : t.passed > 0 ? 'passed' : 'skipped';
  return { id: t.testId, suite, classname, name, status, ...(t.file !== undefined ? { file: t.file } : {}) };
}

async function freezeWindow(args: string[], io: CliIO, deps: FreezeDeps): Promise<number> {
  const parsed = parseCommand(FREEZE_WINDOW, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const dryRun = values['dry-run'] === true;
  const { root, file, abs } = await locateLedger(io, values.ledger, deps.ledgerPath);
  const ledger = await readWorkingLedger(io, root, file);
  const git = Git.forEnv(execFile, root, io.env, io.signal);
  const history = await openRepoHistory(io, git, root, { mustExist: true });
  let runs: MainRun[];
  try {
    runs = await mainBranchRuns(history.db, history.repository);
  } finally {
    await history.db.close();
  }
  if (runs.length === 0)
    throw new InputError(
      'HISTORY_UNAVAILABLE',
      `the run history (${history.where}) holds no main-branch run of ${history.repository}: record them with \`patchgate record --junit REPORT --history\` on the main branch first`,
      { repository: history.repository },
    );
  const needMatrix = [...ledger.entries.values()].some((e) => e.checks === undefined);
  const matrix = needMatrix && deps.claimChecks ? await deps.claimChecks(root) : new Map<string, string[]>();
  const warned = new Set<string>();
  const windowRuns: WindowRun[] = runs.map((r) => {
    const { results, warnings } = entryResults(ledger, r.tests.map(voteOf), matrix);
    for (const w of warnings) if (w.includes(': no checks:')) warned.add(w);
    return { at: `${r.at.slice(0, 19)}Z`, ...(r.ciRun !== undefined ? { runId: r.ciRun } : {}), results };
  });
  for (const w of warned) io.stderr.write(`patchgate: warning: ${w}\n`);
  const { ledger: next, changes } = windowFromRuns(ledger, windowRuns);
  const text = serializeValidated(next, file);
  if (!dryRun) await writeFileAtomic(abs, text, file);
  for (const [id, e] of next.entries) {
    const was = ledger.entries.get(id);
    if (e.recent !== was?.recent || e.status !== was?.status)
      io.stdout.write(
        `${id}: ${was?.status ?? 'open'} '${was?.recent ?? ''}' → ${e.status} '${e.recent ?? ''}'\n`,
      );
  }
  const blocked = [...next.entries.values()].filter((e) => e.status === 'blocked').length;
  io.stdout.write(
    `${dryRun ? 'dry run: would compute' : 'computed'} the windows of ${file} from ${runs.length} main-branch run(s) in ${history.where} (${runs[0]?.at} to ${runs.at(-1)?.at}): ${changes.length} newly blocked, ${blocked} blocked in all; window ${next.windowRuns} runs\n`,
  );
  io.stdout.write(
    dryRun
      ? `dry run: ${file} was not written\n`
      : `Commit ${file} from this job on the main branch (or open a pull request with it); never from an agent's branch.\n`,
  );
  return 0;
}
