/**
 * A revision's files read from git's objects: the tree listed once, blobs
 * read in batches through one `git cat-file --batch` each, text decoded as
 * strict UTF-8 (a file that is not UTF-8 is not text a runner reads as
 * configuration, and is reported as unreadable rather than mangled).
 */
import type { Git } from '../git/git.js';
import { listTree } from '../git/tree.js';
import type { BaseFiles } from './runner-config/types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Strict UTF-8, the byte-order mark kept (as Python's `utf-8` codec keeps it); undefined when not UTF-8. */
export function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Blob contents by object name, through one git process. */
export async function readBlobs(git: Git, shas: readonly string[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const unique = [...new Set(shas)];
  if (unique.length === 0) return out;
  const raw = await git.tryBuffer(['cat-file', '--batch'], `${unique.join('\n')}\n`);
  let at = 0;
  while (at < raw.length) {
    const nl = raw.indexOf(10, at);
    if (nl < 0) break;
    const header = raw.subarray(at, nl).toString('utf8');
    const m = /^([0-9a-f]+) \S+ (\d+)$/.exec(header);
    if (!m) {
      at = nl + 1;
      continue;
    }
    const size = Number(m[2]);
    out.set(m[1] as string, raw.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return out;
}

export interface TreeFiles extends BaseFiles {
  /** The object name of each blob. */
  readonly shas: ReadonlyMap<string, { mode: string; sha: string }>;
  /** The submodules: path → gitlink (mode 160000 and the submodule's commit); never among the files. */
  readonly gitlinks: ReadonlyMap<string, { mode: string; sha: string }>;
  readMany(paths: readonly string[]): Promise<Map<string, string>>;
}

const MAX_CONFIG_BYTES = 2 * 1024 * 1024;

export async function treeFiles(git: Git, treeish: string): Promise<TreeFiles> {
  const all = await listTree(git, treeish);
  const entries = all.filter((e) => e.type === 'blob');
  const gitlinks = new Map(
    all.filter((e) => e.type === 'commit').map((e) => [e.path, { mode: e.mode, sha: e.sha }]),
  );
  const shas = new Map(entries.map((e) => [e.path, { mode: e.mode, sha: e.sha }]));
  const dirs = new Set<string>();
  // A submodule's path is a folder in every checkout the gate writes.
  for (const e of [...entries, ...all.filter((x) => x.type === 'commit')]) {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  const cache = new Map<string, string | undefined>();
  const readMany = async (paths: readonly string[]) => {
    const missing = paths.filter((p) => !cache.has(p) && shas.has(p));
    if (missing.length > 0) {
      const blobs = await readBlobs(
        git,
        missing.map((p) => shas.get(p)?.sha as string),
      );
      for (const p of missing) {
        const b = blobs.get(shas.get(p)?.sha as string);
        cache.set(p, b && b.length <= MAX_CONFIG_BYTES ? decodeStrict(b) : undefined);
      }
    }
    const out = new Map<string, string>();
    for (const p of paths) {
      const t = cache.get(p);
      if (t !== undefined) out.set(p, t);
    }
    return out;
  };
  return {
    paths: entries.map((e) => e.path),
    shas,
    gitlinks,
    has: (p) => shas.has(p),
    isDir: (p) => dirs.has(p),
    read: async (p) => (await readMany([p])).get(p),
    readMany,
  };
}
