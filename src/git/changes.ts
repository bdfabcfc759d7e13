import { lstat, mkdtemp, readlink, rm } from 'node:fs/promises';
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
 * The tree the working tree would commit to: tracked files as they are on
 * disk, plus untracked files git does not ignore. Built in a throw-away index
 * so the user's own index and stash are never touched.
 *
 * Every file's content is hashed, never taken from stat data: a copy of the
 * real index keeps its cached stat data under a newer mtime, so git would no
 * longer see a file edited in the same second as the index was written (same
 * size, same mtime) as changed, and a forged contract file written right
 * after a commit would pass for the committed one.
 *
 * Nothing of the repository's configuration runs: `git add` would run the
 * clean filters `.gitattributes` and `.git/config` name (both the patch's to
 * write in working-tree mode), so blobs are hashed with `--no-filters` and the
 * index is written entry by entry.
 */
export async function snapshotWorkingTree(git: Git, exclude: readonly string[]): Promise<string> {
  const root = await git.out(['rev-parse', '--show-toplevel']);
  const listed = await git.out([
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
    '--full-name',
    ':/',
  ]);
  const excluded = (p: string) => exclude.some((e) => p === e || p.startsWith(`${e}/`));
  const gitlinks = new Map<string, string>();
  for (const rec of (await git.out(['ls-files', '-z', '--stage', ':/'])).split('\0')) {
    if (!rec.startsWith('160000 ')) continue;
    const [mode, sha] = rec.split(' ') as [string, string];
    gitlinks.set(rec.slice(rec.indexOf('\t') + 1), `${mode} ${sha}`);
  }
  const files: { path: string; mode: string }[] = [];
  const links: { path: string; target: string }[] = [];
  const entries: string[] = [];
  for (const p of [...new Set(listed.split('\0'))].filter((x) => x !== '' && !excluded(x))) {
    const gitlink = gitlinks.get(p);
    if (gitlink !== undefined) {
      entries.push(`${gitlink}\t${p}`);
      continue;
    }
    let st: Awaited<ReturnType<typeof lstat>>;
    try {
      st = await lstat(path.join(root, p));
    } catch {
      continue; // deleted in the working tree
    }
    if (st.isSymbolicLink()) links.push({ path: p, target: await readlink(path.join(root, p)) });
    else if (st.isFile()) files.push({ path: p, mode: st.mode & 0o111 ? '100755' : '100644' });
  }
  if (files.length > 0) {
    const shas = (
      await git.out(
        ['hash-object', '-w', '--no-filters', '--stdin-paths'],
        {},
        files.map((f) => f.path).join('\n'),
      )
    ).split('\n');
    for (const [i, f] of files.entries()) entries.push(`${f.mode} ${shas[i]}\t${f.path}`);
  }
  for (const l of links) {
    const sha = await git.out(['hash-object', '-w', '--no-filters', '--stdin'], {}, l.target);
    entries.push(`120000 ${sha}\t${l.path}`);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'patchgate-index-'));
  const index = { GIT_INDEX_FILE: path.join(dir, 'index') };
  try {
    if (entries.length > 0) {
      await git.out(['update-index', '-z', '--index-info'], index, `${entries.join('\0')}\0`);
    }
    return await git.out(['write-tree'], index);
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
