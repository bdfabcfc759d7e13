/**
 * Getting a fresh worktree ready to run tests: either the configured setup
 * command (`npm ci`, `uv sync`…), or, when the other checkout's dependencies
 * are provably the same, symlinks to its installed folders so dependencies
 * are installed once per gate run instead of twice.
 *
 * "Provably the same" means byte-identical lockfiles. Anything weaker (no
 * lockfile, one side only, a difference of one byte) installs: a base that
 * borrowed the head's dependencies would test the base against the patch's
 * dependency changes, and the stability probe would blame or clear the wrong
 * revision.
 *
 * Who lends to whom is the caller's (TestSession's) business: the base and
 * the overlay never borrow a folder a head process could have written, and a
 * folder is sealed (read-only to every later head process) once its setup is
 * done.
 */
import { lstat, mkdir, open, readdir, readFile, realpath, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { recordLentLink } from '../../sandbox/lent-links.js';
import { breachEvidence, type Sandbox } from '../../sandbox/sandbox.js';
import { formatCommand } from '../harness/protocol.js';
import { TestRunError } from './errors.js';
import { outputTail } from './output-tail.js';
import { runLogged } from './run-tests.js';

export interface ReuseFrom {
  /** The checkout whose installed dependencies may be borrowed (already prepared). */
  root: string;
  /** Lockfiles relative to both checkouts, e.g. `package-lock.json`, `uv.lock`. */
  lockfiles: string[];
  /** Manifests compared where neither checkout has a lockfile, e.g. `package.json`, `pyproject.toml`. */
  manifests?: string[];
  /** Installed-dependency folders relative to both checkouts, e.g. `node_modules`, `.venv`. */
  dirs: string[];
  /** The checkout is a copy of `root`'s files: its dependencies are borrowed without comparing lockfiles. */
  sameTree?: boolean;
}

export interface PrepareWorktreeOptions {
  sandbox: Sandbox;
  /** Network for the setup command (installs fetch packages). */
  network?: boolean;
  worktree: string;
  /** argv, e.g. `['npm', 'ci']`; nothing runs without it. */
  setup?: string[];
  /** The setup command's whole environment (callers scrub it). */
  env: Record<string, string>;
  timeoutMs: number;
  /** Receives `<label>.stdout.log` and `<label>.stderr.log` of the setup command. */
  outDir: string;
  label: string;
  reuseFrom?: ReuseFrom;
  signal?: AbortSignal;
}

export type PrepareResult =
  /** `dirs`: the folders now symlinked to `reuseFrom.root` (those it has). */
  | { reused: true; dirs: string[] }
  | {
      reused: false;
      /** Why nothing was borrowed, for the log; absent when `reuseFrom` was not given. */
      reason?: string;
      /** Whether a setup command ran (none configured: false). */
      ran: boolean;
      durationMs?: number;
      stdoutFile?: string;
      stderrFile?: string;
    };

/**
 * Symlinks the dependency folders when every lockfile that exists in either
 * checkout exists in both with identical bytes (and at least one exists);
 * otherwise runs `setup`. Rejects with TestRunError SETUP_FAILED naming the
 * command, its exit code (or timeout) and its logs, or InputError ABORTED.
 */
export async function prepareWorktree(opts: PrepareWorktreeOptions): Promise<PrepareResult> {
  let reason: string | undefined;
  if (opts.reuseFrom !== undefined) {
    const decision = await planReuse(opts.worktree, opts.reuseFrom);
    if ('link' in decision) {
      for (const dir of decision.link) {
        const target = path.join(opts.worktree, dir);
        await mkdir(path.dirname(target), { recursive: true });
        await unlink(target).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') throw e;
        });
        // To the real folder: a sandbox mounts where the link finally leads, not the links on the way.
        const real = await realpath(path.join(decision.root, dir));
        await symlink(real, target, 'junction');
        recordLentLink(target, real);
      }
      return { reused: true, dirs: decision.link };
    }
    reason = decision.reason;
  }
  if (opts.setup === undefined || opts.setup.length === 0) {
    return reason === undefined ? { reused: false, ran: false } : { reused: false, reason, ran: false };
  }
  const setup = opts.setup;
  const shown = `\`${formatCommand(setup)}\``;
  let run: Awaited<ReturnType<typeof runLogged>>;
  try {
    run = await runLogged({
      sandbox: opts.sandbox,
      ...(opts.network ? { network: true } : {}),
      cwd: opts.worktree,
      argv: setup,
      env: opts.env,
      timeoutMs: opts.timeoutMs,
      outDir: opts.outDir,
      label: opts.label,
      signal: opts.signal,
    });
  } catch (e) {
    if (e instanceof TestRunError && e.code === 'SPAWN_FAILED') {
      throw new TestRunError(
        'SETUP_FAILED',
        `setup command ${shown} could not be started in ${opts.worktree}: ${(e.cause as Error | undefined)?.message ?? e.message}`,
        { command: setup, cwd: opts.worktree },
        { cause: e },
      );
    }
    throw e;
  }
  if (run.breach) {
    // A cap the install hit is the head's doing (its manifests, its install scripts): a rejection.
    const tail = await outputTail(run, 10);
    throw new TestRunError(
      'RESOURCE_LIMIT',
      `setup command ${shown} ${run.breach.message} in ${opts.worktree}; output in ${run.stderrFile} and ${run.stdoutFile}${tail === '' ? '' : `\n${tail}`}`,
      { command: setup, cwd: opts.worktree, ...breachEvidence(run.breach), output: tail },
    );
  }
  if (run.timedOut || run.exitCode !== 0) {
    const how = run.timedOut
      ? `timed out after ${opts.timeoutMs} ms and was killed`
      : run.signal !== null
        ? `was killed by ${run.signal}`
        : `exited with code ${run.exitCode}`;
    const tail = await outputTail(run, 10);
    throw new TestRunError(
      'SETUP_FAILED',
      `setup command ${shown} ${how} in ${opts.worktree}; output in ${run.stderrFile} and ${run.stdoutFile}${tail === '' ? '' : `\n${tail}`}`,
      {
        output: tail,
        command: setup,
        cwd: opts.worktree,
        exitCode: run.exitCode,
        signal: run.signal,
        timedOut: run.timedOut,
        stdoutFile: run.stdoutFile,
        stderrFile: run.stderrFile,
      },
    );
  }
  const ran = {
    reused: false as const,
    ran: true,
    durationMs: run.durationMs,
    stdoutFile: run.stdoutFile,
    stderrFile: run.stderrFile,
  };
  return reason === undefined ? ran : { ...ran, reason };
}

type ReusePlan = { link: string[]; root: string } | { reason: string };

/**
 * Whether two checkouts have the same dependencies: every lockfile either has
 * exists in both with identical bytes, and at least one exists. Where neither
 * has any lockfile, byte-identical manifests (`package.json`,
 * `pyproject.toml`…) are the same proof: an install from them resolves the
 * same way within one run. The reason when not, for the log.
 */
export async function sameLockfiles(
  a: string,
  b: string,
  lockfiles: readonly string[],
  manifests: readonly string[] = [],
): Promise<{ same: true; by: 'lockfiles' | 'manifests' } | { same: false; reason: string }> {
  const compare = async (files: readonly string[], kind: string) => {
    let compared = 0;
    for (const f of files) {
      checkRelative(kind, f);
      const theirs = await readIfExists(path.join(a, f));
      const ours = await readIfExists(path.join(b, f));
      if (theirs === undefined && ours === undefined) continue;
      if (theirs === undefined || ours === undefined)
        return { compared, reason: `${f} exists only in ${theirs === undefined ? b : a}` };
      if (!theirs.equals(ours)) return { compared, reason: `${f} differs between ${a} and ${b}` };
      compared++;
    }
    return { compared };
  };
  const locks = await compare(lockfiles, 'lockfiles');
  if (locks.reason !== undefined) return { same: false, reason: locks.reason };
  if (locks.compared > 0) return { same: true, by: 'lockfiles' };
  const byManifest = await compare(manifests, 'manifests');
  if (byManifest.reason !== undefined) return { same: false, reason: byManifest.reason };
  if (byManifest.compared > 0) return { same: true, by: 'manifests' };
  return {
    same: false,
    reason: `none of the lockfiles (${lockfiles.join(', ') || 'none listed'}) or manifests (${manifests.join(', ') || 'none listed'}) exists`,
  };
}

/**
 * The dependency folders of `worktree` that are its own (real folders, not
 * links to a lender), as real paths: what to seal once its setup is done.
 */
export async function ownDependencyDirs(worktree: string, dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    checkRelative('dirs', dir);
    const p = path.join(worktree, dir);
    const st = await lstat(p).catch(() => undefined);
    if (st?.isDirectory()) out.push(await realpath(p));
  }
  return out;
}

function checkRelative(kind: string, rel: string): void {
  const parts = rel.split(/[\\/]/);
  if (rel === '' || path.isAbsolute(rel) || parts.includes('..')) {
    throw new TypeError(`reuseFrom.${kind}: ${JSON.stringify(rel)} must be a path relative to the checkout`);
  }
}

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

async function planReuse(worktree: string, reuse: ReuseFrom): Promise<ReusePlan> {
  for (const dir of reuse.dirs) checkRelative('dirs', dir);
  const root = await realpath(reuse.root);
  if (!reuse.sameTree) {
    const same = await sameLockfiles(root, worktree, reuse.lockfiles, reuse.manifests);
    if (!same.same) return { reason: same.reason };
  }
  const link: string[] = [];
  for (const dir of reuse.dirs) {
    if (!(await exists(path.join(root, dir)))) continue;
    const target = path.join(worktree, dir);
    const st = await lstat(target).catch(() => undefined);
    // Only a symlink (ours, from an earlier attempt) is replaced; the checkout's own files are never deleted.
    if (st !== undefined && !st.isSymbolicLink()) return { reason: `${dir} already exists in ${worktree}` };
    const leak = await linkIntoCheckout(root, dir);
    if (leak !== undefined) {
      return { reason: `${dir} in ${root} refers to that checkout's own sources (${leak})` };
    }
    link.push(dir);
  }
  if (link.length === 0) return { reason: `none of ${reuse.dirs.join(', ')} exists in ${root}` };
  return { link, root };
}

/**
 * Installed dependencies can point back at the checkout they were installed
 * in: workspace packages symlinked from node_modules (`node_modules/pkg ->
 * ../packages/pkg`), editable Python installs (`.pth` files and setuptools'
 * `__editable__` finders naming the source folder). Borrowed by another
 * checkout, they would make it import the lender's code, so such a folder is
 * installed instead. Looks at the first two levels of symlinks and at
 * site-packages' path hooks; returns the first offender.
 */
async function linkIntoCheckout(root: string, dir: string): Promise<string | undefined> {
  const base = path.join(root, dir);
  const baseReal = await realpath(base).catch(() => base);
  const inside = (p: string, parent: string): boolean => p === parent || p.startsWith(parent + path.sep);
  const list = async (abs: string) => readdir(abs, { withFileTypes: true }).catch(() => []);

  const checkLink = async (abs: string): Promise<string | undefined> => {
    const real = await realpath(abs).catch(() => undefined);
    if (real !== undefined && inside(real, root) && !inside(real, baseReal)) {
      return `${path.relative(root, abs)} -> ${real}`;
    }
    return undefined;
  };
  for (const e of await list(base)) {
    const abs = path.join(base, e.name);
    if (e.isSymbolicLink()) {
      const found = await checkLink(abs);
      if (found !== undefined) return found;
    } else if (e.isDirectory() && e.name.startsWith('@')) {
      for (const inner of await list(abs)) {
        if (!inner.isSymbolicLink()) continue;
        const found = await checkLink(path.join(abs, inner.name));
        if (found !== undefined) return found;
      }
    }
  }

  const sitePackages: string[] = [path.join(base, 'Lib', 'site-packages')];
  for (const e of await list(path.join(base, 'lib'))) {
    if (e.isDirectory() && e.name.startsWith('python')) {
      sitePackages.push(path.join(base, 'lib', e.name, 'site-packages'));
    }
  }
  const needles = [...new Set([root, path.resolve(root), root.split(path.sep).join('/')])];
  for (const sp of sitePackages) {
    for (const e of await list(sp)) {
      if (!e.isFile() || !(e.name.endsWith('.pth') || e.name.startsWith('__editable__'))) continue;
      const text = await readHead(path.join(sp, e.name), 1024 * 1024);
      if (needles.some((n) => text.includes(n))) return path.relative(root, path.join(sp, e.name));
    }
  }
  return undefined;
}

async function readHead(file: string, max: number): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(max);
    const { bytesRead } = await fh.read(buf, 0, max, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}
