/**
 * Python candidates, from Python's own `ast`: `patchgate_claims.py` parses
 * the committed text of each file (head and base, copied into a private io
 * folder, never a checkout head code could have rewritten) in the sandbox,
 * under `-I -S` so nothing from the repository is importable. One process
 * for every file. It reports facts (returns, raises, status literals,
 * fields, comparisons, and the spans of functions and classes); this side
 * keeps the facts on added lines and decides what is new:
 *
 * - `return`, `raise` (detail: the raised class), `status` (detail `status
 *   504`) on an added line, unless the hunk's removed lines held the same
 *   statement (same code) or the same status number: the line was rewritten
 *   around it;
 * - `field` on an added line whose name the base's facts never had as a field
 *   ("new field refunded_cents");
 * - `comparison` on an added line, against the base's comparisons on the
 *   hunk's removed lines: `a <= b became a < b`, or `new comparison a < b`,
 *   or nothing when the same comparison was there.
 *
 * A file Python cannot parse is answered with its SyntaxError and line; the
 * caller turns that into a warning with no candidates, never a crash.
 *
 * The adapter takes a sandbox (which gives head code its environment), a
 * log folder, a signal and the interpreter rather than a whole LayerContext, so the CLI can call it.
 */
import type { Hunk } from '../../../git/hunks.js';
import { parsePythonTexts } from '../../../runners/harness/python-parse.js';
import type { Sandbox } from '../../../sandbox/sandbox.js';
import { shippedPythonFile } from '../../../util/package-root.js';
import {
  type Candidate,
  type CandidateKind,
  clip,
  comparisonDetail,
  lineAt,
  splitLines,
  squash,
} from './candidates.js';
import type { Span } from './symbols.js';

export const PYTHON_CLAIMS_PATH: string = shippedPythonFile('patchgate_claims.py');

export interface PythonSource {
  file: string;
  side: 'head' | 'base';
  text: string;
}

export interface PythonItem {
  line: number;
  kind: 'return' | 'raise' | 'status' | 'field' | 'comparison';
  /** The enclosing function or class, `Class.method`. */
  symbol?: string;
  /** return, raise: the statement as `ast.unparse` writes it. */
  code?: string;
  /** raise: the raised class. */
  cls?: string;
  /** status: the number. */
  value?: number;
  /** field: the key or attribute. */
  name?: string;
  /** comparison: operator and operands (as `ast.unparse` writes them). */
  op?: string;
  left?: string;
  right?: string;
}

export type PythonFacts =
  | { ok: true; items: PythonItem[]; spans: Span[] }
  | { ok: false; error: string; line?: number };

/** Python's facts for each source, in the order given. */
export type PythonCandidates = (sources: readonly PythonSource[]) => Promise<PythonFacts[]>;

export interface PythonAdapterOptions {
  sandbox: Sandbox;
  /** Receives the io folder and the parser's logs. */
  logDir: string;
  signal?: AbortSignal;
  /** The interpreter (`claims.python`), looked up on PATH. */
  python: string;
}

const KINDS = new Set(['return', 'raise', 'status', 'field', 'comparison']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isLine = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** One file's answer, checked field by field: anything malformed is dropped, never trusted. */
export function readFacts(answer: unknown): PythonFacts {
  if (!isObject(answer)) return { ok: false, error: 'no answer from the Python parser' };
  if (typeof answer.error === 'string')
    return { ok: false, error: answer.error, ...(isLine(answer.line) ? { line: answer.line } : {}) };
  const items: PythonItem[] = [];
  for (const raw of Array.isArray(answer.items) ? answer.items : []) {
    if (!isObject(raw) || !isLine(raw.line) || typeof raw.kind !== 'string' || !KINDS.has(raw.kind)) continue;
    const item: PythonItem = { line: raw.line, kind: raw.kind as PythonItem['kind'] };
    for (const key of ['symbol', 'code', 'cls', 'name', 'op', 'left', 'right'] as const) {
      const v = str(raw[key]);
      if (v !== undefined) item[key] = v;
    }
    if (typeof raw.value === 'number') item.value = raw.value;
    items.push(item);
  }
  const spans: Span[] = [];
  for (const raw of Array.isArray(answer.spans) ? answer.spans : []) {
    if (isObject(raw) && typeof raw.name === 'string' && isLine(raw.start) && isLine(raw.end))
      spans.push({ name: raw.name, start: raw.start, end: raw.end });
  }
  return { ok: true, items, spans };
}

/**
 * The sandboxed adapter: every source in one `python -I -S
 * patchgate_claims.py` run. Throws when the parser gives no answer at all
 * (interpreter missing, killed); a file it cannot parse is an `ok: false`.
 */
export function sandboxedPythonCandidates(opts: PythonAdapterOptions): PythonCandidates {
  return async (sources) => {
    if (sources.length === 0) return [];
    const answer = await parsePythonTexts({
      ...opts,
      label: 'claims-python',
      script: PYTHON_CLAIMS_PATH,
      texts: new Map(sources.map((s, i) => [String(i + 1), s.text])),
    });
    return sources.map((_, i) => readFacts(answer[String(i + 1)]));
  };
}

/** What makes a return, raise or status the same on both sides of a rewritten line. */
function itemKey(i: PythonItem): string | undefined {
  if ((i.kind === 'return' || i.kind === 'raise') && i.code !== undefined)
    return `${i.kind} ${squash(i.code)}`;
  if (i.kind === 'status' && i.value !== undefined) return `status ${i.value}`;
  return undefined;
}

/** The candidates of one Python file: its head facts on added lines, against its base facts. */
export function pythonCandidatesFor(
  file: string,
  hunks: readonly Hunk[],
  headText: string,
  head: Extract<PythonFacts, { ok: true }>,
  base: Extract<PythonFacts, { ok: true }> | undefined,
): Candidate[] {
  const addedIn = new Map<number, number>();
  const removedIn = new Map<number, number>();
  hunks.forEach((h, i) => {
    for (const a of h.added) addedIn.set(a.line, i);
    for (const r of h.removed) removedIn.set(r.line, i);
  });
  const baseFields = new Set(
    (base?.items ?? []).filter((i) => i.kind === 'field' && i.name).map((i) => i.name as string),
  );
  const removedComparisons = new Map<number, { left: string; op: string; right: string }[]>();
  const removedKeys = new Map<number, Set<string>>();
  for (const i of base?.items ?? []) {
    const hunk = removedIn.get(i.line);
    if (hunk === undefined) continue;
    if (i.kind === 'comparison' && i.op !== undefined) {
      const list = removedComparisons.get(hunk) ?? [];
      list.push({ left: i.left ?? '', op: i.op, right: i.right ?? '' });
      removedComparisons.set(hunk, list);
    }
    const key = itemKey(i);
    if (key !== undefined) removedKeys.set(hunk, (removedKeys.get(hunk) ?? new Set<string>()).add(key));
  }
  /** A return, raise or status the hunk's removed lines already held (the line changed around it). */
  const carried = (item: PythonItem, hunk: number) => {
    const key = itemKey(item);
    return key !== undefined && (removedKeys.get(hunk)?.has(key) ?? false);
  };
  const lines = splitLines(headText);
  const out: Candidate[] = [];
  const add = (item: PythonItem, kind: CandidateKind, detail: string | undefined) =>
    out.push({
      file,
      line: item.line,
      kind,
      text: clip(lineAt(lines, item.line)),
      ...(item.symbol !== undefined ? { symbol: item.symbol } : {}),
      ...(detail !== undefined ? { detail } : {}),
    });
  for (const item of head.items) {
    const hunk = addedIn.get(item.line);
    if (hunk === undefined || carried(item, hunk)) continue;
    if (item.kind === 'return') add(item, 'return', undefined);
    else if (item.kind === 'raise') add(item, 'raise', item.cls);
    else if (item.kind === 'status' && item.value !== undefined) add(item, 'status', `status ${item.value}`);
    else if (item.kind === 'field' && item.name !== undefined && !baseFields.has(item.name))
      add(item, 'field', `new field ${item.name}`);
    else if (item.kind === 'comparison' && item.op !== undefined) {
      const detail = comparisonDetail(
        { left: item.left ?? '', op: item.op, right: item.right ?? '' },
        removedComparisons.get(hunk) ?? [],
      );
      if (detail !== undefined) add(item, 'comparison', detail);
    }
  }
  return out;
}
