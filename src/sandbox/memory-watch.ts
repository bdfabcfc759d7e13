/**
 * The memory cap. Node and the JVM reserve far more address space than they
 * use, so RLIMIT_AS would break them; cgroups are not writable on every CI
 * runner. Instead one watcher reads /proc a few times a second and sums the
 * resident memory of every process under each watched root (a sandbox's
 * bubblewrap, or a plain child's process), plus what the sandbox holds in
 * memory-backed folders: every tmpfs mounted in the mount namespaces of its
 * processes (its private /tmp, /dev/shm, the runner caches inside a
 * read-only node_modules, bubblewrap's own root and /dev), measured with
 * statfs through /proc/<pid>/root. A file in a tmpfs is RAM nobody's RSS
 * shows. A tree over its cap is killed and told why.
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statfsSync } from 'node:fs';
import { pushAll } from '../util/arrays.js';

/** What the watcher saw when a tree went over its cap. */
export interface MemoryUse {
  /** Resident bytes of the tree's processes. */
  resident: number;
  /** Bytes used in the tmpfs mounts the sandbox sees. */
  tmpfs: number;
  /** The tmpfs holding the most, as the sandbox sees its path. */
  largestMount?: string;
}

export interface MemoryWatch {
  /** The process tree whose resident memory counts (bubblewrap, or a plain child). */
  root: number;
  /**
   * A process inside the sandbox (its pid 1), once known: the mount
   * namespaces of it and everything below it are where tmpfs use is counted.
   * Never bubblewrap's own outer process, which sees the host's mounts.
   */
  sandboxInit?(): number | undefined;
  capBytes: number;
  onBreach(use: MemoryUse): void;
}

const PAGE = 4096;
const INTERVAL_MS = 250;
const watched = new Set<MemoryWatch>();
let timer: NodeJS.Timeout | undefined;

/**
 * One buffer for every /proc/<pid>/stat read: a scan reads one per process on
 * the host four times a second, and `readFileSync` allocated a 64 KiB buffer
 * for each (a file of procfs has no size to go by): a tenth of a check's own
 * CPU time went to the scan, two thirds of that to those buffers. A stat line
 * is well under 1 KiB.
 */
const STAT_BUFFER = Buffer.allocUnsafe(4096);

/** A /proc/<pid>/stat line, or undefined when the process is gone. */
function readStat(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const n = readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, 0);
    // Longer than the buffer (never seen): read it whole rather than cut a field.
    return n < STAT_BUFFER.length ? STAT_BUFFER.toString('latin1', 0, n) : readFileSync(file, 'latin1');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Parent pid and resident bytes of every process on the host. */
function readProcesses(): { parent: Map<number, number>; rss: Map<number, number> } {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return { parent, rss };
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readStat(`/proc/${name}/stat`);
    if (stat === undefined) continue;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(name);
    parent.set(pid, Number(fields[1]));
    rss.set(pid, Number(fields[21]) * PAGE);
  }
  return { parent, rss };
}

function childrenOf(parent: Map<number, number>): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parent) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  return children;
}

function tree(root: number, children: Map<number, number[]>): number[] {
  const out: number[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    out.push(pid);
    for (const child of children.get(pid) ?? []) pending.push(child);
  }
  return out;
}

/** Every process below `root` (not `root` itself), deepest last. */
export function descendants(root: number): number[] {
  const children = childrenOf(readProcesses().parent);
  const out: number[] = [];
  const pending = [...(children.get(root) ?? [])];
  for (let pid = pending.shift(); pid !== undefined; pid = pending.shift()) {
    out.push(pid);
    pushAll(pending, children.get(pid) ?? []);
  }
  return out;
}

/** mountinfo escapes blanks, tabs, newlines and backslashes in paths as octal. */
function unescapeMountPath(p: string): string {
  return p.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/**
 * Bytes in use in every tmpfs the given processes' mount namespaces hold,
 * each file system counted once (by its device number, however many times it
 * is mounted). A process that is gone meanwhile counts nothing.
 */
export function tmpfsUse(pids: readonly number[]): { bytes: number; largestMount?: string } {
  const namespaces = new Set<string>();
  const seen = new Set<string>();
  let bytes = 0;
  let largest = 0;
  let largestMount: string | undefined;
  for (const pid of pids) {
    let ns: string;
    let info: string;
    try {
      ns = readlinkSync(`/proc/${pid}/ns/mnt`);
      if (namespaces.has(ns)) continue;
      info = readFileSync(`/proc/${pid}/mountinfo`, 'utf8');
    } catch {
      continue;
    }
    namespaces.add(ns);
    for (const line of info.split('\n')) {
      const dash = line.indexOf(' - ');
      if (dash === -1 || !line.startsWith('tmpfs ', dash + 3)) continue;
      const fields = line.slice(0, dash).split(' ');
      const device = fields[2];
      const mountPoint = fields[4];
      if (device === undefined || mountPoint === undefined || seen.has(device)) continue;
      seen.add(device);
      let used: number;
      try {
        const s = statfsSync(`/proc/${pid}/root${unescapeMountPath(mountPoint)}`);
        used = (s.blocks - s.bfree) * s.bsize;
      } catch {
        continue;
      }
      bytes += used;
      if (used > largest) {
        largest = used;
        largestMount = unescapeMountPath(mountPoint);
      }
    }
  }
  return largestMount === undefined ? { bytes } : { bytes, largestMount };
}

/** What `w`'s tree holds, when that is over its cap; undefined while under it. */
function overCap(
  w: MemoryWatch,
  children: Map<number, number[]>,
  rss: Map<number, number>,
): MemoryUse | undefined {
  let resident = 0;
  for (const pid of tree(w.root, children)) resident += rss.get(pid) ?? 0;
  let tmpfs = 0;
  let largestMount: string | undefined;
  const init = w.sandboxInit?.();
  // RSS alone over the cap needs no statfs; otherwise the tmpfs share decides.
  if (init !== undefined && resident <= w.capBytes) {
    const t = tmpfsUse(tree(init, children));
    tmpfs = t.bytes;
    largestMount = t.largestMount;
  }
  if (resident + tmpfs <= w.capBytes) return undefined;
  return { resident, tmpfs, ...(largestMount !== undefined ? { largestMount } : {}) };
}

function scan(): void {
  const { parent, rss } = readProcesses();
  const children = childrenOf(parent);
  for (const w of watched) {
    const use = overCap(w, children, rss);
    if (use !== undefined) {
      watched.delete(w);
      w.onBreach(use);
    }
  }
}

/**
 * Measures `w`'s tree now, not at the watcher's next tick. A deadline that
 * fires in the same turn as that tick (or while a busy gate let ticks pass)
 * must not decide alone why a tree that is over its cap was stopped.
 */
export function measureNow(w: MemoryWatch): MemoryUse | undefined {
  const { parent, rss } = readProcesses();
  return overCap(w, childrenOf(parent), rss);
}

/** Watches the tree of `w.root` until the returned function is called (or it breaches, once). */
export function watchMemory(w: MemoryWatch): () => void {
  watched.add(w);
  if (timer === undefined) {
    timer = setInterval(() => {
      scan();
      if (watched.size === 0) {
        clearInterval(timer);
        timer = undefined;
      }
    }, INTERVAL_MS);
    timer.unref();
  }
  return () => {
    watched.delete(w);
  };
}
