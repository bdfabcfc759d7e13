/**
 * The disk cap. The folders a head process may write (its checkout, its
 * scratch) are on the host's disk, and the per-file cap (RLIMIT_FSIZE) does
 * nothing against many files. No quota is available on every CI runner, so a
 * watcher walks those folders while head code runs and sums the bytes they
 * take (allocated blocks, each inode once), against what they took when the
 * gate handed them over: the budget is per folder and spent by every head
 * process that writes there, so a suite cannot spend it again on each rerun.
 *
 * Walking is the cost, so it is measured and kept small: a walk runs in
 * slices of a few milliseconds (the gate's event loop keeps turning), and the
 * next one starts after a pause of {@link IDLE_FACTOR} times the last walk's
 * duration, so the watcher uses about 5% of one core whatever the size of the
 * checkout. During the pause a statfs of each folder's file system (one
 * system call) is read four times a second: when the file system filled by
 * more than a watched tree has left of its budget, the next walk starts at
 * once (still at most one walk in three, however busy the disk is with other
 * writers). What remains of the latency: a writer can get ahead of the cap
 * by what it writes in one walk and a quarter second; it is stopped at the
 * next walk, and the folder stays over budget for every later head process.
 */
import { type Dirent, lstatSync, readdirSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { runInSlices, runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';

/** What a folder takes on disk. */
export interface FolderUsage {
  bytes: number;
  /** When the walk started (performance.now()): a sample older than a baseline says nothing against it. */
  takenAt: number;
  /** Bytes under each top-level entry, for the evidence ("most of it under build/"). */
  byEntry: Map<string, number>;
  /** A folder in it the gate could not list (its size cannot be counted). */
  unreadable?: string;
}

/** Why a watched process tree went over its disk budget. */
export interface DiskUse {
  /** Bytes the watched folders grew by, all together. */
  grown: number;
  /** The folder that grew most. */
  folder: string;
  /** Its top-level entry that grew most, and by how much. */
  entry?: string;
  entryBytes?: number;
  /** Set when a folder could not be listed: what it holds cannot be counted, which fails closed. */
  unreadable?: string;
}

export interface DiskWatch {
  /** Absolute folders the tree may write. */
  folders: readonly string[];
  /** Each folder's usage when the gate handed it over. */
  baseline(folder: string): FolderUsage;
  capBytes: number;
  onBreach(use: DiskUse): void;
}

/** Pause between walks, as a multiple of the last walk's duration: a walk every 20 of its own lengths. */
export const IDLE_FACTOR = 19;
const MIN_PAUSE_MS = 500;
const MAX_PAUSE_MS = 15_000;
/** However full the disk gets, a walk is followed by at least twice its own length of rest. */
const MIN_REST_FACTOR = 2;
const POLL_MS = 250;
/** The longest one slice of a walk holds the event loop. */
const SLICE_MS = 5;

function* walk(dir: string, budget: SliceBudget): Sliced<FolderUsage> {
  const takenAt = performance.now();
  const byEntry = new Map<string, number>();
  const inodes = new Set<string>();
  let bytes = 0;
  let unreadable: string | undefined;
  const top = lstatSync(dir, { throwIfNoEntry: false });
  if (top === undefined) return { bytes: 0, takenAt, byEntry };
  bytes += top.blocks * 512;
  const pending: { dir: string; entry: string | undefined }[] = [{ dir, entry: undefined }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(next.dir, { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === 'EACCES' || code === 'EPERM') && unreadable === undefined) unreadable = next.dir;
      continue;
    }
    for (const e of entries) {
      if (budget.due()) yield;
      const p = path.join(next.dir, e.name);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (st === undefined) continue;
      if (st.nlink > 1 && !st.isDirectory()) {
        const key = `${st.dev}:${st.ino}`;
        if (inodes.has(key)) continue;
        inodes.add(key);
      }
      const entry = next.entry ?? e.name;
      const b = st.blocks * 512;
      bytes += b;
      byEntry.set(entry, (byEntry.get(entry) ?? 0) + b);
      // Never through a symlink: what it leads to is not this folder's.
      if (st.isDirectory()) pending.push({ dir: p, entry });
    }
  }
  return unreadable === undefined ? { bytes, takenAt, byEntry } : { bytes, takenAt, byEntry, unreadable };
}

/** A folder's usage now, walked in one go (a baseline taken before head code runs). */
export function measureFolderSync(dir: string): FolderUsage {
  return runToEnd((budget) => walk(dir, budget));
}

/** A folder's usage now, walked in slices so the event loop keeps turning. */
export function measureFolder(dir: string): Promise<FolderUsage> {
  return runInSlices((budget) => walk(dir, budget), undefined, SLICE_MS);
}

const watched = new Set<DiskWatch>();
const latest = new Map<string, FolderUsage>();
let looping = false;

function judge(w: DiskWatch): DiskUse | undefined {
  let grown = 0;
  let worst: { folder: string; by: number; usage: FolderUsage; base: FolderUsage } | undefined;
  for (const folder of w.folders) {
    const usage = latest.get(folder);
    const base = w.baseline(folder);
    if (usage === undefined || usage.takenAt < base.takenAt) continue;
    if (usage.unreadable !== undefined) return { grown: 0, folder, unreadable: usage.unreadable };
    const by = Math.max(0, usage.bytes - base.bytes);
    grown += by;
    if (worst === undefined || by > worst.by) worst = { folder, by, usage, base };
  }
  if (worst === undefined || grown <= w.capBytes) return undefined;
  let entry: string | undefined;
  let entryBytes = 0;
  for (const [name, b] of worst.usage.byEntry) {
    const d = b - (worst.base.byEntry.get(name) ?? 0);
    if (d > entryBytes) {
      entry = name;
      entryBytes = d;
    }
  }
  return { grown, folder: worst.folder, ...(entry !== undefined ? { entry, entryBytes } : {}) };
}

function evaluate(): void {
  for (const w of watched) {
    const use = judge(w);
    if (use === undefined) continue;
    watched.delete(w);
    w.onBreach(use);
  }
}

/** Bytes in use on the file system holding `folder`; undefined when it cannot be asked. */
function fsUsed(folder: string): number | undefined {
  try {
    const s = statfsSync(folder);
    return (s.blocks - s.bfree) * s.bsize;
  } catch {
    return undefined;
  }
}

/** The least any watched tree has left of its budget on a folder, by folder. */
function headroom(): Map<string, number> {
  const left = new Map<string, number>();
  for (const w of watched) {
    let grown = 0;
    for (const f of w.folders) {
      const usage = latest.get(f);
      if (usage !== undefined) grown += Math.max(0, usage.bytes - w.baseline(f).bytes);
    }
    for (const f of w.folders)
      left.set(f, Math.min(left.get(f) ?? Number.POSITIVE_INFINITY, w.capBytes - grown));
  }
  return left;
}

/** Waits `pause` ms, or less once a folder's file system grew by more than a tree has left (after `rest` ms). */
async function rest(
  pause: number,
  minimum: number,
  fsAtWalk: Map<string, number | undefined>,
): Promise<void> {
  const started = performance.now();
  for (;;) {
    const waited = performance.now() - started;
    if (waited >= pause || watched.size === 0) return;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, pause - waited)).unref());
    if (performance.now() - started < minimum) continue;
    for (const [folder, left] of headroom()) {
      const before = fsAtWalk.get(folder);
      const now = fsUsed(folder);
      if (before !== undefined && now !== undefined && now - before > left) return;
    }
  }
}

async function loop(): Promise<void> {
  looping = true;
  try {
    while (watched.size > 0) {
      const started = performance.now();
      const folders = new Set<string>();
      for (const w of watched) for (const f of w.folders) folders.add(f);
      const fsAtWalk = new Map<string, number | undefined>();
      for (const folder of folders) {
        fsAtWalk.set(folder, fsUsed(folder));
        latest.set(folder, await measureFolder(folder));
        // Judged folder by folder: a filled checkout is stopped without waiting for the scratch's walk.
        evaluate();
      }
      for (const folder of latest.keys()) if (!folders.has(folder)) latest.delete(folder);
      const spent = performance.now() - started;
      const pause = Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, spent * IDLE_FACTOR));
      if (watched.size > 0) await rest(pause, spent * MIN_REST_FACTOR, fsAtWalk);
    }
  } finally {
    looping = false;
    latest.clear();
  }
}

/**
 * Watches `w.folders` until the returned function is called (or the tree
 * goes over its budget, once). A folder already over budget from an earlier
 * process is reported at once.
 */
export function watchDisk(w: DiskWatch): () => void {
  watched.add(w);
  const use = judge(w);
  if (use !== undefined) {
    watched.delete(w);
    // After the caller has its handle: the breach kills the process it is about to record.
    queueMicrotask(() => w.onBreach(use));
    return () => undefined;
  }
  if (!looping) void loop();
  return () => {
    watched.delete(w);
  };
}
