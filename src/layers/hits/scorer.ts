import path from 'node:path';
import type { HitsConfig } from '../../config/schema.js';
import type { LimitBreach, Sandbox } from '../../sandbox/sandbox.js';
import type { ScoreResult } from '../../sandboxed/hits-scorer.js';
import { pushAll } from '../../util/arrays.js';
import { findModules } from '../../util/find-modules.js';
import type { ProgressTally } from '../progress.js';
import { type ForeignSources, scoreForeign } from './foreign.js';
import type { MutantOutcome, PropertyInfo, Status } from './model.js';
import { type PerturbOptions, parsePath } from './perturb/index.js';
import { CheckTimeoutError, type PropertyPool } from './pool.js';

/** One run of one property: its outcome, or why it produced none. */
export type RunOutcome =
  | { ok: true; baseline: Status; baselineError?: string; mutants: MutantOutcome[] }
  | { ok: false; kind: 'timeout'; message: string; checkIndex: number }
  | { ok: false; kind: 'crash'; message: string; limit?: LimitBreach };

export interface ScoredProperty {
  info: PropertyInfo;
  runs: RunOutcome[];
}

/** A property that could not be scored at all: its module failed to load, its fixture is not locked… */
export interface SourceProblem {
  source: string;
  property?: string;
  message: string;
}

export interface RevisionScore {
  side: 'base' | 'head';
  /** The properties scored: all of them, or on a shard those it owns. */
  properties: ScoredProperty[];
  /** Every property listed and accepted, scored here or not, by name. */
  listed: PropertyInfo[];
  problems: SourceProblem[];
  /** Config keys of harnesses that answered `list` with no property. */
  emptySources: string[];
}

export interface ScoreRevisionOptions {
  side: 'base' | 'head';
  root: string;
  /** The revision's committed files, where fixtures are read from. */
  readCommitted: ReadCommitted;
  hits: HitsConfig;
  pool: PropertyPool;
  /** Repo-relative paths of fixtures the base locks (tree lock or canonical digest). */
  locked: ReadonlySet<string>;
  /** The scrubbed environment for head code run in child processes. */
  childEnv: Record<string, string>;
  sandbox: Sandbox;
  signal: AbortSignal;
  /** Counts properties scored (all their runs), shared by the revisions scored at once. */
  progress?: ProgressTally;
  /** On a shard: whether it scores this property of a harness or command (those are listed alike everywhere). */
  owns?(name: string): boolean;
  /**
   * On a shard: whether it loads this property module (repo-relative). A
   * module is loaded, listed and scored on one shard only: loading is most
   * of what scoring costs.
   */
  ownsModule?(module: string): boolean;
}

export function perturbOptions(hits: HitsConfig): PerturbOptions {
  return {
    maxDepth: hits.maxDepth,
    overrides: hits.operators.map((o) => ({ path: o.path, replace: o.replace, use: o.use })),
    interactions: hits.interactions.map(([a, b]) => [a, b] as [string, string]),
  };
}

/** The committed bytes of a file of one revision (from git's objects), undefined when it has none. */
export type ReadCommitted = (file: string) => Promise<string | undefined>;

async function loadFixture(
  read: ReadCommitted,
  file: string,
): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  try {
    const text = await read(file);
    if (text === undefined) return { ok: false, message: `fixture ${file} does not exist in this revision` };
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: `fixture ${file} could not be read as JSON: ${(err as Error).message}` };
  }
}

/**
 * Fixtures are read once per revision and shared by every property that
 * names them. They come from git's objects, never from the checkout: a head
 * property's module is imported (and may write its own checkout) before its
 * fixture is read.
 */
export class FixtureCache {
  private readonly cache = new Map<
    string,
    Promise<{ ok: true; value: unknown } | { ok: false; message: string }>
  >();
  constructor(private readonly read: ReadCommitted) {}
  get(file: string) {
    let p = this.cache.get(file);
    if (!p) {
      p = loadFixture(this.read, file);
      this.cache.set(file, p);
    }
    return p;
  }
}

/**
 * Scores every property of one revision `hits.runs` times. Properties are
 * loaded from that revision's own checkout; the fixtures too, but only
 * fixtures the base locks may be used.
 */
export async function scoreRevision(opts: ScoreRevisionOptions): Promise<RevisionScore> {
  const { hits, pool, root } = opts;
  const problems: SourceProblem[] = [];
  const properties: ScoredProperty[] = [];
  const listed: PropertyInfo[] = [];
  const owns = opts.owns ?? (() => true);
  const fixtures = new FixtureCache(opts.readCommitted);
  const perturb = perturbOptions(hits);
  const names = new Map<string, string>();

  const accept = (info: PropertyInfo): boolean => {
    const earlier = names.get(info.name);
    if (earlier !== undefined) {
      problems.push({
        source: info.source,
        property: info.name,
        message: `duplicate property name '${info.name}' (also defined in ${earlier})`,
      });
      return false;
    }
    names.set(info.name, info.source);
    for (const claim of info.claims) {
      try {
        parsePath(claim);
      } catch (err) {
        problems.push({
          source: info.source,
          property: info.name,
          message: `property '${info.name}' has a malformed claim: ${(err as Error).message}`,
        });
        return false;
      }
    }
    if (!opts.locked.has(info.fixture)) {
      problems.push({
        source: info.source,
        property: info.name,
        message: `property '${info.name}' uses fixture ${info.fixture}, which is not locked (add it under fixtures.roots and run \`patchgate lock\`, or list it in fixtures.canonical)`,
      });
      return false;
    }
    return true;
  };

  // TypeScript/JavaScript properties: listed and scored inside the worker pool.
  const ownsModule = opts.ownsModule ?? (() => true);
  const modules = (await findModules(root, hits.properties)).filter((m) => ownsModule(m));
  if (modules.length > 0) {
    const found = await pool.list(modules.map((m) => path.join(root, m)));
    const rel = (abs: string) => path.relative(root, abs).split(path.sep).join('/');
    for (const e of found.errors)
      problems.push({ source: rel(e.module), message: `${rel(e.module)}: ${e.message}` });
    const queued: { scored: ScoredProperty; module: string; name: string; fixture: unknown }[] = [];
    for (const p of found.properties) {
      const info: PropertyInfo = {
        name: p.name,
        fixture: p.fixture,
        claims: p.claims,
        source: rel(p.module),
      };
      if (!accept(info)) continue;
      const fixture = await fixtures.get(info.fixture);
      if (!fixture.ok) {
        problems.push({ source: info.source, property: info.name, message: fixture.message });
        continue;
      }
      listed.push(info);
      const scored: ScoredProperty = { info, runs: [] };
      properties.push(scored);
      queued.push({ scored, module: p.module, name: p.name, fixture: fixture.value });
    }
    opts.progress?.expect(queued.length);
    const results = await scoreInBatches(pool, queued, perturb, hits.runs, (n) => opts.progress?.finish(n));
    for (const [i, item] of queued.entries()) pushAll(item.scored.runs, toRunOutcomes(results[i]));
  }

  // Everything else: harness processes and per-mutant commands, driven from here.
  const foreign: ForeignSources = { python: hits.python, harnesses: hits.harnesses, commands: hits.commands };
  const scoredForeign = await scoreForeign({
    root,
    sources: foreign,
    runs: hits.runs,
    perturb,
    fixtures,
    timeoutMs: hits.timeoutMs,
    env: opts.childEnv,
    sandbox: opts.sandbox,
    ...(hits.network ? { network: true } : {}),
    signal: opts.signal,
    accept,
    owns,
    ...(opts.progress ? { progress: opts.progress } : {}),
  });
  pushAll(problems, scoredForeign.problems);
  pushAll(properties, scoredForeign.properties);
  pushAll(listed, scoredForeign.listed);

  const byName = (a: PropertyInfo, b: PropertyInfo) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  properties.sort((a, b) => byName(a.info, b.info));
  listed.sort(byName);
  return { side: opts.side, properties, listed, problems, emptySources: scoredForeign.empty };
}

/** How many tasks each worker gets: more balances uneven properties, fewer saves round trips. */
const BATCHES_PER_WORKER = 4;

/**
 * Scores properties `runs` times each, several per pool task, yet in enough
 * tasks that every worker stays busy to the end. Results in input order.
 */
export async function scoreInBatches(
  pool: PropertyPool,
  items: readonly { module: string; name: string; fixture: unknown }[],
  perturb: PerturbOptions,
  runs: number,
  /** Told how many properties each batch held, as it comes back. */
  onBatchDone?: (properties: number) => void,
): Promise<(ScoreResult[] | Error)[]> {
  const size = Math.max(1, Math.ceil(items.length / (pool.size * BATCHES_PER_WORKER)));
  const batches: (typeof items)[] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  const answers = await Promise.all(
    batches.map((batch) => pool.scoreBatch(batch, perturb, runs).finally(() => onBatchDone?.(batch.length))),
  );
  return answers.flat();
}

function toRunOutcomes(result: ScoreResult[] | Error | undefined): RunOutcome[] {
  if (result === undefined) return [{ ok: false, kind: 'crash', message: 'the pool sent no answer' }];
  if (result instanceof CheckTimeoutError)
    return [{ ok: false, kind: 'timeout', message: result.message, checkIndex: result.checkIndex }];
  if (result instanceof Error) {
    const limit = (result as { breach?: LimitBreach }).breach;
    return [{ ok: false, kind: 'crash', message: result.message, ...(limit ? { limit } : {}) }];
  }
  return result.map((r) => ({
    ok: true,
    baseline: r.baseline,
    ...(r.baselineError ? { baselineError: r.baselineError } : {}),
    mutants: r.mutants,
  }));
}
