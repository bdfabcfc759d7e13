import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { descendants, type MemoryUse, watchMemory } from '../../../src/sandbox/memory-watch.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
});

/** A Node process running `code`, resolved with what it first printed. */
async function node(code: string): Promise<{ child: ChildProcess; first: string }> {
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (b: Buffer) => resolve(String(b).trim()));
    child.once('exit', (c) => reject(new Error(`exited ${c} before it was ready`)));
  });
  return { child, first };
}

describe('the memory watch, from /proc', () => {
  it('finds a process two levels down, by the parent pid each stat line names', async () => {
    const parent = await node(`
      const c = require('node:child_process').spawn(process.execPath, ['-e', 'console.log(1); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'inherit'] });
      c.stdout.once('data', () => console.log(c.pid));
      setInterval(() => {}, 1000);`);
    const grandchild = Number(parent.first);
    onTestFinished(() => {
      process.kill(grandchild, 'SIGKILL');
    });
    const below = descendants(process.pid);
    expect(below).toContain(parent.child.pid);
    expect(below).toContain(grandchild);
    expect(below.indexOf(grandchild)).toBeGreaterThan(below.indexOf(parent.child.pid as number));
  });

  it('reports a tree whose resident memory goes over the cap, with what it held', async () => {
    // 200 MB touched, so it is resident, not just reserved.
    const hog = await node(
      'globalThis.keep = Buffer.alloc(200 * 1024 * 1024, 1); console.log("ready"); setInterval(() => {}, 1000)',
    );
    const use = await new Promise<MemoryUse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no breach within 10 s')), 10_000);
      watchMemory({
        root: hog.child.pid as number,
        capBytes: 100 * 1024 * 1024,
        onBreach: (u) => {
          clearTimeout(timer);
          resolve(u);
        },
      });
    });
    expect(use.resident).toBeGreaterThan(200 * 1024 * 1024);
    expect(use.tmpfs).toBe(0);
  });

  it('leaves a tree under its cap alone', async () => {
    const small = await node('console.log("ready"); setInterval(() => {}, 1000)');
    let breached = false;
    const stop = watchMemory({
      root: small.child.pid as number,
      capBytes: 1024 * 1024 * 1024,
      onBreach: () => {
        breached = true;
      },
    });
    // Four scans' worth.
    await new Promise((r) => setTimeout(r, 1100));
    stop();
    expect(breached).toBe(false);
  });
});
