import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/gitdir.js';
import { hitsRepo } from '../helpers/hits-repo.js';
import { processesWith } from '../unit/runners/fake-harness.js';

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
  ] as const)('stops every head process, removes its checkouts on %s and exits %i within two seconds', async (signal, expected) => {
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
    expect(Date.now() - sent).toBeLessThan(2000);
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
