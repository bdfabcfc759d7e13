/**
 * Claim candidates from the production delta: the new returns, throws and raises, status codes,
 * persisted fields and changed comparisons on the added lines of the
 * production hunks. Each one is a place where a human writes a claim with a
 * bound ("never exceeds", "maps to 504"); patchgate only points at them.
 *
 * Per language (see docs/claims-suggest.md):
 * - TypeScript / JavaScript: the compiler's AST (`candidates-js.ts`);
 * - Python: Python's own `ast`, in the sandbox (`candidates-python.ts`);
 * - prose (Markdown, reStructuredText, plain text): nothing;
 * - anything else: a line heuristic (`candidates-lines.ts`).
 *
 * Nothing here runs the patch's code: files are parsed, never loaded.
 */

import type { Hunk } from '../../../git/hunks.js';
import { pushAll } from '../../../util/arrays.js';
import { byCodePoint } from '../../../util/compare.js';
import { loadTypescript } from '../../../util/typescript.js';
import { jsCandidates } from './candidates-js.js';
import { lineCandidates } from './candidates-lines.js';
import { type PythonCandidates, type PythonSource, pythonCandidatesFor } from './candidates-python.js';
import { languageOf, type Span } from './symbols.js';

export type CandidateKind = 'return' | 'throw' | 'raise' | 'status' | 'error-type' | 'field' | 'comparison';

export const CANDIDATE_KINDS: readonly CandidateKind[] = [
  'return',
  'throw',
  'raise',
  'status',
  'error-type',
  'field',
  'comparison',
];

export interface Candidate {
  file: string;
  /** 1-based line in the head. */
  line: number;
  kind: CandidateKind;
  /** The code on that line, trimmed, at most 120 characters. */
  text: string;
  /** The enclosing function, method or class: `Invoice.total`, `apply_refund`. */
  symbol?: string;
  /**
   * `InvoiceError` (the class of a throw, raise or error-type), `status 504`,
   * `new field refunded_cents`, `a <= b became a < b`, `new comparison a < b`.
   */
  detail?: string;
}

export interface NumberedCandidate extends Candidate {
  /** C1..Cn, in file then line order. */
  id: string;
}

/** A file that could not be read for candidates (Python's SyntaxError, a parser that did not run). */
export interface SuggestWarning {
  file?: string;
  line?: number;
  message: string;
}

export interface SuggestInput {
  /** Production hunks only: the caller leaves the test side out. */
  hunks: readonly Hunk[];
  /** The head's text of a file; undefined when the head has none (deleted). */
  readHead(file: string): Promise<string | undefined>;
  /** The base's text of a file; undefined when the base has none (added). */
  readBase(file: string): Promise<string | undefined>;
  /** Python's facts, from the sandboxed `ast` adapter (`sandboxedPythonCandidates`). */
  python: PythonCandidates;
}

export interface Suggestion {
  candidates: NumberedCandidate[];
  warnings: SuggestWarning[];
  /** The head's symbol spans per file (TypeScript/JavaScript and Python), for coverage. */
  spans: Map<string, Span[]>;
}

export const TEXT_MAX = 120;

/** One line of code for a candidate: trimmed, control characters out, at most 120 characters. */
export function clip(text: string, max = TEXT_MAX): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  const t = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').trim();
  const chars = [...t];
  return chars.length <= max ? t : `${chars.slice(0, max - 1).join('')}…`;
}

/** Whitespace runs as one space: operands compared across a reformatted line. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The text of 1-based `line` of `text`. */
export function lineAt(lines: readonly string[], line: number): string {
  return (lines[line - 1] ?? '').replace(/\r$/, '');
}

export function splitLines(text: string): string[] {
  return text.split('\n');
}

/** An HTTP-like status: a whole number from 100 to 599. */
export function isStatusCode(n: number): boolean {
  return Number.isInteger(n) && n >= 100 && n <= 599;
}

/** Names a status is held under: `status`, `statusCode`, `status_code`, `code`, `httpStatus`. */
export const STATUS_NAME =
  /^(?:status|statuscode|status_code|code|httpstatus|http_status|httpcode|http_code)$/i;

export interface Comparison {
  left: string;
  op: string;
  right: string;
}

const MIRROR: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function shown(c: Comparison): string {
  const side = (s: string) => clip(s, 40);
  return `${side(c.left)} ${c.op} ${side(c.right)}`;
}

/**
 * What an added comparison is next to the comparisons of the removed lines of
 * its hunk: undefined when one of them is the same comparison (operands
 * swapped with the operator mirrored counts as the same); `a <= b became a <
 * b` when one has the same operands and another operator; `new comparison a
 * < b` otherwise.
 */
export function comparisonDetail(added: Comparison, removed: readonly Comparison[]): string | undefined {
  const l = squash(added.left);
  const r = squash(added.right);
  let changed: Comparison | undefined;
  for (const c of removed) {
    const cl = squash(c.left);
    const cr = squash(c.right);
    let op: string | undefined;
    if (cl === l && cr === r) op = c.op;
    else if (cl === r && cr === l) op = MIRROR[c.op] ?? c.op;
    if (op === undefined) continue;
    if (op === added.op) return undefined;
    changed ??= c;
  }
  return changed ? `${shown(changed)} became ${shown(added)}` : `new comparison ${shown(added)}`;
}

const KIND_ORDER = new Map(CANDIDATE_KINDS.map((k, i) => [k, i]));

export function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    byCodePoint(a.file, b.file) ||
    a.line - b.line ||
    (KIND_ORDER.get(a.kind) ?? 0) - (KIND_ORDER.get(b.kind) ?? 0) ||
    byCodePoint(a.detail ?? '', b.detail ?? '') ||
    byCodePoint(a.text, b.text)
  );
}

/** Sorted by file then line, one of each (file, line, kind, detail), numbered C1..Cn. */
export function numberCandidates(candidates: readonly Candidate[]): NumberedCandidate[] {
  const seen = new Set<string>();
  const out: NumberedCandidate[] = [];
  for (const c of [...candidates].sort(compareCandidates)) {
    const key = JSON.stringify([c.file, c.line, c.kind, c.detail ?? null]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id: `C${out.length + 1}`, ...c });
  }
  return out;
}

/** Hunks grouped by file, in the order the files first appear. */
function byFile(hunks: readonly Hunk[]): Map<string, Hunk[]> {
  const out = new Map<string, Hunk[]>();
  for (const h of hunks) {
    const list = out.get(h.file);
    if (list) list.push(h);
    else out.set(h.file, [h]);
  }
  return out;
}

/** The candidates of the production hunks, numbered C1..Cn in file then line order. */
export async function suggestClaims(input: SuggestInput): Promise<Suggestion> {
  const found: Candidate[] = [];
  const warnings: SuggestWarning[] = [];
  const spans = new Map<string, Span[]>();
  const python: { file: string; hunks: Hunk[]; head: string; base: string | undefined }[] = [];
  for (const [file, hunks] of byFile(input.hunks)) {
    const lang = languageOf(file);
    if (lang === 'prose') continue;
    const head = await input.readHead(file);
    if (head === undefined) continue; // deleted: nothing new to claim
    const base = await input.readBase(file);
    if (lang === 'js') {
      const r = jsCandidates(await loadTypescript(), file, hunks, head, base);
      pushAll(found, r.candidates);
      spans.set(file, r.spans);
    } else if (lang === 'python') python.push({ file, hunks, head, base });
    else pushAll(found, lineCandidates(file, hunks));
  }
  if (python.length > 0) {
    const sources: PythonSource[] = [];
    for (const p of python) {
      sources.push({ file: p.file, side: 'head', text: p.head });
      if (p.base !== undefined) sources.push({ file: p.file, side: 'base', text: p.base });
    }
    let facts: Awaited<ReturnType<PythonCandidates>> | undefined;
    try {
      facts = await input.python(sources);
    } catch (err) {
      warnings.push({
        message: `Python files were read by the line heuristic instead of Python's ast: ${(err as Error).message}`,
      });
    }
    for (const p of python) {
      if (!facts) {
        pushAll(found, lineCandidates(p.file, p.hunks));
        continue;
      }
      const at = (side: 'head' | 'base') =>
        facts[sources.findIndex((s) => s.file === p.file && s.side === side)];
      const head = at('head');
      if (!head?.ok) {
        warnings.push({
          file: p.file,
          ...(head?.line !== undefined ? { line: head.line } : {}),
          message: `${head?.error ?? 'no answer from the Python parser'}; no candidates from this file`,
        });
        continue;
      }
      const base = p.base === undefined ? undefined : at('base');
      pushAll(found, pythonCandidatesFor(p.file, p.hunks, p.head, head, base?.ok ? base : undefined));
      spans.set(p.file, head.spans);
    }
  }
  return { candidates: numberCandidates(found), warnings, spans };
}
