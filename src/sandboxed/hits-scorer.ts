/**
 * Runs in a sandboxed process of the pool (src/sandbox/host): the only place head-revision property
 * code executes for TypeScript/JavaScript properties. It never sees the
 * gate's environment (the pool starts it with a scrubbed one) and reports
 * plain data back.
 */

import { randomBytes } from 'node:crypto';
import { type BrandedProperty, definitionsOf } from '../layers/hits/define-property.js';
import type { MutantLabel, MutantOutcome, Status } from '../layers/hits/model.js';
import { deepFreeze, generateMutants, type PerturbOptions } from '../layers/hits/perturb/index.js';
import { createModuleLoader } from '../util/module-loader.js';
import { errorLine } from './head-code-worker.js';

export interface ListTask {
  kind: 'list';
  modules: string[];
}

export interface ListedProperty {
  name: string;
  fixture: string;
  claims: string[];
  module: string;
}

export interface ListResult {
  properties: ListedProperty[];
  errors: { module: string; message: string }[];
}

export interface ScoreTask {
  kind: 'score';
  module: string;
  name: string;
  fixture: unknown;
  perturb: PerturbOptions;
  /** Int32 slots: [0] checks started (the watchdog's heartbeat), [1] index of the check running (-1 = baseline), [2] 1 once the task has started. */
  progress: SharedArrayBuffer;
  /** Keys of mutant label lists the pool already holds (see `ScoreWireResult.labelsKey`). */
  knownLabels?: readonly string[];
  /**
   * How many times to score the property in this one task (the flake runs).
   * One message per property instead of one per run: the round trip costs more
   * than the checks on small fixtures. Each run still gets objects no earlier
   * run has seen, and a hang or crash in any run fails the property as before.
   */
  runs?: number;
}

/**
 * Several properties in one task: one message round trip for all of them
 * (the round trip costs more than scoring a property on a small fixture).
 * Slot 3 of the heartbeat names the item running, so a hang is still pinned
 * on one property.
 */
export interface ScoreBatchTask {
  kind: 'scoreBatch';
  items: { module: string; name: string; fixture: number }[];
  /** Each distinct fixture once; items name theirs by index. */
  fixtures: unknown[];
  perturb: PerturbOptions;
  progress: SharedArrayBuffer;
  knownLabels?: readonly string[];
  runs?: number;
}

/** Per item, in order: its runs, or why it could not be scored (its module no longer exports it…). */
export type ScoreBatchResult = ({ runs: ScoreWireResult[] } | { error: string })[];

export interface ScoreResult {
  baseline: Status;
  baselineError?: string;
  mutants: MutantOutcome[];
}

/**
 * What a score task sends back: one byte per mutant instead of one object per
 * mutant (cloning those cost more than the checks). The pool turns it back
 * into a `ScoreResult` with the labels, which are the same for every property
 * of the same fixture and options, so they cross the thread boundary once.
 */
export interface ScoreWireResult {
  baseline: Status;
  baselineError?: string;
  /** Per mutant, in order: 1 pass, 0 fail. */
  statuses: Uint8Array;
  /** Names the labels in the pool's cache; absent when the labels are not cached. */
  labelsKey?: string;
  /** The mutants' labels, unless the task listed `labelsKey` as known. */
  labels?: MutantLabel[];
}

// One loader per worker: modules stay cached for the many score tasks that follow a list.
const jiti = createModuleLoader({ cache: true, entry: 'define' });
const loaded = new Map<string, Promise<BrandedProperty[]>>();

function load(module: string): Promise<BrandedProperty[]> {
  let p = loaded.get(module);
  if (!p) {
    p = jiti
      .import<Record<string, unknown>>(module)
      .then((mod) => definitionsOf(mod as Record<string, unknown>));
    loaded.set(module, p);
  }
  return p;
}

/** A module's definitions by name, the first of each name (as `find` would pick); built once per module. */
const byName = new WeakMap<BrandedProperty[], Map<unknown, BrandedProperty>>();

function findProperty(defs: BrandedProperty[], name: string): BrandedProperty | undefined {
  let index = byName.get(defs);
  if (!index) {
    index = new Map();
    for (const d of defs) if (!index.has(d.name)) index.set(d.name, d);
    byName.set(defs, index);
  }
  return index.get(name);
}

const FAIL = 0;
const PASS = 1;
type Verdict = typeof FAIL | typeof PASS;

/** The text `errorLine` would give, only for its side effects: a mutant's error is not reported. */
function touchError(err: unknown): void {
  if (err instanceof Error) void `${err.name}: ${err.message}`;
  else void `thrown: ${String(err)}`;
}

async function settleMutant(thenable: unknown): Promise<Verdict> {
  try {
    return (await thenable) === false ? FAIL : PASS;
  } catch (err) {
    touchError(err);
    return FAIL;
  }
}

/**
 * One check of a mutant. Synchronous unless the check returned a thenable:
 * awaiting every check would cost a promise and a microtask turn per mutant.
 */
function checkMutant(property: BrandedProperty, value: unknown): Verdict | Promise<Verdict> {
  let result: unknown;
  try {
    result = property.check(value);
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') return settleMutant(result);
  } catch (err) {
    touchError(err);
    return FAIL;
  }
  return result === false ? FAIL : PASS;
}

/** The verdict of the check `checkFrom` stopped at, for the caller to await. */
let pendingVerdict: Promise<Verdict> | undefined;

/**
 * Checks `values` from index `from` on, synchronously: `checkMutant`, inlined
 * by hand in the loop that runs every check. The heartbeat goes before each
 * check: slot 1 (the index), then slot 0 (checks started: the baseline, then
 * i + 1 mutants), as plain stores: the host's relay thread reads them with
 * Atomics.load every few milliseconds, and a check that hangs leaves both
 * written long before its budget runs out. A sequentially consistent store
 * per check cost more than many of the checks themselves. Returns the length, or the
 * index of a check that returned a thenable, its verdict in `pendingVerdict`.
 */
function checkFrom(
  property: BrandedProperty,
  values: readonly unknown[],
  statuses: Uint8Array,
  progress: Int32Array,
  from: number,
): number {
  const n = values.length;
  for (let i = from; i < n; i++) {
    progress[1] = i;
    progress[0] = i + 2;
    let result: unknown;
    try {
      result = property.check(values[i]);
      if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
        pendingVerdict = settleMutant(result);
        return i;
      }
    } catch (err) {
      touchError(err);
      result = false;
    }
    statuses[i] = result === false ? FAIL : PASS;
  }
  return n;
}

async function runCheck(
  property: BrandedProperty,
  fixture: unknown,
): Promise<{ status: Status; error?: string }> {
  try {
    let result = property.check(fixture);
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') result = await result;
    return result === false ? { status: 'fail', error: 'check returned false' } : { status: 'pass' };
  } catch (err) {
    return { status: 'fail', error: errorLine(err) };
  }
}

// ------------------------------------------------------------ mutant cache
//
// Properties of one repository mostly share a few fixtures, and every task of
// a revision carries the same perturbation options: building the mutants
// again for every property cost more than checking them. So a worker builds
// them once per fixture and options, and keeps them for the tasks that follow.
//
// - A task's fixture arrives as a fresh structured clone: entries are found by
//   content (same keys in the same order, same values), never by identity.
// - Mutants are deeply frozen: no check can change what the next one sees.
// - No property is handed the same object twice, as when every task built its
//   own: a property's n-th task with a fixture gets the n-th set of objects
//   (a set per run of `hits.runs`), so a check that remembers fixtures by
//   identity (a WeakMap memo) still shows a flake in the next run.
// - Memory is bounded: what does not fit is built for the task and dropped, as before.

/** One set of objects: the deep-frozen fixture and its mutants, in order. */
interface Generation {
  fixture: unknown;
  values: unknown[];
}

interface Prepared {
  /** Names `labels` in the pool's cache; unique per process and entry. */
  key: string;
  /** The first task's fixture and options, which later tasks are compared with. */
  fixture: unknown;
  perturb: PerturbOptions;
  labels: MutantLabel[];
  generations: Generation[];
  /** Tasks served per property (module and name). */
  served: Map<string, number>;
  /** Budget units of one generation. */
  cost: number;
}

/** Rough memory budget, in value slots: for one generation, and for everything kept. */
const GENERATION_BUDGET = 1 << 18;
const TOTAL_BUDGET = 1 << 20;
const MAX_ENTRIES = 16;
/** Most recently used first. */
const prepared: Prepared[] = [];
let preparedSeq = 0;
/** Unique per process: keys name label lists in the pool's cache, which every process of the pool shares. */
const HOST_KEY = randomBytes(6).toString('hex');

/**
 * True when `a` and `b` are the same plain data: primitives by `Object.is`,
 * arrays item by item, plain objects key by key in the same order. Anything
 * else (a Date, a Map, another prototype) is never the same.
 */
function sameData(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (Object.is(x, y)) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    const px = Object.getPrototypeOf(x);
    if (Array.isArray(y) || px !== Object.getPrototypeOf(y) || (px !== Object.prototype && px !== null))
      return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    const rx = x as Record<string, unknown>;
    const ry = y as Record<string, unknown>;
    for (let i = 0; i < kx.length; i++) {
      const k = kx[i] as string;
      if (k !== ky[i]) return false;
      pending.push(rx[k], ry[k]);
    }
  }
  return true;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameLabels(a: readonly MutantLabel[], b: readonly MutantLabel[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as MutantLabel;
    const y = b[i] as MutantLabel;
    if (!sameStrings(x.paths, y.paths) || !sameStrings(x.operators, y.operators)) return false;
  }
  return true;
}

function lookupPrepared(fixture: unknown, perturb: PerturbOptions): Prepared | undefined {
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i] as Prepared;
    if (sameData(p.fixture, fixture) && sameData(p.perturb, perturb)) {
      if (i > 0) {
        prepared.splice(i, 1);
        prepared.unshift(p);
      }
      return p;
    }
  }
  return undefined;
}

/**
 * An upper bound of what one mutant holds beyond what it shares with the
 * fixture: one copied container per level down to `maxDepth`, plus the new
 * value (a container or a string) at the bottom.
 */
function mutantCost(fixture: unknown, maxDepth: number): number {
  let cost = 0;
  let level: unknown[] = [fixture];
  for (let depth = 0; level.length > 0 && depth <= maxDepth; depth++) {
    let widest = 1;
    const next: unknown[] = [];
    for (const v of level) {
      if (typeof v === 'string') widest = Math.max(widest, Math.ceil(v.length / 8));
      else if (Array.isArray(v)) {
        widest = Math.max(widest, v.length + 1);
        for (const c of v) next.push(c);
      } else if (typeof v === 'object' && v !== null) {
        const r = v as Record<string, unknown>;
        const keys = Object.keys(r);
        widest = Math.max(widest, keys.length + 1);
        for (const k of keys) next.push(r[k]);
      }
    }
    cost += widest;
    if (cost > GENERATION_BUDGET) return cost;
    level = next;
  }
  return cost;
}

/** Drops least recently used entries (never `protect`) until `extra` more units fit; says whether they do. */
function makeRoom(extra: number, protect: Prepared | undefined): boolean {
  const used = () => prepared.reduce((sum, p) => sum + p.cost * p.generations.length, 0);
  for (let i = prepared.length - 1; i >= 0 && used() + extra > TOTAL_BUDGET; i--) {
    if (prepared[i] !== protect) prepared.splice(i, 1);
  }
  return used() + extra <= TOTAL_BUDGET;
}

/** Keeps a freshly built generation: as a new entry, or as the next generation of `entry`. */
function keep(
  entry: Prepared | undefined,
  nth: number,
  generation: Generation,
  labels: MutantLabel[],
  perturb: PerturbOptions,
  cost: number,
): Prepared | undefined {
  if (entry) {
    if (nth !== entry.generations.length || !sameLabels(entry.labels, labels)) return undefined;
    if (!makeRoom(cost, entry)) return undefined;
    entry.generations.push(generation);
    return entry;
  }
  if (prepared.length >= MAX_ENTRIES) prepared.length = MAX_ENTRIES - 1;
  if (!makeRoom(cost, undefined)) return undefined;
  const created: Prepared = {
    key: `${HOST_KEY}.${preparedSeq++}`,
    fixture: generation.fixture,
    perturb,
    labels,
    generations: [generation],
    served: new Map(),
    cost,
  };
  prepared.unshift(created);
  return created;
}

/**
 * A fresh set of objects equal to `g`: every object reachable from its
 * fixture and mutants copied once (what they share stays shared, so mutants
 * still share their untouched subtrees with the fixture), same keys in the
 * same order, frozen. The same as building the mutants again on a fresh clone
 * of the fixture, for a fraction of the cost. Undefined when `g` holds
 * anything but plain objects and dense arrays; the caller then builds them.
 */
function copyGeneration(g: Generation): Generation | undefined {
  const copies = new Map<object, object>();
  const originals: object[] = [];
  const pending: unknown[] = [g.fixture, ...g.values];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null || copies.has(v)) continue;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return undefined;
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) return undefined;
        pending.push(v[i]);
      }
      copies.set(v, new Array<unknown>(v.length));
    } else {
      if (Object.getPrototypeOf(v) !== Object.prototype) return undefined;
      const r = v as Record<string, unknown>;
      for (const k of Object.keys(r)) pending.push(r[k]);
      copies.set(v, {});
    }
    originals.push(v);
  }
  const map = (x: unknown): unknown => (typeof x === 'object' && x !== null ? copies.get(x) : x);
  for (const o of originals) {
    const c = copies.get(o) as Record<string | number, unknown>;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) c[i] = map(o[i]);
    } else {
      const r = o as Record<string, unknown>;
      for (const k of Object.keys(r)) {
        // defineProperty, never assignment: a `"__proto__"` key is data.
        if (k === '__proto__')
          Object.defineProperty(c, k, {
            value: map(r[k]),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else c[k] = map(r[k]);
      }
    }
    Object.freeze(c);
  }
  return { fixture: map(g.fixture), values: g.values.map(map) };
}

async function list(task: ListTask): Promise<ListResult> {
  const properties: ListedProperty[] = [];
  const errors: ListResult['errors'] = [];
  for (const module of task.modules) {
    try {
      const defs = await load(module);
      if (defs.length === 0)
        errors.push({ module, message: 'exports no property made with defineProperty()' });
      for (const d of defs) {
        const bad =
          typeof d.name !== 'string' || d.name === ''
            ? 'a property without a name'
            : typeof d.fixture !== 'string'
              ? `property '${d.name}' has no fixture path`
              : !Array.isArray(d.claims) || d.claims.some((c) => typeof c !== 'string')
                ? `property '${d.name}' must list its claims as strings`
                : typeof d.check !== 'function'
                  ? `property '${d.name}' has no check function`
                  : undefined;
        if (bad) errors.push({ module, message: bad });
        else properties.push({ name: d.name, fixture: d.fixture, claims: [...d.claims], module });
      }
    } catch (err) {
      errors.push({ module, message: `failed to load: ${errorLine(err)}` });
    }
  }
  return { properties, errors };
}

async function score(task: ScoreTask): Promise<ScoreWireResult> {
  // Slot 2 tells the watchdog the task left the queue: time spent waiting for a worker is nobody's hang.
  Atomics.store(new Int32Array(task.progress), 2, 1);
  const defs = await load(task.module);
  const property = findProperty(defs, task.name);
  if (!property) throw new Error(`property '${task.name}' is no longer exported by ${task.module}`);
  const progress = new Int32Array(task.progress);
  let entry = lookupPrepared(task.fixture, task.perturb);
  const who = `${task.module}\n${task.name}`;
  const nth = entry?.served.get(who) ?? 0;
  let ready = entry?.generations[nth];
  if (entry && !ready) {
    // This property has had every set so far: a fresh copy, kept for the others if it fits.
    ready = copyGeneration(entry.generations[0] as Generation);
    if (ready && nth === entry.generations.length && makeRoom(entry.cost, entry))
      entry.generations.push(ready);
  }
  const fixture = ready ? ready.fixture : deepFreeze(task.fixture);
  Atomics.store(progress, 1, -1);
  Atomics.add(progress, 0, 1);
  const base = await runCheck(property, fixture);
  let statuses: Uint8Array;
  let labels: MutantLabel[];
  if (ready && entry) {
    const values = ready.values;
    const n = values.length;
    statuses = new Uint8Array(n);
    for (let i = checkFrom(property, values, statuses, progress, 0); i < n; ) {
      statuses[i] = await (pendingVerdict as Promise<Verdict>);
      i = checkFrom(property, values, statuses, progress, i + 1);
    }
    labels = entry.labels;
  } else {
    // Built while they are checked, as always (same heartbeat as `checkFrom`); kept if they fit the budget.
    const mutants = generateMutants(fixture, task.perturb);
    const cost = mutantCost(fixture, task.perturb.maxDepth) * (task.perturb.interactions?.length ? 2 : 1);
    let values: unknown[] | undefined = [];
    const out: number[] = [];
    labels = [];
    let i = 0;
    for (const m of mutants) {
      progress[1] = i;
      progress[0] = i + 2;
      const v = checkMutant(property, m.value);
      out.push(typeof v === 'number' ? v : await v);
      labels.push({ paths: m.paths, operators: m.operators });
      i++;
      if (values !== undefined) {
        if (i * cost > GENERATION_BUDGET) values = undefined;
        else values.push(m.value);
      }
    }
    statuses = Uint8Array.from(out);
    const kept =
      values === undefined
        ? undefined
        : keep(entry, nth, { fixture, values }, labels, task.perturb, Math.max(1, i * cost));
    // Not kept (over budget): the labels may still be the entry's, already in the pool.
    if (kept) entry = kept;
    else if (entry && !sameLabels(entry.labels, labels)) entry = undefined;
    if (entry) labels = entry.labels;
  }
  entry?.served.set(who, nth + 1);
  const labelsKey = entry?.key;
  const sendLabels = labelsKey === undefined || !task.knownLabels?.includes(labelsKey);
  return {
    baseline: base.status,
    ...(base.error ? { baselineError: base.error } : {}),
    statuses,
    ...(labelsKey !== undefined ? { labelsKey } : {}),
    ...(sendLabels ? { labels } : {}),
  };
}

async function scoreBatch(task: ScoreBatchTask): Promise<ScoreBatchResult> {
  const progress = new Int32Array(task.progress);
  // Labels sent earlier in this batch reach the pool before any later item's result is read.
  const known = [...(task.knownLabels ?? [])];
  const out: ScoreBatchResult = [];
  for (const [i, item] of task.items.entries()) {
    Atomics.store(progress, 3, i);
    const one: ScoreTask = {
      kind: 'score',
      module: item.module,
      name: item.name,
      fixture: task.fixtures[item.fixture],
      perturb: task.perturb,
      progress: task.progress,
      knownLabels: known,
    };
    try {
      const runs: ScoreWireResult[] = [];
      for (let r = 0; r < (task.runs ?? 1); r++) {
        const wire = await score(one);
        if (wire.labels !== undefined && wire.labelsKey !== undefined) known.push(wire.labelsKey);
        runs.push(wire);
      }
      out.push({ runs });
    } catch (err) {
      out.push({ error: errorLine(err) });
    }
  }
  return out;
}

export default async function run(
  task: ListTask | ScoreTask | ScoreBatchTask,
): Promise<ListResult | ScoreWireResult[] | ScoreBatchResult> {
  if (task.kind === 'list') return list(task);
  if (task.kind === 'scoreBatch') return scoreBatch(task);
  const results: ScoreWireResult[] = [];
  for (let r = 0; r < (task.runs ?? 1); r++) results.push(await score(task));
  return results;
}
