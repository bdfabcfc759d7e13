import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

/**
 * A piscina pool for head code, with a watchdog per task. The worker beats a
 * shared counter before each check it starts; a task whose counter stops
 * moving for longer than the per-check budget gets its worker terminated, so
 * a hang costs one worker, never the gate.
 *
 * The heartbeat is Int32 slots: [0] checks started, [1] the index of the
 * check running (for the report), [2] 1 once the worker picked the task up,
 * [3] free for the task (e.g. which item of a batch is running). Time spent
 * queued behind other tasks never counts against a task.
 */

/** A worker that died (process.exit in a check, an uncaught error, out of memory). */
export class WorkerCrashError extends Error {}

export const HEARTBEAT_BYTES = 16;

/** The built JavaScript of a worker module, given its path under src/ or dist/ without extension. */
export function builtWorkerFile(relativeToSrc: string): string {
  const srcOrDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const sibling = path.join(srcOrDist, `${relativeToSrc}.js`);
  // Under the test runner this module is TypeScript in src/; workers must be the built JavaScript.
  return existsSync(sibling) ? sibling : path.resolve(srcOrDist, '..', 'dist', `${relativeToSrc}.js`);
}

export interface WatchedPoolOptions {
  /** Absolute path of the worker's JavaScript. */
  filename: string;
  workers?: number;
  /** Budget for one check, once the first one started. */
  timeoutMs: number;
  /** Exactly the environment head code may see; never the gate's own. */
  env: Record<string, string>;
}

export interface WatchedRun {
  /** Names the task in a crash message. */
  label: string;
  /** The heartbeat the task's worker beats; without one the task gets the loading budget only. */
  progress?: SharedArrayBuffer;
  /** The error a timeout rejects with, given the index of the check that hung. */
  onTimeout(index: number): Error;
}

export class WatchedPool {
  private readonly piscina: Piscina;
  readonly size: number;

  constructor(private readonly opts: WatchedPoolOptions) {
    this.size = Math.max(1, opts.workers ?? Math.min(os.availableParallelism(), 8));
    this.piscina = new Piscina({
      filename: opts.filename,
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

  async run(task: unknown, how: WatchedRun): Promise<unknown> {
    const controller = new AbortController();
    const beat = how.progress ? new Int32Array(how.progress) : undefined;
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
          timedOut = how.onTimeout(beat ? Atomics.load(beat, 1) : -1);
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
      throw new WorkerCrashError(`worker running '${how.label}' failed: ${message}`, { cause: err });
    } finally {
      clearInterval(timer);
    }
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
