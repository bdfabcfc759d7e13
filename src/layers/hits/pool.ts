import {
  builtWorkerFile,
  HEARTBEAT_BYTES,
  WatchedPool,
  WorkerCrashError,
} from '../../runners/pool/watched-pool.js';
import type { MutantLabel, MutantOutcome } from './model.js';
import type { ListResult, ListTask, ScoreResult, ScoreTask, ScoreWireResult } from './worker.js';

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
  timeoutMs: number;
  /** Exactly the environment head code may see; never the gate's own. */
  env: Record<string, string>;
}

/** Worker threads for in-process hit scoring, one watched task per property. */
export class PropertyPool {
  private readonly pool: WatchedPool;
  readonly size: number;
  /** Mutant labels the workers sent, by key; a key is listed in `knownLabels` only once its labels are here. */
  private readonly labels = new Map<string, MutantLabel[]>();
  /** Shared by every task: cloned when a task is handed to a worker, so it is as fresh as it can be. */
  private readonly knownLabels: string[] = [];

  constructor(private readonly opts: PoolOptions) {
    this.pool = new WatchedPool({ ...opts, filename: builtWorkerFile('layers/hits/worker') });
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
    const progress = new SharedArrayBuffer(HEARTBEAT_BYTES);
    const wires = (await this.run(
      { ...task, kind: 'score', progress, knownLabels: this.knownLabels } satisfies ScoreTask,
      task.name,
      (i) => new CheckTimeoutError(task.name, i, this.opts.timeoutMs),
      progress,
    )) as ScoreWireResult[];
    if (!Array.isArray(wires) || wires.length !== (task.runs ?? 1)) {
      throw new WorkerCrashError(
        `worker running '${task.name}' failed: expected ${task.runs ?? 1} run(s) in its answer`,
      );
    }
    return wires.map((w) => this.expand(w, task.name));
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
    const mutants = new Array<MutantOutcome>(labels.length);
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i] as MutantLabel;
      mutants[i] = { paths: l.paths, operators: l.operators, status: statuses[i] === 1 ? 'pass' : 'fail' };
    }
    return {
      baseline: wire.baseline,
      ...(wire.baselineError ? { baselineError: wire.baselineError } : {}),
      mutants,
    };
  }

  private run(
    task: ListTask | ScoreTask,
    label: string,
    onTimeout: (index: number) => Error,
    progress?: SharedArrayBuffer,
  ): Promise<unknown> {
    return this.pool.run(task, { label, onTimeout, ...(progress ? { progress } : {}) });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

export { WorkerCrashError };
