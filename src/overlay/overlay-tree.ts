/**
 * The overlay revision: the head's tree with every test-side path taken from
 * the base. Head-only test files are left out; a base test file the head
 * deleted or changed is back as the base has it; mixed config files get the
 * base's test sections. The base's checks then judge the head's code.
 *
 * Built from git's objects into a tree object (a throw-away index), so it is
 * checked out like any other revision and costs nothing when the head did
 * not touch its tests (the overlay is then the head's own tree).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Git } from '../git/git.js';
import { listTree } from '../git/tree.js';
import { mergeSections } from './sections.js';
import type { TestSide } from './test-side.js';

interface Entry {
  mode: string;
  sha: string;
}

async function treeMap(git: Git, treeish: string): Promise<Map<string, Entry>> {
  return new Map((await listTree(git, treeish)).map((e) => [e.path, { mode: e.mode, sha: e.sha }]));
}

async function blobText(git: Git, sha: string): Promise<string> {
  return (await git.tryBuffer(['cat-file', 'blob', sha], '')).toString('utf8');
}

export interface OverlayTree {
  tree: string;
  /** True when the overlay is the head's own tree (the patch left the test side alone). */
  sameAsHead: boolean;
  /** Test-side paths the overlay takes from the base where the head differs: changed, deleted or renamed away. */
  restored: string[];
  /** Test-side paths only the head has, which the overlay leaves out. */
  headOnly: string[];
  /** Mixed files whose test sections were taken from the base. */
  merged: string[];
}

export async function buildOverlayTree(
  git: Git,
  baseCommit: string,
  headTree: string,
  side: TestSide,
): Promise<OverlayTree> {
  const [base, head] = await Promise.all([treeMap(git, baseCommit), treeMap(git, headTree)]);
  const result = new Map<string, Entry>();
  const restored: string[] = [];
  const headOnly: string[] = [];
  const merged: string[] = [];
  for (const [p, e] of head) {
    if (!side.isTestPath(p)) result.set(p, e);
    else if (!base.has(p)) headOnly.push(p);
  }
  for (const [p, e] of base) {
    if (!side.isTestPath(p)) continue;
    const h = head.get(p);
    if (!h || h.sha !== e.sha || h.mode !== e.mode) restored.push(p);
    result.set(p, e);
  }
  for (const rule of side.sectionRules) {
    const b = base.get(rule.file);
    const h = head.get(rule.file);
    if (!b && !h) continue;
    const text = mergeSections(
      rule,
      b ? await blobText(git, b.sha) : undefined,
      h ? await blobText(git, h.sha) : undefined,
    );
    if (text === undefined) continue;
    const sha = await git.out(['hash-object', '-w', '--no-filters', '--stdin'], {}, text);
    if (h?.sha === sha) continue;
    result.set(rule.file, { mode: h?.mode ?? b?.mode ?? '100644', sha });
    merged.push(rule.file);
  }
  const sameAsHead = restored.length === 0 && headOnly.length === 0 && merged.length === 0;
  if (sameAsHead) return { tree: headTree, sameAsHead, restored, headOnly, merged };
  const dir = await mkdtemp(path.join(tmpdir(), 'patchgate-index-'));
  const index = { GIT_INDEX_FILE: path.join(dir, 'index') };
  try {
    const lines = [...result].map(([p, e]) => `${e.mode} ${e.sha}\t${p}`);
    if (lines.length > 0)
      await git.out(['update-index', '-z', '--index-info'], index, `${lines.join('\0')}\0`);
    const tree = await git.out(['write-tree'], index);
    return {
      tree,
      sameAsHead: false,
      restored: restored.sort(),
      headOnly: headOnly.sort(),
      merged: merged.sort(),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
