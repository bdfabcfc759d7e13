import { z } from 'zod';
import {
  type ContractReadOptions,
  type ContractRoot,
  readContractTextIfExists,
} from '../config/contract-file.js';
import { type ParsedDocument, parseJsonDocumentSliced } from '../config/documents.js';
import { byLineThenPath, issuesToProblemsSliced } from '../config/issues.js';
import { safeParseSliced } from '../config/sliced-validation.js';
import { ContractFileError, InputError, type Problem } from '../errors.js';
import { isGenericTemplate } from '../signatures/generic.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../signatures/normalize.js';
import { type FailureSignature, failureSignature, templateDigest } from '../signatures/signature.js';
import { runInSlices, runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';
import { freezeDate } from './fields.js';
import { type Freeze, isExpired } from './model.js';

/**
 * The failure-signature freeze (`flake_signatures.json`): known
 * failures and skips frozen by the hash of their normalized message, never by
 * test name.
 *
 * The file stays in the seed's format, `{"signatures": [{"sha256": ...}]}`, so
 * the seed's script still reads it. Each row may carry our fields too: the
 * `template` the hash was computed from (for the humans reviewing it), `kind`,
 * the `scheme` that normalized the message, `owner`, `reason`, `expires`,
 * `action`, and `example_test`, the test the row was recorded from (shown,
 * never matched on), and `source`: `"baseline"` on a row `patchgate baseline`
 * wrote for a failure the suite already had when patchgate was adopted.
 *
 * A row may also name `test`: then it covers that test only. A row whose
 * template is generic (a skip or failure with no text of its own, see
 * `isGenericTemplate`) covers nothing unless it names its test: every
 * message-less skip of every test has the same hash, so an unbound row would
 * excuse them all. `patchgate signatures add` binds such rows itself.
 *
 * Only `sha256` is required by the reader, so rows written by the seed's
 * script load. Such a row is an *incomplete* freeze: without an owner, an
 * expiry and a next step it never covers a failure (a freeze without an expiry
 * is a permanent blind spot), but it still counts as a row, so deleting it is
 * still SIGNATURE_ROW_DELETED, and `rowsMatching` still finds it so a finding
 * can say which row almost covered the failure and what it lacks.
 * `patchgate signatures add` always writes all three.
 *
 * A file that contradicts itself is rejected whole (CONTRACT_INVALID), like
 * any malformed contract: a row whose template no longer hashes to its
 * sha256 (someone edited the text a human reviewed, or the hash), a `kind`
 * that is not the template's kind, and the same sha256 on two rows.
 */

export const DEFAULT_SIGNATURE_FREEZE = 'flake_signatures.json';

const SHA256_HEX = /^[0-9a-f]{64}$/;

const sha256Field = z.string().superRefine((v, ctx) => {
  if (SHA256_HEX.test(v)) return;
  const hint = /^[0-9a-fA-F]{64}$/.test(v) ? ' (write it in lowercase)' : '';
  const shown = v.length > 70 ? `${v.slice(0, 70)}…` : v;
  ctx.addIssue({
    code: 'custom',
    message: `expected a SHA-256 digest of 64 lowercase hex characters, got '${shown}'${hint}`,
  });
});

const rowSchema = z.strictObject({
  sha256: sha256Field,
  template: z.string().optional(),
  kind: z.string().optional(),
  scheme: z.enum(SIGNATURE_SCHEMES).optional(),
  owner: z.string().optional(),
  reason: z.string().optional(),
  expires: freezeDate.optional(),
  action: z.string().optional(),
  example_test: z.string().optional(),
  test: z.string().min(1).optional(),
  source: z
    .enum(['baseline'])
    .optional()
    .describe(
      '"baseline": written by `patchgate baseline` for a failure or skip the suite already had when patchgate was adopted; reports show such rows as baseline rows. Absent for rows a human added.',
    ),
});

export const signatureFreezeSchema = z.strictObject({
  $schema: z
    .string()
    .optional()
    .describe('Path or URL of the JSON Schema, for editors; kept when the file is rewritten.'),
  signatures: z.array(rowSchema),
});

/** One row as written in the file. */
export type SignatureRow = z.output<typeof rowSchema>;

/** A row plus where it was read from. Neither field is written back. */
export interface SignatureFreezeRow extends SignatureRow {
  /** 0-based position in the file's `signatures` list. */
  index: number;
  /** 1-based line of the row's opening brace, when read from text. */
  line?: number;
}

export interface SignatureFreeze {
  /** Repo-relative path the rows were read from. */
  file: string;
  /** The file's `$schema`, written back as read. */
  $schema?: string;
  rows: SignatureFreezeRow[];
}

/** The fields a row needs before it can cover anything. */
export type RequiredFreezeField = 'owner' | 'expires' | 'action';

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/** Which of owner, expires and action a row lacks; a blank value counts as missing. */
export function missingFields(row: SignatureRow): RequiredFreezeField[] {
  const missing: RequiredFreezeField[] = [];
  if (!present(row.owner)) missing.push('owner');
  if (!present(row.expires)) missing.push('expires');
  if (!present(row.action)) missing.push('action');
  return missing;
}

export type SignatureRowStatus = 'active' | 'expired' | 'incomplete';

/** Incomplete wins over expired: the row was never a valid freeze, whatever its date. */
export function rowStatus(row: SignatureRow, today: string): SignatureRowStatus {
  if (missingFields(row).length > 0) return 'incomplete';
  return isExpired({ expires: row.expires ?? '' }, today) ? 'expired' : 'active';
}

/**
 * The row as a generic freeze. Missing fields become empty strings, which the
 * shared model reads as expired and ownerless, so an incomplete row can never
 * pass as active anywhere it is judged.
 */
export function signatureRowToFreeze(row: SignatureFreezeRow, file: string): Freeze {
  return {
    kind: 'signature',
    covers: row.sha256,
    owner: row.owner ?? '',
    ...(row.reason !== undefined ? { reason: row.reason } : {}),
    expires: row.expires ?? '',
    action: row.action ?? '',
    source: row.line === undefined ? { file, index: row.index } : { file, index: row.index, line: row.line },
    ...(row.source === 'baseline' ? { origin: 'baseline' as const } : {}),
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks that need the whole file: duplicates, and templates that no longer
 * hash to their row. Runs on the raw value so these problems are reported in
 * the same pass as shape problems; fields of the wrong type are skipped here
 * (the schema reports them).
 */
function* consistencyProblems(
  value: unknown,
  file: string,
  doc: ParsedDocument,
  budget: SliceBudget,
): Sliced<Problem[]> {
  if (!isRecord(value) || !Array.isArray(value.signatures)) return [];
  const locate = function* (p: readonly PropertyKey[]) {
    yield* doc.prepare(p, budget);
    return doc.locate(p, false);
  };
  const problems: Problem[] = [];
  const firstRow = new Map<string, number>();
  for (const [i, raw] of (value.signatures as unknown[]).entries()) {
    if (budget.due()) yield;
    if (!isRecord(raw)) continue;
    const at = function* (field: string) {
      return { file, path: `signatures[${i}].${field}`, ...(yield* locate(['signatures', i, field])) };
    };
    const sha = typeof raw.sha256 === 'string' && SHA256_HEX.test(raw.sha256) ? raw.sha256 : undefined;
    if (sha !== undefined) {
      const key = rowKey({ sha256: sha, test: typeof raw.test === 'string' ? raw.test : undefined });
      const first = firstRow.get(key);
      if (first === undefined) firstRow.set(key, i);
      else {
        const line = (yield* locate(['signatures', first]))?.line;
        problems.push({
          ...(yield* at('sha256')),
          message: `duplicates row ${first}${line !== undefined ? ` (line ${line})` : ''}; a signature is frozen by one row, so change that row instead of adding another.`,
        });
      }
    }
    const template = typeof raw.template === 'string' ? raw.template : undefined;
    if (template !== undefined && sha !== undefined) {
      const actual = templateDigest(template);
      if (actual !== sha) {
        problems.push({
          ...(yield* at('template')),
          message: `hashes to ${actual}, not to the row's sha256 ${sha}: the template or the hash was edited, so the row no longer covers what it says. Restore the template, or remove the row and record the failure again with \`patchgate signatures add\`.`,
        });
      }
    }
    if (template !== undefined && typeof raw.kind === 'string' && !template.startsWith(`${raw.kind}|`)) {
      problems.push({
        ...(yield* at('kind')),
        message: `is '${raw.kind}', but the template starts with a different kind; a template is 'kind|message', and the two must agree.`,
      });
    }
  }
  return problems;
}

/** Parses and checks a freeze file in slices; every problem is reported at once as CONTRACT_INVALID. */
export function* parseSignatureFreezeSliced(
  text: string,
  file: string,
  budget: SliceBudget,
): Sliced<SignatureFreeze> {
  const doc = yield* parseJsonDocumentSliced(text, file, 'CONTRACT_INVALID', budget);
  const result = yield* safeParseSliced(signatureFreezeSchema, doc.value, budget);
  const problems = result.success
    ? []
    : yield* issuesToProblemsSliced(result.issues, file, signatureFreezeSchema, doc, budget);
  for (const p of yield* consistencyProblems(doc.value, file, doc, budget)) problems.push(p);
  if (problems.length > 0 || !result.success) {
    throw new ContractFileError('CONTRACT_INVALID', problems.sort(byLineThenPath));
  }
  yield* doc.prepare(['signatures', 0], budget);
  const rows: SignatureFreezeRow[] = [];
  for (const [index, row] of result.data.signatures.entries()) {
    if (budget.due()) yield;
    const line = doc.locate(['signatures', index], false)?.line;
    rows.push(line === undefined ? { ...row, index } : { ...row, index, line });
  }
  const schema = result.data.$schema;
  return schema !== undefined ? { file, $schema: schema, rows } : { file, rows };
}

/** {@link parseSignatureFreezeSliced} in one go (the `signatures` command, tests). */
export function parseSignatureFreeze(text: string, file: string): SignatureFreeze {
  return runToEnd((budget) => parseSignatureFreezeSliced(text, file, budget));
}

/**
 * Reads the freeze from a checkout. A missing file is an input error by
 * default, as for every contract file. A caller reading the head to look for
 * deleted rows passes `ifMissing: 'empty'`: a deleted file deletes every row.
 */
export async function readSignatureFreeze(
  root: ContractRoot,
  file: string,
  revision: string,
  options: ContractReadOptions & { ifMissing?: 'error' | 'empty' },
): Promise<SignatureFreeze> {
  const text = await readContractTextIfExists(root, file, revision, options.maxBytes);
  if (text === undefined) {
    if (options.ifMissing === 'empty') return { file, rows: [] };
    const how = 'a human creates it with `patchgate signatures add` and commits it';
    throw new InputError('CONTRACT_INVALID', `${file} does not exist in ${revision}; ${how}`, { file });
  }
  return runInSlices((budget) => parseSignatureFreezeSliced(text, file, budget), options.signal);
}

function plainRow(r: SignatureRow): SignatureRow {
  const out: SignatureRow = { sha256: r.sha256 };
  if (r.template !== undefined) out.template = r.template;
  if (r.kind !== undefined) out.kind = r.kind;
  if (r.scheme !== undefined) out.scheme = r.scheme;
  if (r.owner !== undefined) out.owner = r.owner;
  if (r.reason !== undefined) out.reason = r.reason;
  if (r.expires !== undefined) out.expires = r.expires;
  if (r.action !== undefined) out.action = r.action;
  if (r.example_test !== undefined) out.example_test = r.example_test;
  if (r.test !== undefined) out.test = r.test;
  if (r.source !== undefined) out.source = r.source;
  return out;
}

/**
 * Serializes a freeze the same way every time: `$schema` first when the file
 * has one, rows in file order, fields in a fixed order (the seed's `sha256`
 * first, then what a reviewer reads), only the fields a row has, two-space
 * indent, final newline.
 */
export function formatSignatureFreeze(f: { $schema?: string; rows: readonly SignatureRow[] }): string {
  const head = f.$schema !== undefined ? { $schema: f.$schema } : {};
  return `${JSON.stringify({ ...head, signatures: f.rows.map(plainRow) }, null, 2)}\n`;
}

/** One row as it appears in the file (for printing). */
export function formatSignatureRow(row: SignatureRow): string {
  return JSON.stringify(plainRow(row), null, 2);
}

/** The schemes a row is matched under: its own, or both when the row does not say. */
function schemesOf(row: SignatureRow): readonly SignatureScheme[] {
  return row.scheme !== undefined ? [row.scheme] : SIGNATURE_SCHEMES;
}

export interface SignatureRowMatch {
  row: SignatureFreezeRow;
  scheme: SignatureScheme;
  signature: FailureSignature;
}

/**
 * Every row whose hash equals the failure's signature under that row's
 * scheme, whatever the row's status, in file order. A row without a `scheme`
 * (the seed's script writes none) is tried under both: its hash can only equal
 * a template it was computed from, so this cannot widen what it covers.
 */
export function rowsMatching(freeze: SignatureFreeze, kind: string, message: string): SignatureRowMatch[] {
  const cache = new Map<SignatureScheme, FailureSignature>();
  const sig = (scheme: SignatureScheme): FailureSignature => {
    let s = cache.get(scheme);
    if (!s) {
      s = failureSignature(kind, message, scheme);
      cache.set(scheme, s);
    }
    return s;
  };
  const out: SignatureRowMatch[] = [];
  for (const row of freeze.rows) {
    const scheme = schemesOf(row).find((s) => sig(s).sha256 === row.sha256);
    if (scheme !== undefined) out.push({ row, scheme, signature: sig(scheme) });
  }
  return out;
}

/** Identity of a row: its hash, and the test it is bound to when it names one. */
export function rowKey(row: Pick<SignatureRow, 'sha256' | 'test'>): string {
  return row.test === undefined ? row.sha256 : `${row.sha256} ${row.test}`;
}

/** Why a row whose hash matches does not cover this test, or undefined when it does. */
export function bindingProblem(match: SignatureRowMatch, test: string): string | undefined {
  const bound = match.row.test;
  if (bound !== undefined) return bound === test ? undefined : `it covers only test ${bound}`;
  if (isGenericTemplate(match.signature.template)) {
    return `its template '${match.signature.template}' carries no text of its own, so it covers only the test it names, and it names none`;
  }
  return undefined;
}

/** The first complete, unexpired row covering this failure of `test`, or undefined. */
export function matchFailure(
  freeze: SignatureFreeze,
  kind: string,
  message: string,
  today: string,
  test: string,
): SignatureFreezeRow | undefined {
  return rowsMatching(freeze, kind, message).find(
    (m) => rowStatus(m.row, today) === 'active' && bindingProblem(m, test) === undefined,
  )?.row;
}

/** Base rows (by hash and bound test) that the head no longer has: each is a SIGNATURE_ROW_DELETED. */
export function deletedRows(base: SignatureFreeze, head: SignatureFreeze): SignatureFreezeRow[] {
  const kept = new Set(head.rows.map(rowKey));
  return base.rows.filter((r) => !kept.has(rowKey(r)));
}
