/**
 * What a test file checks, read by a real parser (the TypeScript compiler for
 * JavaScript and TypeScript, Python's own `ast` for Python, the runners'
 * config readers for their config files), in one shape for every language,
 * so one comparison (compare.ts) can say what the head took away.
 */

/** A mark that keeps a test from running to a verdict, or focuses the run on some tests. */
export type MarkKind = 'skip' | 'skipif' | 'importorskip' | 'xfail' | 'todo' | 'only';

export interface Mark {
  kind: MarkKind;
  line: number;
  text: string;
}

export interface Assertion {
  line: number;
  /** As ranking.ts names it: `toEqual`, `==`, `truthy`, `const`, `assertEqual`, `raises`, `toThrow`… */
  matcher: string;
  /** The code that is checked: the `expect(...)` argument, the left side of `==`. */
  subject: string;
  /** The expected value, when it is written out as a literal. */
  expected?: string;
  /** `.not` (JavaScript): it only rules one outcome out. */
  negated?: boolean;
  /** What a throw/raises check names: a literal message or pattern, a class, a broad class, nothing. */
  arg?: 'literal' | 'name' | 'broad' | 'none';
  /** A failure of it is swallowed: a try that does not re-raise, `suppress()`, `raises(AssertionError)`. */
  swallowed?: boolean;
  /** The assertion's own code, cut short. */
  text: string;
}

export interface Generator {
  /** Which argument it generates: a keyword name, or `#1`, `#2` by position. */
  slot?: string;
  line?: number;
  /** The strategy's or arbitrary's function: `integers`, `integer`, `lists`, `constant`… */
  fn: string;
  text: string;
  /** Numeric bounds written out: `min`, `max` (values), `minSize`, `maxSize` (lengths). */
  bounds: Record<string, number>;
  filters: number;
  maps: number;
  /** A fixed value or a fixed set (`just`, `sampled_from`, `fc.constant`, `fc.constantFrom`). */
  constant: boolean;
  /** Arguments that only take inputs away (`alphabet`, `allow_nan=False`, `noNaN`…). */
  restricts: string[];
  /** The strategy of the elements, for a collection. */
  of?: Generator;
}

export interface ExampleCount {
  value: number;
  line: number;
  /** `max_examples`, `numRuns`. */
  key: string;
}

export type UnitKind = 'test' | 'seed' | 'hits';

/** One test (or property) of a file. */
export interface Unit {
  /** `Class::function` (Python, as in a node id), `describe > it` (JavaScript), a property's id or name. */
  name: string;
  kind: UnitKind;
  /** First line, decorators included. */
  line: number;
  end: number;
  marks: Mark[];
  asserts: Assertion[];
  examples?: ExampleCount;
  /** Generation turned off (Hypothesis `phases` without `Phase.generate`). */
  noGeneration?: { line: number; text: string };
  /** Inputs always tried (`@example`, fast-check's `examples`). */
  explicit: { line: number; text: string }[];
  generators: Generator[];
  /** `assume()`, `fc.pre()`: inputs thrown away inside the test. */
  assumes: { line: number; text: string }[];
  /** Cases of a table-driven test (`parametrize`, `it.each`), when the table is a literal. */
  cases?: { count: number; line: number };
  /** Whether it generates its inputs (`@given`, `fc.property`). */
  property: boolean;
  /** The code of each top-level statement, to follow a rename. */
  body: string[];
}

/** Something outside any one test that runs around them: a hook, an autouse fixture, `beforeEach`. */
export interface Hook {
  name: string;
  line: number;
  /** Stands for what the hook does: equal digests, equal hooks. */
  digest: string;
}

/** An entry of a runner's include or exclude list (`exclude`, `collect_ignore`, `addopts --deselect`). */
export interface ExcludeEntry {
  key: string;
  value: string;
  line: number;
  /** `exclude`: an added entry drops tests; `include`: a removed one does. */
  sense: 'exclude' | 'include';
}

export interface FileFacts {
  units: Unit[];
  hooks: Hook[];
  /** Calls outside any test that replace what the tests see (`vi.mock`, `vi.stubGlobal`, `monkeypatch`). */
  mocks: { line: number; text: string }[];
  excludes: ExcludeEntry[];
  /** Marks on the whole file (`pytestmark`, a module-level `importorskip`). */
  marks: Mark[];
  /** An example count for the whole file (a settings profile it loads, `fc.configureGlobal`). */
  examples?: ExampleCount;
}

/** A file's facts, or why it could not be read. */
export type FileReading = { ok: true; facts: FileFacts } | { ok: false; error: string; line: number };

export type EditKind =
  | 'assertion-removed'
  | 'assertion-weakened'
  | 'expected-changed'
  | 'exception-swallowed'
  | 'skip-added'
  | 'xfail-added'
  | 'todo-added'
  | 'focus-added'
  | 'examples-lowered'
  | 'example-removed'
  | 'generator-narrowed'
  | 'generator-changed'
  | 'filter-added'
  | 'cases-removed'
  | 'hook-added'
  | 'hook-changed'
  | 'setup-mocks'
  | 'runner-exclude'
  | 'test-deleted'
  | 'file-deleted'
  | 'unreadable';

/** One thing the head changed on the test side that can hide a failure. */
export interface TestEdit {
  kind: EditKind;
  /** The head's path; the base's for a deleted file. */
  file: string;
  /** The base's path, when the patch renamed the file. */
  baseFile?: string;
  /** The test it is in, as the base names it; absent for an edit to the whole file. */
  test?: string;
  /** The head's name of that test, when the patch renamed it. */
  headTest?: string;
  baseLine?: number;
  headLine?: number;
  /** One clause, starting with a verb: "narrowed the strategy of `x` from `integers()` to `integers(0, 9)`". */
  description: string;
  before?: string;
  after?: string;
}

/** What every edit's message names: `file:line`, the head's line where there is one. */
export function editLocation(e: TestEdit): string {
  const line = e.headLine ?? e.baseLine;
  return line === undefined ? e.file : `${e.file}:${line}`;
}
