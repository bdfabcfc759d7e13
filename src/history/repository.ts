import path from 'node:path';
import type { Git } from '../git/git.js';

/**
 * The name runs of one repository share in a store that may hold many: its
 * `origin` remote (credentials a CI checkout puts in the URL removed, `.git`
 * dropped), else the folder's name. The same clone gives the same name on
 * every CI machine.
 */
export function repositoryKeyOf(remote: string | undefined, root: string): string {
  const url = remote?.trim();
  if (url === undefined || url === '') return path.basename(root);
  let key = url;
  try {
    const u = new URL(url);
    if (u.protocol !== 'file:') {
      u.username = '';
      u.password = '';
      u.search = '';
      u.hash = '';
      key = u.toString();
    }
  } catch {
    // scp-like `git@host:owner/name.git`: its user is a login name, not a secret.
  }
  return key.replace(/\/+$/, '').replace(/\.git$/, '');
}

export async function repositoryKey(git: Git, root: string): Promise<string> {
  const r = await git.try(['config', '--get', 'remote.origin.url']);
  return repositoryKeyOf(r.code === 0 ? r.stdout : undefined, root);
}
