/**
 * Mutant generation: every path of a locked fixture down to `maxDepth`, every
 * operator that changes the value there, one mutant each; then the declared
 * interaction pairs. Nothing else: the full product of fields is a different
 * test with a different budget.
 *
 * Mutants are copy-on-write. The fixture is deep-frozen once; a mutant copies
 * only the containers on the way from the root to the changed path (shallow,
 * then frozen) and shares every other subtree with the fixture, so a mutant of a
 * large fixture costs the size of its path, not of the fixture.
 */

import { byCodePoint } from '../../../util/compare.js';
import type { MutantLabel } from '../model.js';
import {
  appendSegment,
  formatPath,
  isUnder,
  type JsonPath,
  lookupPath,
  PathSyntaxError,
  parsePath,
} from './json-path.js';
import { isContainer, kindOf, objectWith } from './json-value.js';
import {
  BUILTIN_OPERATORS,
  type Operator,
  type OperatorSpec,
  OperatorSpecError,
  resolveOperator,
  SKIP,
} from './operators.js';

export interface PerturbOverride {
  /** A path of the fixture, as written in the config. */
  path: string;
  /** `true`: only `use` runs at this path. `false`: `use` runs after the built-ins. */
  replace: boolean;
  use: readonly OperatorSpec[];
}

export interface PerturbOptions {
  /** Path segments: top-level fields are depth 1, `lines[0]` is 2, `lines[0].qty` is 3. `Infinity` for all. */
  maxDepth: number;
  overrides?: readonly PerturbOverride[];
  /** Pairs of paths perturbed together (each operator of the first × each of the second). */
  interactions?: readonly (readonly [string, string])[];
}

/** One perturbed fixture. `paths` are canonical (`formatPath`), one per operator. */
export interface Mutant extends MutantLabel {
  value: unknown;
}

/** A problem with `PerturbOptions` against this fixture; the caller reports it as a config error. */
export class PerturbConfigError extends Error {
  /** Which option: `maxDepth`, `overrides[2]`, `overrides[2].use[0]`, `interactions[1]`. */
  readonly where: string;
  /** The path the problem is about, as written, when there is one. */
  readonly path: string | undefined;

  constructor(where: string, path: string | undefined, reason: string, options?: { cause?: unknown }) {
    super(`${where}: ${reason}`, options);
    this.name = 'PerturbConfigError';
    this.where = where;
    this.path = path;
  }
}

const deeplyFrozen = new WeakSet<object>();

/**
 * Freezes `v` and every container inside it, iteratively (no recursion, so any
 * depth works), and returns `v`. A value it has deep-frozen before is not walked again.
 */
export function deepFreeze<T>(v: T): T {
  if (!isContainer(v) || deeplyFrozen.has(v)) return v;
  const seen = new Set<object>([v]);
  const pending: object[] = [v];
  const visit = (child: unknown): void => {
    if (isContainer(child) && !seen.has(child) && !deeplyFrozen.has(child)) {
      seen.add(child);
      pending.push(child);
    }
  };
  for (let o = pending.pop(); o !== undefined; o = pending.pop()) {
    Object.freeze(o);
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) visit(o[i]);
    } else {
      const r = o as Record<string, unknown>;
      for (const k of Object.keys(o)) visit(r[k]);
    }
  }
  deeplyFrozen.add(v);
  return v;
}

interface Target {
  segs: JsonPath;
  text: string;
  value: unknown;
}

interface Plan {
  root: unknown;
  maxDepth: number;
  /** Operator list per canonical path that has an override. */
  ops: Map<string, readonly Operator[]>;
  interactions: [Target, Target][];
}

function target(root: unknown, where: string, raw: unknown): Target {
  if (typeof raw !== 'string') throw new PerturbConfigError(where, undefined, 'expected a path string');
  let segs: JsonPath;
  try {
    segs = parsePath(raw);
  } catch (err) {
    if (err instanceof PathSyntaxError) throw new PerturbConfigError(where, raw, err.message, { cause: err });
    throw err;
  }
  const found = lookupPath(root, segs);
  if (!found.found) throw new PerturbConfigError(where, raw, `path "${raw}" does not exist in the fixture`);
  return { segs, text: formatPath(segs), value: found.value };
}

function preparePlan(fixture: unknown, opts: PerturbOptions): Plan {
  const { maxDepth } = opts;
  if (
    typeof maxDepth !== 'number' ||
    !(maxDepth === Infinity || (Number.isInteger(maxDepth) && maxDepth >= 0))
  ) {
    throw new PerturbConfigError(
      'maxDepth',
      undefined,
      `expected a non-negative integer, got ${String(maxDepth)}`,
    );
  }
  const root = deepFreeze(fixture);
  const interactions: [Target, Target][] = [];
  const pairAt = new Map<string, string>();
  const inInteraction = new Set<string>();
  (opts.interactions ?? []).forEach((pair, i) => {
    const where = `interactions[${i}]`;
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new PerturbConfigError(where, undefined, 'expected a pair of paths');
    }
    const a = target(root, where, pair[0]);
    const b = target(root, where, pair[1]);
    if (isUnder(a.segs, b.segs) || isUnder(b.segs, a.segs)) {
      throw new PerturbConfigError(
        where,
        pair[0],
        `paths "${pair[0]}" and "${pair[1]}" overlap; an interaction needs two disjoint fields`,
      );
    }
    const key = [a.text, b.text].sort(byCodePoint).join('\u0000');
    const earlier = pairAt.get(key);
    if (earlier !== undefined) {
      throw new PerturbConfigError(
        where,
        pair[0],
        `the pair "${pair[0]}", "${pair[1]}" is already declared at ${earlier}`,
      );
    }
    pairAt.set(key, where);
    interactions.push([a, b]);
    inInteraction.add(a.text);
    inInteraction.add(b.text);
  });
  const ops = new Map<string, readonly Operator[]>();
  const overrideAt = new Map<string, string>();
  (opts.overrides ?? []).forEach((o, i) => {
    const where = `overrides[${i}]`;
    const t = target(root, where, o.path);
    // An override deeper than maxDepth would never run, unless an interaction reaches its path.
    if (t.segs.length > maxDepth && !inInteraction.has(t.text)) {
      throw new PerturbConfigError(
        where,
        o.path,
        `path "${o.path}" is at depth ${t.segs.length}, deeper than maxDepth ${maxDepth}, and in no interaction; raise maxDepth or drop the override`,
      );
    }
    const earlier = overrideAt.get(t.text);
    if (earlier !== undefined) {
      throw new PerturbConfigError(where, o.path, `path "${o.path}" already has an override at ${earlier}`);
    }
    overrideAt.set(t.text, where);
    if (!Array.isArray(o.use) || typeof o.replace !== 'boolean') {
      throw new PerturbConfigError(
        where,
        o.path,
        'expected "replace" (a boolean) and "use" (a list of operators)',
      );
    }
    const kind = kindOf(t.value);
    const list: Operator[] = o.replace ? [] : [...BUILTIN_OPERATORS];
    o.use.forEach((spec, k) => {
      const at = `${where}.use[${k}]`;
      let op: Operator;
      try {
        op = resolveOperator(spec);
      } catch (err) {
        if (err instanceof OperatorSpecError)
          throw new PerturbConfigError(at, o.path, err.message, { cause: err });
        throw err;
      }
      if (kind === undefined || !op.appliesTo.includes(kind)) {
        throw new PerturbConfigError(
          at,
          o.path,
          `operator "${op.name}" changes ${op.appliesTo.join('/')} values, but "${o.path}" is ${kind ?? 'not JSON'}`,
        );
      }
      if (list.some((x) => x.name === op.name)) {
        const why = o.replace ? 'is listed twice' : 'is already a built-in (replace is false)';
        throw new PerturbConfigError(at, o.path, `operator "${op.name}" ${why} for "${o.path}"`);
      }
      list.push(op);
    });
    ops.set(t.text, Object.freeze(list));
  });

  return { root, maxDepth, ops, interactions };
}

interface Frame {
  value: unknown;
  seg: string | number;
  parent: Frame | undefined;
  depth: number;
  text: string;
}

/** Every non-root node down to `maxDepth`, depth-first pre-order, keys by code point, indices ascending. */
function* walk(plan: Plan): Generator<Frame> {
  const pending: Frame[] = [];
  const pushChildren = (parent: Frame | undefined, value: unknown, depth: number): void => {
    if (depth >= plan.maxDepth || !isContainer(value)) return;
    const text = parent === undefined ? '' : parent.text;
    // Pushed in reverse so they come off the stack in order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        pending.push({ value: value[i], seg: i, parent, depth: depth + 1, text: appendSegment(text, i) });
      }
      return;
    }
    const r = value as Record<string, unknown>;
    const keys = Object.keys(value).sort(byCodePoint);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string;
      pending.push({ value: r[k], seg: k, parent, depth: depth + 1, text: appendSegment(text, k) });
    }
  };
  pushChildren(undefined, plan.root, 0);
  for (let f = pending.pop(); f !== undefined; f = pending.pop()) {
    yield f;
    pushChildren(f, f.value, f.depth);
  }
}

function segsOf(f: Frame): JsonPath {
  const segs: (string | number)[] = [];
  for (let x: Frame | undefined = f; x !== undefined; x = x.parent) segs.push(x.seg);
  return segs.reverse();
}

function opsAt(plan: Plan, text: string): readonly Operator[] {
  return plan.ops.get(text) ?? BUILTIN_OPERATORS;
}

/** The operators that change `value`, with what they change it to. */
function changes(ops: readonly Operator[], value: unknown): { name: string; value: unknown }[] {
  const out: { name: string; value: unknown }[] = [];
  for (const op of ops) {
    const v = op.apply(value);
    if (v !== SKIP) out.push({ name: op.name, value: v });
  }
  return out;
}

/**
 * `arrayWith`, without `slice` (slow on a frozen array) or the array iterator:
 * a frozen shallow copy of `a` with index `i` replaced.
 */
function copyArrayWith(a: readonly unknown[], i: number, value: unknown): readonly unknown[] {
  const n = a.length;
  const copy = new Array<unknown>(n);
  for (let k = 0; k < n; k++) copy[k] = a[k];
  copy[i] = value;
  return Object.freeze(copy);
}

/** Objects `copyObjectWith` may spread: `Object.prototype` as prototype, no symbol keys. */
const spreadable = new WeakMap<object, boolean>();

function isSpreadable(o: object): boolean {
  let ok = spreadable.get(o);
  if (ok === undefined) {
    ok = Object.getPrototypeOf(o) === Object.prototype && Object.getOwnPropertySymbols(o).length === 0;
    spreadable.set(o, ok);
  }
  return ok;
}

/**
 * `objectWith` for an existing key: for a plain object, a spread copies the
 * own enumerable string keys in the same order, as data properties (an own
 * `"__proto__"` key stays data), far faster than one `defineProperty` each.
 * Anything else (another prototype, symbol keys, the `"__proto__"` key itself)
 * takes `objectWith`. Containers on a mutant's path are frozen, so whether
 * one is plain is worked out once.
 */
function copyObjectWith(o: object, key: string, value: unknown): object {
  if (key === '__proto__' || !isSpreadable(o)) return objectWith(o, key, value);
  const copy: Record<string, unknown> = { ...(o as Record<string, unknown>) };
  copy[key] = value;
  return Object.freeze(copy);
}

/** `root` with the value at `segs` replaced: the containers on the path are copied and frozen, all else shared. */
function setAt(root: unknown, segs: JsonPath, value: unknown): unknown {
  const n = segs.length;
  const chain = new Array<unknown>(n);
  let cur = root;
  for (let i = 0; i < n; i++) {
    chain[i] = cur;
    cur = (cur as Record<string | number, unknown>)[segs[i] as string | number];
  }
  let out = value;
  for (let i = n - 1; i >= 0; i--) {
    const seg = segs[i] as string | number;
    const container = chain[i] as object;
    out =
      typeof seg === 'number'
        ? copyArrayWith(container as unknown[], seg, out)
        : copyObjectWith(container, seg, out);
  }
  return out;
}

function* mutantsOf(plan: Plan): Generator<Mutant> {
  for (const f of walk(plan)) {
    const found = changes(opsAt(plan, f.text), f.value);
    if (found.length === 0) continue;
    const segs = segsOf(f);
    for (const c of found) {
      yield { paths: [f.text], operators: [c.name], value: setAt(plan.root, segs, c.value) };
    }
  }
  for (const [a, b] of plan.interactions) {
    const as = changes(opsAt(plan, a.text), a.value);
    const bs = changes(opsAt(plan, b.text), b.value);
    for (const x of as) {
      const withA = setAt(plan.root, a.segs, x.value);
      for (const y of bs) {
        yield { paths: [a.text, b.text], operators: [x.name, y.name], value: setAt(withA, b.segs, y.value) };
      }
    }
  }
}

/**
 * Every mutant of `fixture`, in a fixed order: single-path mutants (paths in
 * depth-first pre-order, operators in list order), then the interactions in
 * declared order. Deep-freezes `fixture` (in place) and validates `opts`
 * before returning, so a bad config throws `PerturbConfigError` here, not on
 * the first `next()`.
 */
export function generateMutants(fixture: unknown, opts: PerturbOptions): Generator<Mutant, void, undefined> {
  return mutantsOf(preparePlan(fixture, opts));
}

/** How many mutants `generateMutants` yields, without building any of them. Validates like it. */
export function countMutants(fixture: unknown, opts: PerturbOptions): number {
  const plan = preparePlan(fixture, opts);
  let n = 0;
  for (const f of walk(plan)) n += changes(opsAt(plan, f.text), f.value).length;
  for (const [a, b] of plan.interactions) {
    n += changes(opsAt(plan, a.text), a.value).length * changes(opsAt(plan, b.text), b.value).length;
  }
  return n;
}
