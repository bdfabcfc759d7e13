import { z } from 'zod';
import type { SliceBudget, Sliced } from '../util/time-slice.js';

/**
 * `schema.safeParse(value, { reportInput: true })`, in slices: a contract
 * file is one object whose bulk is a record or list of entries (a lock's
 * `files`, a freeze's rows), and zod checks a million entries in one
 * synchronous call of several seconds. Such a field is validated an entry at
 * a time with the field's own element schema, the rest of the object with
 * that field emptied, and the issues are put back together in the order and
 * with the paths one whole call reports (a differential test pins that).
 *
 * Only fields zod would check entry by entry anyway are split: a plain
 * `z.record` or `z.array` without checks of its own, directly in an object
 * schema without checks of its own (a refinement of the whole would see the
 * emptied field). Anything else is validated in one call.
 */

export type SafeResult<T> = { success: true; data: T } | { success: false; issues: z.core.$ZodIssue[] };

/** Below this many entries a field is validated with the rest, in one call. */
const SPLIT_MIN = 1024;

// biome-ignore lint/suspicious/noExplicitAny: reading zod's internal definition
type Def = any;

function defOf(schema: unknown): Def {
  return (schema as { _zod?: { def?: Def } })?._zod?.def;
}

function noChecks(def: Def): boolean {
  return def.checks === undefined || def.checks.length === 0;
}

/**
 * zod's own test for what a record or an object may be (it looks at
 * `constructor`, so a key named "constructor" can make it fail): a field is
 * only split when zod would go through it entry by entry.
 */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return z.core.util.isPlainObject(v);
}

/**
 * Keys a contract file may not use: zod crashes on a `"constructor"` key whose
 * value is not a function (it reads `constructor.prototype` to tell a plain
 * object), and silently drops a `"__proto__"` key from a record. No contract
 * has a use for either; reporting them keeps a hostile file an input error.
 */
const RESERVED_KEYS = new Set(['constructor', '__proto__']);

function* reservedKeys(
  value: unknown,
  budget: SliceBudget,
  keysOf: (obj: object) => readonly string[],
): Sliced<z.core.$ZodIssue[]> {
  const issues: z.core.$ZodIssue[] = [];
  // A first pass that only asks each object whether it has either key: no paths built, no keys listed.
  let found = false;
  const scan: unknown[] = [value];
  for (let v = scan.pop(); v !== undefined && !found; v = scan.pop()) {
    if (v === null || typeof v !== 'object') continue;
    if (budget.due()) yield;
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === 'object') scan.push(item);
      continue;
    }
    const o = v as Record<string, unknown>;
    if (Object.hasOwn(o, 'constructor') || Object.hasOwn(o, '__proto__')) found = true;
    else
      for (const key in o)
        if (Object.hasOwn(o, key) && o[key] !== null && typeof o[key] === 'object') scan.push(o[key]);
  }
  if (!found) return issues;
  const pending: { v: unknown; path: PropertyKey[] }[] = [{ v: value, path: [] }];
  for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
    const { v, path } = job;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (budget.due()) yield;
        pending.push({ v: v[i], path: [...path, i] });
      }
      continue;
    }
    for (const key of keysOf(v)) {
      if (budget.due()) yield;
      if (RESERVED_KEYS.has(key)) {
        issues.push({
          code: 'custom',
          path: [...path, key],
          message: `the key '${key}' cannot be used in a contract file (it is reserved in JavaScript); rename it`,
          input: undefined,
        } as z.core.$ZodIssue);
      } else pending.push({ v: (v as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return issues;
}

/** A key copied as data: assigning `__proto__` would change the prototype instead. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else obj[key] = value;
}

const pureCache = new WeakMap<object, boolean>();

/**
 * True when what the schema outputs for a valid input is that input, value
 * for value: it only checks (refinements, formats, lengths), never changes
 * (no transform, default, overwrite such as `.trim()`, no key stripping).
 * Then a million validated entries need not be copied: zod's copy would be
 * a second million objects for the garbage collector and nothing else.
 */
function outputIsInput(schema: unknown): boolean {
  const cached = pureCache.get(schema as object);
  if (cached !== undefined) return cached;
  pureCache.set(schema as object, false); // a recursive schema is not pure
  const def = defOf(schema);
  const checksPure = (def?.checks ?? []).every((c: unknown) => defOf(c)?.check !== 'overwrite');
  let pure = false;
  switch (def?.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'literal':
    case 'enum':
    case 'unknown':
    case 'any':
      pure = true;
      break;
    case 'object': {
      // Strict objects reject unknown keys and loose ones keep them; the default strips them.
      const catchall = defOf(def.catchall)?.type;
      pure =
        (catchall === 'never' || catchall === 'unknown') &&
        Object.values(def.shape as Record<string, unknown>).every(outputIsInput) &&
        (catchall === 'never' || outputIsInput(def.catchall));
      break;
    }
    case 'array':
      pure = outputIsInput(def.element);
      break;
    case 'record':
      pure = outputIsInput(def.keyType) && outputIsInput(def.valueType);
      break;
    case 'optional':
    case 'nullable':
      pure = outputIsInput(def.innerType);
      break;
    case 'union':
      pure = (def.options as unknown[]).every(outputIsInput);
      break;
  }
  pure = pure && checksPure;
  pureCache.set(schema as object, pure);
  return pure;
}

/** What zod's `safeParse` passes its schema, built once instead of once per entry. */
const RUN_CTX = Object.freeze({ reportInput: true, async: false });

interface ZodInternals {
  _zod: {
    run(
      payload: { value: unknown; issues: unknown[] },
      ctx: object,
    ): { value: unknown; issues: unknown[] } | Promise<unknown>;
  };
}

type Checked = { ok: true; value: unknown } | { ok: false; issues: z.core.$ZodIssue[] };

/**
 * One entry through its schema: zod's own `safeParse`, less the objects it
 * builds around the run, which are most of its cost on a small entry. A
 * failing entry goes through `safeParse` again, for the finished issues.
 */
function check(schema: z.ZodType, value: unknown): Checked {
  const r = (schema as unknown as ZodInternals)._zod.run({ value, issues: [] }, RUN_CTX);
  if (!(r instanceof Promise) && r.issues.length === 0) return { ok: true, value: r.value };
  const again = schema.safeParse(value, { reportInput: true });
  return again.success ? { ok: true, value: again.data } : { ok: false, issues: again.error.issues };
}

interface SplitField {
  key: string;
  kind: 'record' | 'array';
  schema: z.ZodType;
  /** A record's keys, listed once (listing a million keys is itself a long step). */
  keys: readonly string[];
}

/** The fields of `value` worth validating an entry at a time, or undefined when the whole must go in one call. */
function splitFields(
  schema: z.ZodType,
  value: unknown,
  keysOf: (obj: object) => readonly string[],
): SplitField[] | undefined {
  const def = defOf(schema);
  if (def?.type !== 'object' || !noChecks(def) || !isPlainObject(value)) return undefined;
  const out: SplitField[] = [];
  for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
    const fdef = defOf(field);
    if (!Object.hasOwn(value, key) || !noChecks(fdef)) continue;
    const v = value[key];
    if (fdef.type === 'record' && plainStringKeys(fdef) && isPlainObject(v)) {
      const keys = keysOf(v);
      if (keys.length >= SPLIT_MIN) out.push({ key, kind: 'record', schema: field, keys });
    } else if (fdef.type === 'array' && Array.isArray(v) && v.length >= SPLIT_MIN) {
      out.push({ key, kind: 'array', schema: field, keys: [] });
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * A check-free `z.string()` key schema, which no object key can fail, so a
 * record of it has no key issues and can be checked value by value.
 */
function plainStringKeys(recordDef: Def): boolean {
  const key = defOf(recordDef.keyType);
  return key?.type === 'string' && noChecks(key);
}

interface Part {
  issues: z.core.$ZodIssue[];
  data: unknown;
}

/**
 * A record, an entry at a time, as zod's own record loop goes: keys in
 * order, `__proto__` skipped, each value through the value schema.
 */
function* recordByEntry(
  field: SplitField,
  input: Record<string, unknown>,
  budget: SliceBudget,
): Sliced<Part> {
  const valueType = defOf(field.schema).valueType as z.ZodType;
  // zod leaves `__proto__` out of its output, so a record holding one must be copied.
  const reuse = outputIsInput(valueType) && !Object.hasOwn(input, '__proto__');
  const issues: z.core.$ZodIssue[] = [];
  const data: Record<string, unknown> = {};
  for (const key of field.keys) {
    if (budget.due()) yield;
    if (key === '__proto__') continue;
    const r = check(valueType, input[key]);
    if (!r.ok) for (const issue of r.issues) issues.push({ ...issue, path: [field.key, key, ...issue.path] });
    else if (!reuse) data[key] = r.value;
  }
  return { issues, data: reuse ? input : data };
}

function* arrayByEntry(field: SplitField, input: unknown[], budget: SliceBudget): Sliced<Part> {
  const element = defOf(field.schema).element as z.ZodType;
  const reuse = outputIsInput(element);
  const issues: z.core.$ZodIssue[] = [];
  const data: unknown[] = [];
  for (let i = 0; i < input.length; i++) {
    if (budget.due()) yield;
    const r = check(element, input[i]);
    if (!r.ok) for (const issue of r.issues) issues.push({ ...issue, path: [field.key, i, ...issue.path] });
    else if (!reuse) data.push(r.value);
  }
  return { issues, data: reuse ? input : data };
}

/**
 * @param keysOf `Object.keys`, or a cheaper equivalent for a parsed document
 *   (`ParsedDocument.keysOf`)
 */
export function* safeParseSliced<S extends z.ZodType>(
  schema: S,
  value: unknown,
  budget: SliceBudget,
  keysOf: (obj: object) => readonly string[] = Object.keys,
): Sliced<SafeResult<z.output<S>>> {
  const reserved = yield* reservedKeys(value, budget, keysOf);
  if (reserved.length > 0) return { success: false, issues: reserved };
  const split = splitFields(schema, value, keysOf);
  if (split === undefined) {
    const r = schema.safeParse(value, { reportInput: true });
    return r.success ? { success: true, data: r.data } : { success: false, issues: r.error.issues };
  }
  const input = value as Record<string, unknown>;
  // The rest of the object, with each split field emptied (still the right type).
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(input)) setOwn(rest, key, input[key]);
  for (const f of split) rest[f.key] = f.kind === 'record' ? {} : [];
  const whole = schema.safeParse(rest, { reportInput: true });
  if (budget.due()) yield;

  const parts = new Map<string, Part>();
  for (const f of split) {
    const v = input[f.key];
    parts.set(
      f.key,
      f.kind === 'array'
        ? yield* arrayByEntry(f, v as unknown[], budget)
        : yield* recordByEntry(f, v as Record<string, unknown>, budget),
    );
  }

  // One call reports the shape's fields in order, then what concerns the object itself (unknown keys).
  const shapeKeys = Object.keys(defOf(schema).shape as object);
  const byField = new Map<string, z.core.$ZodIssue[]>(shapeKeys.map((k) => [k, []]));
  const own: z.core.$ZodIssue[] = [];
  for (const found of whole.success ? [] : whole.error.issues) {
    // An issue about the object itself (unknown keys) shows the object: the real one, not the emptied copy.
    const issue = (
      'input' in found && found.input === rest ? { ...found, input: value } : found
    ) as z.core.$ZodIssue;
    const first = issue.path[0];
    const bucket = typeof first === 'string' ? byField.get(first) : undefined;
    (bucket ?? own).push(issue);
  }
  const issues: z.core.$ZodIssue[] = [];
  // Loops, not push(...list): a list of a million issues would overflow the stack as arguments.
  for (const key of shapeKeys) {
    for (const issue of parts.get(key)?.issues ?? byField.get(key) ?? []) issues.push(issue);
  }
  for (const issue of own) issues.push(issue);
  if (issues.length > 0 || !whole.success) return { success: false, issues };
  const data = whole.data as Record<string, unknown>;
  for (const [key, part] of parts) data[key] = part.data;
  return { success: true, data: data as z.output<S> };
}
