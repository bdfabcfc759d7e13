/**
 * The memory cap. Node and the JVM reserve far more address space than they
 * use, so RLIMIT_AS would break them; cgroups are not writable on every CI
 * runner. Instead one watcher reads /proc a few times a second and sums the
 * resident memory of every process under each watched root (a sandbox's
 * bubblewrap, or a plain child's process): a tree over its cap is killed and
 * told why.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pushAll } from '../util/arrays.js';

interface Watched {
  root: number;
  capBytes: number;
  onBreach(observedBytes: number): void;
}

const PAGE = 4096;
const INTERVAL_MS = 250;
const watched = new Set<Watched>();
let timer: NodeJS.Timeout | undefined;

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
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue;
    }
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

function scan(): void {
  const { parent, rss } = readProcesses();
  const children = childrenOf(parent);
  for (const w of watched) {
    let total = 0;
    const pending = [w.root];
    for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
      total += rss.get(pid) ?? 0;
      for (const child of children.get(pid) ?? []) pending.push(child);
    }
    if (total > w.capBytes) {
      watched.delete(w);
      w.onBreach(total);
    }
  }
}

/** Watches the process tree under `root`; returns a function that stops watching. */
export function watchMemory(
  root: number,
  capBytes: number,
  onBreach: (observedBytes: number) => void,
): () => void {
  const w: Watched = { root, capBytes, onBreach };
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
