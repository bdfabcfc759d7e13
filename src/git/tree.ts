import type { Git } from './git.js';

export interface TreeEntry {
  mode: string;
  type: string;
  sha: string;
  path: string;
}

/** Every entry of a tree, recursively, with repo-relative paths (`ls-tree -r --full-tree`). */
export async function listTree(git: Git, treeish: string): Promise<TreeEntry[]> {
  const raw = await git.out(['ls-tree', '-r', '-z', '--full-tree', treeish]);
  const out: TreeEntry[] = [];
  for (const rec of raw.split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const [mode, type, sha] = rec.slice(0, tab).split(' ') as [string, string, string];
    out.push({ mode, type, sha, path: rec.slice(tab + 1) });
  }
  return out;
}
