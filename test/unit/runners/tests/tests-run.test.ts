import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { delay } from '../../../../src/runners/harness/process.js';
import { TestRunError } from '../../../../src/runners/tests/errors.js';
import { resolveTestCommand } from '../../../../src/runners/tests/presets.js';
import { junitPathFor, type RunTestsOptions, runTests } from '../../../../src/runners/tests/run-tests.js';
import { processesWith } from '../../../helpers/fake-harness.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const GRANDCHILD = 'pg-grandchild';

const sandbox = await testSandbox();

/**
 * The "test runner": `node runner.mjs MODE ARGS…`.
 * - junit PATH: writes a one-test report to PATH
 * - reports: writes reports/TEST-a.xml and reports/sub/TEST-b.xml under the cwd
 * - exit N: writes to both streams, exits N
 * - self-signal: kills itself with SIGTERM
 * - env: prints the sorted environment keys
 * - big: writes 4 MiB to stdout
 * - hang PIDFILE [stubborn]: starts a grandchild ignoring SIGTERM, writes "pid grandchildPid", hangs
 *   (stubborn: ignores SIGTERM itself too)
 * - interval FILE: appends "start end" around a 300 ms sleep, then writes the reports
 */
const RUNNER = `
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
const [mode, arg, extra] = process.argv.slice(2);
const report = (name) => '<?xml version="1.0"?><testsuite name="s"><testcase classname="c" name="' + name + '"/></testsuite>\\n';
const reports = () => {
  mkdirSync('reports/sub', { recursive: true });
  writeFileSync('reports/TEST-a.xml', report('a'));
  writeFileSync('reports/sub/TEST-b.xml', report('b'));
};
if (mode === 'junit') writeFileSync(arg, report('t'));
else if (mode === 'reports') reports();
else if (mode === 'exit') {
  process.stdout.write('out-line\\n');
  process.stderr.write('err-line\\n');
  process.exitCode = Number(arg);
} else if (mode === 'self-signal') {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => {}, 10000);
} else if (mode === 'env') console.log(Object.keys(process.env).filter((k) => k !== 'PWD').sort().join(','));
else if (mode === 'big') {
  const chunk = 'x'.repeat(1023) + '\\n';
  let n = 0;
  const write = () => {
    while (n < 4096) {
      n++;
      if (!process.stdout.write(chunk)) return process.stdout.once('drain', write);
    }
  };
  write();
} else if (mode === 'hang') {
  const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000) // pg-grandchild " + arg], { stdio: 'ignore' });
  if (extra === 'stubborn') process.on('SIGTERM', () => {});
  // Only report once the grandchild has installed its handler.
  setTimeout(() => writeFileSync(arg, process.pid + ' ' + child.pid), 300);
  setInterval(() => {}, 1000);
} else if (mode === 'interval') {
  const start = Date.now();
  setTimeout(() => {
    reports();
    appendFileSync(arg, start + ' ' + Date.now() + '\\n');
  }, 300);
}
`;

let dir: string;
let out: string;
let runner: string;

function setup(): void {
  dir = tempDir();
  out = path.join(tempDir(), 'out');
  runner = path.join(dir, 'runner.mjs');
  writeFileSync(runner, RUNNER);
}

function opts(args: string[], extra: Partial<RunTestsOptions> = {}): RunTestsOptions {
  return {
    cwd: dir,
    sandbox,
    argv: [process.execPath, runner, ...args],
    env: {},
    timeoutMs: 20_000,
    outDir: out,
    label: 'head-run-1',
    ...extra,
  };
}

async function until(cond: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await delay(25);
  }
  return cond();
}

async function waitForFile(file: string): Promise<string> {
  expect(await until(() => existsSync(file) && readFileSync(file, 'utf8') !== '')).toBe(true);
  return readFileSync(file, 'utf8');
}

afterEach(() => {
  delete process.env.PATCHGATE_TEST_SECRET;
});

describe('runTests', () => {
  it('finds the report written to {junit}', async () => {
    setup();
    const cmd = resolveTestCommand(
      { command: [process.execPath, runner, 'junit', '{junit}'] },
      { junitPath: junitPathFor(out, 'head-run-1') },
    );
    const run = await runTests({ ...opts([]), ...cmd });
    expect(run).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(run.junitFiles).toEqual([path.join(out, 'head-run-1.junit.xml')]);
    expect(readFileSync(run.junitFiles[0]!, 'utf8')).toContain('name="t"');
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a missing report is an empty list, and a stale one from the same label is not mistaken for it', async () => {
    setup();
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'head-run-1.junit.xml'), 'stale');
    writeFileSync(path.join(out, 'head-run-1.junit.2.xml'), 'stale');
    writeFileSync(path.join(out, 'head-run-10.junit.xml'), 'another run');
    const run = await runTests(opts(['exit', '0']));
    expect(run.junitFiles).toEqual([]);
    expect(readdirSync(out).sort()).toEqual([
      'head-run-1.stderr.log',
      'head-run-1.stdout.log',
      'head-run-10.junit.xml',
    ]);
  });

  it('collects a junitFrom glob: stale reports deleted first, matches copied out in path order', async () => {
    setup();
    mkdirSync(path.join(dir, 'reports'), { recursive: true });
    writeFileSync(path.join(dir, 'reports', 'TEST-stale.xml'), 'from an earlier run');
    writeFileSync(path.join(dir, 'reports', 'other.xml'), 'not a report');
    mkdirSync(path.join(dir, 'node_modules', 'reports'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'reports', 'TEST-dep.xml'), 'a dependency’s');
    const run = await runTests(opts(['reports'], { junitFrom: '**/reports/**/TEST-*.xml' }));
    expect(run.junitFiles).toEqual([
      path.join(out, 'head-run-1.junit.1.xml'),
      path.join(out, 'head-run-1.junit.2.xml'),
    ]);
    expect(readFileSync(run.junitFiles[0]!, 'utf8')).toContain('name="a"');
    expect(readFileSync(run.junitFiles[1]!, 'utf8')).toContain('name="b"');
    expect(existsSync(path.join(dir, 'reports', 'TEST-stale.xml'))).toBe(false);
    expect(existsSync(path.join(dir, 'reports', 'other.xml'))).toBe(true);
    expect(existsSync(path.join(dir, 'node_modules', 'reports', 'TEST-dep.xml'))).toBe(true);
  });

  it('a plain junitFrom path, and none written', async () => {
    setup();
    const found = await runTests(opts(['reports'], { junitFrom: 'reports/TEST-a.xml' }));
    expect(found.junitFiles).toEqual([path.join(out, 'head-run-1.junit.1.xml')]);
    const none = await runTests(opts(['exit', '0'], { junitFrom: 'reports/TEST-a.xml', label: 'again' }));
    expect(none.junitFiles).toEqual([]);
  });

  it('runs sharing a cwd and a junitFrom never overlap; each keeps its own reports', async () => {
    setup();
    const log = path.join(dir, 'intervals.log');
    const runs = await Promise.all(
      [1, 2, 3].map((i) =>
        runTests(opts(['interval', log], { junitFrom: 'reports/**/*.xml', label: `head-run-${i}` })),
      ),
    );
    for (const [i, run] of runs.entries()) {
      expect(run.junitFiles).toEqual([
        path.join(out, `head-run-${i + 1}.junit.1.xml`),
        path.join(out, `head-run-${i + 1}.junit.2.xml`),
      ]);
    }
    const intervals = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number) as [number, number])
      .sort((a, b) => a[0] - b[0]);
    expect(intervals).toHaveLength(3);
    for (let i = 1; i < intervals.length; i++)
      expect(intervals[i]![0]).toBeGreaterThanOrEqual(intervals[i - 1]![1]);
  });

  it('reports exit codes and signals', async () => {
    setup();
    expect(await runTests(opts(['exit', '3']))).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
    expect(await runTests(opts(['self-signal']))).toMatchObject({
      exitCode: null,
      signal: 'SIGTERM',
      timedOut: false,
    });
  });

  it('streams stdout and stderr to their files', async () => {
    setup();
    const run = await runTests(opts(['exit', '1']));
    expect(run.stdoutFile).toBe(path.join(out, 'head-run-1.stdout.log'));
    expect(run.stderrFile).toBe(path.join(out, 'head-run-1.stderr.log'));
    expect(readFileSync(run.stdoutFile, 'utf8')).toBe('out-line\n');
    expect(readFileSync(run.stderrFile, 'utf8')).toBe('err-line\n');
    const big = await runTests(opts(['big'], { label: 'big' }));
    expect(big.exitCode).toBe(0);
    expect(statSync(big.stdoutFile).size).toBe(4 * 1024 * 1024);
    expect(readFileSync(big.stderrFile, 'utf8')).toBe('');
  });

  it("passes exactly the sandbox's environment and the given variables, plus (in the sandbox) a temp folder it can write", async () => {
    setup();
    process.env.PATCHGATE_TEST_SECRET = 'hunter2';
    const given = { ONLY_THIS: 'yes', ALSO: '1' };
    const run = await runTests(opts(['env'], { env: given }));
    const temp = sandbox.isolation.mode === 'bwrap' ? ['TEMP', 'TMP', 'TMPDIR'] : [];
    const expected = [...new Set([...Object.keys(sandbox.environment(given)), ...temp])].sort().join(',');
    expect(expected).not.toContain('PATCHGATE_TEST_SECRET');
    expect(readFileSync(run.stdoutFile, 'utf8')).toBe(`${expected}\n`);
  });

  it('on timeout kills the whole process group, grandchildren included', async () => {
    setup();
    const pids = path.join(dir, 'pids');
    const run = await runTests(opts(['hang', pids], { timeoutMs: 1_000 }));
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe('SIGTERM');
    expect(run.exitCode).toBeNull();
    await waitForFile(pids);
    // Pids inside a sandbox are its own namespace's: the processes are found on the host by their command line.
    expect(
      await until(() => processesWith(pids).length === 0 && processesWith(GRANDCHILD).length === 0),
    ).toBe(true);
  });

  it('a leader that ignores SIGTERM is killed after the grace period', async () => {
    setup();
    const pids = path.join(dir, 'pids');
    const started = Date.now();
    const run = await runTests(opts(['hang', pids, 'stubborn'], { timeoutMs: 500 }));
    expect(run).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    await waitForFile(pids);
    // Pids inside a sandbox are its own namespace's: the processes are found on the host by their command line.
    expect(
      await until(() => processesWith(pids).length === 0 && processesWith(GRANDCHILD).length === 0),
    ).toBe(true);
  });

  it('an abort kills the group and rejects with ABORTED', async () => {
    setup();
    const pids = path.join(dir, 'pids');
    const ac = new AbortController();
    const p = runTests(opts(['hang', pids], { signal: ac.signal }));
    await waitForFile(pids);
    ac.abort(new Error('SIGINT'));
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('ABORTED');
    expect(
      await until(() => processesWith(pids).length === 0 && processesWith(GRANDCHILD).length === 0),
    ).toBe(true);
    const pre = new AbortController();
    pre.abort();
    await expect(runTests(opts(['exit', '0'], { signal: pre.signal }))).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('a command that cannot start is SPAWN_FAILED', async () => {
    setup();
    const err = await runTests(opts([], { argv: [path.join(dir, 'no-such-runner')] })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TestRunError);
    expect((err as TestRunError).code).toBe('SPAWN_FAILED');
    expect((err as TestRunError).message).toContain('no-such-runner');
  });

  it('refuses labels that are not plain file names', async () => {
    setup();
    await expect(runTests(opts(['exit', '0'], { label: '../escape' }))).rejects.toThrow(TypeError);
    expect(() => junitPathFor(out, 'a/b')).toThrow(TypeError);
  });
});

describe('Sandbox.grant', () => {
  it('hands a folder made again under the same name to the sandbox user again', async () => {
    const sandbox = await testSandbox();
    if (sandbox.isolation.user !== 'separate') return; // same-uid sandboxes own every folder already
    const dir = path.join(tempDir('pg-grant-'), 'io');
    mkdirSync(dir);
    await sandbox.grant(dir);
    expect(statSync(dir).uid).toBe(sandbox.isolation.uid);
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    expect(statSync(dir).uid).toBe(0);
    await sandbox.grant(dir);
    expect(statSync(dir).uid).toBe(sandbox.isolation.uid);
  });
});
