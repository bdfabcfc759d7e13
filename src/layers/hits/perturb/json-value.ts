/**
 * Plain JSON values as the perturbation engine sees them: the kind of a value,
 * equality that ignores key order (a mutant equal to its source is a no-op and
 * must never be produced), and frozen shallow copies for copy-on-write.
 *
 * Everything here is iterative: a locked fixture can be deep, and the engine
 * must not be the thing that blows the stack.
 */

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

export type JsonKind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

/** The JSON kind of `v`, or `undefined` for values JSON cannot hold (undefined, functions, symbols, bigints). */
export function kindOf(v: unknown): JsonKind | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'object':
      return Array.isArray(v) ? 'array' : 'object';
    default:
      return undefined;
  }
}

export function isContainer(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

const hasOwn = (o: object, key: string): boolean => Object.hasOwn(o, key);

/**
 * Equality of JSON meaning: objects compare by their own enumerable keys in any
 * order, arrays item by item, numbers with `===` (so `0` equals `-0`, which
 * serialize alike) except that NaN equals NaN. Shared subtrees are equal
 * without being walked, which makes comparing a mutant with its source cheap.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') {
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      return false;
    }
    if (!isContainer(x) || !isContainer(y)) return false;
    const xs = Array.isArray(x);
    if (xs !== Array.isArray(y)) return false;
    if (xs) {
      const xa = x as readonly unknown[];
      const ya = y as readonly unknown[];
      if (xa.length !== ya.length) return false;
      for (let i = 0; i < xa.length; i++) pending.push([xa[i], ya[i]]);
      continue;
    }
    const xk = Object.keys(x);
    if (xk.length !== Object.keys(y).length) return false;
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    for (const k of xk) {
      if (!hasOwn(y, k)) return false;
      pending.push([xo[k], yo[k]]);
    }
  }
  return true;
}

function define(target: object, key: string, value: unknown): void {
  // defineProperty, never assignment: a `"__proto__"` key is data, not a prototype change.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Pass as the value to `objectWith` to drop the key. */
export const REMOVE: unique symbol = Symbol('patchgate.perturb.remove');

/**
 * A frozen shallow copy of object `o` (same prototype, same key order) with
 * `key` set to `value` (a new key goes last), or removed when `value` is
 * `REMOVE`. Children are shared, not copied.
 */
export function objectWith(o: object, key: string, value: unknown): object {
  const copy = Object.create(Object.getPrototypeOf(o)) as object;
  const src = o as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k === key) {
      if (value !== REMOVE) define(copy, k, value);
    } else {
      define(copy, k, src[k]);
    }
  }
  if (value !== REMOVE && !hasOwn(o, key)) define(copy, key, value);
  return Object.freeze(copy);
}

/** A frozen shallow copy of array `a` with index `i` (< length) replaced. */
export function arrayWith(a: readonly unknown[], i: number, value: unknown): readonly unknown[] {
  const copy = a.slice();
  copy[i] = value;
  return Object.freeze(copy);
}

/**
 * Validates that `v` is a JSON value (finite numbers, strings, booleans, null,
 * dense arrays, plain or null-prototype objects) and returns a deep-frozen copy
 * of it. Throws a TypeError saying where and what is wrong.
 */
export function toFrozenJson(v: unknown): JsonValue {
  const describe = (path: string) => (path === '' ? 'the value' : `the value at ${path}`);
  const leaf = (x: unknown, path: string): { value: unknown; children: boolean } => {
    const kind = kindOf(x);
    if (kind === undefined) throw new TypeError(`${describe(path)} is not JSON (a ${typeof x})`);
    if (kind === 'number' && !Number.isFinite(x))
      throw new TypeError(`${describe(path)} is not a finite number`);
    if (kind === 'array') return { value: [], children: true };
    if (kind === 'object') {
      const proto = Object.getPrototypeOf(x);
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError(`${describe(path)} is not a plain object`);
      }
      return { value: {}, children: true };
    }
    return { value: x, children: false };
  };
  const root = leaf(v, '');
  // Depth-first with an exit marker per container, so `onPath` holds exactly the
  // ancestors of the node being entered: a cycle is an error, a shared subtree is not.
  const onPath = new Set<object>();
  type Job = { src: object; dst: object; path: string } | { exit: object };
  const pending: Job[] = [];
  if (root.children) pending.push({ src: v as object, dst: root.value as object, path: '' });
  const done: object[] = [];
  for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
    if ('exit' in job) {
      onPath.delete(job.exit);
      continue;
    }
    const { src, dst, path } = job;
    if (onPath.has(src)) throw new TypeError(`${describe(path)} is circular`);
    onPath.add(src);
    pending.push({ exit: src });
    done.push(dst);
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) {
        if (!(i in src)) throw new TypeError(`${describe(`${path}[${i}]`)} is a hole in a sparse array`);
        const p = `${path}[${i}]`;
        const r = leaf(src[i], p);
        out.push(r.value);
        if (r.children) pending.push({ src: src[i] as object, dst: r.value as object, path: p });
      }
    } else {
      const s = src as Record<string, unknown>;
      for (const k of Object.keys(src)) {
        const p = `${path}[${JSON.stringify(k)}]`;
        const r = leaf(s[k], p);
        define(dst, k, r.value);
        if (r.children) pending.push({ src: s[k] as object, dst: r.value as object, path: p });
      }
    }
  }
  for (const o of done) Object.freeze(o);
  return root.value as JsonValue;
}
