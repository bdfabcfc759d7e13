/**
 * Who the patch says wrote it: the authors, committers and `Co-authored-by`
 * trailers of the commits the head has and the merge-base does not, and the
 * branch the head is on. A team that lets several agents open pull requests
 * tells their patches apart by it.
 *
 * Self-declared: a commit's identity is whatever its writer set, and the
 * writer is the patch. It is recorded for accounting (whose patches are
 * rejected, and for what), never weighed in a verdict.
 */
import { byCodePoint } from '../util/compare.js';
import type { Git } from './git.js';

export type AuthorRole = 'author' | 'committer' | 'co-author';

export interface PatchAuthor {
  name: string;
  /** As written; empty when a trailer gave none. Identities are told apart by it, case-folded. */
  email: string;
  roles: AuthorRole[];
  /** How many of the patch's commits name this identity, in any role. */
  commits: number;
}

export interface PatchIdentity {
  /** Commits in merge-base..head (at most MAX_COMMITS are read). */
  commits: number;
  /** Set when there were more commits than were read. */
  truncated?: true;
  /** Most commits first, at most MAX_AUTHORS. */
  authors: PatchAuthor[];
  /** Identities past MAX_AUTHORS, counted. */
  moreAuthors?: number;
  /**
   * The local branch the head names (`--head agent`, or a working tree on
   * one); for a detached `HEAD`, the pull request's source branch the CI
   * system names (`branchFrom` says which variable). Absent otherwise.
   */
  branch?: string;
  branchFrom?: (typeof CI_BRANCH_VARIABLES)[number];
}

/**
 * The variables CI systems set to a pull (merge) request's source branch,
 * whose checkout is a detached HEAD: GitHub Actions, GitLab, Buildkite,
 * CircleCI. Read only when the head is that checkout's HEAD.
 */
export const CI_BRANCH_VARIABLES = [
  'GITHUB_HEAD_REF',
  'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME',
  'BUILDKITE_BRANCH',
  'CIRCLE_BRANCH',
] as const;

export const MAX_COMMITS = 10_000;
export const MAX_AUTHORS = 20;

const FIELD = '\x1e';
const TRAILER = '\x1f';
const ROLE_ORDER: readonly AuthorRole[] = ['author', 'committer', 'co-author'];

/** `Name <email>` as a trailer writes it; a value without an address is a name alone. */
export function parseIdentity(value: string): { name: string; email: string } | undefined {
  const v = value.trim();
  if (v === '') return undefined;
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(v);
  return m ? { name: (m[1] ?? '').trim(), email: (m[2] ?? '').trim() } : { name: v, email: '' };
}

/**
 * The identities of `git log -z` records written with {@link LOG_FORMAT}. A
 * record whose fields do not split as written (a name holding the separator)
 * still counts as a commit, and its identities are read as far as they go.
 */
export function identitiesOf(records: readonly string[]): Omit<PatchIdentity, 'branch' | 'truncated'> {
  const byKey = new Map<string, PatchAuthor>();
  for (const record of records) {
    const [an = '', ae = '', cn = '', ce = '', trailers = ''] = record.split(FIELD);
    const seen = new Map<string, PatchAuthor>();
    const add = (who: { name: string; email: string } | undefined, role: AuthorRole) => {
      if (!who || (who.name === '' && who.email === '')) return;
      const key = who.email !== '' ? `<${who.email.toLowerCase()}>` : who.name.toLowerCase();
      let a = byKey.get(key);
      if (!a) {
        a = { name: who.name, email: who.email, roles: [], commits: 0 };
        byKey.set(key, a);
      }
      if (!a.roles.includes(role)) a.roles.push(role);
      seen.set(key, a);
    };
    add({ name: an, email: ae }, 'author');
    add({ name: cn, email: ce }, 'committer');
    for (const t of trailers.split(TRAILER)) add(parseIdentity(t), 'co-author');
    for (const a of seen.values()) a.commits++;
  }
  const all = [...byKey.values()]
    .map((a) => ({ ...a, roles: ROLE_ORDER.filter((r) => a.roles.includes(r)) }))
    .sort((x, y) => y.commits - x.commits || byCodePoint(x.name, y.name));
  return {
    commits: records.length,
    authors: all.slice(0, MAX_AUTHORS),
    ...(all.length > MAX_AUTHORS ? { moreAuthors: all.length - MAX_AUTHORS } : {}),
  };
}

export const LOG_FORMAT = [
  '%an',
  '%ae',
  '%cn',
  '%ce',
  `%(trailers:key=Co-authored-by,valueonly,separator=%x1f)`,
].join('%x1e');

/**
 * The patch's identity: the commits in `base..head` (the head's commit; a
 * working tree adds none of its own). `env` is the gate's environment, for
 * the CI system's name of a detached head's branch.
 */
export async function patchIdentity(
  git: Git,
  base: string,
  head: { ref: string; commit: string; worktree: boolean },
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<PatchIdentity> {
  const log = await git.out([
    'log',
    '-z',
    // Oldest first: an identity keeps the spelling of its first commit.
    '--reverse',
    `--max-count=${MAX_COMMITS + 1}`,
    `--format=${LOG_FORMAT}`,
    `${base}..${head.commit}`,
    '--',
  ]);
  const records = log === '' ? [] : log.split('\0').filter((r) => r !== '');
  const truncated = records.length > MAX_COMMITS;
  const branch = await branchOf(git, head);
  const fromCi = branch === undefined ? ciBranch(head, env) : undefined;
  return {
    ...identitiesOf(truncated ? records.slice(0, MAX_COMMITS) : records),
    ...(truncated ? { truncated: true as const } : {}),
    ...(branch !== undefined ? { branch } : {}),
    ...(fromCi ? { branch: fromCi.branch, branchFrom: fromCi.variable } : {}),
  };
}

/** A detached HEAD's branch as the CI system names it; never for a head given by another name. */
function ciBranch(
  head: { ref: string; worktree: boolean },
  env: Readonly<Record<string, string | undefined>>,
): { branch: string; variable: (typeof CI_BRANCH_VARIABLES)[number] } | undefined {
  if (!head.worktree && head.ref !== 'HEAD') return undefined;
  for (const variable of CI_BRANCH_VARIABLES) {
    const branch = env[variable]?.trim();
    if (branch) return { branch, variable };
  }
  return undefined;
}

async function branchOf(git: Git, head: { ref: string; worktree: boolean }): Promise<string | undefined> {
  const ref = head.worktree ? 'HEAD' : head.ref;
  // git 2.39's rev-parse echoes `--end-of-options` instead of taking it; the ref was resolved as a revision
  // already, and one that reads as an option names no branch.
  if (ref.startsWith('-')) return undefined;
  const r = await git.try(['rev-parse', '--symbolic-full-name', ref]);
  const full = r.code === 0 ? r.stdout.trim() : '';
  return full.startsWith('refs/heads/') ? full.slice('refs/heads/'.length) : undefined;
}
