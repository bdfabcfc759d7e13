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

/**
 * Commands that bring a missing revision into a shallow clone, in the order
 * to run them. Each one is run by a test: a hint that fails is worse than none.
 * A remote branch (`origin/main`) is fetched by its full refspec, because a
 * single-branch CI clone's default refspec would not update it.
 */
async function fetchCommands(
  git: Git,
  ref: string | undefined,
): Promise<{ commands: string[]; thenUse?: string }> {
  const remotes = (await git.try(['remote'])).stdout.split('\n').filter((r) => r !== '');
  const remote = remotes.includes('origin') ? 'origin' : remotes[0];
  if (remote === undefined) return { commands: ['git fetch --unshallow'] };
  const commands = [`git fetch --unshallow ${remote}`];
  if (ref === undefined) return { commands };
  const slash = ref.indexOf('/');
  const named = slash > 0 ? ref.slice(0, slash) : undefined;
  if (named !== undefined && remotes.includes(named)) {
    const branch = ref.slice(slash + 1);
    commands.push(`git fetch ${named} +refs/heads/${branch}:refs/remotes/${named}/${branch}`);
    return { commands };
  }
  if (/^[0-9a-f]{7,64}$/i.test(ref)) {
    commands.push(`git fetch ${remote} ${ref}`);
    return { commands };
  }
  // A branch name that is not here locally: fetched as the remote's branch, which is then what to pass.
  commands.push(`git fetch ${remote} +refs/heads/${ref}:refs/remotes/${remote}/${ref}`);
  return { commands, thenUse: `${remote}/${ref}` };
}

function shownCommands(commands: readonly string[]): string {
  return commands.map((c) => `\`${c}\``).join(', then ');
}

/** The commit `ref` names; a usage, shallow-clone or unknown-revision error that says how to fix it otherwise. */
export async function resolveCommit(git: Git, ref: string, what: 'base' | 'head' | 'rev'): Promise<string> {
  if (ref.startsWith('-')) throw new InputError('USAGE', `--${what} must be a revision, got '${ref}'`);
  const r = await git.try(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (r.code === 0) return r.stdout.trim();
  if (await isShallow(git)) {
    const { commands, thenUse } = await fetchCommands(git, ref);
    throw new InputError(
      'SHALLOW_HISTORY',
      `${what === 'rev' ? 'the' : what} revision '${ref}' is not in this shallow clone. Fetch it first: ${shownCommands(commands)}${thenUse ? `, and pass --${what} ${thenUse}` : ''} (in CI: check out with fetch-depth: 0).`,
      { ref, commands },
    );
  }
  throw new InputError(
    'UNKNOWN_REVISION',
    `unknown ${what === 'rev' ? '' : `${what} `}revision '${ref}': git cannot resolve it to a commit`,
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
      const { commands } = await fetchCommands(g, undefined);
      throw new InputError(
        'SHALLOW_HISTORY',
        `the merge-base of '${base}' and ${head ?? 'HEAD'} is not in this shallow clone. Fetch the history: ${shownCommands(commands)} (in CI: check out with fetch-depth: 0).`,
        { base, head: head ?? 'HEAD', commands },
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
