import { spawn } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureRepo } from '../helpers/fixture-repo.js';
import { CLI } from '../helpers/gitdir.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('interrupting a check', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('removes the temporary worktree on %s and exits %i', async (signal, expected) => {
    // An ignored, sparse 64 GiB fixture keeps the fixtures layer hashing long enough to interrupt it.
    const repo = fixtureRepo({ '.gitignore': 'testdata/huge.bin\n' });
    const fd = openSync(repo.path('testdata/huge.bin'), 'w');
    ftruncateSync(fd, 64 * 1024 ** 3);
    closeSync(fd);
    const child = spawn(process.execPath, [CLI, 'check', '--base', 'main'], {
      cwd: repo.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

    let worktree: string | undefined;
    for (let i = 0; i < 200 && !worktree; i++) {
      await sleep(50);
      worktree = repo.extraWorktrees()[0];
    }
    expect(worktree, 'the base worktree should appear while the gate runs').toBeDefined();
    await sleep(300);
    child.kill(signal);
    const code = await exited;
    expect(code).toBe(expected);
    expect(stderr).toContain('interrupted');
    expect(repo.extraWorktrees()).toEqual([]);
    expect(existsSync(worktree as string)).toBe(false);
  });
});
