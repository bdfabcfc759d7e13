/**
 * The caps of a head process tree, and what the gate reports when one is hit:
 * which cap, its size, what was observed, where, and the base config's key
 * that sets it.
 */
import path from 'node:path';
import type { DiskUse } from './disk-watch.js';
import type { MemoryUse } from './memory-watch.js';

export interface Limits {
  /** Memory of the whole process tree: resident, plus what its tmpfs folders hold. */
  memoryBytes: number;
  /** Processes (and threads) the sandbox user may have at once. */
  processes: number;
  /** Largest file a head process may write, its logs included. */
  fileBytes: number;
  /** Bytes the folders head processes may write (a checkout, its scratch) may grow by, over all of them. */
  diskBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  memoryBytes: 4 * 1024 ** 3,
  processes: 1024,
  fileBytes: 1024 ** 3,
  diskBytes: 4 * 1024 ** 3,
};

/**
 * Which cap a head process hit; the gate killed it (or the kernel did, for a
 * file). `tmpfs`: the memory cap, crossed by what its memory-backed folders
 * hold; `disk`: the bytes its writable folders grew by.
 */
export interface LimitBreach {
  limit: 'memory' | 'tmpfs' | 'disk' | 'file-size';
  cap: number;
  observed?: number;
  message: string;
  /** The base config's key that sets the cap, e.g. `sandbox.limits.diskMb`. */
  setting: string;
  /** memory and tmpfs: the two parts of `observed`. */
  resident?: number;
  tmpfs?: number;
  /** tmpfs: the mount (as the sandbox sees it) holding the most. */
  mount?: string;
  /** disk: the folder that grew most, and its entry that grew most. */
  folder?: string;
  entry?: string;
  entryBytes?: number;
}

/** A breach as a finding's evidence: the cap, what was observed, the setting to raise, where it was. */
export function breachEvidence(b: LimitBreach): Record<string, unknown> {
  const { message: _message, ...facts } = b;
  return facts;
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
}

export function memoryBreach(use: MemoryUse, cap: number): LimitBreach {
  const observed = use.resident + use.tmpfs;
  const parts = { resident: use.resident, tmpfs: use.tmpfs };
  if (use.tmpfs > 0 && use.resident <= cap) {
    const where = use.largestMount === undefined ? '' : ` (most of it in ${use.largestMount})`;
    return {
      limit: 'tmpfs',
      cap,
      observed,
      ...parts,
      ...(use.largestMount !== undefined ? { mount: use.largestMount } : {}),
      setting: 'sandbox.limits.memoryMb',
      message: `held ${mib(use.tmpfs)} in memory-backed folders${where} on top of ${mib(use.resident)} of resident memory, over the memory cap of ${mib(cap)}; it was killed`,
    };
  }
  return {
    limit: 'memory',
    cap,
    observed,
    ...parts,
    setting: 'sandbox.limits.memoryMb',
    message: `used ${mib(use.resident)} of resident memory, over the cap of ${mib(cap)}; it was killed`,
  };
}

export function diskBreach(use: DiskUse, cap: number): LimitBreach {
  const base = { limit: 'disk' as const, cap, setting: 'sandbox.limits.diskMb', folder: use.folder };
  if (use.unreadable !== undefined) {
    return {
      ...base,
      message: `made ${use.unreadable} unreadable to the gate, so what it wrote there cannot be counted against the disk cap of ${mib(cap)}; it was killed`,
    };
  }
  const under =
    use.entry === undefined
      ? ''
      : ` (${mib(use.entryBytes ?? 0)} of it under ${path.join(use.folder, use.entry)})`;
  return {
    ...base,
    observed: use.grown,
    ...(use.entry !== undefined ? { entry: use.entry, entryBytes: use.entryBytes ?? 0 } : {}),
    message: `wrote ${mib(use.grown)} into ${use.folder}${under}, over the disk cap of ${mib(cap)}; it was killed`,
  };
}

/** The kernel stopped a write past RLIMIT_FSIZE (the process got SIGXFSZ). */
export function fileSizeBreach(cap: number): LimitBreach {
  return {
    limit: 'file-size',
    cap,
    setting: 'sandbox.limits.fileMb',
    message: `wrote a file larger than the cap of ${mib(cap)}; the kernel stopped it`,
  };
}
