import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';
import {
  ALLOWED_CAUSES,
  DEFAULT_FLAKE_LEDGER,
  type FlakeLedger,
  type FlakeLedgerRow,
  formatFlakeLedger,
  formatFlakeLedgerRow,
  isCauseClass,
  parseFlakeLedger,
} from '../../freeze/flake-ledger.js';
import { isExpired, isoDate, resolveToday } from '../../freeze/model.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { assertRepoPath } from '../../util/repo-path.js';
import { writeFileAtomic } from '../atomic-write.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { LEDGER_ADD } from '../specs.js';
import { usage } from '../usage.js';

export interface LedgerDeps {
  /**
   * The locked fixture digest for a property's fixture, or undefined when the
   * property or its fixture is unknown. When given, `--digest` becomes
   * optional (and must agree with it when passed).
   */
  resolveDigest?(property: string): Promise<string | undefined>;
  /** The system clock, used only when neither --today nor CI_DATE is set. */
  now?(): Date;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** `patchgate ledger <subcommand>`: human-only edits of the cause-class flake ledger. */
export async function ledgerCommand(args: string[], io: CliIO, deps: LedgerDeps = {}): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return ledgerAdd(rest, io, deps);
    case undefined:
      throw usage('ledger needs a subcommand: patchgate ledger add --property NAME --cause CLASS ...');
    default:
      throw usage(`unknown ledger subcommand '${sub}' (expected: add)`);
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string') throw usage(`ledger add: --${name} is required`);
  return v;
}

async function resolveRowDigest(
  property: string,
  flag: string | undefined,
  deps: LedgerDeps,
): Promise<string> {
  if (flag !== undefined && !SHA256_HEX.test(flag))
    throw usage(`ledger add: --digest must be a SHA-256 digest (64 lowercase hex characters), got '${flag}'`);
  if (!deps.resolveDigest) {
    if (flag === undefined)
      throw usage(
        "ledger add: --digest is required: the locked SHA-256 digest of the property's fixture (see the fixture lock)",
      );
    return flag;
  }
  const locked = await deps.resolveDigest(property);
  if (locked === undefined) {
    throw new InputError(
      'USAGE',
      `ledger add: cannot find a locked fixture digest for property '${property}': the property does not exist or its fixture is not locked. A row for it would freeze nothing.`,
      { property },
    );
  }
  if (flag !== undefined && flag !== locked) {
    throw new InputError(
      'USAGE',
      `ledger add: --digest ${flag} does not match ${locked}, the locked digest of the fixture of property '${property}'`,
      { property, expected: locked, actual: flag },
    );
  }
  return locked;
}

async function readOrCreate(abs: string, file: string): Promise<{ ledger: FlakeLedger; created: boolean }> {
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { ledger: { version: 1, rules: [] }, created: true };
    throw new InputError('FILE_UNREADABLE', `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  // An invalid ledger is never rewritten: the human fixes it first.
  return { ledger: parseFlakeLedger(text, file), created: false };
}

async function ledgerAdd(args: string[], io: CliIO, deps: LedgerDeps): Promise<number> {
  const parsed = parseCommand(LEDGER_ADD, args, io);
  if (!parsed) return 0;
  const { values } = parsed;

  const property = required(values, 'property').trim();
  const cause = required(values, 'cause');
  const owner = required(values, 'owner').trim();
  const expires = required(values, 'expires');
  const action = required(values, 'action').trim();
  const file = assertRepoPath(values.file ?? DEFAULT_FLAKE_LEDGER, '--file');

  if (property === '') throw usage('ledger add: --property must name a property');
  if (!isCauseClass(cause)) {
    const hint = isCauseClass(cause.toUpperCase()) ? ` (did you mean ${cause.toUpperCase()}?)` : '';
    throw usage(`ledger add: unknown cause class '${cause}'${hint}; allowed: ${ALLOWED_CAUSES.join(', ')}`);
  }
  if (owner === '') throw usage('ledger add: --owner must name the person or team who owns the freeze');
  if (action === '')
    throw usage(
      'ledger add: --action must say what will fix the property; a freeze without a next step is a skip',
    );
  if (!isoDate(expires))
    throw usage(`ledger add: --expires must be a real date in YYYY-MM-DD form, got '${expires}'`);
  const { today, from } = resolveToday(values.today, io.env, deps.now);
  if (isExpired({ expires }, today))
    throw usage(`ledger add: --expires ${expires} is already in the past (today is ${today}, from ${from})`);

  const digest = await resolveRowDigest(property, values.digest, deps);

  const repoRoot = await findRepoRoot(Git.forEnv(execFile, io.cwd, io.env, io.signal));
  const abs = path.join(repoRoot, file);
  const { ledger, created } = await readOrCreate(abs, file);

  if (cause === 'CLOCK') {
    const clash = ledger.rules
      .map((r, index) => ({ r, index }))
      .filter(({ r }) => r.property === property && r.cause_class === 'CLOCK' && !isExpired(r, today));
    if (clash.length > 0) {
      const rows = clash.map(({ r, index }) => `row ${index} (owner ${r.owner}, expires ${r.expires})`);
      throw new InputError(
        'ALREADY_EXISTS',
        `${file} already has an active CLOCK freeze for '${property}': ${rows.join(', ')}. At most one is allowed; a second CLOCK flake means the property needs fixing, not another freeze.`,
        { file, property, rows: clash.map(({ index }) => index) },
      );
    }
  }

  const row: FlakeLedgerRow = {
    property,
    cause_class: cause,
    fixture_digest: digest,
    owner,
    expires,
    action,
    freeze_hits: false,
  };
  const next: FlakeLedger = { ...ledger, rules: [...ledger.rules, row] };
  const text = formatFlakeLedger(next);
  // Re-read what we are about to write: the file on disk must pass the same shape check the gate applies.
  parseFlakeLedger(text, file);
  if (created) await mkdir(path.dirname(abs), { recursive: true });
  await writeFileAtomic(abs, text, file);

  io.stdout.write(
    `${created ? 'created' : 'updated'} ${file}: added row ${next.rules.length - 1}\n${formatFlakeLedgerRow(row)}\n`,
  );
  io.stdout.write(
    `\nThis is the human path: commit the ledger on its own, never inside an agent's diff:\n  git add ${file} && git commit -m "patchgate: freeze ${property} (${cause})"\n`,
  );
  return 0;
}
