/**
 * The one door head code goes through. Everything a patch wrote (properties,
 * seed properties, harness modules, tests, setup commands, per-mutant
 * commands) is started by `Sandbox.spawn`, and nothing else in patchgate
 * starts a process (git aside, which runs our own commands).
 *
 * Under bubblewrap a head process:
 * - runs in its own PID, IPC, UTS and network namespace, with
 *   --die-with-parent: when its bubblewrap dies, the kernel kills every
 *   process in the namespace, daemons included. A process the base config
 *   gives network gets user-mode networking in that namespace (network.ts),
 *   never the host's namespace;
 * - sees a fresh root, read-only: the system folders read-only, a private
 *   /tmp, /dev/shm and /proc (its own processes only, so no
 *   /proc/<gate>/environ), the folders the caller lists read-only, and only
 *   its own checkout and scratch writable; never the base checkout, the out
 *   folder or other gates' temp dirs;
 * - gets exactly the environment it is given (--clearenv), with its temp
 *   folder (TMPDIR, TEMP, TMP) and HOME moved into its private /tmp unless
 *   they name a folder it may write;
 * - as root, runs as `nobody` with no capabilities and no_new_privs;
 * - is capped: process count and file size (prlimit), memory (a watcher:
 *   resident memory plus what its tmpfs folders hold, each also sized to the
 *   cap), the bytes its writable folders grow by (a watcher), wall time (its
 *   caller's timer), output (its caller's reader).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  chownSync,
  existsSync,
  constants as fsConstants,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
} from 'node:fs';
import { lstat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pushAll } from '../util/arrays.js';
import { packageRoot } from '../util/package-root.js';
import { scrubbedEnv } from '../util/scrub-env.js';
import { type FolderUsage, measureFolder, measureFolderSync, watchDisk } from './disk-watch.js';
import { HOW_TO_ENABLE_NETWORK, type Isolation } from './isolation.js';
import { killTree, OWN_PROCESS_GROUP } from './kill.js';
import { lentTargets } from './lent-links.js';
import {
  DEFAULT_LIMITS,
  diskBreach,
  fileSizeBreach,
  type LimitBreach,
  type Limits,
  memoryBreach,
} from './limits.js';
import { descendants, type MemoryWatch, measureNow, watchMemory } from './memory-watch.js';
import { attachNetwork, type NetworkLink, sandboxResolvConf } from './network.js';

export { breachEvidence, DEFAULT_LIMITS, type LimitBreach, type Limits } from './limits.js';

/** Whether head processes given network get it here; decided by trying it (`Sandbox.checkNetwork`). */
export type NetworkStatus =
  | { available: true; tool: 'slirp4netns' }
  | { available: false; reason: string; next: string };

type StdioTarget = 'pipe' | 'ignore' | number;

export interface SandboxSpec {
  argv: readonly string[];
  cwd: string;
  /**
   * Variables the process gets on top of the sandbox's own environment (the
   * host's PATH, HOME, locale and temp folder, nothing else; see
   * `Sandbox.environment`): the base config's, and the gate's instruments'.
   */
  env: Readonly<Record<string, string>>;
  /** Folders the process may write: its own checkout and scratch. */
  writable: readonly string[];
  /** More folders (or files) it may read, besides the system folders and patchgate itself. */
  readOnly?: readonly string[];
  /** Network access; off unless the base config opts the layer in. */
  network?: boolean;
  stdio: readonly [stdin: 'pipe' | 'ignore', stdout: StdioTarget, stderr: StdioTarget];
  /**
   * A fourth descriptor (fd 3), a duplex pipe for a protocol: what head code
   * prints on stdout can never be mistaken for an answer.
   */
  channel?: boolean;
}

export interface HeadProcess {
  readonly child: ChildProcess;
  /**
   * The exit as the head process itself ended: bubblewrap reports a child
   * killed by a signal as exit code 128 + n, which is turned back into the
   * signal here.
   */
  exitOf(
    code: number | null,
    signal: NodeJS.Signals | null,
  ): { code: number | null; signal: NodeJS.Signals | null };
  /** Set once the gate killed the process for a cap, or the kernel did (file size). */
  readonly breach: LimitBreach | undefined;
  /**
   * Set when the sandbox itself could not be made (its network did not come
   * up): the process was killed before any head code ran, and its exit says
   * nothing about the head.
   */
  readonly failure: string | undefined;
  /**
   * Measures the tree's memory now rather than at the watcher's next tick;
   * over the cap, the tree is stopped for it and the breach returned (or the
   * breach it was already stopped for). A deadline asks this before it kills:
   * a tree that is both late and over its cap is reported for the cap, however
   * the gate's timers happened to run.
   */
  breachNow(): LimitBreach | undefined;
  /** Kills the process and everything it started. */
  kill(signal?: NodeJS.Signals): void;
}

/** Cache folders test runners write inside node_modules, given a private tmpfs when node_modules is read-only. */
const RUNNER_CACHES = ['.vite-temp', '.vite', '.vitest', '.cache'];

/** The folders of the system a program needs to run, mounted read-only as they are. */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** The file descriptors bubblewrap gets besides stdio and the channel (fd 3). */
const FD = {
  /** The sandbox's own bubblewrap writes its pid 1 here (`--info-fd`). */
  info: 4,
  /** The gate writes a line here once the network is up; the command waits for it. */
  go: 5,
  /** The sandbox's /etc/resolv.conf (`--ro-bind-data`). */
  resolv: 6,
  /** The holder of the network namespace (gate not root) writes its pid here. */
  holderInfo: 7,
  /** The command writes a line here once bubblewrap is done with the namespace (its loopback is up). */
  here: 8,
} as const;

/**
 * Holds a command until its network is up. bubblewrap brings the loopback of
 * a new network namespace up itself, after it reports its pid and before it
 * runs the command, and fails if slirp4netns did it first; so the gate
 * attaches slirp4netns only once this (the system's sh, before any head code)
 * says bubblewrap is done, and the command runs once the gate says go. No
 * go (the gate died) is no command. Neither descriptor is left to head code.
 */
const NETWORK_GATE = [
  '/bin/sh',
  '-c',
  `echo >&${FD.here}; read -r _ <&${FD.go} || exit 125; exec ${FD.go}<&- ${FD.here}>&-; exec "$@"`,
  'patchgate-network',
];

function fdOf(child: ChildProcess, fd: number): Readable | Writable | null | undefined {
  return (child.stdio as unknown as (Readable | Writable | null | undefined)[])[fd];
}

/** Reads the pid bubblewrap reports on an `--info-fd` pipe (`{"child-pid": N, ...}`). */
function onChildPid(stream: Readable | null | undefined, then: (pid: number) => void): void {
  if (!stream) return;
  let text = '';
  let done = false;
  stream.on('error', () => undefined);
  stream.on('data', (b: Buffer) => {
    if (done) return;
    text += b.toString('utf8');
    const m = /"child-pid":\s*(\d+)/.exec(text);
    if (m) {
      done = true;
      then(Number(m[1]));
    }
  });
}

/** The folders among `dirs` not inside another of them: each byte is counted once. */
function outermost(dirs: readonly string[]): string[] {
  const abs = [...new Set(dirs.map((d) => path.resolve(d)))];
  return abs.filter((d) => !abs.some((o) => o !== d && d.startsWith(`${o}/`)));
}

/** Makes `dir` (recursively) owned by the sandbox user, so a dropped uid can write its own checkout. */
function chownTree(dir: string, uid: number, gid: number): void {
  const pending = [dir];
  for (let d = pending.pop(); d !== undefined; d = pending.pop()) {
    try {
      chownSync(d, uid, gid);
    } catch {
      // gone, or not ours to give: the head process will say what it could not write
    }
    let entries: import('node:fs').Dirent[] = [];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      entries = [];
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) pending.push(p);
      else if (!e.isSymbolicLink()) {
        try {
          chownSync(p, uid, gid);
        } catch {
          // as above
        }
      }
    }
  }
}

export class Sandbox {
  private readonly prepared = new Set<string>();
  /** Each writable folder's usage when it was handed over, and which folder that was (a new one is measured again). */
  private readonly baselines = new Map<string, { usage: FolderUsage; ino: number; born: number }>();
  private network: Promise<NetworkStatus> | undefined;
  private networkDown: string | undefined;
  private readonly resolvConf: string;
  private readonly sealed = new Set<string>();
  /** Head processes not yet ended: a run abandoned when another failed first is still one of these. */
  private readonly live = new Set<ChildProcess>();

  constructor(
    readonly isolation: Isolation,
    private readonly options: {
      limits?: Partial<Limits>;
      /** Read-only folders every head process sees (the base config's `sandbox.readOnly`). */
      readOnly?: readonly string[];
      /**
       * The gate's own environment. Only what `scrubbedEnv` lets through
       * reaches a head process: override tokens, CI secrets and cloud
       * credentials stay here, whatever a caller passes.
       */
      hostEnv?: Readonly<Record<string, string | undefined>>;
    } = {},
  ) {
    this.baseEnv = scrubbedEnv(options.hostEnv ?? {});
    let host: string | undefined;
    try {
      host = readFileSync('/etc/resolv.conf', 'utf8');
    } catch {
      host = undefined;
    }
    this.resolvConf = sandboxResolvConf(host);
  }

  private readonly baseEnv: Readonly<Record<string, string>>;

  /**
   * The environment a head process started with `extra` gets (before the
   * sandbox moves HOME and the temp folder into its private /tmp). The gate
   * reads it to find a program the way the process will.
   */
  environment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return { ...this.baseEnv, ...extra };
  }

  get limits(): Limits {
    return { ...DEFAULT_LIMITS, ...this.options.limits };
  }

  /**
   * Hands `dir` to the sandbox user before head code writes in it, and takes
   * the size it starts from for the disk cap. Call it whenever the gate made
   * (or made again) a folder head code will write.
   */
  async grant(dir: string): Promise<void> {
    this.chown(dir);
    this.remember(dir, await measureFolder(dir));
  }

  private grantSync(dir: string): void {
    this.chown(dir);
    const st = statSync(dir, { throwIfNoEntry: false });
    const known = this.baselines.get(path.resolve(dir));
    // A folder removed and made again under the same name (a second run's io folder) starts over.
    if (known === undefined || st === undefined || known.ino !== st.ino || known.born !== st.birthtimeMs)
      this.remember(dir, measureFolderSync(dir));
  }

  private remember(dir: string, usage: FolderUsage): void {
    const st = statSync(dir, { throwIfNoEntry: false });
    // Keyed as the disk watcher names folders (resolved), whatever form the caller gave.
    this.baselines.set(path.resolve(dir), { usage, ino: st?.ino ?? 0, born: st?.birthtimeMs ?? 0 });
  }

  private chown(dir: string): void {
    if (this.isolation.user !== 'separate') return;
    // A folder removed and made again under the same name (a second replay's io folder, which may even
    // get the same inode back) belongs to the gate again and must be handed over again.
    if (this.prepared.has(dir) && statSync(dir, { throwIfNoEntry: false })?.uid === this.isolation.uid)
      return;
    this.prepared.add(dir);
    chownTree(dir, this.isolation.uid, this.isolation.gid);
  }

  /**
   * Whether head processes asked to have network get it: user-mode networking
   * in their own namespace, tried once for real. When not, they run with no
   * network at all (never the host's); the caller decides what that means.
   */
  checkNetwork(): Promise<NetworkStatus> {
    this.network ??= this.probeNetwork();
    return this.network;
  }

  private async probeNetwork(): Promise<NetworkStatus> {
    if (this.isolation.mode !== 'bwrap') {
      return {
        available: false,
        reason: 'head code runs without a sandbox here, so it would share the host network namespace',
        next: 'enable the sandbox (see SANDBOX_UNAVAILABLE)',
      };
    }
    if (this.isolation.tools?.slirp4netns === undefined) {
      const reason = 'slirp4netns is not installed (or not on PATH)';
      this.networkDown = reason;
      return { available: false, reason, next: HOW_TO_ENABLE_NETWORK };
    }
    const proc = this.spawn({
      argv: ['/bin/sh', '-c', 'exit 0'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
      writable: [],
      network: true,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const exit = await new Promise<number | null>((resolve) => {
      proc.child.once('error', () => resolve(null));
      proc.child.once('exit', (code) => resolve(code));
    });
    if (proc.failure !== undefined || exit !== 0) {
      const reason = proc.failure ?? `a sandbox with network exited with code ${exit}`;
      this.networkDown = reason;
      return { available: false, reason, next: HOW_TO_ENABLE_NETWORK };
    }
    return { available: true, tool: 'slirp4netns' };
  }

  /**
   * Makes `dir` (an installed dependency folder, by its real path) read-only
   * to every head process from now on, even inside a checkout it may write: a
   * head test cannot plant a runner or a plugin in it for a later run (the
   * base's rerun, the overlay's) to pick up. Enforced under bubblewrap only.
   */
  seal(dir: string): void {
    this.sealed.add(path.resolve(dir));
  }

  /** The sealed folders, for the pytest guard (their distributions may declare plugins). */
  get sealedDirs(): readonly string[] {
    return [...this.sealed].sort();
  }

  /**
   * Whether every head process sees host path `p` where it is (read-only or
   * more): the system folders, the gate's package, `sandbox.readOnly`. Its
   * checkouts are not counted here; a path inside one is the caller's to know.
   */
  visible(p: string): boolean {
    if (this.isolation.mode !== 'bwrap') return true;
    const abs = path.resolve(p);
    const roots = [...SYSTEM, packageRoot(), ...(this.options.readOnly ?? []).map((d) => path.resolve(d))];
    return roots.some((r) => abs === r || abs.startsWith(`${r}/`));
  }

  /**
   * Ends every head process still running and waits for each to be gone
   * (at most `graceMs`): a run another run's failure left behind must not
   * go on writing into a checkout the gate is removing.
   */
  async stopAll(graceMs = 5000): Promise<void> {
    const waits = [...this.live].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(resolve, graceMs);
          timer.unref();
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          killTree(child, 'SIGKILL');
        }),
    );
    await Promise.all(waits);
  }

  spawn(spec: SandboxSpec): HeadProcess {
    const [program, ...args] = spec.argv;
    if (program === undefined || program === '')
      throw new TypeError('Sandbox.spawn: argv must name a program');
    // The door composes the environment itself: a caller adds variables, it can never pass the gate's own.
    spec = { ...spec, env: this.environment(spec.env) };
    for (const dir of spec.writable) this.grantSync(dir);
    const stdio = [...spec.stdio, ...(spec.channel ? (['pipe'] as const) : [])];
    const limits = this.limits;
    let child: ChildProcess;
    const sandboxed = this.isolation.mode === 'bwrap' && this.isolation.tools !== undefined;
    const slirp = this.isolation.tools?.slirp4netns;
    // Network only through slirp4netns; without it (or once it failed here) the process is offline.
    const networked =
      sandboxed && spec.network === true && slirp !== undefined && this.networkDown === undefined;
    const holder = networked && this.isolation.user === 'same';
    if (
      sandboxed &&
      !findProgram(program.includes('/') ? path.resolve(spec.cwd, program) : program, spec.env.PATH)
    ) {
      // A program that does not exist fails as a plain spawn does (ENOENT, no pid): nothing is started.
      child = spawn(program, args, { cwd: spec.cwd, env: { ...spec.env }, stdio, windowsHide: true });
    } else if (sandboxed && this.isolation.tools) {
      const argv = this.bwrapArgv(spec, limits, { networked, holder });
      // fds 4 to 8 (see FD): info always; go, resolv, holder info (or nothing) and here with network.
      const extra: ('pipe' | 'ignore')[] = networked
        ? ['pipe', 'pipe', 'pipe', holder ? 'pipe' : 'ignore', 'pipe']
        : ['pipe'];
      child = spawn(this.isolation.tools.bwrap, argv, {
        cwd: spec.cwd,
        env: {},
        stdio: [...spec.stdio, spec.channel ? 'pipe' : 'ignore', ...extra],
        detached: OWN_PROCESS_GROUP,
        windowsHide: true,
      });
    } else {
      child = spawn(program, args, {
        cwd: spec.cwd,
        env: { ...spec.env },
        stdio,
        detached: OWN_PROCESS_GROUP,
        windowsHide: true,
      });
    }
    let breach: LimitBreach | undefined;
    let failure: string | undefined;
    let sandboxInit: number | undefined;
    let link: NetworkLink | undefined;
    const unwatch: (() => void)[] = [];
    let memory: MemoryWatch | undefined;
    let exited = false;
    const stop = (why: LimitBreach) => {
      breach ??= why;
      killTree(child, 'SIGKILL');
    };
    if (child.pid !== undefined) {
      if (sandboxed) {
        onChildPid(fdOf(child, FD.info) as Readable | undefined, (pid) => {
          sandboxInit = pid;
        });
        if (networked && slirp !== undefined) {
          const resolv = fdOf(child, FD.resolv) as Writable | undefined;
          resolv?.on('error', () => undefined);
          resolv?.end(this.resolvConf);
          const go = fdOf(child, FD.go) as Writable | undefined;
          go?.on('error', () => undefined);
          let netPid: number | undefined;
          let here = false;
          const attach = () => {
            if (netPid === undefined || !here || link !== undefined) return;
            link = attachNetwork(slirp, netPid, { rootful: this.isolation.user === 'separate' });
            link.ready.then(
              () => go?.end('go\n'),
              (e: Error) => {
                failure ??= `its network could not be set up: ${e.message}`;
                killTree(child, 'SIGKILL');
              },
            );
          };
          onChildPid(fdOf(child, holder ? FD.holderInfo : FD.info) as Readable | undefined, (pid) => {
            netPid = pid;
            attach();
          });
          const hereFd = fdOf(child, FD.here) as Readable | undefined;
          hereFd?.on('error', () => undefined);
          hereFd?.once('data', () => {
            here = true;
            attach();
          });
        }
      }
      memory = {
        root: child.pid,
        sandboxInit: () => sandboxInit,
        capBytes: limits.memoryBytes,
        onBreach: (use) => stop(memoryBreach(use, limits.memoryBytes)),
      };
      unwatch.push(watchMemory(memory));
      const folders = outermost(spec.writable);
      if (folders.length > 0) {
        unwatch.push(
          watchDisk({
            folders,
            baseline: (f) => this.baselines.get(f)?.usage ?? { bytes: 0, takenAt: 0, byEntry: new Map() },
            capBytes: limits.diskBytes,
            onBreach: (use) => stop(diskBreach(use, limits.diskBytes)),
          }),
        );
      }
    }
    this.live.add(child);
    child.once('close', () => this.live.delete(child));
    child.once('error', () => this.live.delete(child));
    child.once('exit', (_code, signal) => {
      exited = true;
      for (const u of unwatch) u();
      link?.stop();
      if (signal === 'SIGXFSZ' && breach === undefined) breach = fileSizeBreach(limits.fileBytes);
      // Whatever it left running (outside a PID namespace) goes with it.
      killTree(child, 'SIGKILL');
    });
    return {
      child,
      get breach() {
        return breach;
      },
      get failure() {
        return failure;
      },
      breachNow: () => {
        if (breach === undefined && !exited && memory !== undefined) {
          const use = measureNow(memory);
          if (use !== undefined) stop(memoryBreach(use, limits.memoryBytes));
        }
        return breach;
      },
      exitOf: (code, signal) => {
        if (!sandboxed || signal !== null || code === null || code <= 128 || code > 128 + 64)
          return { code, signal };
        const name = Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0];
        return name ? { code: null, signal: name as NodeJS.Signals } : { code, signal };
      },
      kill: (signal: NodeJS.Signals = 'SIGKILL') => {
        if (sandboxed && signal !== 'SIGKILL' && child.pid !== undefined) {
          // bubblewrap does not pass signals on: a polite stop goes to the processes inside, so a test
          // runner can still write its report; SIGKILL goes to bubblewrap, and the namespace dies with it.
          // Never to a bubblewrap outside the sandbox's pid 1 (a network holder's): its death would kill
          // the runner before it could write anything.
          const inside =
            sandboxInit !== undefined ? [sandboxInit, ...descendants(sandboxInit)] : descendants(child.pid);
          for (const pid of inside) {
            try {
              process.kill(pid, signal);
            } catch {
              // gone meanwhile
            }
          }
          return;
        }
        killTree(child, signal);
      },
    };
  }

  /**
   * The bubblewrap command line for `spec`. `networked`: the process gets
   * user-mode networking (its command waits until it is up); `holder`:
   * the gate is not root, so an outer bubblewrap holds the network namespace
   * (the sandbox's own bubblewrap nests a second user namespace for /dev,
   * which slirp4netns could not enter) and the sandbox runs inside it.
   */
  bwrapArgv(
    spec: SandboxSpec,
    limits: Limits = this.limits,
    net: { networked: boolean; holder: boolean } = { networked: false, holder: false },
  ): string[] {
    const tools = this.isolation.tools;
    if (!tools) throw new Error('bwrapArgv: no bubblewrap');
    const memory = String(limits.memoryBytes);
    const a: string[] = [
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      // The holder made the network namespace this one runs in.
      ...(net.holder ? [] : ['--unshare-net']),
      ...(this.isolation.user === 'same' ? ['--unshare-user'] : []),
      '--die-with-parent',
      // No terminal of the gate's: a head process cannot push keystrokes into it (TIOCSTI).
      '--new-session',
      '--hostname',
      'patchgate-sandbox',
      '--info-fd',
      String(FD.info),
    ];
    for (const top of SYSTEM) {
      let st: ReturnType<typeof lstatSync> | undefined;
      try {
        st = lstatSync(top);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) a.push('--symlink', readlinkSync(top), top);
      else if (st.isDirectory()) a.push('--ro-bind', top, top);
    }
    // Its own resolver address: the host's may be a loopback stub, which is not in this namespace.
    if (net.networked) a.push('--perms', '0644', '--ro-bind-data', String(FD.resolv), '/etc/resolv.conf');
    // Memory-backed folders are sized to the memory cap (the watcher counts them all against it together).
    a.push(
      '--dev',
      '/dev',
      '--perms',
      '1777',
      '--size',
      memory,
      '--tmpfs',
      '/dev/shm',
      '--proc',
      '/proc',
      '--perms',
      '1777',
      '--size',
      memory,
      '--tmpfs',
      '/tmp',
    );
    const readable = [
      packageRoot(),
      ...(this.options.readOnly ?? []),
      ...(spec.readOnly ?? []),
      // Only the links the gate made: one the head planted in its checkout must not open a host path.
      ...spec.writable.flatMap(lentTargets),
    ];
    const made = new Set<string>();
    // Parents bubblewrap creates for a mount point copy nothing of the host's modes: open them for the dropped uid.
    const ensureParents = (p: string) => {
      const parts = path.dirname(p).split('/').filter(Boolean);
      let cur = '';
      for (const part of parts) {
        cur += `/${part}`;
        if (made.has(cur) || SYSTEM.includes(cur) || cur === '/tmp') continue;
        made.add(cur);
        a.push('--perms', '0755', '--dir', cur);
      }
    };
    const inView = (p: string) =>
      [...readable, ...spec.writable].some((v) => p === v || p.startsWith(`${v}/`));
    const mounts = [
      ...readable.map((p) => ({ p, rw: false })),
      ...spec.writable.map((p) => ({ p, rw: true })),
      // Mounted after (inside) the writable checkout that holds them, so they stay read-only there.
      ...[...this.sealed].filter(inView).map((p) => ({ p, rw: false })),
    ].filter((m) => existsSync(m.p));
    // Parents first, so a writable checkout inside a read-only folder stays writable.
    mounts.sort((x, y) => x.p.length - y.p.length);
    for (const m of mounts) {
      ensureParents(m.p);
      a.push(m.rw ? '--bind' : '--ro-bind', m.p, m.p);
      // A sealed folder inside this mount has it as a parent: it exists already and must not be made again.
      made.add(m.p);
      // Test runners write caches into the dependencies they run from (vite bundles its config into
      // node_modules/.vite-temp). A borrowed node_modules stays read-only; those caches get a private tmpfs.
      if (!m.rw && path.basename(m.p) === 'node_modules') {
        for (const cache of RUNNER_CACHES) {
          const dir = path.join(m.p, cache);
          try {
            mkdirSync(dir, { recursive: true });
          } catch {
            continue;
          }
          a.push('--perms', '0777', '--size', memory, '--tmpfs', dir);
        }
      }
    }
    // Only the mounts are writable: not bubblewrap's own root (the parents it made, in RAM) nor /dev, which a
    // head process running under the gate's uid would own.
    a.push('--remount-ro', '/dev', '--remount-ro', '/');
    a.push('--chdir', spec.cwd, '--clearenv');
    const env = { ...spec.env };
    const canWrite = (p: string | undefined) =>
      p !== undefined && spec.writable.some((w) => p === w || p.startsWith(`${w}/`));
    // The gate's home and temp folder are not in the sandbox's view; tools that write there (npm and pip
    // caches, every mkdtemp) get the private /tmp.
    if (env.HOME !== undefined && !canWrite(env.HOME)) env.HOME = '/tmp';
    for (const key of ['TMPDIR', 'TEMP', 'TMP'] as const) {
      if (!canWrite(env[key])) env[key] = '/tmp';
    }
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    a.push('--');
    // With its own namespace (root): held here. In a holder's: the holder is held instead.
    if (net.networked && !net.holder) pushAll(a, NETWORK_GATE);
    if (tools.prlimit) {
      a.push(tools.prlimit);
      if (this.isolation.user === 'separate') a.push(`--nproc=${limits.processes}`);
      a.push(`--fsize=${limits.fileBytes}`, '--core=0', '--');
    }
    if (this.isolation.user === 'separate' && tools.setpriv) {
      a.push(
        tools.setpriv,
        `--reuid=${this.isolation.uid}`,
        `--regid=${this.isolation.gid}`,
        '--clear-groups',
        '--no-new-privs',
        '--bounding-set=-all',
        '--inh-caps=-all',
        '--',
      );
    }
    pushAll(a, spec.argv);
    if (!net.holder) return a;
    // The holder: a user namespace mapping the gate's uid to itself and the network namespace, nothing
    // else (the whole host is in view, as it is to the gate; the sandbox inside builds its own root).
    return [
      '--unshare-user',
      '--unshare-net',
      '--die-with-parent',
      '--dev-bind',
      '/',
      '/',
      '--info-fd',
      String(FD.holderInfo),
      '--',
      ...NETWORK_GATE,
      tools.bwrap,
      ...a,
    ];
  }
}

/** Whether `program` names an executable: a path, or a name found on `searchPath`. */
function findProgram(program: string, searchPath: string | undefined): boolean {
  const executable = (p: string) => {
    try {
      accessSync(p, fsConstants.X_OK);
      return lstatSync(p).isDirectory() === false;
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return executable(program);
  return (searchPath ?? '').split(':').some((dir) => dir !== '' && executable(path.join(dir, program)));
}

/** True when `p` exists and is a folder (helper for callers building read-only lists). */
export async function isDir(p: string): Promise<boolean> {
  try {
    return (await lstat(p)).isDirectory();
  } catch {
    return false;
  }
}
