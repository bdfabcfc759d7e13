/**
 * Runs in a sandboxed process of the seed pool: the only place head-revision
 * fast-check properties execute. It replays a property's recorded seeds and
 * counts the examples the property runs as its module declares it, and
 * reports plain data back.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Jiti } from 'jiti';
import type { TapeSeed } from '../contracts/seed-tape.js';
import { type BrandedSeedProperty, seedPropertiesOf } from '../layers/seeds/define-seed-property.js';
import { createModuleLoader } from '../util/module-loader.js';
import { errorLine } from './head-code-worker.js';

export interface ListSeedTask {
  kind: 'list';
  modules: string[];
  /** Entry file of the fast-check copy both the properties and the replay use. */
  fastCheck: string;
}

export interface ListSeedResult {
  properties: { id: string; module: string }[];
  errors: { module: string; message: string }[];
  fastCheckVersion: string;
}

export interface ReplayTask {
  kind: 'replay';
  module: string;
  id: string;
  fastCheck: string;
  seeds: TapeSeed[];
  minExamples: number;
  /** Seed of the as-declared count when the row records none. */
  countSeed: number;
  /** Heartbeat, see WatchedPool: [0] runs started, [1] index of the seed replaying, [2] task started. */
  progress: SharedArrayBuffer;
}

export interface SeedOutcome {
  seed: string;
  status: 'pass' | 'fail' | 'not-run';
  via?: 'seed' | 'path' | 'counterexample' | 'declared';
  message?: string;
  /** fast-check's stringify of the shrunk counterexample. */
  counterexample?: string;
  /** The shrunk counterexample itself, only when it survives a JSON round trip unchanged. */
  shrunk?: unknown;
  path?: string;
  /** Runs executed (skips excluded) by the seed's full replay. */
  examples: number;
}

export interface ReplayResult {
  seeds: SeedOutcome[];
  /** The run the project declares (its params), counted. */
  /** When the declared run fails, its count means nothing (the failure is the seed replays' to report). */
  declared: { numRuns: number; counted: number; seed: number; failed: boolean };
  /** Runs each seed replay asked for: the larger of the floor and the declared numRuns. */
  replayRuns: number;
}

/** The most runs a replay takes from the head's declared numRuns (the tape's floor may ask for more). */
const REPLAY_RUNS_CAP = 10_000;

interface RunDetailsLike {
  failed: boolean;
  interrupted: boolean;
  numRuns: number;
  numSkips: number;
  counterexample: unknown[] | null;
  counterexamplePath: string | null;
  errorInstance: unknown;
}

interface FastCheckLike {
  check(property: unknown, params: Record<string, unknown>): RunDetailsLike | Promise<RunDetailsLike>;
  stringify(value: unknown): string;
  readConfigureGlobal(): { numRuns?: number } | undefined;
}

interface Loader {
  jiti: Jiti;
  fc: Promise<FastCheckLike>;
  modules: Map<string, Promise<BrandedSeedProperty[]>>;
}

const loaders = new Map<string, Loader>();

function loaderFor(fastCheck: string): Loader {
  let l = loaders.get(fastCheck);
  if (!l) {
    // Properties and replay must share one fast-check: the same seed means the same values only within a version.
    const jiti = createModuleLoader({ cache: true, entry: 'define', alias: { 'fast-check': fastCheck } });
    l = { jiti, fc: jiti.import<FastCheckLike>(fastCheck), modules: new Map() };
    loaders.set(fastCheck, l);
  }
  return l;
}

function load(l: Loader, module: string): Promise<BrandedSeedProperty[]> {
  let p = l.modules.get(module);
  if (!p) {
    p = l.jiti
      .import<Record<string, unknown>>(module)
      .then((mod) => seedPropertiesOf(mod as Record<string, unknown>));
    l.modules.set(module, p);
  }
  return p;
}

function versionOf(fastCheck: string): string {
  let dir = path.dirname(fastCheck);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'fast-check' && pkg.version) return pkg.version;
    } catch {
      // not this folder
    }
    dir = path.dirname(dir);
  }
  return 'unknown';
}

async function list(task: ListSeedTask): Promise<ListSeedResult> {
  const l = loaderFor(task.fastCheck);
  const out: ListSeedResult = { properties: [], errors: [], fastCheckVersion: versionOf(task.fastCheck) };
  for (const module of task.modules) {
    try {
      for (const def of await load(l, module)) {
        if (typeof def.id !== 'string' || def.id.trim() === '') {
          out.errors.push({ module, message: 'a seed property has no id' });
        } else out.properties.push({ id: def.id, module });
      }
    } catch (err) {
      out.errors.push({ module, message: errorLine(err, 500) });
    }
  }
  return out;
}

/** The property as fast-check sees it, beating the heartbeat before every run (shrinking included). */
function watched(property: BrandedSeedProperty['property'], beat: Int32Array): unknown {
  const p = property as unknown as Record<string, (...args: unknown[]) => unknown>;
  const call =
    (name: string) =>
    (...args: unknown[]) =>
      // biome-ignore lint/plugin: forwards this call's own arguments, as many as fast-check passed it
      (p[name] as (...a: unknown[]) => unknown).apply(p, args);
  return {
    isAsync: call('isAsync'),
    generate: call('generate'),
    shrink: call('shrink'),
    runBeforeEach: call('runBeforeEach'),
    runAfterEach: call('runAfterEach'),
    run: (...args: unknown[]) => {
      Atomics.add(beat, 0, 1);
      // biome-ignore lint/plugin: forwards this call's own arguments, as many as fast-check passed it
      return (p.run as (...a: unknown[]) => unknown).apply(p, args);
    },
  };
}

function jsonSafe(value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value);
  } catch {
    return false;
  }
}

/**
 * Parameters the gate fixes for a replay, whatever the head's module or
 * `fc.configureGlobal` says: the random generator and bias decide which
 * values a seed yields, and time limits, reporters or equal-value skipping
 * would let a patch make a replay run less.
 */
function replayParams(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    randomType: 'xorshift128plus',
    unbiased: false,
    endOnFailure: false,
    verbose: 0,
    examples: [],
    path: undefined,
    reporter: undefined,
    asyncReporter: undefined,
    skipAllAfterTimeLimit: undefined,
    interruptAfterTimeLimit: undefined,
    markInterruptAsFailure: false,
    skipEqualValues: false,
    ignoreEqualValues: false,
    timeout: undefined,
    ...extra,
  };
}

function failure(
  fc: FastCheckLike,
  d: RunDetailsLike,
  via: NonNullable<SeedOutcome['via']>,
): Omit<SeedOutcome, 'seed' | 'examples'> {
  if (d.counterexample === null) {
    return {
      status: 'not-run',
      via,
      message: d.interrupted
        ? 'the run was interrupted before it finished'
        : `fast-check could not run it: ${d.errorInstance ? errorLine(d.errorInstance, 500) : `too many skipped runs (${d.numSkips} skips)`}`,
    };
  }
  const shrunk = d.counterexample;
  return {
    status: 'fail',
    via,
    message: d.errorInstance === null ? 'the predicate returned false' : errorLine(d.errorInstance, 500),
    counterexample: fc.stringify(shrunk),
    ...(jsonSafe(shrunk) ? { shrunk } : {}),
    // A path is only meaningful for the generator's own runs; an explicit example has none worth recording.
    ...(d.counterexamplePath && via !== 'counterexample' ? { path: d.counterexamplePath } : {}),
  };
}

async function replay(task: ReplayTask): Promise<ReplayResult> {
  const beat = new Int32Array(task.progress);
  Atomics.store(beat, 2, 1);
  const l = loaderFor(task.fastCheck);
  const fc = await l.fc;
  const def = (await load(l, task.module)).find((d) => d.id === task.id);
  if (!def) throw new Error(`property '${task.id}' is no longer exported by ${task.module}`);
  const property = watched(def.property, beat);
  const declaredParams = (def.params ?? {}) as Record<string, unknown>;
  const declaredRuns =
    typeof declaredParams.numRuns === 'number'
      ? declaredParams.numRuns
      : (fc.readConfigureGlobal()?.numRuns ?? 100);
  // A head that declares a huge numRuns would otherwise keep the gate busy forever, each run beating the watchdog.
  const replayRuns = Math.max(task.minExamples, Math.min(Math.floor(declaredRuns), REPLAY_RUNS_CAP));

  const seeds: SeedOutcome[] = [];
  for (const [i, entry] of task.seeds.entries()) {
    Atomics.store(beat, 1, i);
    const seed = Number(entry.seed);
    let outcome: Omit<SeedOutcome, 'seed' | 'examples'> | undefined;
    // Most specific first: the stored counterexample, then the recorded path, then the seed's full run.
    if (entry.counterexample !== undefined) {
      const d = await fc.check(
        property,
        replayParams({ seed, numRuns: 1, examples: [entry.counterexample] }),
      );
      if (d.failed) outcome = failure(fc, d, 'counterexample');
    }
    if (!outcome && entry.path !== undefined) {
      const d = await fc.check(property, replayParams({ seed, path: entry.path, numRuns: replayRuns }));
      if (d.failed) outcome = failure(fc, d, 'path');
    }
    const full = await fc.check(property, replayParams({ seed, numRuns: replayRuns }));
    if (!outcome && full.failed) outcome = failure(fc, full, 'seed');
    seeds.push({ seed: entry.seed, examples: full.numRuns, ...(outcome ?? { status: 'pass' }) });
  }

  // The floor is counted on the run the project itself declares, not trusted from its params.
  Atomics.store(beat, 1, task.seeds.length);
  const countSeed = task.seeds[0] !== undefined ? Number(task.seeds[0].seed) : task.countSeed;
  // Counting past the floor proves nothing more, so the count stops there.
  const declared = await fc.check(property, {
    ...declaredParams,
    numRuns: Math.min(Math.floor(declaredRuns), task.minExamples),
    seed: countSeed,
    path: undefined,
    examples: [],
    reporter: undefined,
    asyncReporter: undefined,
  });
  return {
    seeds,
    replayRuns,
    declared: {
      numRuns: declaredRuns,
      counted: declared.numRuns,
      seed: countSeed,
      failed: declared.failed,
    },
  };
}

export default function run(task: ListSeedTask | ReplayTask): Promise<ListSeedResult | ReplayResult> {
  return task.kind === 'list' ? list(task) : replay(task);
}
