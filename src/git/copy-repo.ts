/**
 * A checkout's own git repository. Tests read their history (a version stamp
 * from `git rev-parse HEAD`, setuptools-scm's `git describe`, a `git status
 * --porcelain` that must be clean), so every private copy the gate writes is
 * a repository of exactly its own files: one commit, no parent, no remote, no
 * hooks, no tags, no alternates, and none of the user's configuration.
 *
 * - The objects are copied, never borrowed: `git fast-import` is fed the very
 *   blobs the checkout is written from (one process, one pack), and builds
 *   the trees and the commit itself. Nothing in the copy's `.git` names the
 *   user's repository, so head code, which may write its copy's `.git` as it
 *   may write every other file there, cannot reach that repository through it.
 * - The commit is a function of the tree alone (a fixed identity, date and
 *   message): the same files are the same commit in every copy (base,
 *   overlay, the baseline's), so a test that prints `HEAD` prints the same
 *   words on each side.
 * - The index is written here, from the stat of each file as it was written:
 *   no process re-reads the checkout. `core.checkStat = minimal` keeps it
 *   valid when the sandbox hands the tree to its own user (a chown changes
 *   ctime and owner, not mtime or size), so `git status` in the sandbox does
 *   not rehash every file.
 *
 * Every git command run on a copy runs with no system or global
 * configuration (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`): a
 * filter driver or an `autocrlf` the user set for their own repository has no
 * business here. The gate never runs git in a copy once head code has run.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import { abortedError } from '../util/time-slice.js';
import type { Git } from './git.js';

/** The branch HEAD names. */
export const COPY_BRANCH = 'main';

/** Who made every copy's commit, and when: fixed, so the commit depends on the tree alone. */
export const COPY_IDENTITY = { name: 'patchgate', email: 'patchgate@localhost', time: 946684800 } as const;

export const COPY_MESSAGE = 'patchgate: a private copy of the revision under judgement\n';

const CONFIG = [
  '[core]',
  '\trepositoryformatversion = 0',
  '\tfilemode = true',
  '\tbare = false',
  '\tlogallrefupdates = false',
  // A chown (the sandbox's user taking the tree) changes ctime, uid and gid: none of them says a file changed.
  '\tcheckStat = minimal',
  '\ttrustctime = false',
  '[gc]',
  '\tauto = 0',
  '',
].join('\n');

/** The environment of git commands on a copy: the wrapper's own, and no configuration but the copy's. */
function copyEnv(git: Git): Record<string, string> {
  return git.env({ GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' });
}

/** A path as `fast-import` reads it: C-quoted where it must be (a newline, a leading quote, a control character). */
export function fastImportPath(p: string): string {
  const plain = [...p].every((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return c >= 0x20 && c !== 0x7f && ch !== '\\';
  });
  if (plain && !p.startsWith('"')) return p;
  let out = '"';
  for (const ch of p) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\${c.toString(8).padStart(3, '0')}`;
    // Anything else goes as it is: fast-import reads a quoted path's bytes as they come.
    else out += ch;
  }
  return `${out}"`;
}

export interface CopyEntry {
  /** Repo-relative, `/`-separated. */
  path: string;
  /** `100644`, `100755`, `120000` or `160000` (a submodule's commit). */
  mode: string;
  /** The object id: the blob's, or the submodule's commit. */
  sha: string;
  /** The file's stat once written (blobs only): what the index records. */
  stat?: Stats;
}

const MODE_BITS: Record<string, number> = {
  '100644': 0o100644,
  '100755': 0o100755,
  '120000': 0o120000,
  '160000': 0o160000,
};

/**
 * The index (version 2) of `entries`, with each file's stat: git's own
 * format, sorted by path bytes, closed by its SHA-1. A gitlink carries no
 * stat (git looks at the submodule's folder itself).
 */
export function indexFile(entries: readonly CopyEntry[]): Buffer {
  const named = entries
    .map((e) => ({ e, name: Buffer.from(e.path, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.name, b.name));
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(named.length, 8);
  parts.push(header);
  const u32 = (n: number | bigint) => Number(BigInt.asUintN(32, BigInt(Math.trunc(Number(n)))));
  for (const { e, name } of named) {
    const mode = MODE_BITS[e.mode];
    if (mode === undefined)
      throw new InputError('GIT_FAILED', `a tree entry of unknown mode ${e.mode}: ${e.path}`);
    // 62 bytes of fixed fields, the name, and 1 to 8 NULs up to a multiple of 8.
    const size = Math.ceil((62 + name.length + 1) / 8) * 8;
    const b = Buffer.alloc(size);
    const st = e.stat;
    if (st !== undefined) {
      b.writeUInt32BE(u32(Math.floor(st.ctimeMs / 1000)), 0);
      b.writeUInt32BE(u32((st.ctimeMs % 1000) * 1e6), 4);
      b.writeUInt32BE(u32(Math.floor(st.mtimeMs / 1000)), 8);
      b.writeUInt32BE(u32((st.mtimeMs % 1000) * 1e6), 12);
      b.writeUInt32BE(u32(st.dev), 16);
      b.writeUInt32BE(u32(st.ino), 20);
      b.writeUInt32BE(u32(st.uid), 28);
      b.writeUInt32BE(u32(st.gid), 32);
      b.writeUInt32BE(u32(st.size), 36);
    }
    b.writeUInt32BE(mode, 24);
    b.write(e.sha, 40, 20, 'hex');
    b.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    name.copy(b, 62);
    parts.push(b);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/**
 * The repository of one checkout being written: `blob` as each file's
 * contents come by, `commit` once all are there.
 */
export class CopyRepository {
  private stderr = '';
  private readonly closed: Promise<number | null>;
  private failure: Error | undefined;

  private constructor(
    readonly dir: string,
    private readonly child: ReturnType<typeof spawn>,
    private readonly signal: AbortSignal | undefined,
  ) {
    child.stderr?.on('data', (b: Buffer) => {
      this.stderr += b.toString('utf8');
    });
    child.stdin?.on('error', (err) => {
      this.failure ??= err;
    });
    this.closed = new Promise((resolve) => {
      child.on('error', (err) => {
        this.failure ??= err;
        resolve(null);
      });
      child.on('close', (code) => resolve(code));
    });
  }

  /** Starts the repository of checkout `dir` (which must not have a `.git` yet). */
  static async open(git: Git, dir: string): Promise<CopyRepository> {
    const gitDir = path.join(dir, '.git');
    await mkdir(gitDir);
    await Promise.all([
      mkdir(path.join(gitDir, 'objects', 'pack'), { recursive: true }),
      mkdir(path.join(gitDir, 'refs', 'heads'), { recursive: true }),
      mkdir(path.join(gitDir, 'refs', 'tags'), { recursive: true }),
      writeFile(path.join(gitDir, 'HEAD'), `ref: refs/heads/${COPY_BRANCH}\n`),
      writeFile(path.join(gitDir, 'config'), CONFIG),
    ]);
    const child = spawn(
      'git',
      [
        ...git.safetyArgs(),
        // One pack however few the objects: no loose files for the disk watch to walk.
        '-c',
        'fastimport.unpackLimit=0',
        `--git-dir=${gitDir}`,
        'fast-import',
        '--quiet',
        '--done',
        '--date-format=raw',
      ],
      {
        cwd: dir,
        // fast-import grows its heap a little per blob, and where a system call is dear (a VM, gVisor) the
        // heap's growing and trimming cost more than the import: glibc is told to grow it by 16 MiB at a time
        // (40 ms become 10 for 500 files here).
        env: { ...copyEnv(git), MALLOC_TOP_PAD_: String(16 * 1024 * 1024) },
        stdio: ['pipe', 'ignore', 'pipe'],
        // Interrupted, the gate stops the import (its folder is removed with the checkout) instead of waiting
        // for it: a tree with a 140 MB file kept a SIGTERM waiting for seconds, tens of them under load.
        signal: git.signal,
      },
    );
    return new CopyRepository(dir, child, git.signal);
  }

  /** Resolved once the pipe to fast-import drains (or closes): one promise for every writer waiting. */
  private drained: Promise<void> | undefined;

  private write(chunk: string | Buffer): Promise<void> | undefined {
    if (this.failure !== undefined) return undefined;
    const stdin = this.child.stdin;
    if (stdin === null || stdin.write(chunk)) return this.drained;
    this.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        this.drained = undefined;
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
    return this.drained;
  }

  /**
   * Hands over blob number `index` (marks count from it): called in the
   * order the blobs come, before anything else is awaited. The promise says
   * when more may be written.
   */
  blob(index: number, data: Buffer): Promise<void> | undefined {
    this.write(`blob\nmark :${index + 1}\ndata ${data.length}\n`);
    this.write(data);
    return this.write('\n');
  }

  /**
   * The commit of `entries` (each blob by the index it was handed over
   * with), its branch, and the index of the files as written.
   */
  async commit(entries: readonly (CopyEntry & { blob?: number })[]): Promise<void> {
    const who = `${COPY_IDENTITY.name} <${COPY_IDENTITY.email}> ${COPY_IDENTITY.time} +0000`;
    const message = Buffer.from(COPY_MESSAGE, 'utf8');
    const lines = [
      `commit refs/heads/${COPY_BRANCH}`,
      `author ${who}`,
      `committer ${who}`,
      `data ${message.length}`,
    ];
    await this.write(`${lines.join('\n')}\n`);
    await this.write(message);
    const ops = entries.map(
      (e) => `M ${e.mode} ${e.blob !== undefined ? `:${e.blob + 1}` : e.sha} ${fastImportPath(e.path)}\n`,
    );
    for (let i = 0; i < ops.length; i += 1000) await this.write(ops.slice(i, i + 1000).join(''));
    await this.write('\ndone\n');
    this.child.stdin?.end();
    const code = await this.closed;
    if (this.signal?.aborted) throw abortedError();
    if (this.failure !== undefined || code !== 0) {
      throw new InputError(
        'GIT_FAILED',
        `git fast-import could not make the checkout ${this.dir} a repository (exit ${code}): ${this.failure?.message ?? this.stderr.trim()}`,
        { dir: this.dir, exitCode: code },
      );
    }
    await writeFile(path.join(this.dir, '.git', 'index'), indexFile(entries));
  }

  /** Stops the import (the checkout failed): the folder is removed with the checkout. */
  abort(): void {
    this.child.stdin?.destroy();
    this.child.kill('SIGKILL');
  }
}
