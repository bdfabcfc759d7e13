import { z } from 'zod';
import { type ContractReadOptions, type ContractRoot, readContractText } from '../config/contract-file.js';
import { parseJsonDocumentSliced, validateDocumentSliced } from '../config/documents.js';
import { runInSlices, runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';
import { freezeDate, nonBlank } from './fields.js';
import type { Freeze } from './model.js';

/**
 * The cause-class flake ledger (`flake_ledger.json`): flakes are
 * frozen by the cause of their nondeterminism, never by test id.
 *
 * The schema checks only the *shape* of the file. Whether a well-formed row
 * is acceptable (a known cause class, no `freeze_hits`, a next step, a
 * matching digest, not expired) is decided by the ledger rules in
 * `layers/hits/ledger-rules.ts`, so each bad row becomes its own finding with
 * its own reason code instead of one file-level error.
 */

export const ALLOWED_CAUSES = ['CLOCK', 'HASH_ORDER', 'FLOAT_ULP', 'EXTERNAL_IO'] as const;
export type CauseClass = (typeof ALLOWED_CAUSES)[number];

export function isCauseClass(s: string): s is CauseClass {
  return (ALLOWED_CAUSES as readonly string[]).includes(s);
}

const rowSchema = z.strictObject({
  property: nonBlank('the name of a property'),
  // Any string: an unknown class is a rule finding (LEDGER_UNKNOWN_CAUSE), not a shape error.
  cause_class: z.string(),
  // Any string: a digest that does not match the lock is LEDGER_DIGEST_MISMATCH.
  fixture_digest: z.string(),
  owner: nonBlank('the person or team who owns the freeze'),
  expires: freezeDate,
  // May be empty here: an empty action is LEDGER_NO_ACTION.
  action: z.string(),
  // Required, and a boolean; `true` is LEDGER_FREEZE_HITS.
  freeze_hits: z.boolean(),
});

export const flakeLedgerSchema = z.strictObject({
  $schema: z
    .string()
    .optional()
    .describe('Path or URL of the JSON Schema, for editors; kept when the ledger is rewritten.'),
  version: z.literal(1),
  rules: z.array(rowSchema),
});

/** One row as written in the file. */
export type FlakeLedgerRow = z.output<typeof rowSchema>;

/** A row plus where it was read from. `line` is never written back. */
export interface FlakeLedgerRule extends FlakeLedgerRow {
  /** 1-based line of the row's opening brace; absent for rows not read from text. */
  line?: number;
}

export interface FlakeLedger {
  /** The file's `$schema`, written back as read. */
  $schema?: string;
  version: 1;
  rules: FlakeLedgerRule[];
}

export const DEFAULT_FLAKE_LEDGER = 'flake_ledger.json';

/** Parses and shape-checks a ledger in slices; every shape problem is reported at once as CONTRACT_INVALID. */
export function* parseFlakeLedgerSliced(
  text: string,
  file: string,
  budget: SliceBudget,
): Sliced<FlakeLedger> {
  const doc = yield* parseJsonDocumentSliced(text, file, 'CONTRACT_INVALID', budget);
  const parsed = yield* validateDocumentSliced(flakeLedgerSchema, doc, file, 'CONTRACT_INVALID', budget);
  yield* doc.prepare(['rules', 0], budget);
  const rules: FlakeLedgerRule[] = [];
  for (const [i, row] of parsed.rules.entries()) {
    if (budget.due()) yield;
    const line = doc.locate(['rules', i], false)?.line;
    rules.push(line === undefined ? { ...row } : { ...row, line });
  }
  return {
    ...(parsed.$schema !== undefined ? { $schema: parsed.$schema } : {}),
    version: parsed.version,
    rules,
  };
}

/** {@link parseFlakeLedgerSliced} in one go (the `ledger` command, tests). */
export function parseFlakeLedger(text: string, file: string): FlakeLedger {
  return runToEnd((budget) => parseFlakeLedgerSliced(text, file, budget));
}

/** Reads the ledger from a checkout. A missing ledger is an input error, never an empty ledger. */
export async function readFlakeLedger(
  root: ContractRoot,
  file: string,
  revision: string,
  options: ContractReadOptions,
): Promise<FlakeLedger> {
  const how = 'a human creates it with `patchgate ledger add` and commits it';
  const text = await readContractText(root, file, revision, how, options.maxBytes);
  return runInSlices((budget) => parseFlakeLedgerSliced(text, file, budget), options.signal);
}

function plainRow(r: FlakeLedgerRow): FlakeLedgerRow {
  return {
    property: r.property,
    cause_class: r.cause_class,
    fixture_digest: r.fixture_digest,
    owner: r.owner,
    expires: r.expires,
    action: r.action,
    freeze_hits: r.freeze_hits,
  };
}

/**
 * Serializes a ledger the same way every time: `$schema` first when the
 * ledger has one, rows in file order (order is meaningful: the first valid
 * row for a property is the one that applies), fields in the seed's order,
 * two-space indent, final newline.
 */
export function formatFlakeLedger(ledger: FlakeLedger): string {
  const head = ledger.$schema !== undefined ? { $schema: ledger.$schema } : {};
  return `${JSON.stringify({ ...head, version: 1, rules: ledger.rules.map(plainRow) }, null, 2)}\n`;
}

/** Formats one row as it appears in the file (for printing). */
export function formatFlakeLedgerRow(row: FlakeLedgerRow): string {
  return JSON.stringify(plainRow(row), null, 2);
}

/** The ledger row as a generic freeze. The ledger has no free-text reason: the cause class is the reason. */
export function ledgerRowToFreeze(row: FlakeLedgerRule, index: number, file: string): Freeze {
  return {
    kind: 'flake-cause',
    covers: row.property,
    owner: row.owner,
    cause: row.cause_class,
    expires: row.expires,
    action: row.action,
    source: row.line === undefined ? { file, index } : { file, index, line: row.line },
  };
}
