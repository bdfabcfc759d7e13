/**
 * The contract files of one revision, read from git's objects before any head
 * code runs, and never again. Layers take their rules from here, not from a
 * checkout on disk: whatever a head process writes later (into its own copy,
 * which is all it can reach) cannot change what the gate judges by.
 *
 * A path that names no blob is recorded as missing; a blob over the size cap
 * is recorded by its size and refused when read, as a file on disk would be.
 * Asking for a file that was not frozen is our bug, never a silent read.
 */
import { InternalError } from '../errors.js';
import type { Git } from '../git/git.js';

type Entry = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'too-large'; size: number };

export class ContractSnapshot {
  private constructor(
    /** Names the revision in messages, e.g. `the base revision 1a2b3c4d5e6f`. */
    readonly revision: string,
    private readonly entries: ReadonlyMap<string, Entry>,
  ) {
    Object.freeze(this);
  }

  /**
   * Reads `paths` of `treeish` (a commit or a tree) in one `git cat-file`
   * process. In-tree symlinks are followed, as a checkout would; one that
   * leaves the tree reads as missing.
   */
  static async read(
    git: Git,
    treeish: string,
    paths: Iterable<string>,
    revision: string,
    maxBytes: number,
  ): Promise<ContractSnapshot> {
    const wanted = [...new Set(paths)].sort();
    const entries = new Map<string, Entry>();
    const sizes = wanted.length === 0 ? [] : await batchCheck(git, treeish, wanted);
    const readable: string[] = [];
    for (const [i, p] of wanted.entries()) {
      const size = sizes[i];
      if (size === undefined) entries.set(p, { kind: 'missing' });
      else if (size > maxBytes) entries.set(p, { kind: 'too-large', size });
      else readable.push(p);
    }
    if (readable.length > 0) {
      const texts = await batchRead(git, treeish, readable);
      for (const [i, p] of readable.entries()) entries.set(p, { kind: 'text', text: texts[i] ?? '' });
    }
    return new ContractSnapshot(revision, entries);
  }

  /** A snapshot of files already in memory (tests, and revisions that are not in git). */
  static of(revision: string, files: Record<string, string | undefined>): ContractSnapshot {
    const entries = new Map<string, Entry>();
    for (const [p, t] of Object.entries(files))
      entries.set(p, t === undefined ? { kind: 'missing' } : { kind: 'text', text: t });
    return new ContractSnapshot(revision, entries);
  }

  has(file: string): boolean {
    const e = this.entries.get(file);
    return e !== undefined && e.kind !== 'missing';
  }

  /** The frozen text, undefined when the revision has no such file, or the size of a file over the cap. */
  get(file: string): { text: string } | { missing: true } | { tooLarge: number } {
    const e = this.entries.get(file);
    if (e === undefined) {
      throw new InternalError(`${file} was not frozen for ${this.revision} before head code ran`);
    }
    if (e.kind === 'text') return { text: e.text };
    if (e.kind === 'missing') return { missing: true };
    return { tooLarge: e.size };
  }

  get paths(): string[] {
    return [...this.entries.keys()];
  }
}

/** The size of each `treeish:path` blob, undefined for a missing one (or a tree). */
async function batchCheck(
  git: Git,
  treeish: string,
  paths: readonly string[],
): Promise<(number | undefined)[]> {
  const input = paths.map((p) => `${treeish}:${p}\n`).join('');
  const out = await git.out(['cat-file', '--batch-check', '--follow-symlinks'], {}, input);
  const lines = out.split('\n');
  return paths.map((_, i) => {
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(lines[i] ?? '');
    return m ? Number(m[1]) : undefined;
  });
}

/** The UTF-8 text of each `treeish:path` blob, in order. */
async function batchRead(git: Git, treeish: string, paths: readonly string[]): Promise<string[]> {
  const input = paths.map((p) => `${treeish}:${p}\n`).join('');
  const r = await git.tryBuffer(['cat-file', '--batch', '--follow-symlinks'], input);
  const out: string[] = [];
  let at = 0;
  for (const _ of paths) {
    const nl = r.indexOf(10, at);
    const header = r.subarray(at, nl).toString('utf8');
    const size = Number(header.split(' ')[2]);
    if (!Number.isInteger(size)) throw new InternalError(`git cat-file --batch: unexpected '${header}'`);
    out.push(r.subarray(nl + 1, nl + 1 + size).toString('utf8'));
    at = nl + 1 + size + 1;
  }
  return out;
}
