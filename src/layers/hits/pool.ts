import { ProcessPool, WorkerCrashError } from '../../sandbox/process-pool.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type {
  ListResult,
  ListTask,
  ScoreBatchResult,
  ScoreBatchTask,
  ScoreResult,
  ScoreTask,
  ScoreWireResult,
} from '../../sandboxed/hits-scorer.js';
import { builtFile } from '../../util/package-root.js';
import type { MutantLabel, MutantOutcome } from './model.js';

/** The check that stopped answering, for the report. */
export class CheckTimeoutError extends Error {
  constructor(
    readonly property: string,
    /** -1 for the baseline check, else the index of the mutant. */
    readonly checkIndex: number,
    readonly timeoutMs: number,
  ) {
    super(
      `property '${property}' did not finish ${checkIndex < 0 ? 'its baseline check' : `check #${checkIndex}`} within ${timeoutMs} ms`,
    );
  }
}

/** How many label lists (one per worker and fixture) a pool keeps. */
const MAX_LABEL_SETS = 256;

export interface PoolOptions {
  workers?: number;
  /** Without `workers`: the pools scoring at once, which share the cores. */
  sharedBy?: number;
  timeoutMs: number;
  /** Exactly the environment head code may see; never the gate's own. */
  env: Record<string, string>;
  sandbox: Sandbox;
  /** The checkout whose properties this pool runs: one pool per revision, so head code never sees the base. */
  root: string;
  readOnly?: readonly string[];
  /** `hits.network`: network for the property processes. */
  network?: boolean;
  signal?: AbortSignal;
}

/** Sandboxed processes for hit scoring of one revision, one watched task per batch of properties. */
export class PropertyPool {
  private readonly pool: ProcessPool;
  readonly size: number;
  /** Mutant labels the workers sent, by key; a key is listed in `knownLabels` only once its labels are here. */
  private readonly labels = new Map<string, MutantLabel[]>();
  /** Shared by every task: cloned when a task is handed to a worker, so it is as fresh as it can be. */
  private readonly knownLabels: string[] = [];

  constructor(private readonly opts: PoolOptions) {
    this.pool = new ProcessPool({ ...opts, handler: builtFile('sandboxed/hits-scorer') });
    this.size = this.pool.size;
  }

  list(modules: string[]): Promise<ListResult> {
    return this.run(
      { kind: 'list', modules } satisfies ListTask,
      'list',
      (_i) => new Error('loading property modules timed out'),
    ) as Promise<ListResult>;
  }

  /** Scores one property `runs` times in one task; one result per run, in order. */
  async score(task: Omit<ScoreTask, 'kind' | 'progress' | 'knownLabels'>): Promise<ScoreResult[]> {
    const wires = (await this.run(
      { ...task, kind: 'score', knownLabels: this.knownLabels } satisfies Omit<ScoreTask, 'progress'>,
      task.name,
      (i) => new CheckTimeoutError(task.name, i, this.opts.timeoutMs),
      true,
    )) as ScoreWireResult[];
    if (!Array.isArray(wires) || wires.length !== (task.runs ?? 1)) {
      throw new WorkerCrashError(
        `worker running '${task.name}' failed: expected ${task.runs ?? 1} run(s) in its answer`,
      );
    }
    return wires.map((w) => this.expand(w, task.name));
  }

  /**
   * Scores several properties in one task, each `runs` times: per item, its
   * results, or the error that stopped it. A hang stops the whole task, so
   * the property that hung gets its CheckTimeoutError and every other item is
   * scored again on its own; a crashed worker sends every item round again on
   * its own, where the culprit crashes alone.
   */
  async scoreBatch(
    items: readonly { module: string; name: string; fixture: unknown }[],
    perturb: ScoreTask['perturb'],
    runs: number,
  ): Promise<(ScoreResult[] | Error)[]> {
    if (items.length === 1) {
      const [only] = items as [{ module: string; name: string; fixture: unknown }];
      return [await this.score({ ...only, perturb, runs }).catch((err: unknown) => asError(err))];
    }
    const fixtures: unknown[] = [];
    const index = new Map<unknown, number>();
    const wanted = items.map((it) => {
      let f = index.get(it.fixture);
      if (f === undefined) {
        f = fixtures.push(it.fixture) - 1;
        index.set(it.fixture, f);
      }
      return { module: it.module, name: it.name, fixture: f };
    });
    const label = `${items.length} properties`;
    let answer: ScoreBatchResult;
    let hung = -1;
    try {
      answer = (await this.pool.run(
        {
          kind: 'scoreBatch',
          items: wanted,
          fixtures,
          perturb,
          knownLabels: this.knownLabels,
          runs,
        } satisfies Omit<ScoreBatchTask, 'progress'>,
        {
          label,
          progress: true,
          onTimeout: (i, slots) => {
            hung = slots[3] ?? -1;
            return new CheckTimeoutError(items[hung]?.name ?? '?', i, this.opts.timeoutMs);
          },
        },
      )) as ScoreBatchResult;
    } catch (err) {
      if (!(err instanceof CheckTimeoutError)) hung = -1;
      return Promise.all(
        items.map((it, i) =>
          i === hung
            ? (err as Error)
            : this.score({ ...it, perturb, runs }).catch((e: unknown) => asError(e)),
        ),
      );
    }
    if (!Array.isArray(answer) || answer.length !== items.length) {
      throw new WorkerCrashError(`worker running ${label} failed: expected ${items.length} answers`);
    }
    // Results are expanded in order: an item's labels may have been sent with an earlier item's.
    const batchLabels = new Map<string, MutantLabel[]>();
    return answer.map((a, i) => {
      const name = items[i]?.name ?? '?';
      if ('error' in a) return new WorkerCrashError(`worker running '${name}' failed: ${a.error}`);
      if (a.runs.length !== runs) {
        return new WorkerCrashError(`worker running '${name}' failed: expected ${runs} run(s) in its answer`);
      }
      try {
        return a.runs.map((w) => {
          if (w.labels !== undefined && w.labelsKey !== undefined) batchLabels.set(w.labelsKey, w.labels);
          const labels = w.labels ?? (w.labelsKey !== undefined ? batchLabels.get(w.labelsKey) : undefined);
          return this.expand(labels === undefined ? w : { ...w, labels }, name);
        });
      } catch (err) {
        return asError(err);
      }
    });
  }

  /** The worker's compact answer as a `ScoreResult`: one outcome per mutant, in order. */
  private expand(wire: ScoreWireResult, label: string): ScoreResult {
    let labels = wire.labels;
    if (labels !== undefined && wire.labelsKey !== undefined && !this.labels.has(wire.labelsKey)) {
      // Bounded: past the cap, workers keep sending labels with every result.
      if (this.labels.size < MAX_LABEL_SETS) {
        this.labels.set(wire.labelsKey, labels);
        this.knownLabels.push(wire.labelsKey);
      }
    }
    labels ??= wire.labelsKey === undefined ? undefined : this.labels.get(wire.labelsKey);
    if (labels === undefined || labels.length !== wire.statuses.length) {
      throw new WorkerCrashError(`worker running '${label}' failed: its answer does not match its mutants`);
    }
    const statuses = wire.statuses;
    const { pass, fail } = outcomesFor(labels);
    const mutants = new Array<MutantOutcome>(labels.length);
    for (let i = 0; i < labels.length; i++)
      mutants[i] = (statuses[i] === 1 ? pass : fail)[i] as MutantOutcome;
    return {
      baseline: wire.baseline,
      ...(wire.baselineError ? { baselineError: wire.baselineError } : {}),
      mutants,
    };
  }

  private run(
    task: ListTask | Omit<ScoreTask, 'progress'>,
    label: string,
    onTimeout: (index: number) => Error,
    progress = false,
  ): Promise<unknown> {
    return this.pool.run({ ...task }, { label, onTimeout, progress });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * Every outcome a label list can have, built once per list and frozen: the
 * main thread turns every worker's answer into outcomes, and building an
 * object per mutant per run was the serial part that kept two workers from
 * going twice as fast.
 */
const outcomeCache = new WeakMap<MutantLabel[], { pass: MutantOutcome[]; fail: MutantOutcome[] }>();

function outcomesFor(labels: MutantLabel[]): { pass: MutantOutcome[]; fail: MutantOutcome[] } {
  let o = outcomeCache.get(labels);
  if (!o) {
    const make = (status: MutantOutcome['status']) =>
      labels.map((l) => Object.freeze({ paths: l.paths, operators: l.operators, status }));
    o = { pass: make('pass'), fail: make('fail') };
    outcomeCache.set(labels, o);
  }
  return o;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

export { WorkerCrashError };
