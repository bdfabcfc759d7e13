/**
 * Private checkouts of the revisions under judgement: the files of a tree
 * written out by us, from git's objects. Not `git worktree add`: a checkout
 * runs the repository's hooks (post-checkout) and its smudge filters, and in
 * working-tree mode `.git/config` and `.gitattributes` are the patch's to
 * write. Nothing of the repository's configuration runs here. A checkout
 * made by `Checkouts` is a git repository of its own files (copy-repo.ts):
 * its `.git` holds copies of its objects and nothing that leads back to the
 * user's repository.
 *
 * Every folder is `patchgate-<label>-<pid>-<random>` in the temp folder and
 * removed on every exit path; a run killed with SIGKILL leaves its folders,
 * and the next run prunes those whose process is gone.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, type Stats } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors.js';
import { abortedError } from '../util/time-slice.js';
import { CopyRepository } from './copy-repo.js';
import type { Git } from './git.js';
import { type MissingSubmodule, submoduleGitDir } from './submodules.js';
import { listTree, type TreeEntry } from './tree.js';

const MAX_WRITES_IN_FLIGHT = 32;

/**
 * Streams blob contents from one `git cat-file --batch` process: a checkout
 * of thousands of files costs one process, not one per file.
 */
function readBlobs(
  git: Git,
  shas: readonly string[],
  onBlob: (index: number, data: Buffer) => Promise<void>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', git.cwd, ...git.safetyArgs(), 'cat-file', '--batch'], {
      env: git.env(),
      stdio: ['pipe', 'pipe', 'pipe'],
      // An interrupted run must not wait for a checkout of a large tree to finish before it can clean up.
      signal: git.signal,
    });
    // Chunks are kept in a list and joined once a whole blob is there: joining on every chunk would copy a
    // large blob (a lock of a million entries) over and over.
    let chunks: Buffer[] = [];
    let have = 0;
    let need = -1;
    let headerSize = 0;
    let index = 0;
    let stderr = '';
    // Writes overlap (a checkout is thousands of small files); past this many in flight git's output waits.
    const inFlight = new Set<Promise<void>>();
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      child.kill('SIGKILL');
      reject(git.signal?.aborted ? abortedError() : err);
    };
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      have += chunk.length;
      for (;;) {
        if (need < 0) {
          const joined = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          chunks = [joined];
          const nl = joined.indexOf(10);
          if (nl < 0) return;
          const header = joined.subarray(0, nl).toString('utf8');
          const size = Number(header.split(' ')[2]);
          if (!Number.isInteger(size))
            return fail(new InputError('GIT_FAILED', `git cat-file: unexpected ${header}`));
          headerSize = nl + 1;
          need = size;
        }
        if (have < headerSize + need + 1) return;
        const joined = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        const data = Buffer.from(joined.subarray(headerSize, headerSize + need));
        const rest = joined.subarray(headerSize + need + 1);
        chunks = rest.length > 0 ? [rest] : [];
        have = rest.length;
        need = -1;
        const i = index++;
        const write: Promise<void> = onBlob(i, data)
          .catch((err: Error) => fail(err))
          .finally(() => {
            inFlight.delete(write);
            if (inFlight.size < MAX_WRITES_IN_FLIGHT) child.stdout.resume();
          });
        inFlight.add(write);
        if (inFlight.size >= MAX_WRITES_IN_FLIGHT) child.stdout.pause();
      }
    });
    child.on('error', (err) => fail(err));
    child.on('close', (code) => {
      if (failed) return;
      if (code !== 0 || index !== shas.length) {
        return fail(
          new InputError('GIT_FAILED', `git cat-file --batch failed (exit ${code}): ${stderr.trim()}`),
        );
      }
      // Every blob was handed out by now: what is still in flight is all that is left.
      Promise.all([...inFlight]).then(() => {
        if (!failed) resolve();
      }, reject);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(shas.map((s) => `${s}\n`).join(''));
  });
}

/** A path segment git itself refuses to check out (`.git` in any case): never written into a checkout. */
function gitDirSegment(p: string): boolean {
  return p.split('/').some((s) => s.toLowerCase() === '.git');
}

export interface MaterializeOptions {
  /**
   * Make `dir` a git repository of exactly the files written (copy-repo.ts):
   * one commit, its index, nothing of the repository they came from.
   */
  repository?: boolean;
}

/**
 * Writes the files of `treeish` under `dir` (which must exist and be empty),
 * modes and symlinks included, and each submodule's files from its own
 * object store where the repository has its commit. Returns the submodules it
 * could not write.
 */
export async function materializeTree(
  git: Git,
  treeish: string,
  dir: string,
  options: MaterializeOptions = {},
): Promise<MissingSubmodule[]> {
  const all = (await listTree(git, treeish)).filter((e) => !e.path.split('/').includes('node_modules'));
  // Git never checks such a path out; written here, `.git/config` would configure the copy's repository, or a
  // nested one would take over the folder it sits in for every git command run there.
  const dotGit = all.find((e) => gitDirSegment(e.path));
  if (dotGit !== undefined)
    throw new InputError(
      'PATH_INVALID',
      `${treeish} has a tree entry named .git (${JSON.stringify(dotGit.path)}), which git never checks out: the revision cannot be judged`,
      { revision: treeish, path: dotGit.path },
    );
  const entries = all.filter((e) => e.type === 'blob');
  const links = all.filter((e) => e.type === 'commit');
  const repo = options.repository ? await CopyRepository.open(git, dir) : undefined;
  const stats: (Stats | undefined)[] = new Array(entries.length);
  const made = new Set<string>();
  const ensureDir = async (rel: string) => {
    const d = path.posix.dirname(rel);
    if (d === '.' || made.has(d)) return;
    await mkdir(path.join(dir, d), { recursive: true });
    made.add(d);
  };
  try {
    await readBlobs(
      git,
      entries.map((e) => e.sha),
      async (i, data) => {
        // Before any await: the import takes the blobs in the order they come.
        const imported = repo?.blob(i, data);
        const e = entries[i] as TreeEntry;
        await ensureDir(e.path);
        const target = path.join(dir, e.path);
        if (e.mode === '120000') await symlink(data.toString('utf8'), target);
        else {
          await writeFile(target, data);
          if (e.mode === '100755') await chmod(target, 0o755);
        }
        // Synchronous: a few microseconds, less than the thread pool's round trip among the writes in flight.
        if (repo !== undefined) stats[i] = lstatSync(target);
        await imported;
      },
    );
    const missing: MissingSubmodule[] = [];
    for (const link of links) {
      const target = path.join(dir, link.path);
      await mkdir(target, { recursive: true });
      const moduleDir = await submoduleGitDir(git, treeish, link.path);
      const sub = moduleDir === undefined ? undefined : git.at(moduleDir);
      if (sub === undefined || (await sub.try(['cat-file', '-e', `${link.sha}^{commit}`])).code !== 0) {
        missing.push({
          path: link.path,
          commit: link.sha,
          why:
            moduleDir === undefined
              ? 'the repository has no clone of this submodule (`git submodule update --init` was not run)'
              : `the submodule's clone (${moduleDir}) does not have this commit (fetch it: \`git submodule update --init\`)`,
        });
        continue;
      }
      for (const m of await materializeTree(sub, link.sha, target))
        missing.push({ ...m, path: `${link.path}/${m.path}` });
    }
    // A submodule stays a gitlink: its folder holds its files but no repository, which git counts as clean.
    await repo?.commit([
      ...entries.map((e, i) => ({ path: e.path, mode: e.mode, sha: e.sha, blob: i, stat: stats[i] })),
      ...links.map((e) => ({ path: e.path, mode: e.mode, sha: e.sha })),
    ]);
    return missing;
  } catch (err) {
    repo?.abort();
    throw err;
  }
}

const PREFIX = 'patchgate-';

/** The folders of a gate run, all removed by `dispose`. */
export class Checkouts {
  private readonly created: string[] = [];

  constructor(
    private readonly git: Git,
    /** This process's id, so a later run can tell our leftovers from a live run's. */
    private readonly pid: number,
  ) {}

  private async folder(label: string): Promise<string> {
    const parent = await realpath(await mkdtemp(path.join(tmpdir(), `${PREFIX}${label}-${this.pid}-`)));
    this.created.push(parent);
    return parent;
  }

  private readonly missing = new Map<string, MissingSubmodule[]>();

  /** A checkout of `treeish` (a commit or a tree), in a folder of its own, its submodules included. */
  async add(treeish: string, label: string): Promise<string> {
    const parent = await this.folder(label);
    const dir = path.join(parent, 'tree');
    await mkdir(dir);
    this.missing.set(dir, await materializeTree(this.git, treeish, dir, { repository: true }));
    return dir;
  }

  /** The submodules of the checkout at `dir` whose files could not be written (their folders are empty). */
  missingSubmodules(dir: string): readonly MissingSubmodule[] {
    return this.missing.get(dir) ?? [];
  }

  /** A temp folder removed with the checkouts, for logs nobody asked to keep. */
  scratch(label: string): Promise<string> {
    return this.folder(label);
  }

  get paths(): string[] {
    return [...this.created];
  }

  async dispose(): Promise<void> {
    // Retries: a folder a process just stopped writing can still be ENOTEMPTY for a moment.
    for (const dir of this.created.splice(0))
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
  }
}

/**
 * Removes folders left by gate runs that were killed (SIGKILL, a crashed
 * runner): `patchgate-<label>-<pid>-…` whose process no longer exists.
 * `alive` answers for a pid; the default asks /proc.
 */
export async function pruneLeftovers(
  alive: (pid: number) => boolean = (pid) => existsSync(`/proc/${pid}`),
): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(tmpdir());
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = /^patchgate-[a-z]+-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m) continue;
    const owner = Number(m[1]);
    // 0 is "owner not given" (a library caller): nobody can tell whether it is still running.
    if (owner === 0 || alive(owner)) continue;
    await rm(path.join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}
