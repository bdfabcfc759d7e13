import { reopenEntry, serializeValidated } from '../../freeze/claim-ledger.js';
import { writeFileAtomic } from '../atomic-write.js';
import type { CliIO } from '../io.js';
import { parseCommand, renderGroupHelp } from '../options.js';
import { FREEZE, FREEZE_REOPEN } from '../specs.js';
import { usage } from '../usage.js';
import { locateLedger, readWorkingLedger, resolveAt } from './record.js';

export interface FreezeDeps {
  /** The clock, used only when --at is not given. */
  now?(): Date;
  /** The configured ledger (`claims.ledger`), when there is a config. */
  ledgerPath?(root: string): Promise<string | undefined>;
}

/** `patchgate freeze <subcommand>`: human-only edits of the freeze-window ledger. */
export async function freezeCommand(args: string[], io: CliIO, deps: FreezeDeps = {}): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'reopen':
      return freezeReopen(rest, io, deps);
    case '--help':
    case '-h':
      io.stdout.write(renderGroupHelp(FREEZE));
      return 0;
    case undefined:
      throw usage('freeze needs a subcommand: patchgate freeze reopen ID --reason TEXT --owner WHO');
    default:
      throw usage(`unknown freeze subcommand '${sub}' (expected: reopen)`);
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
