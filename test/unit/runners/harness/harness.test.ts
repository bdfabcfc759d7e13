import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { HarnessClient, type HarnessClientOptions } from '../../../../src/runners/harness/client.js';
import {
  decodeCheckResult,
  decodeResponseLine,
  formatCommand,
  HARNESS_PROTOCOL,
  HarnessError,
  JsonText,
  truncateLine,
} from '../../../../src/runners/harness/protocol.js';
import { alive, processesWith, writeFakeHarness } from '../../../helpers/fake-harness.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

let dir: string;
let fake: string;
const clients: HarnessClient[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'patchgate-harness-test-'));
  fake = writeFakeHarness(dir);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function options(mode: string, extra: Partial<HarnessClientOptions> = {}): HarnessClientOptions {
  return { command: [process.execPath, fake, mode], cwd: dir, sandbox, env: {}, timeoutMs: 2_000, ...extra };
}

async function start(mode: string, extra: Partial<HarnessClientOptions> = {}): Promise<HarnessClient> {
  const client = await HarnessClient.start(options(mode, extra));
  clients.push(client);
  return client;
}

async function harnessError(p: Promise<unknown>): Promise<HarnessError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HarnessError);
  return err as HarnessError;
}

const fixtures = (n: number, ok = (i: number) => i % 3 !== 0) =>
  Array.from({ length: n }, (_, i) => ({ i, ok: ok(i) }));

describe('protocol decoding', () => {
  it('accepts results and errors, rejects anything else', () => {
    expect(decodeResponseLine('{"id":1,"result":null}')).toEqual({
      ok: true,
      value: { id: 1, result: null },
    });
    expect(decodeResponseLine('{"id":1,"error":{"message":"x"}}').ok).toBe(true);
    for (const bad of [
      'nope',
      '[]',
      'null',
      '{"id":1}',
      '{"id":-1,"result":1}',
      '{"id":1.5,"result":1}',
      '{"id":"1","result":1}',
      '{"id":1,"result":1,"error":{"message":"x"}}',
      '{"id":1,"error":"x"}',
    ]) {
      expect(decodeResponseLine(bad).ok, bad).toBe(false);
    }
  });

  it('quotes and truncates offending lines and commands for messages', () => {
    expect(truncateLine('short')).toBe('"short"');
    const long = truncateLine('z'.repeat(5000));
    expect(long).toBe(`"${'z'.repeat(200)}"… (5000 characters)`);
    expect(formatCommand(['python3', '/a b/harness.py', 'x.py'])).toBe('python3 "/a b/harness.py" x.py');
  });

  it('checks length and statuses of check results and keeps errors to one line', () => {
    expect(decodeCheckResult({ results: [{ status: 'pass' }] }, 2)).toMatchObject({ ok: false });
    expect(decodeCheckResult({ results: [{ status: 'skip' }] }, 1)).toMatchObject({ ok: false });
    expect(
      decodeCheckResult(
        {
          results: [
            { status: 'fail', error: ' boom \n at x' },
            { status: 'pass', error: null },
          ],
        },
        2,
      ),
    ).toEqual({
      ok: true,
      value: [{ status: 'fail', error: 'boom' }, { status: 'pass' }],
    });
  });
});

describe('HarnessClient with a well-behaved harness', () => {
  it('says hello, lists, and checks in order across pipelined batches', async () => {
    const client = await start('ok', { batchSize: 7, maxInFlight: 3 });
    expect(client.info).toMatchObject({ protocol: HARNESS_PROTOCOL, language: 'node' });
    expect(await client.list()).toEqual([{ name: 'p', claims: ['a', 'b'] }]);
    const fx = fixtures(100);
    const out = await client.check('p', fx);
    expect(out).toHaveLength(100);
    out.forEach((o, i) => {
      expect(o).toEqual(fx[i]!.ok ? { status: 'pass' } : { status: 'fail', error: 'not ok' });
    });
    expect(await client.check('p', [])).toEqual([]);
  });

  it('runs concurrent checks on one client', async () => {
    const client = await start('ok', { batchSize: 3 });
    const [a, b] = await Promise.all([
      client.check(
        'p',
        fixtures(20, () => true),
      ),
      client.check(
        'p',
        fixtures(20, () => false),
      ),
    ]);
    expect(a.every((o) => o.status === 'pass')).toBe(true);
    expect(b.every((o) => o.status === 'fail')).toBe(true);
  });

  it('sends JsonText fixtures verbatim', async () => {
    const client = await start('ok');
    const out = await client.check('p', [
      new JsonText('{"ok":\n true, "big": 123456789012345678901234567890}'),
    ]);
    expect(out).toEqual([{ status: 'pass' }]);
  });

  it('reads a multi-megabyte line arriving in small chunks', async () => {
    const client = await start('big');
    const [prop] = await client.list();
    expect(prop?.claims).toHaveLength(30_000);
    expect(prop?.claims[29_999]).toBe(`field_29999_${'x'.repeat(100)}`);
  });

  it("gives the child exactly the sandbox's environment and what it was given, never a secret of the host", async () => {
    process.env.PATCHGATE_TEST_SECRET = 'do-not-leak';
    try {
      const given = { ONLY_THIS: 'yes', ALSO: 'this one' };
      const client = await start('env', { env: given });
      // bubblewrap adds PWD (the cwd it changed to), the sandbox a temp folder of its own (and moves HOME
      // there when the child may not write it); nothing else of the parent's environment gets through.
      const claims = (await client.list())[0]?.claims.filter((c) => !c.startsWith('PWD=')) ?? [];
      const names = new Set(claims.map((c) => c.slice(0, c.indexOf('='))));
      const temp = sandbox.isolation.mode === 'bwrap' ? ['TEMP', 'TMP', 'TMPDIR'] : [];
      expect([...names].sort()).toEqual(
        [...new Set([...Object.keys(sandbox.environment(given)), ...temp])].sort(),
      );
      expect(claims).toEqual(expect.arrayContaining(['ALSO=this one', 'ONLY_THIS=yes']));
      expect(names.has('PATCHGATE_TEST_SECRET')).toBe(false);
    } finally {
      delete process.env.PATCHGATE_TEST_SECRET;
    }
  });

  it('keeps running after an error response, reported as HARNESS_REQUEST_FAILED', async () => {
    const client = await start('refuse-check');
    const err = await harnessError(client.check('nope', fixtures(3)));
    expect(err.code).toBe('HARNESS_REQUEST_FAILED');
    expect(err.message).toContain('unknown property "nope"');
    expect(await client.list()).toEqual([{ name: 'p', claims: ['a', 'b'] }]);
  });

  it('closes cleanly and refuses requests afterwards', async () => {
    const client = await start('ok');
    const pid = client.pid!;
    await client.close();
    expect(alive(pid)).toBe(false);
    expect((await harnessError(client.list())).code).toBe('HARNESS_CLOSED');
    await client.close();
  });

  it('kills a harness that does not exit after shutdown', async () => {
    const client = await start('ignore-shutdown', { closeGraceMs: 100 });
    const pid = client.pid!;
    const t0 = Date.now();
    await client.close();
    expect(alive(pid)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});

describe('HarnessClient with a misbehaving harness', () => {
  it.each([
    ['garbage', 'not JSON', 'this is not json'],
    ['wrong-id', 'answered id 2, but the oldest pending request is id 1', '"id":2'],
    ['wrong-length', 'check answered 4 results for 5 fixtures', '"results"'],
    ['bad-status', 'results.0.status', '"skip"'],
    ['both', 'exactly one of "result" and "error"', 'and also this'],
  ])('%s → HARNESS_PROTOCOL naming the command and the line', async (mode, reason, lineBit) => {
    const client = await start(mode);
    const pid = client.pid!;
    const err = await harnessError(client.check('p', fixtures(5)));
    expect(err.code).toBe('HARNESS_PROTOCOL');
    expect(err.message).toContain(reason);
    expect(err.message).toContain(`fake-harness.mjs ${mode}`);
    expect(err.message).toContain('offending line:');
    expect(String(err.details.line)).toContain(lineBit);
    expect(alive(pid)).toBe(false);
    // The client is dead for good.
    expect((await harnessError(client.list())).code).toBe('HARNESS_PROTOCOL');
  });

  it('ignores what a harness prints on stdout: answers come only on the channel', async () => {
    const client = await start('banner');
    expect(await client.list()).toEqual([{ name: 'p', claims: ['a', 'b'] }]);
  });

  it('never takes a protocol-like line printed on stdout for an answer', async () => {
    const err = await harnessError(HarnessClient.start(options('stdout-forgery', { startTimeoutMs: 500 })));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain('did not answer hello');
  });

  it('refuses an unsigned answer on the channel as a protocol error', async () => {
    const err = await harnessError(HarnessClient.start(options('unsigned-hello')));
    expect(err.code).toBe('HARNESS_PROTOCOL');
    expect(err.message).toContain('without the channel signature');
  });

  it('refuses another protocol version', async () => {
    const err = await harnessError(HarnessClient.start(options('version')));
    expect(err.code).toBe('HARNESS_PROTOCOL');
    expect(err.message).toContain('"patchgate-harness/3"');
  });

  it('duplicate property names in list are a protocol error', async () => {
    const client = await start('dup-names');
    const err = await harnessError(client.list());
    expect(err.code).toBe('HARNESS_PROTOCOL');
    expect(err.message).toContain('duplicate property name "p"');
  });

  it('a harness exiting before hello → HARNESS_START_FAILED with the stderr tail', async () => {
    const err = await harnessError(HarnessClient.start(options('exit-at-start')));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain(
      'exited with code 4 before answering hello: ImportError: no module named nowhere',
    );
    expect(err.message).toContain('loading properties...');
  });

  it('a hello answered with an error → HARNESS_START_FAILED', async () => {
    const err = await harnessError(HarnessClient.start(options('hello-refused')));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain('I only speak patchgate-harness/0');
  });

  it('no hello within the start timeout → HARNESS_START_FAILED', async () => {
    const err = await harnessError(HarnessClient.start(options('hang-hello', { startTimeoutMs: 200 })));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain('did not answer hello within 200 ms');
  });

  it('a missing program → HARNESS_START_FAILED', async () => {
    const err = await harnessError(
      HarnessClient.start({ ...options('ok'), command: [path.join(dir, 'no-such-program')] }),
    );
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toMatch(/ENOENT|No such file or directory/);
  });

  it('a hung check → HARNESS_TIMEOUT naming the property and batch; the child is gone', async () => {
    const client = await start('hang', { timeoutMs: 50, batchSize: 4 });
    const pid = client.pid!;
    const t0 = Date.now();
    const err = await harnessError(client.check('p', fixtures(10)));
    expect(err.code).toBe('HARNESS_TIMEOUT');
    expect(err.message).toContain('check of property "p" on fixtures 0–3');
    expect(err.message).toContain('200 ms');
    expect(err.details).toMatchObject({ property: 'p', from: 0, to: 3 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('a timeout kills what the harness started, too', async () => {
    // Long enough for the harness to start its grandchild on a loaded machine: this pins the kill, not a speed.
    const client = await start('hang-with-child', { timeoutMs: 1500 });
    const err = await harnessError(client.check('p', fixtures(1)));
    expect(err.code).toBe('HARNESS_TIMEOUT');
    expect(client.stderrTail().join('\n')).toMatch(/grandchild \d+/);
    const left = () => processesWith(`setTimeout(() => {}, 60000) // ${fake}`);
    for (let i = 0; i < 100 && left().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(left()).toEqual([]);
  });

  it('the clock of a queued batch starts when the batch before it is answered', async () => {
    // 5 ms per fixture against a 20 ms budget per fixture: fine one batch at a
    // time, too slow if queued batches were charged from the moment they were sent.
    const client = await start('slow', { timeoutMs: 20, batchSize: 10, maxInFlight: 8 });
    const out = await client.check('p', fixtures(80));
    expect(out).toHaveLength(80);
  });

  it('a harness exiting mid-batch → HARNESS_CRASHED with exit code and stderr tail', async () => {
    const client = await start('crash', { batchSize: 2 });
    const err = await harnessError(client.check('p', fixtures(6)));
    expect(err.code).toBe('HARNESS_CRASHED');
    expect(err.message).toContain('exited with code 7 during the check of property "p" on fixtures 0–1');
    expect(err.message).toContain('fatal: boom in check');
    expect(err.message).toContain('log line 12');
    expect(err.message).not.toContain('log line 11\n');
    expect(err.details).toMatchObject({ exitCode: 7, signal: null });
    expect((err.details.stderrTail as string[]).length).toBe(20);
  });

  it('an abort kills the harness and rejects with ABORTED', async () => {
    const controller = new AbortController();
    const client = await start('hang', { signal: controller.signal });
    const pid = client.pid!;
    const pending = client.check('p', fixtures(3));
    setTimeout(() => controller.abort(new Error('user pressed ^C')), 50);
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('ABORTED');
    expect(alive(pid)).toBe(false);
  });

  it('an already aborted signal does not start anything', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(HarnessClient.start(options('ok', { signal: controller.signal }))).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});
