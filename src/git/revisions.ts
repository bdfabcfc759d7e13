import { realpath } from 'node:fs/promises';
import { InputError } from '../errors.js';
import type { Git } from './git.js';

export interface ResolvedRevisions {
  repoRoot: string;
  /** What the user asked for as base, and the commit it names. */
  requestedBase: { ref: string; commit: string };
  /** The merge-base of the requested base and the head: the revision we judge against. */
  baseCommit: string;
  head: { ref: string; commit: string; worktree: boolean };
}

export async function findRepoRoot(git: Git): Promise<string> {
  const r = await git.try(['rev-parse', '--show-toplevel']);
  if (r.code !== 0) {
    throw new InputError(
      'NOT_A_REPO',
      `not inside a git repository: ${git.cwd} (run patchgate from a git checkout)`,
      {
        cwd: git.cwd,
      },
    );
  }
  return realpath(r.stdout.trim());
}

async function isShallow(git: Git): Promise<boolean> {
  const r = await git.try(['rev-parse', '--is-shallow-repository']);
  return r.stdout.trim() === 'true';
}

async function resolveCommit(git: Git, ref: string, what: 'base' | 'head'): Promise<string> {
  if (ref.startsWith('-')) throw new InputError('USAGE', `--${what} must be a revision, got '${ref}'`);
  const r = await git.try(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (r.code === 0) return r.stdout.trim();
  if (await isShallow(git)) {
    throw new InputError(
      'SHALLOW_HISTORY',
      `${what} revision '${ref}' is not in this shallow clone. Fetch it first, e.g. \`git fetch --unshallow\` or \`git fetch origin ${ref}\` (in CI: checkout with fetch-depth: 0).`,
      { ref },
    );
  }
  throw new InputError(
    'UNKNOWN_REVISION',
    `unknown ${what} revision '${ref}': git cannot resolve it to a commit`,
    { ref },
  );
}

export async function resolveRevisions(
  git: Git,
  base: string,
  head: string | undefined,
): Promise<ResolvedRevisions> {
  const repoRoot = await findRepoRoot(git);
  const g = git.at(repoRoot);
  let headCommit: string;
  if (head === undefined) {
    const r = await g.try(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    if (r.code !== 0)
      throw new InputError(
        'UNKNOWN_REVISION',
        'the repository has no commits yet: HEAD does not name a commit',
      );
    headCommit = r.stdout.trim();
  } else {
    headCommit = await resolveCommit(g, head, 'head');
  }
  const baseRequested = await resolveCommit(g, base, 'base');
  const mb = await g.try(['merge-base', baseRequested, headCommit]);
  if (mb.code !== 0 || mb.stdout.trim() === '') {
    if (await isShallow(g)) {
      throw new InputError(
        'SHALLOW_HISTORY',
        `the merge-base of '${base}' and ${head ?? 'HEAD'} is not in this shallow clone. Fetch more history, e.g. \`git fetch --unshallow\` or \`git fetch --deepen=100\` (in CI: checkout with fetch-depth: 0).`,
        { base, head: head ?? 'HEAD' },
      );
    }
    throw new InputError(
      'NO_COMMON_HISTORY',
      `base '${base}' (${baseRequested.slice(0, 12)}) and ${head ?? 'HEAD'} (${headCommit.slice(0, 12)}) have no common history, so there is no merge-base to judge the patch against`,
      { base: baseRequested, head: headCommit },
    );
  }
  return {
    repoRoot,
    requestedBase: { ref: base, commit: baseRequested },
    baseCommit: mb.stdout.trim(),
    head: { ref: head ?? 'WORKTREE', commit: headCommit, worktree: head === undefined },
  };
}
