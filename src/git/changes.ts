import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Git } from './git.js';

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed';

export interface Change {
  kind: ChangeKind;
  path: string;
  /** For renames: the path on the base side. */
  from?: string;
}

const KIND: Record<string, ChangeKind> = {
  A: 'added',
  M: 'modified',
  T: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'added',
};

/**
 * The tree the working tree would commit to: tracked changes, plus untracked
 * files git does not ignore. Built in a throw-away index so the user's own
 * index and stash are never touched.
 *
 * The throw-away index starts from HEAD's tree with no stat data, never from
 * a copy of the real index: a copied index carries the real one's cached
 * stat data under a newer mtime, so git no longer sees a file edited in the
 * same second as the index was written (same size, same mtime) as racily
 * clean and never rehashes it. A forged contract file written right after a
 * commit would then pass for the committed one. Without stat data, git hashes
 * every file's content.
 */
export async function snapshotWorkingTree(
  git: Git,
  env: NodeJS.ProcessEnv,
  exclude: readonly string[],
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'patchgate-index-'));
  const index = path.join(dir, 'index');
  try {
    const withIndex = { ...env, GIT_INDEX_FILE: index };
    // HEAD's entries first, so a tracked file that matches .gitignore stays tracked.
    await git.out(['read-tree', 'HEAD'], withIndex);
    // An excluded path that git already ignores must not be named: git refuses pathspecs for ignored paths.
    const kept: string[] = [];
    for (const e of exclude) if ((await git.try(['check-ignore', '-q', '--', e])).code !== 0) kept.push(e);
    const pathspec = [':/', ...kept.map((e) => `:(exclude,top)${e}`)];
    await git.out(['add', '--all', '--', ...pathspec], withIndex);
    return await git.out(['write-tree'], withIndex);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Changed paths between two tree-ishes, from git (renames detected), never from timestamps. */
export async function changedPaths(git: Git, base: string, head: string): Promise<Change[]> {
  const raw = await git.out(['diff-tree', '-r', '-z', '-M', '--name-status', '--no-commit-id', base, head]);
  const parts = raw.split('\0');
  const out: Change[] = [];
  for (let i = 0; i < parts.length; ) {
    const status = parts[i++];
    if (!status) continue;
    const kind = KIND[status[0] ?? ''];
    if (!kind) continue;
    if (status[0] === 'R' || status[0] === 'C') {
      const from = parts[i++] as string;
      const to = parts[i++] as string;
      out.push(kind === 'renamed' ? { kind, path: to, from } : { kind, path: to });
    } else {
      out.push({ kind, path: parts[i++] as string });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
