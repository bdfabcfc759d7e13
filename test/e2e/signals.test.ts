import { spawn } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureRepo } from '../helpers/fixture-repo.js';
import { CLI, GitDir, leftoverTempDirs, tempDir } from '../helpers/gitdir.js';

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

/** A lock of `n` entries as `patchgate lock` writes it (two-space indent), about 140 bytes an entry. */
function bigLock(n: number): string {
  const lines: string[] = ['{', '  "override_token_env": "FIXTURE_OVERRIDE",', '  "files": {'];
  for (let i = 0; i < n; i++) {
    const sha = i.toString(16).padStart(8, '0').repeat(8);
    lines.push(
      `    "testdata/d${i % 100}/case-${i}.json": {`,
      `      "sha256": "${sha}",`,
      '      "owner": "payments"',
      i < n - 1 ? '    },' : '    }',
    );
  }
  lines.push('  }', '}', '');
  return lines.join('\n');
}

describe('interrupting a check while it reads a large contract file', () => {
  it('exits 143 within 1.5 s of SIGTERM, leaving no worktree or temp dir', async () => {
    // A million entries take several seconds to read here; the signal must not wait for that.
    const lock = bigLock(1_000_000);
    const repo = GitDir.create();
    // Storing 140 MB uncompressed keeps the commit and the checkout quick.
    repo.git('config', 'core.compression', '0');
    repo.write({
      'patchgate.config.json': '{"fixtures": {"roots": ["testdata"]}}',
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json': lock,
    });
    repo.commit('a large lock');
    const tmp = tempDir('pg-tmp-');
    const child = spawn(process.execPath, [CLI, 'check', '--base', 'main'], {
      cwd: repo.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp },
    });
    let stderr = '';
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

    // Wait for the base checkout to hold the whole lock, then for the gate to be well into reading it.
    let checkedOut = false;
    for (let i = 0; i < 600 && !checkedOut; i++) {
      await sleep(50);
      const worktree = repo.extraWorktrees()[0];
      const size = worktree
        ? statSync(path.join(worktree, 'FIXTURE_LOCK.json'), { throwIfNoEntry: false })?.size
        : 0;
      checkedOut = size === Buffer.byteLength(lock);
    }
    expect(checkedOut, 'the base worktree should hold the lock while the gate runs').toBe(true);
    await sleep(1000);
    expect(child.exitCode, 'the gate should still be reading the lock').toBeNull();

    const signalled = performance.now();
    child.kill('SIGTERM');
    // A gate stuck in one long synchronous step would never answer: do not wait for it forever.
    const code = await Promise.race([exited, sleep(10_000).then(() => 'still running after 10 s')]);
    const took = performance.now() - signalled;
    if (typeof code === 'string') {
      child.kill('SIGKILL');
      await exited;
    }
    expect(code).toBe(143);
    expect(took).toBeLessThan(1500);
    expect(stderr).toContain('interrupted');
    expect(repo.extraWorktrees()).toEqual([]);
    expect(leftoverTempDirs(tmp)).toEqual([]);
  }, 180_000);
});
