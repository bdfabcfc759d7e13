import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
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

/** A worker that died (process.exit in a check, an uncaught error, out of memory). */
export class WorkerCrashError extends Error {}

/** How many label lists (one per worker and fixture) a pool keeps. */
const MAX_LABEL_SETS = 256;

function workerFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const sibling = path.join(here, 'worker.js');
  // Under the test runner this module is TypeScript in src/; the worker must be the built JavaScript.
  return existsSync(sibling) ? sibling : path.resolve(here, '../../../dist/layers/hits/worker.js');
}

export interface PoolOptions {
  workers?: number;
  timeoutMs: number;
  /** Exactly the environment head code may see; never the gate's own. */
  env: Record<string, string>;
}

/**
 * Worker threads for in-process properties. A watchdog per task watches a
 * shared heartbeat: a check that does not return within the per-check budget
 * gets its worker terminated, so a hang costs one worker, never the gate.
 */
export class PropertyPool {
  private readonly piscina: Piscina;
  readonly size: number;
  /** Mutant labels the workers sent, by key; a key is listed in `knownLabels` only once its labels are here. */
  private readonly labels = new Map<string, MutantLabel[]>();
  /** Shared by every task: cloned when a task is handed to a worker, so it is as fresh as it can be. */
  private readonly knownLabels: string[] = [];

  constructor(private readonly opts: PoolOptions) {
    this.size = Math.max(1, opts.workers ?? Math.min(os.availableParallelism(), 8));
    this.piscina = new Piscina({
      filename: workerFile(),
      minThreads: 1,
      maxThreads: this.size,
      idleTimeout: 1000,
      env: opts.env,
      // Head code gets no process-wide stdin and cannot reach the parent's argv.
      argv: [],
      execArgv: [],
      // Nobody reads the pool's run/wait-time histograms: not worth two clock reads per task.
      recordTiming: false,
    });
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
    const progress = new SharedArrayBuffer(12);
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

  private async run(
    task: ListTask | ScoreTask,
    label: string,
    onTimeout: (index: number) => Error,
    progress?: SharedArrayBuffer,
  ): Promise<unknown> {
    const controller = new AbortController();
    const beat = progress ? new Int32Array(progress) : undefined;
    let last = -1;
    let lastChange = Date.now();
    let timedOut: Error | undefined;
    // Loading modules may take longer than one check: a generous fixed budget until the first check starts.
    const loading = Math.max(30_000, this.opts.timeoutMs);
    const timer = setInterval(
      () => {
        const now = Date.now();
        const current = beat ? Atomics.load(beat, 0) : 0;
        const queued = beat !== undefined && Atomics.load(beat, 2) === 0;
        const budget = beat && current > 0 ? this.opts.timeoutMs : loading;
        if (current !== last || queued) {
          last = current;
          lastChange = now;
        } else if (now - lastChange > budget) {
          timedOut = onTimeout(beat ? Atomics.load(beat, 1) : -1);
          controller.abort(timedOut);
        }
      },
      Math.max(5, Math.min(250, this.opts.timeoutMs / 4)),
    );
    try {
      return await this.piscina.run(task, { signal: controller.signal });
    } catch (err) {
      if (timedOut) throw timedOut;
      const message = err instanceof Error ? err.message : String(err);
      throw new WorkerCrashError(`worker running '${label}' failed: ${message}`, { cause: err });
    } finally {
      clearInterval(timer);
    }
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
