/**
 * The branch patches target, for the commands a hint prints (`patchgate
 * check --base …`): the remote's default branch as the clone recorded it
 * (`refs/remotes/origin/HEAD`, set by `git clone` or `git remote set-head`),
 * else the upstream of the branch checked out, else `main`. Only ever a
 * suggestion shown to a person; the gate itself takes `--base` as given.
 */
import type { Git } from './git.js';

export interface DefaultBase {
  /** A revision to pass as `--base`, e.g. `origin/main`. */
  ref: string;
  /** Where it came from, for the hint. */
  from: 'origin/HEAD' | 'upstream' | 'fallback';
}

export async function defaultBase(git: Git): Promise<DefaultBase> {
  const head = await git.try(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']);
  const remoteHead = head.code === 0 ? /^refs\/remotes\/(.+)$/.exec(head.stdout.trim())?.[1] : undefined;
  if (remoteHead) return { ref: remoteHead, from: 'origin/HEAD' };
  const up = await git.try(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']);
  const upstream = up.code === 0 ? up.stdout.trim() : '';
  if (upstream !== '' && upstream !== '@{upstream}') return { ref: upstream, from: 'upstream' };
  return { ref: 'main', from: 'fallback' };
}
