import { z } from 'zod';
import { type ContractReadOptions, type ContractRoot, readContractText } from '../config/contract-file.js';
import { type ParsedDocument, parseJsonDocumentSliced } from '../config/documents.js';
import { byLineThenPath, issuesToProblemsSliced } from '../config/issues.js';
import { safeParseSliced } from '../config/sliced-validation.js';
import { ContractFileError, InputError, InternalError, type Problem } from '../errors.js';
import { runInSlices, runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';
import { nonBlank } from './fields.js';
import { isoDate } from './model.js';

/**
 * The freeze-window ledger of the claims layer (`freeze/ledger.json`):
 * one entry per freeze id a claim names, with the check's recent results in a
 * window of the last `window_runs` recorded runs.
 *
 * The policy is deliberately narrow. One failure inside the window flips an
 * entry from `open` to `blocked`; a blocked entry fails every patch whose
 * claim names it. A retried pass is a failure, and passes that follow never
 * clear the entry: only a human does, with `patchgate freeze reopen`, which
 * records who and why and starts the window again.
 *
 * The file stays in the seed's format (`window_runs`, `entries` of `status`,
 * `fails_in_window`, `last_fail`), so the seed's scorer still reads it. Our
 * fields are optional: `recent` (the window itself, one character per run),
 * `checks` (the test ids the entry tracks), `reopened` (the last human
 * reopen), and at the top `runs_recorded` and `last_run`.
 *
 * A file that contradicts itself is rejected whole (CONTRACT_INVALID), shape
 * and consistency problems together, each located: an open entry with
 * failures in its window, a count that is not the number of `F` in `recent`,
 * more failures or results than the window holds, a failure without a time.
 */

export const DEFAULT_CLAIM_LEDGER = 'freeze/ledger.json';

/** What `window_runs` may be: a run is a CI run on the main branch, so 1000 is years of history. */
export const MAX_WINDOW_RUNS = 1000;

/** Freeze ids: what a claim's `freeze` names after the `#` (`freeze/ledger.json#refund_cap`). */
export const CLAIM_FREEZE_ID = /^[A-Za-z0-9_.:-]+$/;

export const CLAIM_STATUSES = ['open', 'blocked'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** One character of `recent` per recorded run: passed, failed, did not appear. */
export type RunResult = 'pass' | 'fail' | 'absent';
const RESULT_CHAR: Record<RunResult, string> = { pass: 'P', fail: 'F', absent: '-' };

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/**
 * True for exactly `YYYY-MM-DDTHH:MM:SSZ` naming a real UTC instant: a real
 * calendar day (see `isoDate`), hours 00-23, minutes and seconds 00-59. No
 * fractions, offsets or leap seconds: one spelling per instant, so text order
 * is time order.
 */
export function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (!m) return false;
  return isoDate(m[1] ?? '') && Number(m[2]) <= 23 && Number(m[3]) <= 59 && Number(m[4]) <= 59;
}

/** `now` as `YYYY-MM-DDTHH:MM:SSZ`, to the second (UTC). */
export function formatTimestamp(now: Date): string {
  if (Number.isNaN(now.getTime())) throw new InternalError('formatTimestamp: the clock gave an invalid date');
  return `${now.toISOString().slice(0, 19)}Z`;
}

function timestampProblem(v: string): string {
  const why = TIMESTAMP.test(v) ? 'which is not a real date and time' : 'not in YYYY-MM-DDTHH:MM:SSZ form';
  return `expected a UTC time such as 2026-09-12T21:14:00Z, got '${v}', ${why}`;
}

const freezeTimestamp = z.string().superRefine((v, ctx) => {
  if (!isTimestamp(v)) ctx.addIssue({ code: 'custom', message: timestampProblem(v) });
});

const entrySchema = z.strictObject({
  status: z.enum(CLAIM_STATUSES),
  fails_in_window: z.int().min(0),
  last_fail: freezeTimestamp.optional(),
  recent: z
    .string()
    .regex(/^[PF-]*$/, 'expected one character per recorded run: P (passed), F (failed) or - (did not run)')
    .optional(),
  checks: z.array(nonBlank('a test id')).min(1).optional(),
  reopened: z
    .strictObject({
      owner: nonBlank('who reopened the entry'),
      reason: nonBlank('why the entry was reopened'),
      at: freezeTimestamp,
    })
    .optional(),
});

/**
 * The shape of the file. Keys of `entries` and the rules that relate fields
 * (to each other, to `window_runs`) are checked by `consistencyProblems`, in
 * the same pass, so `entries` stays a plain record that is validated an entry
 * at a time on a large file.
 */
export const claimLedgerSchema = z.strictObject({
  $schema: z
    .string()
    .optional()
    .describe('Path or URL of the JSON Schema, for editors; kept when the ledger is rewritten.'),
  window_runs: z.int().min(1).max(MAX_WINDOW_RUNS),
  entries: z.record(z.string(), entrySchema),
  runs_recorded: z.int().min(0).optional(),
  last_run: nonBlank('the id of the last recorded run').optional(),
});

export interface ClaimReopen {
  owner: string;
  reason: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  at: string;
}

export interface ClaimLedgerEntry {
  /** The freeze id (the entry's key in the file). */
  id: string;
  status: ClaimStatus;
  /** Failures among the last `windowRuns` recorded runs (since the last reopen). */
  failsInWindow: number;
  /** Time of the last recorded failure, `YYYY-MM-DDTHH:MM:SSZ`. Kept across a reopen. */
  lastFail?: string;
  /** Results of the runs in the window, oldest first: `P`, `F` or `-` each. */
  recent?: string;
  /** The test ids the entry tracks; without them, the claim matrix says. */
  checks?: string[];
  /** The last human reopen. */
  reopened?: ClaimReopen;
  /** 1-based line of the entry's key in the file, when read from text. Never written back. */
  line?: number;
}

export interface ClaimLedger {
  /** The file's `$schema`, written back as read. */
  $schema?: string;
  windowRuns: number;
  /** In file order. */
  entries: Map<string, ClaimLedgerEntry>;
  runsRecorded?: number;
  lastRun?: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function countFails(recent: string): number {
  let n = 0;
  for (const c of recent) if (c === 'F') n++;
  return n;
}

/**
 * The rules that relate fields, on the raw value so they are reported with
 * the shape problems; a field of the wrong type is skipped here (the schema
 * reports it).
 */
function* consistencyProblems(
  value: unknown,
  file: string,
  doc: ParsedDocument,
  budget: SliceBudget,
): Sliced<Problem[]> {
  if (!isRecord(value) || !isRecord(value.entries)) return [];
  const entries = value.entries;
  const rawWindow = value.window_runs;
  const window = isCount(rawWindow) && rawWindow >= 1 && rawWindow <= MAX_WINDOW_RUNS ? rawWindow : undefined;
  const locate = function* (p: readonly PropertyKey[], wantKey: boolean) {
    yield* doc.prepare(p, budget);
    return doc.locate(p, wantKey);
  };
  const problems: Problem[] = [];
  for (const id of doc.keysOf(entries)) {
    if (budget.due()) yield;
    if (!CLAIM_FREEZE_ID.test(id)) {
      problems.push({
        file,
        path: `entries.${id}`,
        ...(yield* locate(['entries', id], true)),
        message: `is not a freeze id: expected letters, digits, '_', '.', ':' and '-' only (matching ${String(CLAIM_FREEZE_ID)}), the id a claim's \`freeze\` names after the '#'.`,
      });
    }
    const raw = entries[id];
    if (!isRecord(raw)) continue;
    const at = function* (field: string) {
      const where = (yield* locate(['entries', id, field], false)) ?? (yield* locate(['entries', id], true));
      return { file, path: `entries.${id}.${field}`, ...where };
    };
    const fails = isCount(raw.fails_in_window) ? raw.fails_in_window : undefined;
    const recent = typeof raw.recent === 'string' && /^[PF-]*$/.test(raw.recent) ? raw.recent : undefined;
    if (fails !== undefined && window !== undefined && fails > window) {
      problems.push({
        ...(yield* at('fails_in_window')),
        message: `is ${fails}, more than window_runs (${window}): a window of ${window} runs holds at most ${window} failures.`,
      });
    }
    if (recent !== undefined && window !== undefined && recent.length > window) {
      problems.push({
        ...(yield* at('recent')),
        message: `holds ${recent.length} runs, more than window_runs (${window}): the window keeps only the last ${window} runs, oldest first.`,
      });
    }
    if (recent !== undefined && fails !== undefined && countFails(recent) !== fails) {
      problems.push({
        ...(yield* at('fails_in_window')),
        message: `is ${fails}, but recent '${recent}' holds ${countFails(recent)} failure(s): fails_in_window is the number of F in recent, so the two must agree.`,
      });
    }
    if (fails !== undefined && fails > 0 && raw.last_fail === undefined) {
      problems.push({
        ...(yield* at('last_fail')),
        message: `is required when fails_in_window is ${fails}: expected the time of the entry's last failure, such as 2026-09-12T21:14:00Z.`,
      });
    }
    if (raw.status === 'open' && fails !== undefined && fails > 0) {
      problems.push({
        ...(yield* at('status')),
        message: `is 'open' with ${fails} failure(s) in the window: one failure inside the window blocks the entry, so expected 'blocked'; reopen it with \`patchgate freeze reopen ${id} --reason TEXT --owner WHO\`.`,
      });
    }
  }
  return problems;
}

/**
 * zod names the type a field's schema checks first: a `record` where the
 * file needs an object (`entries`), a `number` where it needs an integer
 * (every number of this file is a count). Say what the file needs.
 */
function readableIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_type') return issue;
  if (issue.expected === 'record') return { ...issue, expected: 'object' };
  if (issue.expected === 'number') return { ...issue, expected: 'int' };
  return issue;
}

/** Parses and checks a ledger in slices; every problem is reported at once as CONTRACT_INVALID. */
export function* parseClaimLedgerSliced(
  text: string,
  file: string,
  budget: SliceBudget,
): Sliced<ClaimLedger> {
  const doc = yield* parseJsonDocumentSliced(text, file, 'CONTRACT_INVALID', budget);
  const result = yield* safeParseSliced(claimLedgerSchema, doc.value, budget, doc.keysOf);
  const problems = result.success
    ? []
    : yield* issuesToProblemsSliced(result.issues.map(readableIssue), file, claimLedgerSchema, doc, budget);
  for (const p of yield* consistencyProblems(doc.value, file, doc, budget)) problems.push(p);
  if (problems.length > 0 || !result.success) {
    throw new ContractFileError('CONTRACT_INVALID', problems.sort(byLineThenPath));
  }
  const parsed = result.data;
  // JavaScript lists integer-like keys ("42") first, whatever the text says: file order is position order.
  const located: { entry: ClaimLedgerEntry; line: number; column: number }[] = [];
  for (const id of doc.keysOf(parsed.entries)) {
    if (budget.due()) yield;
    const row = parsed.entries[id];
    if (row === undefined) continue;
    yield* doc.prepare(['entries', id], budget);
    const where = doc.locate(['entries', id], true);
    const entry: ClaimLedgerEntry = {
      id,
      status: row.status,
      failsInWindow: row.fails_in_window,
      ...(row.last_fail !== undefined ? { lastFail: row.last_fail } : {}),
      ...(row.recent !== undefined ? { recent: row.recent } : {}),
      ...(row.checks !== undefined ? { checks: [...row.checks] } : {}),
      ...(row.reopened !== undefined ? { reopened: { ...row.reopened } } : {}),
      ...(where !== undefined ? { line: where.line } : {}),
    };
    located.push({ entry, line: where?.line ?? 0, column: where?.column ?? 0 });
  }
  located.sort((a, b) => a.line - b.line || a.column - b.column);
  return {
    ...(parsed.$schema !== undefined ? { $schema: parsed.$schema } : {}),
    windowRuns: parsed.window_runs,
    entries: new Map(located.map(({ entry }) => [entry.id, entry])),
    ...(parsed.runs_recorded !== undefined ? { runsRecorded: parsed.runs_recorded } : {}),
    ...(parsed.last_run !== undefined ? { lastRun: parsed.last_run } : {}),
  };
}

/** {@link parseClaimLedgerSliced} in one go (the `record` and `freeze` commands, tests). */
export function parseClaimLedger(text: string, file: string): ClaimLedger {
  return runToEnd((budget) => parseClaimLedgerSliced(text, file, budget));
}

/** The empty ledger a human starts from, as text. */
export const EMPTY_CLAIM_LEDGER = '{"window_runs": 20, "entries": {}}';

/** Reads the ledger from a checkout or a snapshot. A missing ledger is an input error, never an empty ledger. */
export async function readClaimLedger(
  root: ContractRoot,
  file: string,
  revision: string,
  options: ContractReadOptions,
): Promise<ClaimLedger> {
  const how = `a human creates it (an empty one is ${EMPTY_CLAIM_LEDGER}, with an entry per freeze id the claim matrix names) and commits it; \`patchgate record\` keeps it up to date from CI on the main branch`;
  const text = await readContractText(root, file, revision, how, options.maxBytes);
  return runInSlices((budget) => parseClaimLedgerSliced(text, file, budget), options.signal);
}

/** One entry as written in the file: fields in a fixed order, only those it has. */
function plainEntry(e: ClaimLedgerEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { status: e.status, fails_in_window: e.failsInWindow };
  if (e.lastFail !== undefined) out.last_fail = e.lastFail;
  if (e.recent !== undefined) out.recent = e.recent;
  if (e.checks !== undefined) out.checks = [...e.checks];
  if (e.reopened !== undefined)
    out.reopened = { owner: e.reopened.owner, reason: e.reopened.reason, at: e.reopened.at };
  return out;
}

/** One entry as it appears in the file (for printing). */
export function formatClaimLedgerEntry(e: ClaimLedgerEntry): string {
  return JSON.stringify(plainEntry(e), null, 2);
}

/**
 * Serializes a ledger the same way every time: `$schema` when it has one,
 * `window_runs`, the entries in their order, then `runs_recorded` and
 * `last_run` when set; entry fields in
 * the order status, fails_in_window, last_fail, recent, checks, reopened;
 * two-space indent, final newline. Written piece by piece, because a plain
 * object would move integer-like ids to the front.
 */
export function formatClaimLedger(ledger: ClaimLedger): string {
  const parts: string[] = [];
  if (ledger.$schema !== undefined) parts.push(`  "$schema": ${JSON.stringify(ledger.$schema)}`);
  parts.push(`  "window_runs": ${JSON.stringify(ledger.windowRuns)}`);
  if (ledger.entries.size === 0) parts.push('  "entries": {}');
  else {
    const rows: string[] = [];
    for (const [id, e] of ledger.entries) {
      const body = formatClaimLedgerEntry(e).replace(/\n/g, '\n    ');
      rows.push(`    ${JSON.stringify(id)}: ${body}`);
    }
    parts.push(`  "entries": {\n${rows.join(',\n')}\n  }`);
  }
  if (ledger.runsRecorded !== undefined)
    parts.push(`  "runs_recorded": ${JSON.stringify(ledger.runsRecorded)}`);
  if (ledger.lastRun !== undefined) parts.push(`  "last_run": ${JSON.stringify(ledger.lastRun)}`);
  return `{\n${parts.join(',\n')}\n}\n`;
}

/** Equal as written: `line` is not compared, it is never written back. */
function sameLedger(a: ClaimLedger, b: ClaimLedger): boolean {
  if (
    a.$schema !== b.$schema ||
    a.windowRuns !== b.windowRuns ||
    a.runsRecorded !== b.runsRecorded ||
    a.lastRun !== b.lastRun
  )
    return false;
  const ea = [...a.entries];
  const eb = [...b.entries];
  if (ea.length !== eb.length) return false;
  return ea.every(([id, e], i) => {
    const other = eb[i];
    if (other === undefined || other[0] !== id || e.id !== id || other[1].id !== id) return false;
    return formatClaimLedgerEntry(e) === formatClaimLedgerEntry(other[1]);
  });
}

/**
 * The text to write for `ledger`, after reading it back with the same parser
 * the gate uses: a ledger that would not parse, or would not parse back to
 * itself, is our bug and is never written.
 */
export function serializeValidated(ledger: ClaimLedger, file: string): string {
  const text = formatClaimLedger(ledger);
  let back: ClaimLedger;
  try {
    back = parseClaimLedger(text, file);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new InternalError(`refusing to write ${file}: the updated ledger does not validate: ${why}`, {
      cause: err,
    });
  }
  if (!sameLedger(ledger, back) || formatClaimLedger(back) !== text) {
    throw new InternalError(`refusing to write ${file}: the updated ledger does not read back as written`);
  }
  return text;
}

export interface RecordRunInput {
  /** Per entry id. An entry not listed did not appear in the run (`-`). */
  results: ReadonlyMap<string, RunResult>;
  /** When the run happened, `YYYY-MM-DDTHH:MM:SSZ`; becomes `last_fail` of every entry that failed. */
  at: string;
  /** The CI run's id; a run already recorded as `last_run` is refused. */
  runId?: string;
}

export interface StatusChange {
  id: string;
  from: ClaimStatus;
  to: ClaimStatus;
  result: RunResult;
}

/** `entries` order, for messages. */
function knownIds(ledger: ClaimLedger): string {
  const ids = [...ledger.entries.keys()];
  return ids.length === 0 ? 'the ledger has no entries' : `known ids: ${ids.join(', ')}`;
}

/** An entry without `line`: it came from the file, it is not in it any more once changed. */
/** The entry with a new window: its status, the window's results and their failures, and the last failure. */
function withWindow(
  before: ClaimLedgerEntry,
  status: ClaimStatus,
  recent: string,
  lastFail: string | undefined,
): ClaimLedgerEntry {
  return {
    ...unlocated(before),
    status,
    failsInWindow: countFails(recent),
    recent,
    ...(lastFail !== undefined ? { lastFail } : {}),
  };
}

function unlocated(e: ClaimLedgerEntry): ClaimLedgerEntry {
  const { line: _line, ...rest } = e;
  return rest;
}

/**
 * Adds one CI run to the ledger. Pure: the time and the run id are passed in.
 *
 * Per entry, the run's result (`P`, `F`, or `-` for an entry the run did not
 * report) is appended to `recent`, and the oldest results are dropped so
 * `recent` holds at most `windowRuns`: the window slides by runs, never by
 * wall time. `failsInWindow` becomes the number of `F` in it, and a failure
 * sets `lastFail` to `at`.
 *
 * An entry without `recent` but with failures (written by hand, or by the
 * seed's script) starts its window as that many `F`, the newest runs of the
 * window: the failures are kept as given and slide out as later runs are
 * recorded, no sooner than they could have.
 *
 * An open entry with a failure in its window becomes blocked. A blocked
 * entry stays blocked whatever passes follow, even once its failures have
 * slid out of the window: only `reopenEntry` (a human) opens it.
 *
 * `runsRecorded` grows by one and `lastRun` becomes `runId` (absent when the
 * run has none). A `runId` equal to `lastRun` is refused: recording one run
 * twice would count its failures twice. A result for an id the ledger does
 * not have is refused too: it would be dropped silently.
 */
export function recordRun(
  ledger: ClaimLedger,
  input: RecordRunInput,
): { ledger: ClaimLedger; changes: StatusChange[] } {
  const { results, at, runId } = input;
  if (!isTimestamp(at)) throw new InputError('USAGE', `the run's time: ${timestampProblem(at)}`, { at });
  if (runId !== undefined && runId.trim() === '')
    throw new InputError('USAGE', 'the run id must not be empty or blank', { runId });
  if (runId !== undefined && runId === ledger.lastRun) {
    throw new InputError(
      'USAGE',
      `run ${runId} is already recorded (it is the ledger's last_run): recording one run twice would count its failures twice`,
      { runId },
    );
  }
  const unknown = [...results.keys()].filter((id) => !ledger.entries.has(id));
  if (unknown.length > 0) {
    throw new InputError(
      'USAGE',
      `results for ${unknown.map((id) => `'${id}'`).join(', ')}, which the ledger has no entry for (${knownIds(ledger)})`,
      { unknown },
    );
  }
  const entries = new Map<string, ClaimLedgerEntry>();
  const changes: StatusChange[] = [];
  for (const [id, before] of ledger.entries) {
    const result = results.get(id) ?? 'absent';
    const start = before.recent ?? 'F'.repeat(before.failsInWindow);
    const recent = (start + RESULT_CHAR[result]).slice(-ledger.windowRuns);
    const failsInWindow = countFails(recent);
    const status: ClaimStatus = before.status === 'open' && failsInWindow > 0 ? 'blocked' : before.status;
    const lastFail = result === 'fail' ? at : before.lastFail;
    entries.set(id, withWindow(before, status, recent, lastFail));
    if (status !== before.status) changes.push({ id, from: before.status, to: status, result });
  }
  const next: ClaimLedger = {
    ...(ledger.$schema !== undefined ? { $schema: ledger.$schema } : {}),
    windowRuns: ledger.windowRuns,
    entries,
    runsRecorded: (ledger.runsRecorded ?? 0) + 1,
    ...(runId !== undefined ? { lastRun: runId } : {}),
  };
  return { ledger: next, changes };
}

/** One main-branch run the window is computed from: when, which CI run, and each entry's result in it. */
export interface WindowRun {
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  at: string;
  runId?: string;
  results: ReadonlyMap<string, RunResult>;
}

/**
 * Every entry's window computed afresh from the main branch's recorded runs
 * (the run history), oldest first, rather than carried forward one `record`
 * at a time: the last `window_runs` runs after the entry's last reopen. A
 * run a `record` job missed (a job that failed to commit the ledger) still
 * counts. It can only block: a blocked entry stays blocked, and an open one
 * is blocked by any failure since its last reopen (as `record` would have
 * blocked it then); only a human reopens.
 */
export function windowFromRuns(
  ledger: ClaimLedger,
  runs: readonly WindowRun[],
): { ledger: ClaimLedger; changes: StatusChange[] } {
  for (const r of runs)
    if (!isTimestamp(r.at))
      throw new InputError('USAGE', `a run's time: ${timestampProblem(r.at)}`, { at: r.at });
  const entries = new Map<string, ClaimLedgerEntry>();
  const changes: StatusChange[] = [];
  for (const [id, before] of ledger.entries) {
    if (before.status === 'blocked') {
      // A blocked entry keeps the window that blocked it until a human reopens it.
      entries.set(id, unlocated(before));
      continue;
    }
    const since = before.reopened?.at;
    const counted = runs.filter((r) => since === undefined || r.at > since);
    const window = counted.slice(-ledger.windowRuns);
    const recent = window.map((r) => RESULT_CHAR[r.results.get(id) ?? 'absent']).join('');
    // A failure blocked the entry when it happened, even one the window has since slid past.
    const failed = counted.filter((r) => r.results.get(id) === 'fail').at(-1);
    const status: ClaimStatus = failed ? 'blocked' : 'open';
    const lastFail = failed?.at ?? before.lastFail;
    entries.set(id, withWindow(before, status, recent, lastFail));
    if (status !== before.status) changes.push({ id, from: before.status, to: status, result: 'fail' });
  }
  const last = runs.at(-1);
  return {
    ledger: {
      ...(ledger.$schema !== undefined ? { $schema: ledger.$schema } : {}),
      windowRuns: ledger.windowRuns,
      entries,
      runsRecorded: Math.max(ledger.runsRecorded ?? 0, runs.length),
      ...(last?.runId !== undefined
        ? { lastRun: last.runId }
        : ledger.lastRun !== undefined
          ? { lastRun: ledger.lastRun }
          : {}),
    },
    changes,
  };
}

/**
 * A human reopens a blocked entry: it is open again, its window starts empty
 * (`recent` '', no failures: the failures that blocked it were looked at by
 * the person named here), `lastFail` is kept for the record, and `reopened`
 * says who, why and when. Pure: the time is passed in.
 */
export function reopenEntry(ledger: ClaimLedger, id: string, reopen: ClaimReopen): ClaimLedger {
  const before = ledger.entries.get(id);
  if (before === undefined) {
    throw new InputError('USAGE', `no entry '${id}' in the ledger (${knownIds(ledger)})`, {
      id,
      known: [...ledger.entries.keys()],
    });
  }
  if (before.status !== 'blocked') {
    throw new InputError(
      'USAGE',
      `entry '${id}' is not blocked (it is ${before.status}): only a blocked entry is reopened`,
      { id, status: before.status },
    );
  }
  if (reopen.owner.trim() === '')
    throw new InputError('USAGE', 'a reopen needs an owner: who reopens the entry');
  if (reopen.reason.trim() === '')
    throw new InputError('USAGE', 'a reopen needs a reason: why the entry may vote again');
  if (!isTimestamp(reopen.at))
    throw new InputError('USAGE', `the reopen's time: ${timestampProblem(reopen.at)}`, { at: reopen.at });
  const entries = new Map<string, ClaimLedgerEntry>();
  for (const [key, e] of ledger.entries) {
    entries.set(
      key,
      key !== id
        ? e
        : {
            ...unlocated(e),
            status: 'open',
            failsInWindow: 0,
            recent: '',
            reopened: { owner: reopen.owner, reason: reopen.reason, at: reopen.at },
          },
    );
  }
  return { ...ledger, entries };
}
