/**
 * A head process that is both past its deadline and over its memory cap is
 * stopped and reported for the cap. The cap is watched by a timer of the
 * gate's; a deadline is another. Which one the event loop runs first (a busy
 * gate lets ticks pass, and two due timers run in the order they were armed)
 * must not decide the reason: CI once reported such a property as a timeout.
 * Timers are faked here so the watcher never ticks on its own and the
 * deadline comes first, every time; the processes, /proc and the sandbox
 * are real.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runLogged } from '../../../src/runners/tests/run-tests.js';
import { openSandbox } from '../../../src/sandbox/open.js';
import { tempDir } from '../../helpers/gitdir.js';

const MiB = 1024 ** 2;
const sandbox = await openSandbox(process.env, { limits: { memoryBytes: 64 * MiB } });

/** Python touching 200 MiB (resident, not just reserved), then saying so in `ready` and sleeping. */
const HOG = [
  '/usr/bin/python3',
  '-c',
  'import pathlib, time\nkeep = bytearray(b"\\x01") * (200 * 1024 * 1024)\npathlib.Path("ready").write_text("1")\ntime.sleep(60)',
];

/** Real time, while the faked timers stand still: the child runs on regardless. */
async function untilFile(file: string): Promise<void> {
  const until = Date.now() + 20_000;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`${file} did not appear within 20 s`);
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * `argv` as a test command with a 100 ms deadline, timers held still until it
 * wrote `ready`; then the deadline is let come before the watcher's first
 * tick (250 ms), and time runs on until the run is over.
 */
async function lateRun(argv: string[], label: string) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  const dir = tempDir();
  const run = runLogged({ sandbox, argv, env: {}, cwd: dir, outDir: tempDir(), label, timeoutMs: 100 });
  let settled = false;
  void run.finally(() => {
    settled = true;
  });
  await untilFile(path.join(dir, 'ready'));
  await vi.advanceTimersByTimeAsync(100);
  const until = Date.now() + 20_000;
  while (!settled && Date.now() < until) await vi.advanceTimersByTimeAsync(50);
  return run;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a deadline that meets a tree over its memory cap', () => {
  it('measures the tree now: the breach is there before the watcher ever ticked', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const dir = tempDir();
    const proc = sandbox.spawn({
      argv: HOG,
      cwd: dir,
      env: {},
      writable: [dir],
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const exited = new Promise((r) => proc.child.once('exit', r));
    try {
      await untilFile(path.join(dir, 'ready'));
      expect(proc.breach).toBeUndefined();
      const now = proc.breachNow();
      expect(now).toMatchObject({ limit: 'memory', cap: 64 * MiB, setting: 'sandbox.limits.memoryMb' });
      expect(now?.resident).toBeGreaterThan(200 * MiB);
      expect(proc.breachNow()).toBe(now);
    } finally {
      proc.kill('SIGKILL');
      vi.useRealTimers();
      await exited;
    }
  });

  it('stops a test command for the cap, not as a timeout, when the deadline fires first', async () => {
    const r = await lateRun(HOG, 'hog');
    expect(r.timedOut).toBe(false);
    expect(r.breach).toMatchObject({ limit: 'memory', cap: 64 * MiB });
  });

  it('leaves a late tree under its cap to the deadline', async () => {
    const idle = [
      '/usr/bin/python3',
      '-c',
      'import pathlib, time\npathlib.Path("ready").write_text("1")\ntime.sleep(60)',
    ];
    const r = await lateRun(idle, 'late');
    expect(r.timedOut).toBe(true);
    expect(r.breach).toBeUndefined();
  });
});
