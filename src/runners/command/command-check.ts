/**
 * The slow fallback for properties no harness can host: one process per
 * mutant. The fixture is written to a temp file named by PATCHGATE_FIXTURE;
 * exit code 0 passes, anything else fails. Prefer a harness (a persistent
 * child speaking patchgate-harness/1) whenever one can be written.
 */

import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { InputError } from '../../errors.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { delay, describeExit, formatTail, TextTail } from '../harness/process.js';
import { type CheckOutcome, fixtureJson, formatCommand, HarnessError, oneLine } from '../harness/protocol.js';

/** The variable that names the fixture file in the command's environment. */
export const FIXTURE_ENV_VAR = 'PATCHGATE_FIXTURE';

export interface CommandCheckOptions {
  /** argv; `command[0]` is looked up on `env.PATH`. */
  command: readonly string[];
  cwd: string;
  /** The door the command goes through. */
  sandbox: Sandbox;
  /** The command's whole environment, used as given plus PATCHGATE_FIXTURE; nothing comes from `process.env`. */
  env: NodeJS.ProcessEnv;
  /** The command is killed (with its process group) after this long. */
  timeoutMs: number;
  /** A JSON value, or `JsonText` to write verbatim. */
  fixture: unknown;
  /** An existing directory for the fixture file (removed after the run). */
  tmpDir: string;
  /** Network for the command, only when the base config opts the layer in. */
  network?: boolean;
  signal?: AbortSignal;
}

export interface CommandOutcome extends CheckOutcome {
  exitCode: number | null;
  /** The signal that ended the command, when it did not exit by itself. */
  exitSignal: NodeJS.Signals | null;
  durationMs: number;
}

const DRAIN_MS = 250;
let fileSeq = 0;

/**
 * Runs the command once on one fixture. Resolves pass (exit 0) or fail
 * (anything else, with the last output line as the error). Rejects with
 * HarnessError HARNESS_TIMEOUT (killed after `timeoutMs`) or
 * HARNESS_START_FAILED (could not be spawned), or InputError ABORTED.
 */
export async function runCommandCheck(opts: CommandCheckOptions): Promise<CommandOutcome> {
  if (opts.command.length === 0 || opts.command[0] === '') {
    throw new TypeError('runCommandCheck: command must name a program');
  }
  if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) {
    throw new RangeError(`runCommandCheck: timeoutMs must be a positive number, got ${opts.timeoutMs}`);
  }
  const label = `check command \`${formatCommand(opts.command)}\``;
  if (opts.signal?.aborted) throw aborted(label, opts.signal);
  const text = fixtureJson(opts.fixture);
  const file = path.join(opts.tmpDir, `fixture-${++fileSeq}-${randomBytes(4).toString('hex')}.json`);
  // Readable by the sandbox user, who reads it from a read-only mount of this folder.
  await writeFile(file, text, { flag: 'wx', mode: 0o644 });
  try {
    return await runOnce(opts, label, file);
  } finally {
    await rm(file, { force: true });
  }
}

function runOnce(opts: CommandCheckOptions, label: string, file: string): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const env: Record<string, string> = { [FIXTURE_ENV_VAR]: file };
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
    env[FIXTURE_ENV_VAR] = file;
    const proc = opts.sandbox.spawn({
      argv: opts.command,
      cwd: opts.cwd,
      env,
      writable: [opts.cwd],
      readOnly: [opts.tmpDir],
      ...(opts.network ? { network: true } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = proc.child as typeof proc.child & { stdout: Readable; stderr: Readable };
    const stdout = new TextTail(16 * 1024);
    const stderr = new TextTail(16 * 1024);
    child.stdout.on('data', (b: Buffer) => stdout.push(b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});
    let failure: Error | undefined;
    let settled = false;
    const closed = new Promise<void>((r) => child.once('close', () => r()));

    const stop = (err: Error): void => {
      if (failure !== undefined) return;
      failure = err;
      proc.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      // Late and over its memory cap: stopped for the cap, which the exit then reports.
      if (proc.breachNow() !== undefined) return;
      const tail = stderr.lines(20);
      stop(
        new HarnessError(
          'HARNESS_TIMEOUT',
          opts.command,
          `${label} timed out after ${opts.timeoutMs} ms on ${file}; it was killed${formatTail('stderr (last lines)', tail)}`,
          { timeoutMs: opts.timeoutMs, fixtureFile: file, stderrTail: tail },
        ),
      );
    }, opts.timeoutMs);
    const onAbort = (): void => stop(aborted(label, opts.signal!));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (outcome: CommandOutcome | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };

    child.once('error', (err) => {
      if (child.pid !== undefined) return;
      finish(
        new HarnessError(
          'HARNESS_START_FAILED',
          opts.command,
          `${label} could not be started in ${opts.cwd}: ${err.message}`,
          { cwd: opts.cwd },
          { cause: err },
        ),
      );
    });
    child.once('exit', (rawCode, rawSignal) => {
      const { code, signal } = proc.exitOf(rawCode, rawSignal);
      void (async () => {
        await Promise.race([closed, delay(DRAIN_MS)]);
        // Anything it left running in its group goes too.
        proc.kill('SIGKILL');
        if (failure !== undefined) return finish(failure);
        // A check stopped for a cap, or never started, gave no answer: it must not count as a failing check.
        if (proc.failure !== undefined) {
          return finish(
            new HarnessError(
              'HARNESS_START_FAILED',
              opts.command,
              `${label} did not start: ${proc.failure}`,
              {
                cwd: opts.cwd,
              },
            ),
          );
        }
        if (proc.breach !== undefined) {
          return finish(
            new HarnessError('HARNESS_CRASHED', opts.command, `${label} ${proc.breach.message} on ${file}`, {
              fixtureFile: file,
              limit: proc.breach,
            }),
          );
        }
        const durationMs = Math.round(performance.now() - started);
        if (code === 0) {
          return finish({ status: 'pass', exitCode: 0, exitSignal: null, durationMs });
        }
        const last = oneLine(stderr.lastLine() || stdout.lastLine());
        const why = describeExit(code, signal);
        finish({
          status: 'fail',
          error: last === '' ? why : `${why}: ${last}`,
          exitCode: code,
          exitSignal: signal,
          durationMs,
        });
      })();
    });
  });
}

function aborted(label: string, signal: AbortSignal): InputError {
  return new InputError('ABORTED', `${label} was aborted`, {}, { cause: signal.reason });
}

export interface CommandCheckerOptions {
  command: readonly string[];
  cwd: string;
  sandbox: Sandbox;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Commands running at once. Default: the machine's available parallelism. */
  concurrency?: number;
  /** Where the checker's temp directory is created. Default `os.tmpdir()`. */
  tmpRoot?: string;
  network?: boolean;
  signal?: AbortSignal;
}

/**
 * Runs one check command on many mutants: one private temp directory for all
 * fixture files, at most `concurrency` processes at a time. Call `close()` to
 * remove the directory.
 */
export class CommandChecker {
  readonly tmpDir: string;
  private readonly opts: CommandCheckerOptions;
  private readonly concurrency: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  private constructor(opts: CommandCheckerOptions, tmpDir: string, concurrency: number) {
    this.opts = opts;
    this.tmpDir = tmpDir;
    this.concurrency = concurrency;
  }

  static async create(opts: CommandCheckerOptions): Promise<CommandChecker> {
    const concurrency = opts.concurrency ?? Math.max(1, os.availableParallelism());
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`CommandChecker: concurrency must be a positive integer, got ${concurrency}`);
    }
    const tmpDir = await mkdtemp(path.join(opts.tmpRoot ?? os.tmpdir(), 'patchgate-command-'));
    await chmod(tmpDir, 0o755);
    return new CommandChecker(opts, tmpDir, concurrency);
  }

  /** One fixture, waiting for a free slot first. */
  async checkOne(fixture: unknown, signal?: AbortSignal): Promise<CommandOutcome> {
    if (this.closed) throw new Error('CommandChecker is closed');
    await this.acquire();
    try {
      return await runCommandCheck({
        command: this.opts.command,
        cwd: this.opts.cwd,
        sandbox: this.opts.sandbox,
        env: this.opts.env,
        timeoutMs: this.opts.timeoutMs,
        fixture,
        tmpDir: this.tmpDir,
        ...(this.opts.network ? { network: true } : {}),
        signal: signal ?? this.opts.signal,
      });
    } finally {
      this.release();
    }
  }

  /**
   * Every fixture, outcomes in order. The first error (timeout, spawn
   * failure, abort) stops the rest: running commands are killed and nothing
   * new starts; it rejects once they are gone.
   */
  async check(fixtures: readonly unknown[]): Promise<CommandOutcome[]> {
    const stopAll = new AbortController();
    const parent = this.opts.signal;
    const forward = (): void => stopAll.abort(parent?.reason);
    if (parent?.aborted) forward();
    parent?.addEventListener('abort', forward, { once: true });
    let first: unknown;
    try {
      const settled = await Promise.allSettled(
        fixtures.map((fx) =>
          this.checkOne(fx, stopAll.signal).catch((err: unknown) => {
            first ??= err;
            stopAll.abort(err);
            throw err;
          }),
        ),
      );
      if (first !== undefined) throw first;
      return settled.map((s) => (s as PromiseFulfilledResult<CommandOutcome>).value);
    } finally {
      parent?.removeEventListener('abort', forward);
    }
  }

  /** Removes the temp directory. */
  async close(): Promise<void> {
    this.closed = true;
    await rm(this.tmpDir, { recursive: true, force: true });
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
