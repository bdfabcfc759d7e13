import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Git } from './git.js';

/**
 * Temporary detached worktrees for the revisions under judgement. `dispose`
 * is idempotent and runs on every exit path (the pipeline's `finally`, which
 * the CLI reaches on SIGINT/SIGTERM by aborting the run).
 */
export class Worktrees {
  private readonly created: { dir: string; parent: string; plain?: boolean }[] = [];

  constructor(private readonly git: Git) {}

  async add(commit: string, label: string): Promise<string> {
    const parent = await realpath(await mkdtemp(path.join(tmpdir(), `patchgate-${label}-`)));
    const dir = path.join(parent, 'tree');
    // Registered before `git worktree add` so a failure half-way is still cleaned up.
    this.created.push({ dir, parent });
    await this.git.out(['worktree', 'add', '--detach', '--quiet', dir, commit]);
    return dir;
  }

  /** A temp folder removed with the worktrees, for logs nobody asked to keep. */
  async scratch(label: string): Promise<string> {
    const parent = await realpath(await mkdtemp(path.join(tmpdir(), `patchgate-${label}-`)));
    this.created.push({ dir: parent, parent, plain: true });
    return parent;
  }

  get paths(): string[] {
    return this.created.map((c) => c.dir);
  }

  async dispose(): Promise<void> {
    const all = this.created.splice(0);
    for (const { dir, parent } of all) {
      // A signal may already have aborted the shared git runner; cleanup must not depend on it.
      await this.git
        .detached()
        .try(['worktree', 'remove', '--force', '--force', dir])
        .catch(() => undefined);
      await rm(parent, { recursive: true, force: true }).catch(() => undefined);
    }
    if (all.length > 0)
      await this.git
        .detached()
        .try(['worktree', 'prune'])
        .catch(() => undefined);
  }
}
