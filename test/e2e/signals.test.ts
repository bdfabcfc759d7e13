import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesWith } from '../helpers/fake-harness.js';
import { CLI, GitDir, tempDir } from '../helpers/gitdir.js';
import { hitsRepo } from '../helpers/hits-repo.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A property whose check never returns: a sandboxed head process is busy when the signal comes. */
const SPINNING = `import { defineProperty } from 'patchgate';
export default defineProperty<any>({
  name: 'spins',
  fixture: 'fixtures/lock.json',
  claims: ['total_cents'],
  check() { for (;;) {} },
});
`;

describe('interrupting a check', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('stops every head process, removes its checkouts on %s and exits %i without waiting for the check', async (signal, expected) => {
    const repo = hitsRepo(
      { properties: ['properties/*.ts'], timeoutMs: 600_000 },
      { 'properties/spin.ts': SPINNING },
    );
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
    const ours = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`patchgate-base-${child.pid}-`));
    // The property's process spins once its check starts: wait for the host to be there, then a little more.
    // A sandbox of this run names its checkout on its command line; other test files' sandboxes do not.
    for (let i = 0; i < 400 && processesWith(`patchgate-base-${child.pid}-`).length === 0; i++)
      await sleep(50);
    expect(ours(), 'the base checkout should exist while the gate runs').toHaveLength(1);
    const checkout = path.join(tmpdir(), ours()[0] as string);
    await sleep(1000);
    const sent = Date.now();
    child.kill(signal);
    const code = await exited;
    // Generous for a loaded CI machine: this pins that the gate answers the signal, not how fast (about 1 s here).
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(code).toBe(expected);
    expect(stderr).toContain('interrupted');
    expect(existsSync(checkout)).toBe(false);
    expect(readdirSync(tmpdir()).filter((n) => n.includes(`-${child.pid}-`))).toEqual([]);
    // Every sandbox of this run named one of its checkouts on its command line: none is left.
    const left = () =>
      processesWith(`patchgate-head-${child.pid}-`).concat(processesWith(`patchgate-base-${child.pid}-`));
    for (let i = 0; i < 50 && left().length > 0; i++) await sleep(20);
    expect(left()).toEqual([]);
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
  it('exits 143 on SIGTERM while reading a million-entry lock, without finishing the read, leaving no temp folder', async () => {
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
    // Up to two minutes: the copy also writes the 140 MB into its own git repository, which took over 30 s at
    // the load of a whole suite on 2 cores. The bound is on reaching the read, not on the signal.
    for (let i = 0; i < 2400 && !checkedOut; i++) {
      await sleep(50);
      const base = readdirSync(tmp).find((n) => n.startsWith(`patchgate-base-${child.pid}-`));
      const size = base
        ? statSync(path.join(tmp, base, 'tree', 'FIXTURE_LOCK.json'), { throwIfNoEntry: false })?.size
        : 0;
      checkedOut = size === Buffer.byteLength(lock);
    }
    expect(checkedOut, 'the base checkout should hold the lock while the gate runs').toBe(true);
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
    // Reading the whole lock takes several seconds more (tens under load); stopping must not wait for it, nor
    // for the copies' git processes still importing the 140 MB file (they are killed: before, they made a
    // SIGTERM wait 3-4 s here and over 10 s at a whole suite's load). About 0.13 s on a quiet machine; the
    // bound is as generous as the other signal test's.
    expect(took).toBeLessThan(5000);
    expect(stderr).toContain('interrupted');
    expect(readdirSync(tmp).filter((n) => n.startsWith('patchgate-'))).toEqual([]);
  }, 180_000);
});
