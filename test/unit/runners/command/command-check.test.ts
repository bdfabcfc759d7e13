import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import {
  CommandChecker,
  FIXTURE_ENV_VAR,
  runCommandCheck,
} from '../../../../src/runners/command/command-check.js';
import { HarnessError, JsonText } from '../../../../src/runners/harness/protocol.js';
import { processesWith } from '../../../helpers/fake-harness.js';
import { testSandbox } from '../../../helpers/sandbox.js';

/** Live processes whose command line names `marker`, after giving a kill up to two seconds to land. */
async function goneWithin(marker: string): Promise<number[]> {
  for (let i = 0; i < 100 && processesWith(marker).length > 0; i++)
    await new Promise((r) => setTimeout(r, 20));
  return processesWith(marker);
}

const sandbox = await testSandbox();

let dir: string;
let tmp: string;
let script: string;

/**
 * A check command: `node check.mjs MODE [ARG]`.
 * - copy: copy the fixture file to ARG, pass
 * - total: pass iff fixture.total_cents === 1500
 * - env: pass iff the env is exactly {PATCHGATE_FIXTURE, ONLY_THIS=yes}
 * - interval: sleep 150 ms, then append "start end" to ARG
 * - hang: sleep, writing its pid to ARG first
 */
const CHECK = `
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
const [mode, arg] = process.argv.slice(2);
const file = process.env.PATCHGATE_FIXTURE;
if (mode === 'copy') {
  copyFileSync(file, arg);
} else if (mode === 'total') {
  const fx = JSON.parse(readFileSync(file, 'utf8'));
  if (fx.total_cents !== 1500) {
    console.log('some stdout');
    console.error('total ' + fx.total_cents + ' != 1500');
    process.exit(1);
  }
} else if (mode === 'env') {
  // bubblewrap adds PWD, the folder it changed to; the sandbox its temp folder, its private /tmp.
  const own = (k) => k === 'PWD' || (['TEMP', 'TMP', 'TMPDIR'].includes(k) && process.env[k] === '/tmp');
  const keys = Object.keys(process.env).filter((k) => !own(k)).sort().join(',');
  if (keys !== arg || process.env.ONLY_THIS !== 'yes') {
    console.error('unexpected env: ' + keys);
    process.exit(2);
  }
} else if (mode === 'signal') {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => {}, 10000);
} else if (mode === 'interval') {
  const start = Date.now();
  setTimeout(() => appendFileSync(arg, start + ' ' + Date.now() + '\\n'), 150);
} else if (mode === 'hang') {
  writeFileSync(arg, String(process.pid));
  setTimeout(() => {}, 60000);
}
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'patchgate-command-test-'));
  tmp = path.join(dir, 'tmp');
  mkdirSync(tmp);
  script = path.join(dir, 'check.mjs');
  writeFileSync(script, CHECK);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seed = {
  currency: 'USD',
  total_cents: 1500,
  lines: [
    { qty: 2, unit_cents: 500 },
    { qty: 1, unit_cents: 500 },
  ],
};

function base(mode: string, ...args: string[]) {
  return {
    command: [process.execPath, script, mode, ...args],
    cwd: dir,
    sandbox,
    env: {},
    timeoutMs: 10_000,
  };
}

describe('runCommandCheck', () => {
  it('passes on exit 0 and fails on any other exit, with the last stderr line', async () => {
    expect(await runCommandCheck({ ...base('total'), fixture: seed, tmpDir: tmp })).toMatchObject({
      status: 'pass',
      exitCode: 0,
    });
    const failed = await runCommandCheck({
      ...base('total'),
      fixture: { ...seed, total_cents: 1501 },
      tmpDir: tmp,
    });
    expect(failed).toMatchObject({
      status: 'fail',
      exitCode: 1,
      error: 'exited with code 1: total 1501 != 1500',
    });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a command killed by a signal fails', async () => {
    const out = await runCommandCheck({ ...base('signal'), fixture: seed, tmpDir: tmp });
    expect(out).toMatchObject({
      status: 'fail',
      exitCode: null,
      exitSignal: 'SIGTERM',
      error: 'was killed by SIGTERM',
    });
  });

  it('writes exactly the mutant to the file named by PATCHGATE_FIXTURE', async () => {
    const copy = path.join(dir, 'copied.json');
    const mutant = { ...seed, lines: [...seed.lines, { qty: 1, unit_cents: 1 }], note: 'żółw 🐢' };
    await runCommandCheck({ ...base('copy', copy), fixture: mutant, tmpDir: tmp });
    const text = readFileSync(copy, 'utf8');
    expect(text).toBe(JSON.stringify(mutant));
    expect(JSON.parse(text)).toEqual(mutant);
    expect(FIXTURE_ENV_VAR).toBe('PATCHGATE_FIXTURE');
  });

  it('writes JsonText verbatim, keeping what JS numbers would lose', async () => {
    const copy = path.join(dir, 'copied-raw.json');
    const raw = '{"big": 123456789012345678901234567890, "neg_zero": -0}';
    await runCommandCheck({ ...base('copy', copy), fixture: new JsonText(raw), tmpDir: tmp });
    expect(readFileSync(copy, 'utf8')).toBe(raw);
  });

  it("gives the command exactly the sandbox's environment, what it was given and PATCHGATE_FIXTURE, never a host secret", async () => {
    process.env.PATCHGATE_TEST_SECRET = 'do-not-leak';
    try {
      // The child compares its own variable names with these (temp folders and PWD aside).
      const own = new Set(['PWD', ...(sandbox.isolation.mode === 'bwrap' ? ['TEMP', 'TMP', 'TMPDIR'] : [])]);
      const expected = [...Object.keys(sandbox.environment({ ONLY_THIS: 'yes' })), 'PATCHGATE_FIXTURE']
        .filter((k) => !own.has(k))
        .sort()
        .join(',');
      expect(expected).not.toContain('PATCHGATE_TEST_SECRET');
      const out = await runCommandCheck({
        ...base('env', expected),
        env: { ONLY_THIS: 'yes' },
        fixture: seed,
        tmpDir: tmp,
      });
      expect(out).toMatchObject({ status: 'pass' });
    } finally {
      delete process.env.PATCHGATE_TEST_SECRET;
    }
  });

  it('kills a command that outlives its timeout and rejects with HARNESS_TIMEOUT', async () => {
    const pidFile = path.join(dir, 'hang.pid');
    const err = await runCommandCheck({
      ...base('hang', pidFile),
      timeoutMs: 300,
      fixture: seed,
      tmpDir: tmp,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HarnessError);
    expect(err).toMatchObject({ code: 'HARNESS_TIMEOUT' });
    expect((err as Error).message).toContain('timed out after 300 ms');
    expect(await goneWithin(pidFile)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a missing program rejects with HARNESS_START_FAILED', async () => {
    await expect(
      runCommandCheck({ ...base('total'), command: [path.join(dir, 'nope')], fixture: seed, tmpDir: tmp }),
    ).rejects.toMatchObject({ code: 'HARNESS_START_FAILED' });
  });

  it('an abort kills the command', async () => {
    const pidFile = path.join(dir, 'abort.pid');
    const controller = new AbortController();
    const running = runCommandCheck({
      ...base('hang', pidFile),
      fixture: seed,
      tmpDir: tmp,
      signal: controller.signal,
    });
    while (!existsSync(pidFile)) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const err = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect(await goneWithin(pidFile)).toEqual([]);
  });
});

describe('CommandChecker', () => {
  it('checks many mutants in order with bounded concurrency, in one temp dir', async () => {
    const checker = await CommandChecker.create({ ...base('total'), concurrency: 3, tmpRoot: dir });
    try {
      expect(path.dirname(checker.tmpDir)).toBe(dir);
      const fixtures = Array.from({ length: 12 }, (_, i) => ({
        ...seed,
        total_cents: i % 4 === 0 ? 1500 : 1500 + i,
      }));
      const out = await checker.check(fixtures);
      expect(out.map((o) => o.status)).toEqual(
        fixtures.map((f) => (f.total_cents === 1500 ? 'pass' : 'fail')),
      );
      expect(out[1]?.error).toBe('exited with code 1: total 1501 != 1500');
      expect(readdirSync(checker.tmpDir)).toEqual([]);
    } finally {
      await checker.close();
    }
    expect(existsSync(checker.tmpDir)).toBe(false);
  });

  it('never runs more than `concurrency` commands at once', async () => {
    const log = path.join(dir, 'intervals.log');
    const checker = await CommandChecker.create({ ...base('interval', log), concurrency: 3, tmpRoot: dir });
    try {
      await checker.check(Array.from({ length: 9 }, () => seed));
    } finally {
      await checker.close();
    }
    const intervals = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number) as [number, number]);
    expect(intervals).toHaveLength(9);
    const overlap = Math.max(...intervals.map(([t]) => intervals.filter(([a, b]) => a <= t && t < b).length));
    expect(overlap).toBeLessThanOrEqual(3);
    expect(overlap).toBeGreaterThanOrEqual(2);
  });

  it('stops at the first timeout and leaves nothing running', async () => {
    const pidFile = path.join(dir, 'checker-hang.pid');
    const checker = await CommandChecker.create({
      ...base('hang', pidFile),
      timeoutMs: 300,
      concurrency: 2,
      tmpRoot: dir,
    });
    try {
      await expect(checker.check([seed, seed, seed, seed])).rejects.toMatchObject({
        code: 'HARNESS_TIMEOUT',
      });
      expect(await goneWithin(pidFile)).toEqual([]);
    } finally {
      await checker.close();
    }
  });
});
