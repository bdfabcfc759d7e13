/**
 * The one door head code goes through. Everything a patch wrote (properties,
 * seed properties, harness modules, tests, setup commands, per-mutant
 * commands) is started by `Sandbox.spawn`, and nothing else in patchgate
 * starts a process (git aside, which runs our own commands).
 *
 * Under bubblewrap a head process:
 * - runs in its own PID, IPC, UTS and (unless the base config opts a layer
 *   in) network namespace, with --die-with-parent: when its bubblewrap dies,
 *   the kernel kills every process in the namespace, daemons included;
 * - sees a fresh root: the system folders read-only, a private /tmp and
 *   /proc (its own processes only, so no /proc/<gate>/environ), the folders
 *   the caller lists read-only, and only its own checkout and scratch
 *   writable; never the base checkout, the out folder or other gates' temp
 *   dirs;
 * - gets exactly the environment it is given (--clearenv);
 * - as root, runs as `nobody` with no capabilities and no_new_privs;
 * - is capped: process count and file size (prlimit), resident memory (a
 *   watcher), wall time (its caller's timer), output (its caller's reader).
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
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { lstat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pushAll } from '../util/arrays.js';
import type { Isolation } from './isolation.js';
import { killTree, OWN_PROCESS_GROUP } from './kill.js';
import { descendants, watchMemory } from './memory-watch.js';

export interface Limits {
  /** Resident memory of the whole process tree. */
  memoryBytes: number;
  /** Processes (and threads) the sandbox user may have at once. */
  processes: number;
  /** Largest file a head process may write, its logs included. */
  fileBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  memoryBytes: 4 * 1024 ** 3,
  processes: 1024,
  fileBytes: 1024 ** 3,
};

/** Which cap a head process hit; the gate killed it (or the kernel did, for a file). */
export interface LimitBreach {
  limit: 'memory' | 'file-size';
  cap: number;
  observed?: number;
  message: string;
}

type StdioTarget = 'pipe' | 'ignore' | number;

export interface SandboxSpec {
  argv: readonly string[];
  cwd: string;
  /** The whole environment of the process. */
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
  /** Kills the process and everything it started. */
  kill(signal?: NodeJS.Signals): void;
}

/** Cache folders test runners write inside node_modules, given a private tmpfs when node_modules is read-only. */
const RUNNER_CACHES = ['.vite-temp', '.vite', '.vitest', '.cache'];

/** The folders of the system a program needs to run, mounted read-only as they are. */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** The package patchgate runs from: its adapters and engines are read by head processes. */
export function packageRoot(): string {
  // <root>/src/sandbox or <root>/dist/sandbox
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
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
  private readonly sealed = new Set<string>();

  constructor(
    readonly isolation: Isolation,
    private readonly options: {
      limits?: Partial<Limits>;
      /** Read-only folders every head process sees (the base config's `sandbox.readOnly`). */
      readOnly?: readonly string[];
    } = {},
  ) {}

  get limits(): Limits {
    return { ...DEFAULT_LIMITS, ...this.options.limits };
  }

  /**
   * Hands `dir` to the sandbox user before head code writes in it. Idempotent
   * per folder; a no-op unless head code runs as another user.
   */
  async grant(dir: string): Promise<void> {
    this.grantSync(dir);
  }

  private grantSync(dir: string): void {
    if (this.isolation.user !== 'separate') return;
    // A folder removed and made again under the same name (a second replay's io folder, which may even
    // get the same inode back) belongs to the gate again and must be handed over again.
    if (this.prepared.has(dir) && statSync(dir, { throwIfNoEntry: false })?.uid === this.isolation.uid)
      return;
    this.prepared.add(dir);
    chownTree(dir, this.isolation.uid, this.isolation.gid);
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

  spawn(spec: SandboxSpec): HeadProcess {
    const [program, ...args] = spec.argv;
    if (program === undefined || program === '')
      throw new TypeError('Sandbox.spawn: argv must name a program');
    for (const dir of spec.writable) this.grantSync(dir);
    const stdio = [...spec.stdio, ...(spec.channel ? (['pipe'] as const) : [])];
    const limits = this.limits;
    let child: ChildProcess;
    const sandboxed = this.isolation.mode === 'bwrap' && this.isolation.tools !== undefined;
    if (
      sandboxed &&
      !findProgram(program.includes('/') ? path.resolve(spec.cwd, program) : program, spec.env.PATH)
    ) {
      // A program that does not exist fails as a plain spawn does (ENOENT, no pid): nothing is started.
      child = spawn(program, args, { cwd: spec.cwd, env: { ...spec.env }, stdio, windowsHide: true });
    } else if (sandboxed && this.isolation.tools) {
      const argv = this.bwrapArgv(spec, limits);
      child = spawn(this.isolation.tools.bwrap, argv, {
        cwd: spec.cwd,
        env: {},
        stdio,
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
    let unwatch: (() => void) | undefined;
    if (child.pid !== undefined) {
      unwatch = watchMemory(child.pid, limits.memoryBytes, (observed) => {
        breach = {
          limit: 'memory',
          cap: limits.memoryBytes,
          observed,
          message: `used ${mib(observed)} of resident memory, over the cap of ${mib(limits.memoryBytes)}; it was killed`,
        };
        killTree(child, 'SIGKILL');
      });
    }
    child.once('exit', (_code, signal) => {
      unwatch?.();
      if (signal === 'SIGXFSZ' && breach === undefined) {
        breach = {
          limit: 'file-size',
          cap: limits.fileBytes,
          message: `wrote a file larger than the cap of ${mib(limits.fileBytes)}; the kernel stopped it`,
        };
      }
      // Whatever it left running (outside a PID namespace) goes with it.
      killTree(child, 'SIGKILL');
    });
    return {
      child,
      get breach() {
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
          for (const pid of descendants(child.pid)) {
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

  /** The bubblewrap command line for `spec`. Exported through the class for the tests of the view. */
  bwrapArgv(spec: SandboxSpec, limits: Limits = this.limits): string[] {
    const tools = this.isolation.tools;
    if (!tools) throw new Error('bwrapArgv: no bubblewrap');
    const a: string[] = [
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      ...(spec.network ? [] : ['--unshare-net']),
      ...(this.isolation.user === 'same' ? ['--unshare-user'] : []),
      '--die-with-parent',
      // No terminal of the gate's: a head process cannot push keystrokes into it (TIOCSTI).
      '--new-session',
      '--hostname',
      'patchgate-sandbox',
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
    a.push(
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--perms',
      '1777',
      '--size',
      String(limits.fileBytes),
      '--tmpfs',
      '/tmp',
    );
    const readable = [
      packageRoot(),
      ...(this.options.readOnly ?? []),
      ...(spec.readOnly ?? []),
      ...spec.writable.flatMap(linkedTargets),
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
          a.push('--perms', '0777', '--size', String(limits.fileBytes), '--tmpfs', dir);
        }
      }
    }
    a.push('--chdir', spec.cwd, '--clearenv');
    const env = { ...spec.env };
    // The gate's home is not in the sandbox's view; tools that write under HOME (npm, pip caches) get the private /tmp.
    if (env.HOME !== undefined && !spec.writable.some((w) => env.HOME === w || env.HOME?.startsWith(`${w}/`)))
      env.HOME = '/tmp';
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    a.push('--');
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
    return a;
  }
}

/**
 * Where the top-level symlinks of a checkout lead: dependency folders
 * borrowed from another checkout (`node_modules -> ../head/node_modules`)
 * must be readable where they really are.
 */
function linkedTargets(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    try {
      if (lstatSync(p).isSymbolicLink()) out.push(realpathSync(p));
    } catch {
      // a dangling link reads as nothing
    }
  }
  return out;
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
