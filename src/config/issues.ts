import type { z } from 'zod';
import type { Problem } from '../errors.js';
import { runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';

/** Finds the source position of a field, when the file format allows it. */
export type Locator = (
  path: readonly PropertyKey[],
  wantKey: boolean,
) => { line: number; column: number } | undefined;

export function dottedPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
    case 'number':
      return `the number ${v}`;
    case 'boolean':
      return `${v}`;
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof v}`;
  }
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object (a mapping of keys to values)',
  int: 'an integer',
};

/** Keys the schema allows at `path`, to suggest a fix for an unknown key. */
function allowedKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: walking zod's internal definition tree
  let node: any = schema;
  const unwrap = () => {
    while (
      node?._zod?.def &&
      ['default', 'optional', 'nullable', 'prefault', 'readonly'].includes(node._zod.def.type)
    ) {
      node = node._zod.def.innerType;
    }
    if (node?._zod?.def?.type === 'pipe') node = node._zod.def.in;
  };
  unwrap();
  for (const seg of path) {
    const def = node?._zod?.def;
    if (def?.type === 'object') node = def.shape[seg as string];
    else if (def?.type === 'array') node = def.element;
    else return [];
    unwrap();
  }
  const def = node?._zod?.def;
  return def?.type === 'object' ? Object.keys(def.shape) : [];
}

function sentence(issue: z.core.$ZodIssue, schema: z.ZodType): string {
  const got = 'input' in issue ? describeValue(issue.input) : undefined;
  switch (issue.code) {
    case 'invalid_type': {
      if (got === 'nothing') return `is required: expected ${TYPE_NAMES[issue.expected] ?? issue.expected}.`;
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}, got ${got ?? 'something else'}.`;
    }
    case 'unrecognized_keys': {
      const allowed = allowedKeys(schema, issue.path);
      const keys = issue.keys.map((k) => `'${k}'`).join(', ');
      const noun = issue.keys.length === 1 ? 'key' : 'keys';
      return allowed.length > 0
        ? `unknown ${noun} ${keys}; expected only ${allowed.map((k) => `'${k}'`).join(', ')}.`
        : `unknown ${noun} ${keys}.`;
    }
    case 'too_small': {
      if (issue.origin === 'array')
        return `expected at least ${String(issue.minimum)} item(s), got ${got ?? 'fewer'}.`;
      if (issue.origin === 'string')
        return `expected a non-empty string${issue.minimum !== 1 ? ` of at least ${String(issue.minimum)} characters` : ''}.`;
      return `expected at least ${String(issue.minimum)}, got ${got ?? 'less'}.`;
    }
    case 'too_big':
      return `expected at most ${String(issue.maximum)}, got ${got ?? 'more'}.`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${got ?? 'another value'}.`;
    case 'invalid_format':
      // A schema that says what it expects in words ("expected an environment variable name") is clearer
      // than the pattern; zod's own message ("Invalid string: …") is not.
      if (issue.message !== '' && !issue.message.startsWith('Invalid'))
        return `${issue.message}, got ${got ?? 'another value'}.`;
      return `expected ${issue.format === 'regex' ? `text matching ${String(issue.pattern)}` : `a valid ${issue.format}`}, got ${got ?? 'another value'}.`;
    case 'custom': {
      const m = issue.message;
      return /[.!?]$/.test(m) ? m : `${m}.`;
    }
    default:
      return issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
  }
}

// One collator instead of `localeCompare` per comparison (the same order, much cheaper on many problems).
const collator = new Intl.Collator();

/** The order problems are reported in: by line, then by path. */
export function byLineThenPath(a: Problem, b: Problem): number {
  return (a.line ?? 0) - (b.line ?? 0) || collator.compare(a.path, b.path);
}

/** Where issues are located: a parsed document, or nothing for a value loaded as a module. */
export interface IssueSource {
  locate?: Locator;
  /** Indexes, in slices, what `locate(path)` will look through (see `ParsedDocument.prepare`). */
  prepare?: (path: readonly PropertyKey[], budget: SliceBudget) => Iterable<undefined>;
}

/** Turns every schema issue into a located, readable problem, yielding between slices. */
export function* issuesToProblemsSliced(
  issues: readonly z.core.$ZodIssue[],
  file: string,
  schema: z.ZodType,
  source: IssueSource,
  budget: SliceBudget,
): Sliced<Problem[]> {
  const { locate, prepare } = source;
  const at = function* (path: readonly PropertyKey[], wantKey: boolean) {
    if (locate === undefined) return undefined;
    if (prepare !== undefined) yield* prepare(path, budget);
    return locate(path, wantKey);
  };
  const problems: Problem[] = [];
  for (const issue of issues) {
    if (budget.due()) yield;
    if (issue.code === 'unrecognized_keys') {
      // One problem per key so each points at its own line.
      for (const key of issue.keys) {
        const where = yield* at([...issue.path, key], true);
        problems.push({
          file,
          path: dottedPath([...issue.path, key]),
          ...where,
          message: sentence({ ...issue, keys: [key] }, schema),
        });
      }
      continue;
    }
    const where = (yield* at(issue.path, false)) ?? (yield* at(issue.path.slice(0, -1), false));
    problems.push({ file, path: dottedPath(issue.path), ...where, message: sentence(issue, schema) });
  }
  return problems.sort(byLineThenPath);
}

/** {@link issuesToProblemsSliced} in one go. */
export function issuesToProblems(
  issues: readonly z.core.$ZodIssue[],
  file: string,
  schema: z.ZodType,
  locate?: Locator,
): Problem[] {
  return runToEnd((budget) => issuesToProblemsSliced(issues, file, schema, { locate }, budget));
}
