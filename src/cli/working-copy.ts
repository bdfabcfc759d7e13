import { lstat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { snapshotWorkingTree } from '../git/changes.js';
import { Checkouts } from '../git/checkouts.js';
import type { Git } from '../git/git.js';
import { recordLentLink } from '../sandbox/lent-links.js';

/**
 * A private copy of the working tree for the human-run commands that run the
 * repository's own code (`explore`, `ledger add`): head code never runs in
 * the user's tree, which a sandboxed process as another user could neither
 * write nor be handed. Installed dependency folders are linked, read-only in
 * the sandbox. `dispose` removes the copy.
 */
export async function workingCopy(
  repo: Git,
  repoRoot: string,
  pid: number,
  dependencyDirs: readonly string[] = ['node_modules'],
): Promise<{ root: string; dispose(): Promise<void> }> {
  const checkouts = new Checkouts(repo, pid);
  try {
    const tree = await snapshotWorkingTree(repo, []);
    const root = await checkouts.add(tree, 'copy');
    for (const dir of dependencyDirs) {
      const from = path.join(repoRoot, dir);
      if (
        !(await lstat(from).then(
          () => true,
          () => false,
        ))
      )
        continue;
      if (
        await lstat(path.join(root, dir)).then(
          () => true,
          () => false,
        )
      )
        continue;
      await symlink(from, path.join(root, dir));
      recordLentLink(path.join(root, dir), from);
    }
    return { root, dispose: () => checkouts.dispose() };
  } catch (err) {
    await checkouts.dispose();
    throw err;
  }
}
