/**
 * Runs a repository's test command on a checkout: its own process group
 * (killed whole on timeout or abort, and after it exits, so nothing it
 * started outlives the run), stdout and stderr written straight to files in
 * the out folder (the child gets the file descriptors, so output of any size
 * never passes through memory), and the JUnit report(s) gathered into the out
 * folder under the run's label.
 */
import type { Dirent } from 'node:fs';
import { copyFile, lstat, mkdir, open, readdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { InputError } from '../../errors.js';
import type { LimitBreach, Sandbox } from '../../sandbox/sandbox.js';
import { byCodePoint } from '../../util/compare.js';
import { formatCommand } from '../harness/protocol.js';
import { TestRunError } from './errors.js';
import { checkJunitGlob } from './presets.js';

export interface RunLoggedOptions {
  /** The door the command goes through: it is head code (or runs head code). */
  sandbox: Sandbox;
  cwd: string;
  /** Folders the command may write; defaults to `cwd`. */
  writable?: readonly string[];
  /** More folders it may read (installed dependencies borrowed from another checkout). */
  readOnly?: readonly string[];
  /** Network access, only when the base config opts in. */
  network?: boolean;
  /**
   * Open a fourth descriptor (fd 3) and keep what the run writes on it
   * (`LoggedRun.channel`), up to 1 MiB: the gate's pytest loader reports there
   * before any head code runs.
   */
  channel?: boolean;
  /** argv; `argv[0]` is looked up on `env.PATH`. */
  argv: string[];
  /** The whole environment of the command: nothing is taken from `process.env`. Callers scrub it. */
  env: Record<string, string>;
  /** The process group gets SIGTERM after this long, SIGKILL a grace period later. */
  timeoutMs: number;
  /** Created if missing; receives `<label>.stdout.log` and `<label>.stderr.log`. */
  outDir: string;
  /** Names this run's files, e.g. `head-run-1`: letters, digits, `.`, `_`, `-`. */
  label: string;
  signal?: AbortSignal;
}

export interface LoggedRun {
  /** null when a signal ended the command. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** A cap the command hit (memory, file size); it was stopped. */
  breach?: LimitBreach;
  durationMs: number;
  stdoutFile: string;
  stderrFile: string;
  /** What arrived on fd 3, with `channel`; undefined when nothing did. */
  channel?: string;
}

/** More than the loader's manifest ever needs: what is past it is not read. */
const CHANNEL_CAP = 1024 * 1024;

export interface RunTestsOptions extends RunLoggedOptions {
  /**
   * A glob relative to `cwd` of the report(s) the runner writes itself
   * (`resolveTestCommand`'s `junitFrom`). Without it the report is expected
   * at `junitPathFor(outDir, label)`, the path given as `{junit}`.
   */
  junitFrom?: string;
  /**
   * Files a plugin of ours writes next to the report (`census.json`), kept
   * as `<outDir>/<label>.<name>` when the run wrote them as regular files.
   * Only with `{junit}` runs: they live in the run's own io folder.
   */
  sidecars?: readonly string[];
}

/** Where a `{junit}` run's plugin writes the sidecar `name` (see `RunTestsOptions.sidecars`). */
export function sidecarPathFor(outDir: string, label: string, name: string): string {
  return path.join(ioDirFor(outDir, label), name);
}

export interface TestRunResult extends LoggedRun {
  /**
   * The report(s) of this run, inside `outDir`. Empty when the command wrote
   * none (it crashed before reporting, timed out, or was misconfigured): that
   * is not an error here, because only the caller knows whether a run without
   * a report can be judged (it cannot be an accept).
   */
  junitFiles: string[];
  /** Sidecar name → its copy in `outDir`, for those the run wrote. */
  sidecars?: Record<string, string>;
}

/** After SIGTERM on timeout, how long a runner gets to stop its workers before SIGKILL. */
const KILL_GRACE_MS = 2_000;

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkLabel(label: string): void {
  if (!LABEL.test(label)) {
    throw new TypeError(`run label must be letters, digits, ".", "_" or "-" (got ${JSON.stringify(label)})`);
  }
}

/**
 * Where a run labelled `label` is told to write its report (`{junit}`): a
 * folder of its own, the only one of the gate's it may write. After the run
 * the report is moved to `<outDir>/<label>.junit.xml`.
 */
export function junitPathFor(outDir: string, label: string): string {
  return path.join(ioDirFor(outDir, label), 'junit.xml');
}

function ioDirFor(outDir: string, label: string): string {
  checkLabel(label);
  return path.join(path.resolve(outDir), `${label}.io`);
}

/**
 * Runs `argv` to completion with its output in `<outDir>/<label>.stdout.log`
 * and `.stderr.log`. Resolves whatever the exit (a timeout included); rejects
 * with TestRunError SPAWN_FAILED when the command cannot start, InputError
 * ABORTED when `signal` fires (after the group is killed).
 */
export async function runLogged(opts: RunLoggedOptions): Promise<LoggedRun> {
  checkLabel(opts.label);
  if (opts.argv.length === 0 || opts.argv[0] === '') {
    throw new TypeError('runLogged: argv must name a program');
  }
  if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) {
    throw new RangeError(`runLogged: timeoutMs must be a positive number, got ${opts.timeoutMs}`);
  }
  const shown = `\`${formatCommand(opts.argv)}\``;
  if (opts.signal?.aborted) throw aborted(shown, opts.signal);
  const outDir = path.resolve(opts.outDir);
  await mkdir(outDir, { recursive: true });
  const stdoutFile = path.join(outDir, `${opts.label}.stdout.log`);
  const stderrFile = path.join(outDir, `${opts.label}.stderr.log`);
  const out = await open(stdoutFile, 'w');
  const err = await open(stderrFile, 'w').catch(async (e: unknown) => {
    await out.close();
    throw e;
  });
  try {
    return await spawnLogged(opts, shown, out.fd, err.fd, stdoutFile, stderrFile);
  } finally {
    await Promise.all([out.close(), err.close()]);
  }
}

function spawnLogged(
  opts: RunLoggedOptions,
  shown: string,
  outFd: number,
  errFd: number,
  stdoutFile: string,
  stderrFile: string,
): Promise<LoggedRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = opts.sandbox.spawn({
      argv: opts.argv,
      cwd: opts.cwd,
      env: opts.env,
      writable: opts.writable ?? [opts.cwd],
      ...(opts.readOnly ? { readOnly: opts.readOnly } : {}),
      ...(opts.network ? { network: true } : {}),
      stdio: ['ignore', outFd, errFd],
      ...(opts.channel ? { channel: true } : {}),
    });
    const child = proc.child;
    const received: Buffer[] = [];
    let receivedBytes = 0;
    const fd3 = opts.channel ? (child.stdio[3] as NodeJS.ReadableStream | null | undefined) : undefined;
    fd3?.on('data', (chunk: Buffer) => {
      if (receivedBytes >= CHANNEL_CAP) return;
      received.push(chunk.subarray(0, CHANNEL_CAP - receivedBytes));
      receivedBytes += chunk.length;
    });
    fd3?.on('error', () => undefined);
    // 'exit' can come before the last bytes on fd 3 are read: the run is over once the pipe ends too.
    const fd3Ended = fd3
      ? new Promise<void>((resolve) => {
          fd3.once('end', resolve);
          fd3.once('close', resolve);
          fd3.once('error', () => resolve());
        })
      : Promise.resolve();
    let timedOut = false;
    let wasAborted = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      // Late and over its memory cap: stopped for the cap, which the exit then reports.
      if (proc.breachNow() !== undefined) return;
      timedOut = true;
      proc.kill('SIGTERM');
      graceTimer = setTimeout(() => proc.kill('SIGKILL'), KILL_GRACE_MS);
    }, opts.timeoutMs);
    const onAbort = (): void => {
      wasAborted = true;
      proc.kill('SIGKILL');
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };

    child.once('error', (e) => {
      // Errors after a successful spawn (a failed kill) change nothing; 'exit' still follows.
      if (child.pid !== undefined) return;
      cleanup();
      reject(
        new TestRunError(
          'SPAWN_FAILED',
          `test command ${shown} could not be started in ${opts.cwd}: ${e.message}`,
          { command: opts.argv, cwd: opts.cwd },
          { cause: e },
        ),
      );
    });
    child.once('exit', (rawCode, rawSignal) => {
      const { code, signal } = proc.exitOf(rawCode, rawSignal);
      cleanup();
      // Whatever it left running in its group (watchers, workers, servers) goes too.
      proc.kill('SIGKILL');
      if (wasAborted) return reject(aborted(shown, opts.signal!));
      if (proc.failure !== undefined) {
        return reject(
          new TestRunError(
            'SANDBOX_NETWORK_UNAVAILABLE',
            `${shown} did not run in ${opts.cwd}: ${proc.failure}`,
            { command: opts.argv, cwd: opts.cwd, failure: proc.failure },
          ),
        );
      }
      const breach = proc.breach;
      const durationMs = Math.round(performance.now() - started);
      let drainTimer: NodeJS.Timeout | undefined;
      const drained = Promise.race([
        fd3Ended,
        new Promise<void>((r) => {
          drainTimer = setTimeout(r, KILL_GRACE_MS);
        }),
      ]);
      void drained.then(() => {
        clearTimeout(drainTimer);
        resolve({
          exitCode: code,
          signal,
          timedOut,
          ...(breach ? { breach } : {}),
          durationMs,
          stdoutFile,
          stderrFile,
          ...(received.length > 0 ? { channel: Buffer.concat(received).toString('utf8') } : {}),
        });
      });
    });
  });
}

function aborted(shown: string, signal: AbortSignal): InputError {
  return new InputError('ABORTED', `test command ${shown} was aborted`, {}, { cause: signal.reason });
}

/**
 * Runs a test command once and collects its JUnit report(s) into `outDir`.
 *
 * - `{junit}` runs: the report is `junitPathFor(outDir, label)`; a stale one
 *   from an earlier run with the same label is removed first.
 * - `junitFrom` runs: matching files under `cwd` are deleted before the run
 *   (a report left by an earlier run must not pass for this one's) and copied
 *   to `<label>.junit.1.xml`, `.2.xml`… after it, in path order. Such runners
 *   write to a fixed place, so two runs in the same cwd would overwrite each
 *   other's reports: runs with `junitFrom` are serialized per cwd within this
 *   process, whatever parallelism the caller asks for.
 *
 * `.git` and `node_modules` are never searched, and symlinks never followed.
 */
export async function runTests(opts: RunTestsOptions): Promise<TestRunResult> {
  checkLabel(opts.label);
  const outDir = path.resolve(opts.outDir);
  await mkdir(outDir, { recursive: true });
  await removeOwnReports(outDir, opts.label);
  const junitFrom = opts.junitFrom;
  if (junitFrom === undefined) {
    const io = ioDirFor(outDir, opts.label);
    // Fresh, so a report left by an earlier run with this label cannot pass for this one's.
    await rm(io, { recursive: true, force: true });
    await mkdir(io, { recursive: true });
    const run = await runLogged({ ...opts, outDir, writable: [...(opts.writable ?? [opts.cwd]), io] });
    const written = path.join(io, 'junit.xml');
    const junitPath = path.join(outDir, `${opts.label}.junit.xml`);
    // Only a regular file counts: a symlink the run planted is never followed.
    const isReport = await lstat(written).then(
      (st) => st.isFile(),
      () => false,
    );
    if (isReport) await copyFile(written, junitPath);
    const sidecars: Record<string, string> = {};
    for (const name of opts.sidecars ?? []) {
      const from = path.join(io, name);
      const kept = path.join(outDir, `${opts.label}.${name}`);
      await rm(kept, { force: true });
      if (
        await lstat(from).then(
          (st) => st.isFile(),
          () => false,
        )
      ) {
        await copyFile(from, kept);
        sidecars[name] = kept;
      }
    }
    await rm(io, { recursive: true, force: true });
    return { ...run, junitFiles: isReport ? [junitPath] : [], sidecars };
  }
  checkJunitGlob(junitFrom);
  return withCwdLock(opts.cwd, async () => {
    for (const rel of await findReports(opts.cwd, junitFrom)) {
      await rm(path.join(opts.cwd, rel), { force: true });
    }
    const run = await runLogged({ ...opts, outDir });
    const junitFiles: string[] = [];
    for (const rel of await findReports(opts.cwd, junitFrom)) {
      const dest = path.join(outDir, `${opts.label}.junit.${junitFiles.length + 1}.xml`);
      await copyFile(path.join(opts.cwd, rel), dest);
      junitFiles.push(dest);
    }
    return { ...run, junitFiles };
  });
}

async function removeOwnReports(outDir: string, label: string): Promise<void> {
  const own = new RegExp(`^${label.replace(/[.]/g, '\\.')}\\.junit(?:\\.\\d+)?\\.xml$`);
  for (const name of await readdir(outDir)) {
    if (own.test(name)) await rm(path.join(outDir, name), { force: true });
  }
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/** Regular files under `cwd` matching `glob`, as sorted `/`-separated relative paths. */
export async function findReports(cwd: string, glob: string): Promise<string[]> {
  const scan = picomatch.scan(glob);
  if (!scan.isGlob) {
    return (await isFile(path.join(cwd, glob))) ? [glob.replace(/\\/g, '/')] : [];
  }
  const match = picomatch(glob, { dot: true });
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(cwd, rel), { withFileTypes: true });
    } catch {
      // The runner never created the folder: no report.
      return;
    }
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(child);
      } else if (e.isFile() && match(child)) found.push(child);
    }
  };
  await walk(scan.base.replace(/\/+$/, ''));
  return found.sort(byCodePoint);
}

const cwdQueues = new Map<string, Promise<void>>();

async function withCwdLock<T>(cwd: string, fn: () => Promise<T>): Promise<T> {
  const key = await realpath(cwd).catch(() => path.resolve(cwd));
  const previous = cwdQueues.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = previous.then(() => mine);
  cwdQueues.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (cwdQueues.get(key) === tail) cwdQueues.delete(key);
  }
}
