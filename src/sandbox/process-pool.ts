/**
 * A pool of sandboxed child processes for head JavaScript, with a watchdog
 * per task (in the manner of tinypool's child-process pools). Each process
 * runs patchgate's host (host/host.js) with one handler module; a task goes
 * to an idle process over the signed channel, and its heartbeat comes back
 * on the same channel. A task whose checks-started counter stops moving for
 * longer than the per-check budget gets its process killed, so a hang costs
 * one process, never the gate.
 *
 * The heartbeat is four Int32 slots, as the handlers write them: [0] checks
 * started, [1] the index of the check running, [2] 1 once the task started,
 * [3] free for the task (which item of a batch is running).
 */
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { builtFile } from '../util/package-root.js';
import { decodeMessage, encodeMessage, newChannelKey, verifyLine } from './channel.js';
import type { HeadProcess, LimitBreach, Sandbox } from './sandbox.js';

/** A process that died, broke the channel or was killed for a cap: the task has no answer. */
export class WorkerCrashError extends Error {
  /** Set when the sandbox stopped the process for a cap (memory, file size). */
  breach?: LimitBreach;
}

function crash(message: string, breach?: LimitBreach): WorkerCrashError {
  const e = new WorkerCrashError(message);
  if (breach) e.breach = breach;
  return e;
}

export const HEARTBEAT_BYTES = 16;

export interface ProcessPoolOptions {
  sandbox: Sandbox;
  /** Absolute path of the handler's JavaScript (a default-exported `async (task) => result`). */
  handler: string;
  /** The checkout the head code belongs to: the processes' cwd, and writable to them. */
  root: string;
  /** More folders the processes may read (installed dependencies of the checkout). */
  readOnly?: readonly string[];
  workers?: number;
  /**
   * Without `workers`: how many pools run at once, sharing the machine's
   * cores. Each process pays for starting and loading the modules it runs;
   * more processes than cores only pay that more often.
   */
  sharedBy?: number;
  /** Budget for one check, once the first one started. */
  timeoutMs: number;
  /** Exactly the environment head code may see. */
  env: Record<string, string>;
  /** Network for the processes, only when the base config opts the layer in. */
  network?: boolean;
  signal?: AbortSignal;
}

export interface PoolRun {
  label: string;
  /** Whether the task reports a heartbeat; without one it gets the loading budget only. */
  progress?: boolean;
  /** The error a timeout rejects with, given the last heartbeat slots. */
  onTimeout(index: number, slots: readonly number[]): Error;
}

interface Slot {
  proc: HeadProcess;
  out: Writable;
  seq: number;
  key: string;
  buffered: string;
  ready: Promise<void>;
  busy: boolean;
  dead: boolean;
  stderrTail: string;
  onMessage?: (m: { id?: number; result?: unknown; error?: string; beat?: number[] }) => void;
  onDeath?: (why: string, breach?: LimitBreach) => void;
}

const STDERR_TAIL = 4096;

export class ProcessPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly opts: ProcessPoolOptions) {
    const cores = Math.min(os.availableParallelism(), 8);
    this.size = Math.max(1, opts.workers ?? Math.floor(cores / Math.max(1, opts.sharedBy ?? 1)));
  }

  private beatMs(): number {
    return Math.max(5, Math.min(250, Math.floor(this.opts.timeoutMs / 4)));
  }

  private start(): Slot {
    const nodeDir = path.dirname(path.dirname(process.execPath));
    const proc = this.opts.sandbox.spawn({
      argv: [process.execPath, builtFile('sandbox/host/host')],
      cwd: this.opts.root,
      env: this.opts.env,
      writable: [this.opts.root],
      readOnly: [nodeDir, ...(this.opts.readOnly ?? [])],
      ...(this.opts.network ? { network: true } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      channel: true,
    });
    const channel = proc.child.stdio[3] as unknown as Readable & Writable;
    const key = newChannelKey();
    const slot: Slot = {
      proc,
      out: channel,
      seq: 0,
      key,
      buffered: '',
      ready: Promise.resolve(),
      busy: false,
      dead: false,
      stderrTail: '',
    };
    const die = (why: string) => {
      if (slot.dead && !slot.onDeath) return;
      slot.dead = true;
      proc.kill('SIGKILL');
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const onDeath = slot.onDeath;
      slot.onDeath = undefined;
      onDeath?.(why, proc.breach);
    };
    proc.child.stdout?.on('data', () => undefined);
    proc.child.stderr?.on('data', (b: Buffer) => {
      slot.stderrTail = (slot.stderrTail + b.toString('utf8')).slice(-STDERR_TAIL);
    });
    channel.on('error', () => undefined);
    channel.setEncoding?.('utf8');
    channel.on('data', (chunk: string) => {
      slot.buffered += chunk;
      for (let nl = slot.buffered.indexOf('\n'); nl !== -1 && !slot.dead; nl = slot.buffered.indexOf('\n')) {
        const line = slot.buffered.slice(0, nl);
        slot.buffered = slot.buffered.slice(nl + 1);
        const v = verifyLine(key, slot.seq, line);
        if (!v.ok) return die(`it broke the channel protocol: ${v.reason}`);
        slot.seq++;
        let message: { id?: number; result?: unknown; error?: string; beat?: number[]; ready?: boolean };
        try {
          message = decodeMessage(v.body) as typeof message;
        } catch {
          return die('it sent a signed line that is not JSON');
        }
        if (message.ready) continue;
        slot.onMessage?.(message);
      }
    });
    proc.child.once('exit', (rawCode, rawSignal) => {
      const { code, signal } = proc.exitOf(rawCode, rawSignal);
      const breach = proc.breach;
      const how = proc.failure
        ? `did not start: ${proc.failure}`
        : breach
          ? breach.message
          : signal
            ? `was killed by ${signal}`
            : `exited with code ${code ?? 'unknown'}`;
      const tail = slot.stderrTail.trim().split('\n').slice(-5).join(' | ');
      die(`the head-code process ${how}${tail ? `: ${tail}` : ''}`);
    });
    proc.child.once('error', (err) => die(`the head-code process could not start: ${err.message}`));
    channel.write(`${JSON.stringify({ key, handler: this.opts.handler, beatMs: this.beatMs() })}\n`);
    this.slots.push(slot);
    return slot;
  }

  /** Kills a process now and makes sure no later task is handed to it while it dies. */
  private retire(slot: Slot): void {
    slot.dead = true;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.proc.kill('SIGKILL');
  }

  private acquire(): Promise<Slot> {
    const idle = this.slots.find((s) => !s.busy && !s.dead);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.slots.length < this.size) {
      const s = this.start();
      s.busy = true;
      return Promise.resolve(s);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot): void {
    slot.onMessage = undefined;
    slot.onDeath = undefined;
    const next = this.waiting.shift();
    if (next) {
      const s = slot.dead ? this.start() : slot;
      s.busy = true;
      next(s);
      return;
    }
    slot.busy = false;
  }

  async run(task: Record<string, unknown>, how: PoolRun): Promise<unknown> {
    if (this.closed) throw new WorkerCrashError(`the pool running '${how.label}' is closed`);
    if (this.opts.signal?.aborted) throw new WorkerCrashError(`'${how.label}' was aborted`);
    const slot = await this.acquire();
    const id = this.nextId++;
    try {
      return await new Promise<unknown>((resolve, reject) => {
        let slots = [0, -1, 0, 0];
        let lastChange = Date.now();
        let lastCount = -1;
        const loading = Math.max(30_000, this.opts.timeoutMs);
        const timer = setInterval(
          () => {
            const now = Date.now();
            const count = slots[0] ?? 0;
            const budget = how.progress && count > 0 ? this.opts.timeoutMs : loading;
            if (count !== lastCount) {
              lastCount = count;
              lastChange = now;
            } else if (now - lastChange > budget) {
              // Late and over its memory cap: stopped for the cap, which its death then reports.
              if (slot.proc.breachNow() !== undefined) return;
              finish(how.onTimeout(slots[1] ?? -1, slots));
              this.retire(slot);
            }
          },
          Math.max(5, Math.min(250, this.opts.timeoutMs / 4)),
        );
        const onAbort = () => {
          finish(new WorkerCrashError(`'${how.label}' was aborted`));
          this.retire(slot);
        };
        this.opts.signal?.addEventListener('abort', onAbort, { once: true });
        let done = false;
        const finish = (value: unknown) => {
          if (done) return;
          done = true;
          clearInterval(timer);
          this.opts.signal?.removeEventListener('abort', onAbort);
          if (value instanceof Error) reject(value);
          else resolve(value);
        };
        slot.onMessage = (m) => {
          if (m.id !== id) {
            finish(
              new WorkerCrashError(
                `worker running '${how.label}' failed: it answered a task it was not given`,
              ),
            );
            this.retire(slot);
            return;
          }
          if (m.beat) {
            slots = m.beat;
            return;
          }
          if (m.error !== undefined)
            finish(new WorkerCrashError(`worker running '${how.label}' failed: ${m.error}`));
          else finish({ value: m.result });
        };
        slot.onDeath = (why, breach) => finish(crash(`worker running '${how.label}' failed: ${why}`, breach));
        if (slot.dead) {
          finish(new WorkerCrashError(`worker running '${how.label}' failed: its process is gone`));
          return;
        }
        slot.out.write(`${encodeMessage({ id, task: how.progress ? { ...task, progress: true } : task })}\n`);
      }).then((r) => (r as { value: unknown }).value);
    } finally {
      this.release(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of [...this.slots]) {
      s.dead = true;
      s.proc.kill('SIGKILL');
    }
    this.slots.length = 0;
  }
}
