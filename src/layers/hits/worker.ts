/**
 * Runs in a worker thread of the pool: the only place head-revision property
 * code executes for TypeScript/JavaScript properties. It never sees the
 * gate's environment (the pool starts it with a scrubbed one) and reports
 * plain data back.
 */
import { createModuleLoader } from '../../util/module-loader.js';
import { type BrandedProperty, definitionsOf } from './define-property.js';
import type { MutantOutcome, Status } from './model.js';
import { deepFreeze, generateMutants, type PerturbOptions } from './perturb/index.js';

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
  /** Int32 slots: [0] checks started (the watchdog's heartbeat), [1] index of the check running (-1 = baseline). */
  progress: SharedArrayBuffer;
}

export interface ScoreResult {
  baseline: Status;
  baselineError?: string;
  mutants: MutantOutcome[];
}

// Head code's console output would interleave with the gate's own report: keep it out.
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table'] as const) {
  console[method] = () => undefined;
}
process.stdout.write = (() => true) as typeof process.stdout.write;
process.stderr.write = (() => true) as typeof process.stderr.write;

// One loader per worker: modules stay cached for the many score tasks that follow a list.
const jiti = createModuleLoader({ cache: true });
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

function oneLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`;
  return (text.split('\n')[0] ?? text).slice(0, 300);
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
    return { status: 'fail', error: oneLine(err) };
  }
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
      errors.push({ module, message: `failed to load: ${oneLine(err)}` });
    }
  }
  return { properties, errors };
}

async function score(task: ScoreTask): Promise<ScoreResult> {
  const defs = await load(task.module);
  const property = defs.find((d) => d.name === task.name);
  if (!property) throw new Error(`property '${task.name}' is no longer exported by ${task.module}`);
  const progress = new Int32Array(task.progress);
  const fixture = deepFreeze(task.fixture);
  Atomics.store(progress, 1, -1);
  Atomics.add(progress, 0, 1);
  const base = await runCheck(property, fixture);
  const mutants: MutantOutcome[] = [];
  let i = 0;
  for (const m of generateMutants(fixture, task.perturb)) {
    Atomics.store(progress, 1, i++);
    Atomics.add(progress, 0, 1);
    const r = await runCheck(property, m.value);
    mutants.push({ paths: m.paths, operators: m.operators, status: r.status });
  }
  return { baseline: base.status, ...(base.error ? { baselineError: base.error } : {}), mutants };
}

export default async function run(task: ListTask | ScoreTask): Promise<ListResult | ScoreResult> {
  return task.kind === 'list' ? list(task) : score(task);
}
