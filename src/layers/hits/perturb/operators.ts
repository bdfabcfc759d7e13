/**
 * Perturbation operators: small, pure changes to one fixture value. Each has a
 * stable name (it ends up in hit reports) and either returns a new value or
 * `SKIP` when it does not apply. An operator never returns a value equal to its
 * input (`jsonEqual`): a no-op mutant would pass every check and look like a
 * field the property ignores.
 *
 * Results are frozen. Containers are shallow copies that share their children
 * with the input, so an input that is deep-frozen yields a deep-frozen result.
 */

import { byCodePoint } from '../../../util/compare.js';
import {
  isContainer,
  type JsonKind,
  type JsonValue,
  jsonEqual,
  kindOf,
  objectWith,
  REMOVE,
  toFrozenJson,
} from './json-value.js';

export const SKIP: unique symbol = Symbol('patchgate.perturb.skip');

export interface Operator {
  readonly name: string;
  /** The kinds of value it can change; it skips every other kind. */
  readonly appliesTo: readonly JsonKind[];
  /** Pure: never mutates `value`. Returns a frozen value not equal to `value`, or `SKIP`. */
  apply(value: unknown): unknown | typeof SKIP;
}

/**
 * How a config names an operator: a built-in name, or one of the declarative
 * forms `{ set: <json> }`, `{ add: <number> }` (numbers only) and
 * `{ append: <json> }` (arrays only).
 */
export type OperatorSpec =
  | string
  | { readonly set: unknown }
  | { readonly add: number }
  | { readonly append: unknown };

export class OperatorSpecError extends Error {
  readonly spec: unknown;
  /** What a valid spec would have been, without the spec itself. */
  readonly expected: string;

  constructor(spec: unknown, expected: string, options?: { cause?: unknown }) {
    super(`invalid perturbation operator ${describeSpec(spec)}: ${expected}`, options);
    this.name = 'OperatorSpecError';
    this.spec = spec;
    this.expected = expected;
  }
}

function describeSpec(spec: unknown): string {
  try {
    const text = JSON.stringify(spec);
    if (text !== undefined) return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    // circular or a bigint: fall through
  }
  return String(spec);
}

const ALL_KINDS: readonly JsonKind[] = Object.freeze([
  'null',
  'boolean',
  'number',
  'string',
  'array',
  'object',
]);
const NON_NULL: readonly JsonKind[] = Object.freeze(['boolean', 'number', 'string', 'array', 'object']);

function makeOperator(name: string, appliesTo: readonly JsonKind[], change: (v: never) => unknown): Operator {
  const kinds = Object.freeze([...appliesTo]);
  return Object.freeze({
    name,
    appliesTo: kinds,
    apply(value: unknown): unknown {
      const kind = kindOf(value);
      if (kind === undefined || !kinds.includes(kind)) return SKIP;
      const out = (change as (v: unknown) => unknown)(value);
      if (out === SKIP) return SKIP;
      // Finite arithmetic that overflows would leave JSON; NaN/Infinity inputs may stay non-finite.
      if (typeof out === 'number' && !Number.isFinite(out) && Number.isFinite(value)) return SKIP;
      if (jsonEqual(out, value)) return SKIP;
      return isContainer(out) ? Object.freeze(out) : out;
    },
  });
}

/** The key `obj.add_key` adds; `__patchgate_extra_2__`, `_3__`, … if the object already has it. */
export const EXTRA_KEY = '__patchgate_extra__';

function freshKey(o: object): string {
  if (!Object.hasOwn(o, EXTRA_KEY)) return EXTRA_KEY;
  for (let n = 2; ; n++) {
    const k = `__patchgate_extra_${n}__`;
    if (!Object.hasOwn(o, k)) return k;
  }
}

function swapCase(s: string): string {
  let out = '';
  for (const ch of s) {
    const up = ch.toUpperCase();
    out += up !== ch ? up : ch.toLowerCase();
  }
  return out;
}

function changeFirstChar(s: string): string {
  if (s === '') return 'x';
  const first = String.fromCodePoint(s.codePointAt(0) as number);
  return (first === 'x' ? 'y' : 'x') + s.slice(first.length);
}

/** Built-in operators, in the order the engine tries them at every path. */
export const BUILTIN_OPERATORS: readonly Operator[] = Object.freeze([
  makeOperator('num.inc', ['number'], (n: number) => n + 1),
  makeOperator('num.dec', ['number'], (n: number) => n - 1),
  makeOperator('num.zero', ['number'], () => 0),
  makeOperator('num.negate', ['number'], (n: number) => -n),
  makeOperator('num.large', ['number'], (n: number) =>
    Number.isInteger(n) ? Number.MAX_SAFE_INTEGER : 1e308,
  ),
  makeOperator('str.char', ['string'], changeFirstChar),
  makeOperator('str.empty', ['string'], () => ''),
  makeOperator('str.case', ['string'], swapCase),
  makeOperator('bool.flip', ['boolean'], (b: boolean) => !b),
  makeOperator('arr.append', ['array'], (a: readonly unknown[]) =>
    a.length === 0 ? SKIP : [...a, a[a.length - 1]],
  ),
  makeOperator('arr.drop_last', ['array'], (a: readonly unknown[]) =>
    a.length === 0 ? SKIP : a.slice(0, -1),
  ),
  makeOperator('arr.reverse', ['array'], (a: readonly unknown[]) => a.slice().reverse()),
  makeOperator('arr.empty', ['array'], () => []),
  makeOperator('obj.drop_key', ['object'], (o: object) => {
    const keys = Object.keys(o).sort(byCodePoint);
    const last = keys[keys.length - 1];
    return last === undefined ? SKIP : objectWith(o, last, REMOVE);
  }),
  makeOperator('obj.add_key', ['object'], (o: object) => objectWith(o, freshKey(o), null)),
  makeOperator('to_null', NON_NULL, () => null),
  makeOperator('null.to_zero', ['null'], () => 0),
  makeOperator('null.to_string', ['null'], () => ''),
]);

export const BUILTIN_OPERATOR_NAMES: readonly string[] = Object.freeze(BUILTIN_OPERATORS.map((o) => o.name));

const BY_NAME = new Map(BUILTIN_OPERATORS.map((o) => [o.name, o]));

class Raw {
  constructor(readonly text: string) {}
}

/** JSON text with object keys in code-point order, so a name does not depend on how the config ordered keys. */
export function canonicalJsonText(v: JsonValue): string {
  let out = '';
  const pending: (JsonValue | Raw)[] = [v];
  for (let x = pending.pop(); x !== undefined; x = pending.pop()) {
    if (x instanceof Raw) {
      out += x.text;
    } else if (Array.isArray(x)) {
      const items = x as readonly JsonValue[];
      pending.push(new Raw(']'));
      for (let i = items.length - 1; i >= 0; i--) {
        pending.push(items[i] as JsonValue);
        if (i > 0) pending.push(new Raw(','));
      }
      out += '[';
    } else if (isContainer(x)) {
      const o = x as Record<string, JsonValue>;
      const keys = Object.keys(o).sort(byCodePoint);
      pending.push(new Raw('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        pending.push(o[k] as JsonValue);
        pending.push(new Raw(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`));
      }
      out += '{';
    } else {
      out += JSON.stringify(x);
    }
  }
  return out;
}

const FORMS = '{"set": <json>}, {"add": <number>} or {"append": <json>}';

function jsonOperand(spec: unknown, form: string, value: unknown): JsonValue {
  try {
    return toFrozenJson(value);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new OperatorSpecError(spec, `"${form}" expects a JSON value, but ${why}`, { cause: err });
  }
}

/**
 * Turns a config's operator spec into an operator, or throws `OperatorSpecError`
 * naming the spec and what was expected (for an unknown name: every valid one).
 */
export function resolveOperator(spec: OperatorSpec): Operator {
  const s: unknown = spec;
  if (typeof s === 'string') {
    const found = BY_NAME.get(s);
    if (found !== undefined) return found;
    throw new OperatorSpecError(
      s,
      `expected a built-in operator (${BUILTIN_OPERATOR_NAMES.join(', ')}) or one of ${FORMS}`,
    );
  }
  if (!isContainer(s) || Array.isArray(s)) {
    throw new OperatorSpecError(s, `expected a built-in operator name or one of ${FORMS}`);
  }
  const keys = Object.keys(s);
  const form = keys[0];
  if (keys.length !== 1 || (form !== 'set' && form !== 'add' && form !== 'append')) {
    throw new OperatorSpecError(s, `expected an object with exactly one key: ${FORMS}`);
  }
  const operand = (s as Record<string, unknown>)[form];
  if (form === 'add') {
    if (typeof operand !== 'number' || !Number.isFinite(operand) || operand === 0) {
      throw new OperatorSpecError(s, '"add" expects a finite, non-zero number');
    }
    return makeOperator(`add:${canonicalJsonText(operand)}`, ['number'], (n: number) => n + operand);
  }
  const value = jsonOperand(s, form, operand);
  const text = canonicalJsonText(value);
  if (form === 'set') return makeOperator(`set:${text}`, ALL_KINDS, () => value);
  return makeOperator(`append:${text}`, ['array'], (a: readonly unknown[]) => [...a, value]);
}
