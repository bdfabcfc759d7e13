/**
 * A mutant of the mutation probe, whatever language it was made from: what
 * it edits, its identity, and the deterministic choice of which to run when
 * there are more than the budget.
 */

export type MutationOperator =
  | 'flip-comparison'
  | 'flip-boolean'
  | 'swap-arithmetic'
  | 'negate-return'
  | 'constant-return'
  | 'raise'
  | 'drop-statement';

export const MUTATION_OPERATORS: readonly MutationOperator[] = [
  'flip-comparison',
  'flip-boolean',
  'swap-arithmetic',
  'negate-return',
  'constant-return',
  'raise',
  'drop-statement',
];

/** Lines of one side of a hunk, 1-based and inclusive. */
export interface LineRange {
  start: number;
  end: number;
}

/** A function with a body, named so that the same function has the same key on both revisions. */
export interface FunctionSite {
  /** Its enclosing classes and functions and its own name, joined by `.`: `Invoice.total`, `parse.<arrow 1>`. */
  key: string;
  startLine: number;
  endLine: number;
}

/** A mutant as a language's parser finds it, before it has an id. */
export interface RawMutant {
  operator: MutationOperator;
  /** 1-based line of the edit. */
  line: number;
  /** The source offsets replaced (UTF-16 code units, as JavaScript counts), and what replaces them. */
  start: number;
  end: number;
  replacement: string;
  /** The expression or statement as written, and as the mutant makes it (for the report). */
  original: string;
  mutated: string;
}

export interface Mutant extends RawMutant {
  /** Same function, operator, text before and after, line and ordinal: the same mutant on either revision (see withIds). */
  id: string;
  function: string;
}

/** Blanks collapsed: an identity that does not move with indentation. */
function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The text of the line the edit starts on, blanks collapsed. */
function lineAt(text: string, offset: number): string {
  const from = text.lastIndexOf('\n', offset - 1) + 1;
  const to = text.indexOf('\n', offset);
  return squash(text.slice(from, to < 0 ? text.length : to));
}

/**
 * Gives each mutant of function `fn` of `text` its id: the function, the
 * operator, the code before and after the edit, the line it is on (blanks
 * collapsed, so re-indenting keeps it) and the ordinal of that edit on such
 * a line. The line is part of it so that a patch adding the same
 * expression elsewhere in the function (`if not sensitive` in a new logging
 * line above the old one) does not pair the new copy with the old one.
 */
export function withIds(fn: string, raw: readonly RawMutant[], text: string): Mutant[] {
  const sorted = [...raw].sort(
    (a, b) => a.start - b.start || a.end - b.end || a.operator.localeCompare(b.operator),
  );
  const ordinals = new Map<string, number>();
  return sorted.map((m) => {
    const base = `${fn}|${m.operator}|${squash(m.original)}→${squash(m.mutated)}|${lineAt(text, m.start)}`;
    const k = (ordinals.get(base) ?? 0) + 1;
    ordinals.set(base, k);
    return { id: `${base}|${k}`, function: fn, ...m };
  });
}

export function applyMutant(text: string, m: Pick<Mutant, 'start' | 'end' | 'replacement'>): string {
  return text.slice(0, m.start) + m.replacement + text.slice(m.end);
}

/**
 * At most `max` of `mutants`, chosen the same way every time: one per
 * function in turn (so every changed function is probed), within a function
 * one per operator in turn, each nearest the lines the patch changed first
 * (`distance`: the budget goes where the patch is, as diff-based mutation
 * testing mutates the changed lines), then in id order. The rest are
 * counted, not silently dropped.
 */
export function chooseMutants<M extends Pick<Mutant, 'id' | 'function' | 'operator'>>(
  mutants: readonly M[],
  max: number,
  distance: (m: M) => number = () => 0,
): { chosen: M[]; skipped: number } {
  const byFunction = new Map<string, Map<string, M[]>>();
  const order = (a: M, b: M) => distance(a) - distance(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const m of [...mutants].sort(order)) {
    const ops = byFunction.get(m.function) ?? new Map<string, M[]>();
    byFunction.set(m.function, ops);
    const list = ops.get(m.operator) ?? [];
    ops.set(m.operator, list);
    list.push(m);
  }
  // Per function, its mutants interleaved across operators.
  const queues = [...byFunction.keys()].sort().map((f) => {
    const lists = [...(byFunction.get(f) as Map<string, M[]>).entries()]
      .sort(
        ([a], [b]) =>
          MUTATION_OPERATORS.indexOf(a as MutationOperator) -
          MUTATION_OPERATORS.indexOf(b as MutationOperator),
      )
      .map(([, l]) => l);
    const out: M[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++)
      for (const l of lists) if (i < l.length) out.push(l[i] as M);
    return out;
  });
  const chosen: M[] = [];
  for (let i = 0; chosen.length < max && queues.some((q) => i < q.length); i++)
    for (const q of queues) {
      if (chosen.length >= max) break;
      if (i < q.length) chosen.push(q[i] as M);
    }
  return { chosen, skipped: mutants.length - chosen.length };
}
