/**
 * Candidates for languages patchgate has no parser for (Go, Rust, Java,
 * Ruby, C, shell, YAML, …): a heuristic over each added line's text. It reads
 * lines, not syntax, so it can both miss and over-report; what it looks for:
 *
 * - lines that are only a comment (`//`, `#`, `/*`, `*`, `--`, `;`, `%`,
 *   `<!--`) and blank lines are skipped;
 * - `return` as a word (not `.return`, not `return_x`) → `return`;
 * - `throw` → `throw`, with the class when it reads `throw new X` / `throw X`
 *   and X starts with a capital; `panic(` / `panic!(` → `throw`, detail
 *   `panic`;
 * - `raise` → `raise`, with the class the same way (Ruby, Elixir);
 * - `Err(` → `error-type`, detail what it wraps (`Err(Error::Timeout)` →
 *   `Error::Timeout`) or `Err`; `errors.New(` and `fmt.Errorf(` →
 *   `error-type`, detail the call;
 * - a number from 100 to 599 right after a word with `status` in it, a word
 *   ending in `code`, or `WriteHeader`, separated by `:`, `=`, `=>`, `(` or
 *   `,` (`status: 504`, `StatusCode = 504`, `WriteHeader(504)`; not `code ==
 *   504`) → `status`, detail `status 504`;
 * - a comparison operator changed: an added line and a removed line of the
 *   same hunk that read the same once their comparison operators (`<` `<=`
 *   `>` `>=` `==` `!=` `===` `!==`) are set aside, with different operators
 *   → `comparison`, detail `<= became <`. A new comparison alone is not
 *   reported: without a parser every `<` of a generic would be one.
 *
 * No enclosing symbol is given, so a claim covers these files by path.
 */

import type { Hunk } from '../../../git/hunks.js';
import { type Candidate, type CandidateKind, clip, isStatusCode, squash } from './candidates.js';

const COMMENT = /^(?:\/\/|#|\/\*|\*|--|;|%|<!--)/;
const RETURN = /(?:^|[^\w$.])return\b/;
const THROW = /(?:^|[^\w$.])throw\b(?:\s+new)?\s*([A-Za-z_$][\w$.:]*)?/;
const RAISE = /(?:^|[^\w$.])raise\b\s*([A-Za-z_][\w.:]*)?/;
const PANIC = /(?:^|[^\w$.])panic!?\s*\(/;
const ERR = /(?:^|[^\w$.])Err\s*\(\s*([A-Za-z_][\w:.]*)?/;
const GO_ERROR = /\b(errors\.New|fmt\.Errorf)\s*\(/;
const STATUS =
  /\b(?:\w*status\w*|\w*code|writeheader)['"]?\s*(?::|=>|=(?!=)|\(|,)\s*([1-5][0-9]{2})(?![\w.])/gi;
/** Comparison operators, and the look-alikes a comparison never is (kept as text). */
const OPERATOR = /===|!==|==|!=|<=|>=|=>|->|<-|<<|>>|<|>/g;
const COMPARISON = new Set(['===', '!==', '==', '!=', '<=', '>=', '<', '>']);

/** The class in `throw new X` / `raise X` when it reads as one (a capital at the start of its last part). */
function className(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const last = name.split(/\.|::/).pop() ?? '';
  return /^[A-Z]/.test(last) ? name : undefined;
}

/** A line with its comparison operators set aside, and those operators in order. */
export function operatorSkeleton(text: string): { skeleton: string; operators: string[] } {
  const operators: string[] = [];
  const skeleton = squash(
    text.replace(OPERATOR, (op) => {
      if (!COMPARISON.has(op)) return op;
      operators.push(op);
      return ' \u0000 ';
    }),
  );
  return { skeleton, operators };
}

/** The candidates of the added lines of one file's hunks, by the line heuristic above. */
export function lineCandidates(file: string, hunks: readonly Hunk[]): Candidate[] {
  const out: Candidate[] = [];
  for (const hunk of hunks) {
    const removed = hunk.removed.map((r) => operatorSkeleton(r.text));
    for (const { line, text } of hunk.added) {
      const code = text.trim();
      if (code === '' || COMMENT.test(code)) continue;
      const add = (kind: CandidateKind, detail?: string) =>
        out.push({ file, line, kind, text: clip(code), ...(detail !== undefined ? { detail } : {}) });
      if (RETURN.test(code)) add('return');
      const thrown = THROW.exec(code);
      if (thrown) add('throw', className(thrown[1]));
      else if (PANIC.test(code)) add('throw', 'panic');
      const raised = RAISE.exec(code);
      if (raised) add('raise', className(raised[1]));
      const err = ERR.exec(code);
      if (err) add('error-type', err[1] ?? 'Err');
      const goError = GO_ERROR.exec(code);
      if (goError) add('error-type', goError[1]);
      for (const m of code.matchAll(STATUS)) {
        const value = Number(m[1]);
        if (isStatusCode(value)) add('status', `status ${value}`);
      }
      const mine = operatorSkeleton(code);
      if (mine.operators.length === 0) continue;
      for (const r of removed) {
        if (r.skeleton !== mine.skeleton || r.operators.length !== mine.operators.length) continue;
        const i = mine.operators.findIndex((op, k) => op !== r.operators[k]);
        if (i < 0) continue;
        add('comparison', `${r.operators[i]} became ${mine.operators[i]}`);
        break;
      }
    }
  }
  return out;
}
