import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ListResult, ListTask, ScoreResult, ScoreTask } from './worker.js';

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
    });
  }

  list(modules: string[]): Promise<ListResult> {
    return this.run(
      { kind: 'list', modules } satisfies ListTask,
      'list',
      (_i) => new Error('loading property modules timed out'),
    ) as Promise<ListResult>;
  }

  score(task: Omit<ScoreTask, 'kind' | 'progress'>): Promise<ScoreResult> {
    const progress = new SharedArrayBuffer(8);
    return this.run(
      { ...task, kind: 'score', progress } satisfies ScoreTask,
      task.name,
      (i) => new CheckTimeoutError(task.name, i, this.opts.timeoutMs),
      progress,
    ) as Promise<ScoreResult>;
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
    // Loading modules (list) may take longer than one check: give it a generous fixed budget.
    const budget = beat ? this.opts.timeoutMs : Math.max(30_000, this.opts.timeoutMs);
    const timer = setInterval(
      () => {
        const now = Date.now();
        const current = beat ? Atomics.load(beat, 0) : 0;
        if (current !== last) {
          last = current;
          lastChange = now;
        } else if (now - lastChange > budget) {
          timedOut = onTimeout(beat ? Atomics.load(beat, 1) : -1);
          controller.abort(timedOut);
        }
      },
      Math.max(5, Math.min(250, budget / 4)),
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
