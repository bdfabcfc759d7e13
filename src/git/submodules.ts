/**
 * Submodules in the gate's private checkouts. A tree records a submodule as
 * a gitlink (mode 160000): a commit of another repository, whose objects live
 * in the superproject's `.git/modules/<name>` once `git submodule update
 * --init` ran. The checkouts are written from git's objects, so without this
 * a submodule is an empty folder there: its tests fail and its fixtures read
 * as missing, on the base and the head alike.
 *
 * The submodule's commit is read from its own object store, as the user's
 * clone has it. Objects are addressed by their hash, so that commit's files
 * are exactly the ones the superproject's tree names, whoever wrote the
 * folder; nothing of the submodule's configuration runs (the same safety
 * settings as every git command of the gate).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Git } from './git.js';

/** A gitlink whose commit the repository does not have: its files cannot be written out. */
export interface MissingSubmodule {
  /** Repository-relative path of the submodule (in the revision checked out). */
  path: string;
  commit: string;
  why: string;
}

/** Where a submodule's objects are, for a gitlink at `subPath` of `treeish` in the repository `git`. */
export async function submoduleGitDir(
  git: Git,
  treeish: string,
  subPath: string,
): Promise<string | undefined> {
  const common = await git.try(['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (common.code !== 0) return undefined;
  const gitDir = common.stdout.trim();
  const names = await submoduleNames(git, treeish);
  const candidates: string[] = [];
  const name = names.get(subPath);
  if (name !== undefined) candidates.push(path.join(gitDir, 'modules', name));
  // Old clones and `git submodule add` of an existing repository keep the objects in the folder itself.
  const inTree = path.join(path.dirname(gitDir), subPath, '.git');
  const linked = gitFileTarget(inTree);
  if (linked !== undefined) candidates.push(linked);
  else if (isDir(inTree)) candidates.push(inTree);
  return candidates.find(isDir);
}

/** Path → name of every submodule `.gitmodules` of `treeish` declares (read as data, from the blob). */
async function submoduleNames(git: Git, treeish: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const r = await git.try([
    'config',
    '--blob',
    `${treeish}:.gitmodules`,
    '--null',
    '--get-regexp',
    '^submodule\\..*\\.path$',
  ]);
  if (r.code !== 0) return out;
  for (const rec of r.stdout.split('\0')) {
    const nl = rec.indexOf('\n');
    if (nl < 0) continue;
    const key = rec.slice(0, nl);
    const name = key.slice('submodule.'.length, -'.path'.length);
    out.set(rec.slice(nl + 1).replace(/\/+$/, ''), name);
  }
  return out;
}

/** The folder a `.git` file (`gitdir: …`) points at, resolved against its own folder. */
function gitFileTarget(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return undefined;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, 'utf8'));
    return m ? path.resolve(path.dirname(file), m[1] as string) : undefined;
  } catch {
    return undefined;
  }
}

function isDir(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isDirectory();
  } catch {
    return false;
  }
}
