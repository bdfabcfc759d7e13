/**
 * What the head took away from a test file: the base's and the head's facts
 * (model.ts) compared, test by test (matched by name, then a renamed test by
 * its code), and file-wide (hooks, mocks, include and exclude lists, marks on
 * the whole file). Pure: facts in, edits out, in a deterministic order.
 *
 * What counts (docs/test-edits.md):
 * - an assertion removed, or replaced by one of a lower rank (ranking.ts), or
 *   the literal it expects changed, or wrapped in a construct that swallows
 *   its failure;
 * - a skip, skipif, xfail, todo or only mark added;
 * - the example count lowered (an explicit count, a file's profile, or one
 *   removed where the base asked for more than the runner's default of 100),
 *   generation turned off, an explicit example removed;
 * - a strategy or arbitrary narrowed: a fixed value in place of a generator,
 *   a filter or an `assume` / `fc.pre` added, bounds tightened, a restricting
 *   argument added (for a collection, its elements too); one whose function
 *   changed is reported as changed; one only widened is not reported;
 * - cases of a literal parametrize or `each` table removed;
 * - a hook added or changed, a mock or global write added outside any test,
 *   an exclude entry added or an include entry taken away;
 * - a test deleted, a file deleted, a file that no longer parses.
 */
import type {
  Assertion,
  EditKind,
  ExampleCount,
  FileFacts,
  Generator,
  Mark,
  TestEdit,
  Unit,
} from './model.js';
import { rankOf, rankWords } from './ranking.js';

/** What Hypothesis (max_examples) and fast-check (numRuns) run when nothing says otherwise. */
export const DEFAULT_EXAMPLES = 100;
/** Two tests whose statements overlap this much (Jaccard) are one test renamed. */
export const RENAME_SIMILARITY = 0.5;
const SNIPPET = 80;

export interface FilePair {
  /** The head's path; the base's for a deleted file. */
  file: string;
  /** The base's path (the same, but for a rename). */
  baseFile: string;
  base?: FileFacts;
  head?: FileFacts;
  /** The word for a generator in this language. */
  term: 'strategy' | 'arbitrary';
  /** Whether the file holds tests the runner collects (not a conftest, a setup or a config file). */
  holdsTests: boolean;
}

export interface FileComparison {
  edits: TestEdit[];
  /** The base's tests with no counterpart in the head's copy (perhaps moved to another file). */
  gone: Unit[];
  /** The head's tests with no counterpart in the base's copy. */
  added: Unit[];
}

/** Code shown in a description: one line, cut short. */
export function snippet(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return `\`${flat.length <= SNIPPET ? flat : `${flat.slice(0, SNIPPET - 1)}…`}\``;
}

function multisetMinus<T>(from: readonly T[], take: readonly T[], key: (x: T) => string): T[] {
  const left = new Map<string, number>();
  for (const t of take) left.set(key(t), (left.get(key(t)) ?? 0) + 1);
  const out: T[] = [];
  for (const f of from) {
    const n = left.get(key(f)) ?? 0;
    if (n > 0) left.set(key(f), n - 1);
    else out.push(f);
  }
  return out;
}

function similarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const sa = new Set(a);
  const sb = new Set(b);
  let both = 0;
  for (const x of sa) if (sb.has(x)) both++;
  return both / (sa.size + sb.size - both);
}

/** The tests of two copies of a file, matched by name, then what is left by how alike their code is. */
export function matchUnits(
  base: readonly Unit[],
  head: readonly Unit[],
): { pairs: [Unit, Unit][]; gone: Unit[]; added: Unit[] } {
  const pairs: [Unit, Unit][] = [];
  const freeHead = [...head];
  const gone: Unit[] = [];
  for (const b of base) {
    const i = freeHead.findIndex((h) => h.name === b.name && h.kind === b.kind);
    if (i >= 0) pairs.push([b, freeHead.splice(i, 1)[0]!]);
    else gone.push(b);
  }
  const stillGone: Unit[] = [];
  for (const b of gone) {
    let best = -1;
    let score = RENAME_SIMILARITY;
    freeHead.forEach((h, i) => {
      const s = similarity(b.body, h.body);
      if (h.kind === b.kind && s >= score) {
        best = i;
        score = s;
      }
    });
    if (best >= 0) pairs.push([b, freeHead.splice(best, 1)[0]!]);
    else stillGone.push(b);
  }
  return { pairs, gone: stillGone, added: freeHead };
}

/** One file's edits. Test-level edits of a renamed test name the base's test and carry `headTest`. */
export function compareFile(pair: FilePair): FileComparison {
  const { base, head } = pair;
  const where = { file: pair.file, ...(pair.baseFile !== pair.file ? { baseFile: pair.baseFile } : {}) };
  if (!head) {
    const names = (base?.units ?? []).map((u) => u.name);
    const shown = names.slice(0, 5).map((n) => snippet(n));
    return {
      edits: [
        {
          kind: 'file-deleted',
          ...where,
          file: pair.baseFile,
          baseLine: 1,
          description: `deleted ${pair.baseFile}${names.length > 0 ? ` (${names.length} test(s): ${shown.join(', ')}${names.length > 5 ? ', …' : ''})` : ''}`,
        },
      ],
      gone: [],
      added: [],
    };
  }
  const empty: FileFacts = { units: [], hooks: [], mocks: [], excludes: [], marks: [] };
  // A test file the patch adds adds tests: only what it does to others (a new conftest's hooks) counts.
  if (!base && pair.holdsTests) return { edits: [], gone: [], added: head.units };
  const b = base ?? empty;
  const edits = fileEdits(b, head, where);
  const matched = matchUnits(b.units, head.units);
  for (const [bu, hu] of matched.pairs)
    pushEdits(edits, compareUnits(bu, hu, pair, b.examples, head.examples));
  return { edits, gone: matched.gone, added: matched.added };
}

function pushEdits(to: TestEdit[], from: readonly TestEdit[]): void {
  for (const e of from) to.push(e);
}

/** A base test the head no longer has, anywhere. */
export function deletedTest(file: string, baseFile: string, u: Unit): TestEdit {
  return {
    kind: 'test-deleted',
    file,
    ...(baseFile !== file ? { baseFile } : {}),
    test: u.name,
    baseLine: u.line,
    description: `deleted the test ${snippet(u.name)}`,
  };
}

const MARK_EDIT: Record<Mark['kind'], EditKind> = {
  skip: 'skip-added',
  skipif: 'skip-added',
  importorskip: 'skip-added',
  xfail: 'xfail-added',
  todo: 'todo-added',
  only: 'focus-added',
};

function markDescription(m: Mark, whole: boolean): string {
  if (m.kind === 'only')
    return `focused the run with ${snippet(m.text)}: every other test of the file is left out`;
  return `added ${snippet(m.text)}${whole ? ' to the whole file' : ''}`;
}

function fileEdits(b: FileFacts, h: FileFacts, where: { file: string; baseFile?: string }): TestEdit[] {
  const out: TestEdit[] = [];
  const edit = (
    kind: EditKind,
    headLine: number | undefined,
    description: string,
    extra: Partial<TestEdit> = {},
  ) => out.push({ kind, ...where, ...(headLine !== undefined ? { headLine } : {}), description, ...extra });
  for (const hook of multisetMinus(h.hooks, b.hooks, (x) => `${x.name}\u241f${x.digest}`)) {
    const had = b.hooks.some((x) => x.name === hook.name);
    edit(
      had ? 'hook-changed' : 'hook-added',
      hook.line,
      `${had ? 'changed' : 'added'} the hook ${snippet(hook.name)}`,
    );
  }
  for (const m of multisetMinus(h.mocks, b.mocks, (x) => x.text))
    edit('setup-mocks', m.line, `added ${snippet(m.text)} outside any test`, { after: m.text });
  const entry = (x: { key: string; value: string }) => `${x.key}\u241f${x.value}`;
  for (const x of multisetMinus(
    h.excludes.filter((e) => e.sense === 'exclude'),
    b.excludes,
    entry,
  ))
    edit('runner-exclude', x.line, `added ${snippet(x.value)} to ${snippet(x.key)}`, { after: x.value });
  for (const x of multisetMinus(
    b.excludes.filter((e) => e.sense === 'include'),
    h.excludes,
    entry,
  ))
    out.push({
      kind: 'runner-exclude',
      ...where,
      baseLine: x.line,
      description: `removed ${snippet(x.value)} from ${snippet(x.key)}`,
      before: x.value,
    });
  const baseKeys = new Set(b.excludes.map((x) => x.key));
  for (const x of h.excludes)
    if (x.sense === 'include' && !baseKeys.has(x.key))
      edit('runner-exclude', x.line, `limited ${snippet(x.key)} to ${snippet(x.value)}`, { after: x.value });
  for (const m of multisetMinus(h.marks, b.marks, (x) => `${x.kind}\u241f${x.text}`))
    edit(MARK_EDIT[m.kind], m.line, markDescription(m, true));
  const lowered = loweredCount(b.examples, h.examples, b.examples !== undefined || h.examples !== undefined);
  if (lowered) edit('examples-lowered', h.examples?.line, lowered.description, lowered.values);
  return out;
}

/** The example count the head runs where it is lower than the base's, or undefined. */
function loweredCount(
  base: ExampleCount | undefined,
  head: ExampleCount | undefined,
  property: boolean,
): { description: string; values: { before: string; after: string } } | undefined {
  if (!property) return undefined;
  const before = base?.value ?? DEFAULT_EXAMPLES;
  const after = head?.value ?? DEFAULT_EXAMPLES;
  if (after >= before) return undefined;
  const key = head?.key ?? base?.key ?? 'examples';
  return {
    description: head
      ? `lowered ${key} from ${before} to ${after}`
      : `removed ${key} = ${before}, so the runner's default of ${DEFAULT_EXAMPLES} applies`,
    values: { before: String(before), after: String(after) },
  };
}

/**
 * Which of a test's edits its findings name first: what keeps it from
 * running, then what it no longer checks, then what it no longer tries.
 */
const PRIORITY: readonly EditKind[] = [
  'skip-added',
  'xfail-added',
  'todo-added',
  'focus-added',
  'assertion-removed',
  'assertion-weakened',
  'exception-swallowed',
  'expected-changed',
  'generator-narrowed',
  'filter-added',
  'examples-lowered',
  'example-removed',
  'cases-removed',
  'generator-changed',
];

function byPriority(a: TestEdit, b: TestEdit): number {
  const pa = PRIORITY.indexOf(a.kind);
  const pb = PRIORITY.indexOf(b.kind);
  return (pa < 0 ? PRIORITY.length : pa) - (pb < 0 ? PRIORITY.length : pb);
}

function compareUnits(
  b: Unit,
  h: Unit,
  pair: FilePair,
  baseFileExamples: ExampleCount | undefined,
  headFileExamples: ExampleCount | undefined,
): TestEdit[] {
  const out: TestEdit[] = [];
  const where = {
    file: pair.file,
    ...(pair.baseFile !== pair.file ? { baseFile: pair.baseFile } : {}),
    test: b.name,
    ...(h.name !== b.name ? { headTest: h.name } : {}),
  };
  const edit = (
    kind: EditKind,
    lines: { baseLine?: number; headLine?: number },
    description: string,
    extra: Partial<TestEdit> = {},
  ) => out.push({ kind, ...where, ...lines, description, ...extra });

  for (const m of multisetMinus(h.marks, b.marks, (x) => `${x.kind}\u241f${x.text}`))
    edit(MARK_EDIT[m.kind], { headLine: m.line }, markDescription(m, false));

  compareAsserts(b.asserts, h.asserts, edit);

  const property = b.property || h.property;
  // Counts the test writes itself; a file-wide count is the file's edit, reported once.
  const own = b.examples !== undefined || h.examples !== undefined;
  const lowered = loweredCount(
    b.examples ?? baseFileExamples,
    h.examples ?? headFileExamples,
    property && own,
  );
  if (lowered)
    edit(
      'examples-lowered',
      { baseLine: b.examples?.line ?? b.line, headLine: h.examples?.line ?? h.line },
      lowered.description,
      lowered.values,
    );
  if (h.noGeneration && !b.noGeneration)
    edit(
      'examples-lowered',
      { headLine: h.noGeneration.line },
      `turned generation off (phases=${snippet(h.noGeneration.text)}): only explicit examples run`,
      {
        after: h.noGeneration.text,
      },
    );
  for (const x of multisetMinus(b.explicit, h.explicit, (e) => e.text))
    edit('example-removed', { baseLine: x.line }, `removed the explicit example ${snippet(x.text)}`, {
      before: x.text,
    });
  for (const a of multisetMinus(h.assumes, b.assumes, (e) => e.text))
    edit('filter-added', { headLine: a.line }, `added ${snippet(a.text)}, which throws inputs away`, {
      after: a.text,
    });
  if (b.cases && h.cases && h.cases.count < b.cases.count)
    edit(
      'cases-removed',
      { baseLine: b.cases.line, headLine: h.cases.line },
      `cut the test's cases from ${b.cases.count} to ${h.cases.count}`,
      {
        before: String(b.cases.count),
        after: String(h.cases.count),
      },
    );

  const headSlots = new Map(h.generators.map((g) => [g.slot ?? '', g]));
  for (const g of b.generators) {
    const label = slotLabel(g.slot ?? '', pair.term);
    const other = headSlots.get(g.slot ?? '');
    if (!other) {
      if (h.property || h.generators.length > 0)
        edit('generator-changed', { baseLine: g.line }, `removed the ${label} (${snippet(g.text)})`, {
          before: g.text,
        });
      continue;
    }
    const change = generatorChange(g, other, label);
    if (change)
      edit(
        change.kind,
        {
          ...(g.line !== undefined ? { baseLine: g.line } : {}),
          ...(other.line !== undefined ? { headLine: other.line } : {}),
        },
        change.description,
        { before: g.text, after: other.text },
      );
  }
  // Stable: edits of one kind keep their order in the file.
  return out.sort(byPriority);
}

function slotLabel(slot: string, term: string): string {
  return slot.startsWith('#') ? `${term} of argument ${slot.slice(1)}` : `${term} of ${snippet(slot)}`;
}

type EditFn = (
  kind: EditKind,
  lines: { baseLine?: number; headLine?: number },
  description: string,
  extra?: Partial<TestEdit>,
) => void;

/**
 * Assertions paired by their code, then by what they check, then by the
 * literal they expect, then a base assertion with a weaker one left in the
 * head; a base assertion left without a partner was removed.
 */
function compareAsserts(base: readonly Assertion[], head: readonly Assertion[], edit: EditFn): void {
  const free = head.map((_, i) => i);
  const pairs: [Assertion, Assertion][] = [];
  let left = [...base];
  const pass = (same: (b: Assertion, h: Assertion) => boolean) => {
    const rest: Assertion[] = [];
    for (const b of left) {
      const j = free.findIndex((i) => same(b, head[i]!));
      if (j >= 0) pairs.push([b, head[free.splice(j, 1)[0]!]!]);
      else rest.push(b);
    }
    left = rest;
  };
  pass((b, h) => b.text === h.text && b.swallowed === h.swallowed);
  pass((b, h) => b.subject === h.subject && b.subject !== '');
  pass((b, h) => b.expected !== undefined && b.expected === h.expected && b.matcher === h.matcher);
  // What is left of the base, in place of which the head checks less (`expect(true).toBe(true)`, `return true`).
  pass((b, h) => rankOf(h) < rankOf(b));
  pairs.sort((x, y) => x[0].line - y[0].line);
  for (const [b, h] of pairs) {
    const rb = rankOf(b);
    const rh = rankOf(h);
    const lines = { baseLine: b.line, headLine: h.line };
    if (rh < rb) {
      const verb =
        b.matcher === h.matcher && /raises|Throw|throws|rejects/.test(b.matcher) ? 'widened' : 'weakened';
      edit(
        'assertion-weakened',
        lines,
        `${verb} ${snippet(b.text)} to ${snippet(h.text)} (it ${rankWords(b, rb)}; now it ${rankWords(h, rh)})`,
        {
          before: b.text,
          after: h.text,
        },
      );
    } else if (
      b.expected !== undefined &&
      h.expected !== undefined &&
      b.expected !== h.expected &&
      b.matcher === h.matcher
    )
      edit(
        'expected-changed',
        lines,
        `changed the expected value of ${snippet(b.subject)} from ${snippet(b.expected)} to ${snippet(h.expected)}`,
        {
          before: b.expected,
          after: h.expected,
        },
      );
    else if (h.swallowed && !b.swallowed)
      edit(
        'exception-swallowed',
        lines,
        `wrapped ${snippet(h.text)} in a handler that swallows its failure`,
        { after: h.text },
      );
  }
  for (const b of left.sort((x, y) => x.line - y.line))
    edit('assertion-removed', { baseLine: b.line }, `removed the assertion ${snippet(b.text)}`, {
      before: b.text,
    });
}

function generatorChange(
  b: Generator,
  h: Generator,
  label: string,
): { kind: EditKind; description: string } | undefined {
  if (b.text === h.text) return undefined;
  const narrowed = (how: string) => ({
    kind: 'generator-narrowed' as const,
    description: `narrowed the ${label} from ${snippet(b.text)} to ${snippet(h.text)}${how}`,
  });
  if (h.constant && !b.constant) return narrowed(' (a fixed value or set in place of a generator)');
  if (h.filters > b.filters)
    return {
      kind: 'filter-added',
      description: `added a filter to the ${label}: ${snippet(b.text)} became ${snippet(h.text)}`,
    };
  const newRestricts = h.restricts.filter((r) => !b.restricts.includes(r));
  if (newRestricts.length > 0) return narrowed(` (${newRestricts.join(', ')})`);
  if (b.fn === h.fn) {
    const bounds = compareBounds(b.bounds, h.bounds);
    if (bounds.tightened && !bounds.widened) return narrowed('');
    if (b.of && h.of) {
      const inner = generatorChange(b.of, h.of, `elements of the ${label}`);
      if (inner?.kind === 'generator-narrowed' || inner?.kind === 'filter-added') return inner;
    }
    if (b.maps === h.maps && !bounds.tightened) return undefined;
  }
  return {
    kind: 'generator-changed',
    description: `changed the ${label} from ${snippet(b.text)} to ${snippet(h.text)}`,
  };
}

function compareBounds(
  b: Record<string, number>,
  h: Record<string, number>,
): { tightened: boolean; widened: boolean } {
  let tightened = false;
  let widened = false;
  for (const key of new Set([...Object.keys(b), ...Object.keys(h)])) {
    const x = b[key];
    const y = h[key];
    const lower = key === 'min' || key === 'minSize';
    if (x === undefined && y !== undefined) tightened = true;
    else if (x !== undefined && y === undefined) widened = true;
    else if (x !== undefined && y !== undefined && x !== y) {
      if (lower === y > x) tightened = true;
      else widened = true;
    }
  }
  return { tightened, widened };
}
