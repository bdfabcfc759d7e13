/**
 * One long-lived harness child per property source: patchgate sends batches
 * of fixtures over the patchgate-harness/1 JSON-lines protocol and gets a
 * status for each. Everything the child says is validated; any violation,
 * crash or hang kills it (with its whole process group) and fails every
 * pending request. A harness never gets to decide that a check passed by
 * misbehaving.
 */
import type { Readable, Writable } from 'node:stream';
import { InputError } from '../../errors.js';
import { newChannelKey, verifyLine } from '../../sandbox/channel.js';
import type { HeadProcess, Sandbox } from '../../sandbox/sandbox.js';
import { delay, describeExit, formatTail, LineSplitter, TextTail } from './process.js';
import {
  type CheckOutcome,
  type Decoded,
  decodeCheckResult,
  decodeResponseLine,
  decodeResult,
  fixtureJson,
  formatCommand,
  HARNESS_PROTOCOL,
  HarnessError,
  type HarnessErrorCode,
  type HarnessHello,
  type HarnessProperty,
  helloResultSchema,
  listResultSchema,
  shutdownResultSchema,
  truncateLine,
} from './protocol.js';

export interface HarnessClientOptions {
  /** argv of the harness; `command[0]` is looked up on `env.PATH`. */
  command: readonly string[];
  cwd: string;
  /** The door head code goes through. */
  sandbox: Sandbox;
  /** Folders the harness may write (its checkout); defaults to `cwd`. */
  writable?: readonly string[];
  /** More folders it may read. */
  readOnly?: readonly string[];
  /** Network for the harness, only when the base config opts the layer in. */
  network?: boolean;
  /** The child's whole environment, used as given: nothing is inherited from `process.env`. */
  env: NodeJS.ProcessEnv;
  /** Budget for checking one fixture; a check request of n fixtures gets n × timeoutMs. */
  timeoutMs: number;
  /** Fixtures per check request. Default 256. */
  batchSize?: number;
  /** Requests written ahead of the answers, so the harness never waits for the next batch. Default 4. */
  maxInFlight?: number;
  /** Budget for `hello` and `list` (module import happens before them). Default 30 s. */
  startTimeoutMs?: number;
  /** How long `close()` waits for `shutdown` and then for the exit before SIGKILL. Default 2 s. */
  closeGraceMs?: number;
  /** Longest stdout line accepted from the harness. Default 64 MiB. */
  maxLineBytes?: number;
  /** Aborting kills the harness; pending and later requests reject with InputError ABORTED. */
  signal?: AbortSignal;
}

const DEFAULT_BATCH_SIZE = 256;
const DEFAULT_MAX_IN_FLIGHT = 4;
const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_CLOSE_GRACE_MS = 2_000;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** After the child exits, how long to wait for the rest of its stdout/stderr. */
const DRAIN_MS = 250;
const STDERR_LINES = 20;

interface Pending {
  id: number;
  method: string;
  /** For messages: `check of property "p" on fixtures 0–255`. */
  what: string;
  details: Record<string, unknown>;
  timeoutMs: number;
  /** The request line (no newline), built when it is sent. */
  build: (id: number) => string;
  /** Turns the `result` into the value the caller gets, or says why it is invalid. */
  decode: (result: unknown) => Decoded<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
}

/** The child with its pipes: stdin unused, stdout and stderr read as logs, fd 3 the protocol channel. */
interface Child {
  pid: number | undefined;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  stdout: Readable;
  stderr: Readable;
  channel: Readable & Writable;
  once: HeadProcess['child']['once'];
  on: HeadProcess['child']['on'];
}

export class HarnessClient {
  readonly command: readonly string[];
  private readonly child: Child;
  private readonly proc: HeadProcess;
  private readonly key = newChannelKey();
  private received = 0;
  private readonly stdoutTail = new TextTail(16 * 1024);
  private readonly label: string;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly startTimeoutMs: number;
  private readonly closeGraceMs: number;
  private readonly signal: AbortSignal | undefined;
  private readonly stderr = new TextTail();
  private readonly exited: Promise<void>;
  private readonly streamsClosed: Promise<void>;
  private hello: HarnessHello | undefined;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private nextId = 0;
  private queued: Pending[] = [];
  private inflight: Pending[] = [];
  /** Set once: the reason the harness is unusable. Later requests reject with it. */
  private fatal: Error | undefined;
  /** Settles once everything pending at the fatal error has been rejected (after the child is gone). */
  private failing: Promise<void> = Promise.resolve();
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly onAbort = (): void => {
    this.fail(
      new InputError(
        'ABORTED',
        `${this.label} was aborted`,
        { command: [...this.command] },
        {
          cause: this.signal?.reason,
        },
      ),
    );
  };

  private constructor(opts: HarnessClientOptions) {
    this.command = [...opts.command];
    this.label = `harness \`${formatCommand(opts.command)}\``;
    this.timeoutMs = opts.timeoutMs;
    this.batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
    this.maxInFlight = opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.startTimeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.closeGraceMs = opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    this.signal = opts.signal;
    this.proc = opts.sandbox.spawn({
      argv: opts.command,
      cwd: opts.cwd,
      env: Object.fromEntries(
        Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      writable: opts.writable ?? [opts.cwd],
      ...(opts.readOnly ? { readOnly: opts.readOnly } : {}),
      ...(opts.network ? { network: true } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      channel: true,
    });
    const raw = this.proc.child;
    const child: Child = {
      get pid() {
        return raw.pid;
      },
      get exitCode() {
        return raw.exitCode;
      },
      get signalCode() {
        return raw.signalCode;
      },
      stdout: raw.stdout as Readable,
      stderr: raw.stderr as Readable,
      channel: raw.stdio[3] as unknown as Readable & Writable,
      once: raw.once.bind(raw),
      on: raw.on.bind(raw),
    };
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = this.proc.exitOf(code, signal);
        resolve();
      });
      child.on('error', (err) => {
        // Only a failed spawn matters here; a failed kill of a dead child does not.
        if (child.pid === undefined) {
          this.fail(
            new HarnessError(
              'HARNESS_START_FAILED',
              this.command,
              `${this.label} could not be started in ${opts.cwd}: ${err.message}`,
              { cwd: opts.cwd },
              { cause: err },
            ),
          );
          resolve();
        }
      });
    });
    this.streamsClosed = new Promise((resolve) => child.once('close', () => resolve()));
    const lines = new LineSplitter(
      opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      (line) => this.onLine(line),
      (reason, prefix) => this.fail(this.protocolError(`wrote ${reason}`, prefix)),
    );
    // What the harness prints is a log, never an answer: answers come signed on the channel.
    child.stdout.on('data', (chunk: Buffer) => this.stdoutTail.push(chunk));
    child.channel.on('data', (chunk: Buffer) => {
      if (this.fatal === undefined) lines.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    // EPIPE and friends: the exit (or its absence) is what gets reported.
    child.channel.on('error', () => {});
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});
    // The key goes first, before the harness imports any head module.
    child.channel.write(`${this.key}\n`);
    void this.exited.then(() => this.onExit());
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * Spawns the harness and says `hello`. Rejects with HARNESS_START_FAILED
   * (spawn failure, exit or error before the answer, no answer in time) or
   * HARNESS_PROTOCOL (a malformed answer or another protocol version); the
   * child is gone by then.
   */
  static async start(opts: HarnessClientOptions): Promise<HarnessClient> {
    validateOptions(opts);
    if (opts.signal?.aborted) {
      throw new InputError(
        'ABORTED',
        `harness \`${formatCommand(opts.command)}\` was aborted before it started`,
        {},
        {
          cause: opts.signal.reason,
        },
      );
    }
    let client: HarnessClient;
    try {
      client = new HarnessClient(opts);
    } catch (err) {
      throw new HarnessError(
        'HARNESS_START_FAILED',
        opts.command,
        `harness \`${formatCommand(opts.command)}\` could not be started: ${err instanceof Error ? err.message : String(err)}`,
        {},
        { cause: err },
      );
    }
    try {
      const hello = await client.request<HarnessHello>(
        'hello',
        { protocol: HARNESS_PROTOCOL },
        client.startTimeoutMs,
        'hello',
        {},
        (r) => decodeResult(helloResultSchema, r, 'hello'),
      );
      if (hello.protocol !== HARNESS_PROTOCOL) {
        throw client.protocolError(
          `speaks ${JSON.stringify(hello.protocol)}, but patchgate speaks ${JSON.stringify(HARNESS_PROTOCOL)}`,
          JSON.stringify(hello),
        );
      }
      client.hello = hello;
      return client;
    } catch (err) {
      client.fail(err instanceof Error ? err : new Error(String(err)));
      await client.close();
      throw err;
    }
  }

  /** What the harness said about itself in `hello`. */
  get info(): HarnessHello {
    return this.hello!;
  }

  /** The child's pid (undefined if it never started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last lines the harness wrote on stderr, for diagnostics. */
  stderrTail(lines = STDERR_LINES): string[] {
    return this.stderr.lines(lines);
  }

  /** The harness's properties and their claims. */
  list(): Promise<HarnessProperty[]> {
    return this.request<HarnessProperty[]>('list', {}, this.startTimeoutMs, 'list', {}, (r) => {
      const d = decodeResult(listResultSchema, r, 'list');
      return d.ok
        ? { ok: true, value: d.value.properties.map((p) => ({ name: p.name, claims: p.claims })) }
        : d;
    });
  }

  /**
   * Checks `property` on every fixture and returns one outcome per fixture,
   * in order. Fixtures go out in batches of `batchSize`, several requests in
   * flight. A batch of n fixtures that is not answered within n × timeoutMs
   * kills the harness (HARNESS_TIMEOUT). Fixtures are plain JSON values or
   * `JsonText`.
   */
  async check(property: string, fixtures: readonly unknown[]): Promise<CheckOutcome[]> {
    const batches: Promise<CheckOutcome[]>[] = [];
    for (let from = 0; from < fixtures.length; from += this.batchSize) {
      const batch = fixtures.slice(from, from + this.batchSize);
      const to = from + batch.length - 1;
      const range = from === to ? `fixture ${from}` : `fixtures ${from}–${to}`;
      batches.push(
        this.request<CheckOutcome[]>(
          'check',
          null,
          this.timeoutMs * batch.length,
          `check of property ${JSON.stringify(property)} on ${range}`,
          { property, from, to },
          (r) => decodeCheckResult(r, batch.length),
          (id) =>
            `{"id":${id},"method":"check","params":{"property":${JSON.stringify(property)},"fixtures":[${batch.map(fixtureJson).join(',')}]}}`,
        ),
      );
    }
    const answered = await Promise.all(batches);
    return answered.flat();
  }

  /**
   * Asks the harness to shut down, waits up to `closeGraceMs` for it to
   * exit, then kills its process group. Requests already written finish (or
   * time out) first; queued ones reject with HARNESS_CLOSED. Never rejects;
   * resolves once the child is gone and its stderr is read to the end.
   */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  // ------------------------------------------------------------ internals

  private async shutdown(): Promise<void> {
    this.closing = true;
    const closedError = new HarnessError('HARNESS_CLOSED', this.command, `${this.label} was closed`);
    for (const p of this.queued.splice(0)) p.reject(closedError);
    if (this.fatal === undefined && this.exitInfo === undefined) {
      try {
        await this.request('shutdown', {}, this.closeGraceMs, 'shutdown', {}, (r) =>
          decodeResult(shutdownResultSchema, r, 'shutdown'),
        );
      } catch {
        // a harness that cannot shut down politely is killed below
      }
      this.child.channel.end();
      await Promise.race([this.exited, delay(this.closeGraceMs)]);
    }
    this.fatal ??= closedError;
    this.proc.kill('SIGKILL');
    await this.exited;
    // so that stderrTail() is complete once close() resolves
    await Promise.race([this.streamsClosed, delay(DRAIN_MS)]);
    await this.failing;
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private request<T>(
    method: string,
    params: unknown,
    timeoutMs: number,
    what: string,
    details: Record<string, unknown>,
    decode: (result: unknown) => Decoded<T>,
    build?: (id: number) => string,
  ): Promise<T> {
    if (this.fatal !== undefined) {
      const fatal = this.fatal;
      return this.failing.then(() => Promise.reject(fatal));
    }
    if (this.closing && method !== 'shutdown') {
      return Promise.reject(new HarnessError('HARNESS_CLOSED', this.command, `${this.label} is closing`));
    }
    return new Promise<T>((resolve, reject) => {
      this.queued.push({
        id: this.nextId++,
        method,
        what,
        details,
        timeoutMs,
        build: build ?? ((id) => JSON.stringify({ id, method, params })),
        decode,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  /** Writes queued requests while there is room in flight. */
  private pump(): void {
    while (this.fatal === undefined && this.inflight.length < this.maxInFlight && this.queued.length > 0) {
      const p = this.queued.shift()!;
      let line: string;
      try {
        line = p.build(p.id);
      } catch (err) {
        p.reject(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      this.inflight.push(p);
      this.child.channel.write(`${line}\n`);
      if (this.inflight.length === 1) this.arm(p);
    }
  }

  /**
   * Starts the clock of the oldest unanswered request. The harness answers in
   * order, so only the head is being worked on: the ones behind it are not
   * charged for its time.
   */
  private arm(p: Pending): void {
    p.timer = setTimeout(() => this.onTimeout(p), p.timeoutMs);
  }

  private onTimeout(p: Pending): void {
    // Late and over its memory cap: stopped for the cap, which onExit then reports.
    if (this.proc.breachNow() !== undefined) return;
    const starting = p.method === 'hello';
    const code: HarnessErrorCode = starting ? 'HARNESS_START_FAILED' : 'HARNESS_TIMEOUT';
    const lead = starting
      ? `${this.label} did not answer hello within ${p.timeoutMs} ms; it was killed`
      : `${this.label} timed out: the ${p.what} took longer than ${p.timeoutMs} ms; the harness was killed`;
    const tail = this.stderr.lines(STDERR_LINES);
    this.fail(
      new HarnessError(code, this.command, lead + formatTail('stderr (last lines)', tail), {
        ...p.details,
        method: p.method,
        timeoutMs: p.timeoutMs,
        stderrTail: tail,
      }),
    );
  }

  private onLine(signedLine: string): boolean {
    if (this.fatal !== undefined) return false;
    const signed = verifyLine(this.key, this.received, signedLine);
    if (!signed.ok) {
      this.fail(this.protocolError(`wrote ${signed.reason}`, signedLine));
      return false;
    }
    this.received++;
    const line = signed.body;
    const decoded = decodeResponseLine(line);
    if (!decoded.ok) {
      this.fail(this.protocolError(`wrote ${decoded.reason}`, line));
      return false;
    }
    const response = decoded.value;
    const head = this.inflight[0];
    if (head === undefined) {
      this.fail(this.protocolError(`answered id ${response.id}, but no request is pending`, line));
      return false;
    }
    if (response.id !== head.id) {
      this.fail(
        this.protocolError(
          `answered id ${response.id}, but the oldest pending request is id ${head.id}`,
          line,
        ),
      );
      return false;
    }
    let value: unknown;
    if (response.error === undefined) {
      const result = head.decode(response.result);
      if (!result.ok) {
        this.fail(this.protocolError(`${result.reason} (answering the ${head.what})`, line));
        return false;
      }
      value = result.value;
    }
    this.inflight.shift();
    clearTimeout(head.timer);
    const next = this.inflight[0];
    if (next !== undefined) this.arm(next);
    if (response.error !== undefined) {
      const starting = head.method === 'hello';
      head.reject(
        new HarnessError(
          starting ? 'HARNESS_START_FAILED' : 'HARNESS_REQUEST_FAILED',
          this.command,
          `${this.label} refused the ${head.what}: ${response.error.message}`,
          { ...head.details, method: head.method, harnessMessage: response.error.message },
        ),
      );
    } else {
      head.resolve(value);
    }
    this.pump();
    return true;
  }

  private async onExit(): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    // A final answer or stderr line may still be in the pipes.
    await Promise.race([this.streamsClosed, delay(DRAIN_MS)]);
    // Whatever the harness left running in its group goes with it.
    this.proc.kill('SIGKILL');
    if (this.fatal !== undefined) return;
    const pending = [...this.inflight, ...this.queued];
    const { code, signal } = this.exitInfo ?? { code: null, signal: null };
    if (this.closing && pending.length === 0) {
      this.fatal = new HarnessError('HARNESS_CLOSED', this.command, `${this.label} was closed`);
      return;
    }
    const tail = this.stderr.lines(STDERR_LINES);
    const starting = this.hello === undefined;
    const head = pending[0];
    const during = head === undefined ? '' : ` during the ${head.what}`;
    const breach = this.proc.breach;
    const how = this.proc.failure
      ? `did not start: ${this.proc.failure}`
      : breach
        ? breach.message
        : describeExit(code, signal);
    const lead = starting
      ? `${this.label} ${how} before answering hello${lastLineNote(this.stderr.lastLine())}`
      : `${this.label} ${how}${during}` + (pending.length > 1 ? ` (${pending.length} requests pending)` : '');
    this.fail(
      new HarnessError(
        starting ? 'HARNESS_START_FAILED' : 'HARNESS_CRASHED',
        this.command,
        lead + formatTail('stderr (last lines)', tail),
        { ...head?.details, exitCode: code, signal, stderrTail: tail, ...(breach ? { limit: breach } : {}) },
      ),
    );
  }

  /**
   * The harness is unusable: kill its group, and once it has exited reject
   * everything pending with `err`. The first reason wins.
   */
  private fail(err: Error): void {
    if (this.fatal !== undefined) return;
    this.fatal = err;
    const victims = [...this.inflight, ...this.queued];
    this.inflight = [];
    this.queued = [];
    for (const p of victims) clearTimeout(p.timer);
    this.proc.kill('SIGKILL');
    this.child.channel.destroy();
    this.failing = this.exited.then(() => {
      for (const p of victims) p.reject(err);
    });
  }

  private protocolError(reason: string, line: string): HarnessError {
    return new HarnessError(
      'HARNESS_PROTOCOL',
      this.command,
      `${this.label} broke the ${HARNESS_PROTOCOL} protocol: it ${reason}; offending line: ${truncateLine(line)}`,
      { line: line.slice(0, 1000), lineLength: line.length },
    );
  }
}

function lastLineNote(line: string): string {
  return line === '' ? '' : `: ${line}`;
}

function validateOptions(opts: HarnessClientOptions): void {
  if (opts.command.length === 0 || opts.command[0] === '') {
    throw new TypeError('HarnessClient: command must name a program');
  }
  const positive = (name: string, v: number | undefined, integer: boolean): void => {
    if (v === undefined) return;
    if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
      throw new RangeError(
        `HarnessClient: ${name} must be a positive ${integer ? 'integer' : 'number'}, got ${v}`,
      );
    }
  };
  positive('timeoutMs', opts.timeoutMs, false);
  positive('batchSize', opts.batchSize, true);
  positive('maxInFlight', opts.maxInFlight, true);
  positive('startTimeoutMs', opts.startTimeoutMs, false);
  positive('closeGraceMs', opts.closeGraceMs, false);
  positive('maxLineBytes', opts.maxLineBytes, true);
}
