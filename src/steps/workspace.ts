import path from 'node:path';
import { InputError } from '../errors.js';
import { type PatchIdentity, patchIdentity } from '../git/authors.js';
import { snapshotWorkingTree } from '../git/changes.js';
import { Checkouts, pruneLeftovers } from '../git/checkouts.js';
import { type Exec, execFile } from '../git/exec.js';
import { Git } from '../git/git.js';
import { type ResolvedRevisions, resolveRevisions } from '../git/revisions.js';
import { type TreeFiles, treeFiles } from '../overlay/revision-files.js';
import { isInside, toPosix } from '../util/repo-path.js';

/**
 * The revisions being judged and the gate's private copies of them. Head code
 * never runs in the user's working tree, nor in anything git manages: both
 * revisions are written out from git's objects. Disposable: `dispose` removes
 * every copy, whatever step failed after it.
 */
export interface Workspace {
  /** git at the repository's root. */
  readonly repo: Git;
  readonly revs: ResolvedRevisions;
  /** Who the patch's commits say wrote them, and the branch the head is on (self-declared: see git/authors). */
  readonly identity: PatchIdentity;
  /** The head's tree: its commit's, or a snapshot of the working tree. */
  readonly headTree: string;
  readonly checkouts: Checkouts;
  readonly baseRoot: string;
  readonly headRoot: string;
  /** The head's tree as git's objects have it, listed once on first use. */
  headFiles(): Promise<TreeFiles>;
  /** `treeish:file` from git's objects as UTF-8 text; undefined when the revision has no such file. */
  committedText(treeish: string): (file: string) => Promise<string | undefined>;
  /** `treeish:file` from git's objects as bytes; undefined when the revision has no such file. */
  committedBytes(treeish: string): (file: string) => Promise<Buffer | undefined>;
}

export interface WorkspaceOptions {
  cwd: string;
  base: string;
  head?: string;
  env: Readonly<Record<string, string | undefined>>;
  excludeFromHead?: readonly string[];
  exec?: Exec;
  signal: AbortSignal;
  ownerPid?: number;
  isAlive?(pid: number): boolean;
  onRevisionsReady?(info: { baseRoot: string; headRoot: string }): void | Promise<void>;
}

/**
 * Resolves the revisions and writes the private copies. On failure the
 * copies made so far are removed before the error goes on; on success the
 * caller owns them (`checkouts.dispose()`).
 */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const git = Git.forEnv(options.exec ?? execFile, path.resolve(options.cwd), options.env, options.signal);
  // Folders a killed run left behind (SIGKILL gives no chance to clean up) go first.
  await pruneLeftovers(options.isAlive);
  const revs = await resolveRevisions(git, options.base, options.head);
  const repo = git.at(revs.repoRoot);
  const checkouts = new Checkouts(repo, options.ownerPid ?? 0);
  try {
    let headTree: string;
    if (revs.head.worktree) {
      const exclude = (options.excludeFromHead ?? [])
        .map((p) => path.resolve(options.cwd, p))
        .filter((p) => isInside(revs.repoRoot, p) && p !== revs.repoRoot)
        .map((p) => toPosix(path.relative(revs.repoRoot, p)));
      headTree = await snapshotWorkingTree(repo, exclude);
    } else {
      headTree = await repo.out(['rev-parse', `${revs.head.commit}^{tree}`]);
    }
    // Read before any head code runs, from git's objects, like everything else of the revisions.
    const identity = await patchIdentity(repo, revs.baseCommit, revs.head, options.env);
    // Both settle before either's failure goes on: the copies are removed next, and one still being written
    // would leave files behind in a folder removed under it.
    const [base, head] = await Promise.allSettled([
      checkouts.add(revs.baseCommit, 'base'),
      checkouts.add(headTree, 'head'),
    ]);
    if (base.status === 'rejected') throw base.reason;
    if (head.status === 'rejected') throw head.reason;
    const [baseRoot, headRoot] = [base.value, head.value];
    await options.onRevisionsReady?.({ baseRoot, headRoot });
    if (options.signal.aborted) throw new InputError('ABORTED', 'the run was interrupted');
    let headFilesP: Promise<TreeFiles> | undefined;
    return {
      repo,
      revs,
      identity,
      headTree,
      checkouts,
      baseRoot,
      headRoot,
      headFiles: () => {
        headFilesP ??= treeFiles(repo, headTree);
        return headFilesP;
      },
      committedText: (treeish) => {
        const bytes = committedBytes(repo, treeish);
        return async (file) => (await bytes(file))?.toString('utf8');
      },
      committedBytes: (treeish) => committedBytes(repo, treeish),
    };
  } catch (err) {
    await checkouts.dispose();
    throw err;
  }
}

function committedBytes(git: Git, treeish: string): (file: string) => Promise<Buffer | undefined> {
  return async (file) => {
    const r = await git.tryBuffer(['cat-file', '--batch', '--follow-symlinks'], `${treeish}:${file}\n`);
    const nl = r.indexOf(10);
    const header = r.subarray(0, nl === -1 ? r.length : nl).toString('utf8');
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!m) return undefined;
    return r.subarray(nl + 1, nl + 1 + Number(m[1]));
  };
}
