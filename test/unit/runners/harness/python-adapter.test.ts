import { spawnSync } from 'node:child_process';
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
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HarnessClient, type HarnessClientOptions } from '../../../../src/runners/harness/client.js';
import { HarnessError } from '../../../../src/runners/harness/protocol.js';
import { PYTHON_ADAPTER_PATH, pythonHarnessCommand } from '../../../../src/runners/harness/python-adapter.js';
import { alive } from '../../../helpers/fake-harness.js';
import { testSandbox } from '../../../helpers/sandbox.js';
import { sharedDir, sharedFile } from '../../../helpers/shared.js';

const sandbox = await testSandbox();

/** Only what python3 needs to be found: the harness must not need the test's environment. */
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH };

let dir: string;
const clients: HarnessClient[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'patchgate-pyharness-test-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeModule(name: string, source: string): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, source);
  return file;
}

function options(target: string, extra: Partial<HarnessClientOptions> = {}): HarnessClientOptions {
  // The seed's reference modules live in the shared folder, outside the checkout: readable, as a base config's sandbox.readOnly would make them.
  return {
    command: pythonHarnessCommand(target),
    cwd: dir,
    sandbox,
    readOnly: [sharedDir()],
    env: ENV,
    timeoutMs: 2_000,
    ...extra,
  };
}

async function start(target: string, extra: Partial<HarnessClientOptions> = {}): Promise<HarnessClient> {
  const client = await HarnessClient.start(options(target, extra));
  clients.push(client);
  return client;
}

async function startError(target: string): Promise<HarnessError> {
  const err = await HarnessClient.start(options(target)).then(
    (c) => {
      clients.push(c);
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HarnessError);
  return err as HarnessError;
}

describe('the adapter file', () => {
  it('is found from the source tree', () => {
    expect(existsSync(PYTHON_ADAPTER_PATH)).toBe(true);
    expect(
      PYTHON_ADAPTER_PATH.endsWith(path.join('src', 'runners', 'harness', 'python', 'patchgate_harness.py')),
    ).toBe(true);
  });

  it('uses nothing outside the standard library', () => {
    const source = readFileSync(PYTHON_ADAPTER_PATH, 'utf8');
    const imports = [...source.matchAll(/^\s*(?:import|from)\s+([\w.]+)/gm)].map((m) => m[1]);
    expect(new Set(imports)).toEqual(
      new Set(['hashlib', 'hmac', 'importlib', 'importlib.util', 'json', 'os', 'socket', 'sys', 'traceback']),
    );
  });
});

describe("seed 000's properties.py, unchanged", () => {
  const seedFixture = (): Record<string, unknown> =>
    JSON.parse(readFileSync(sharedFile('reference', 'seed000', 'fixtures', 'lock.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  const properties = (): string => sharedFile('reference', 'seed000', 'properties.py');

  it('lists the property with sorted claims', async () => {
    const client = await start(properties());
    expect(client.info).toMatchObject({ protocol: 'patchgate-harness/2', language: 'python' });
    expect(await client.list()).toEqual([
      { name: 'invoice_total_matches_lines', claims: ['currency', 'lines', 'total_cents'] },
    ]);
  });

  it('passes on the locked fixture and fails on total_cents 1501 with the AssertionError', async () => {
    const client = await start(properties());
    const out = await client.check('invoice_total_matches_lines', [
      seedFixture(),
      { ...seedFixture(), total_cents: 1501 },
      { ...seedFixture(), currency: 'EUR' },
    ]);
    expect(out).toEqual([
      { status: 'pass' },
      { status: 'fail', error: 'AssertionError: total 1501 != 1500' },
      { status: 'fail', error: 'AssertionError: unsupported currency' },
    ]);
  });

  it('answers a batch of 1000 fixtures in order', async () => {
    const client = await start(properties());
    const fixtures = Array.from({ length: 1000 }, (_, i) => ({
      ...seedFixture(),
      total_cents: i % 7 === 0 ? 1500 : 1500 + i,
    }));
    const out = await client.check('invoice_total_matches_lines', fixtures);
    expect(out).toHaveLength(1000);
    out.forEach((o, i) => {
      if (i % 7 === 0) expect(o).toEqual({ status: 'pass' });
      else expect(o).toEqual({ status: 'fail', error: `AssertionError: total ${1500 + i} != 1500` });
    });
  });

  it('leaves no __pycache__ next to the module', async () => {
    const client = await start(properties());
    await client.list();
    expect(readdirSync(path.dirname(properties()))).not.toContain('__pycache__');
  });
});

describe('the adapter with other modules', () => {
  it('keeps the protocol clean whatever the properties print', async () => {
    const file = writeModule(
      'noisy.py',
      `import os, subprocess, sys
print("printed at import")
def noisy(fx):
    print("print", fx)
    sys.stdout.write("sys.stdout\\n")
    sys.__stdout__.write("sys.__stdout__\\n")
    sys.__stdout__.flush()
    os.write(1, b"fd 1\\n")
    subprocess.run(["echo", "a subprocess"], check=True)
    assert sys.stdin.read() == ""
PROPERTIES = [{"name": "noisy", "claimed_fields": [], "check": noisy}]
`,
    );
    const client = await start(file);
    expect(await client.check('noisy', [{ a: 1 }, { a: 2 }])).toEqual([
      { status: 'pass' },
      { status: 'pass' },
    ]);
    await client.close();
    const stderr = client.stderrTail(50).join('\n');
    for (const bit of [
      'printed at import',
      "print {'a': 2}",
      'sys.stdout',
      'sys.__stdout__',
      'fd 1',
      'a subprocess',
    ]) {
      expect(stderr).toContain(bit);
    }
  });

  it('fails a check that returns False, passes one that returns None or a falsy non-False value', async () => {
    const file = writeModule(
      'returns.py',
      `PROPERTIES = [
    {"name": "false", "claimed_fields": set(), "check": lambda fx: False},
    {"name": "none", "claimed_fields": set(), "check": lambda fx: None},
    {"name": "zero", "claimed_fields": set(), "check": lambda fx: 0},
    {"name": "by_value", "claimed_fields": {"ok"}, "check": lambda fx: fx["ok"]},
]
`,
    );
    const client = await start(file);
    expect(await client.check('false', [{}])).toEqual([{ status: 'fail', error: 'check returned False' }]);
    expect(await client.check('none', [{}])).toEqual([{ status: 'pass' }]);
    expect(await client.check('zero', [{}])).toEqual([{ status: 'pass' }]);
    expect(await client.check('by_value', [{ ok: true }, { ok: false }])).toEqual([
      { status: 'pass' },
      { status: 'fail', error: 'check returned False' },
    ]);
  });

  it('turns any exception, SystemExit included, into a one-line fail and keeps serving', async () => {
    const file = writeModule(
      'raises.py',
      `import sys
class Custom(Exception):
    pass
def check(fx):
    kind = fx["kind"]
    if kind == "exit":
        sys.exit("bye")
    if kind == "custom":
        raise Custom("first line\\nsecond line")
    if kind == "bare":
        assert fx["x"] == 1
    if kind == "key":
        return fx["missing"]
PROPERTIES = [{"name": "raises", "claimed_fields": ["kind"], "check": check}]
`,
    );
    const client = await start(file);
    expect(
      await client.check(
        'raises',
        ['exit', 'custom', 'bare', 'key', 'none'].map((kind) => ({ kind, x: 2 })),
      ),
    ).toEqual([
      { status: 'fail', error: 'SystemExit: bye' },
      { status: 'fail', error: 'Custom: first line' },
      { status: 'fail', error: 'AssertionError' },
      { status: 'fail', error: "KeyError: 'missing'" },
      { status: 'pass' },
    ]);
  });

  it('gives each fixture its own objects, so a mutating check cannot leak', async () => {
    const file = writeModule(
      'mutates.py',
      `def check(fx):
    assert "seen" not in fx["shared"]
    fx["shared"]["seen"] = True
PROPERTIES = [{"name": "mutates", "claimed_fields": ["shared"], "check": check}]
`,
    );
    const client = await start(file);
    const out = await client.check(
      'mutates',
      Array.from({ length: 5 }, () => ({ shared: {} })),
    );
    expect(out.every((o) => o.status === 'pass')).toBe(true);
  });

  it('round-trips non-ASCII text and accepts objects with attributes', async () => {
    const file = writeModule(
      'unicode.py',
      `class P:
    name = "unicode"
    claimed_fields = frozenset({"name", "emoji"})
    @staticmethod
    def check(fx):
        print("checking", fx["name"], fx["emoji"])
        assert fx["name"] == "żółw" and fx["emoji"] == "\\U0001F422", repr(fx)
PROPERTIES = (P(),)
`,
    );
    const client = await start(file);
    expect(await client.list()).toEqual([{ name: 'unicode', claims: ['emoji', 'name'] }]);
    expect(
      await client.check('unicode', [
        { name: 'żółw', emoji: '🐢' },
        { name: 'zolw', emoji: '🐢' },
      ]),
    ).toEqual([
      { status: 'pass' },
      { status: 'fail', error: "AssertionError: {'name': 'zolw', 'emoji': '🐢'}" },
    ]);
    // stderr is another pipe: all of it has been read once the harness is closed.
    await client.close();
    expect(client.stderrTail().join('\n')).toContain('checking żółw 🐢');
  });

  it('imports a dotted module name from the working directory', async () => {
    writeModule('pkg/__init__.py', '');
    writeModule('pkg/helpers.py', 'LIMIT = 10\n');
    writeModule(
      'pkg/props.py',
      `from pkg.helpers import LIMIT
PROPERTIES = [{"name": "under_limit", "claimed_fields": ["n"], "check": lambda fx: fx["n"] < LIMIT}]
`,
    );
    const client = await start('pkg.props');
    expect(await client.check('under_limit', [{ n: 3 }, { n: 30 }])).toEqual([
      { status: 'pass' },
      { status: 'fail', error: 'check returned False' },
    ]);
  });

  it("puts a .py file's folder on sys.path, relative paths resolved from cwd", async () => {
    writeModule('sub/local_helper.py', 'def ok(fx):\n    return fx == {"x": 1}\n');
    writeModule(
      'sub/props_with_helper.py',
      'from local_helper import ok\nPROPERTIES = [{"name": "h", "claimed_fields": ["x"], "check": ok}]\n',
    );
    const client = await start(path.join('sub', 'props_with_helper.py'));
    expect(await client.check('h', [{ x: 1 }, { x: 2 }])).toEqual([
      { status: 'pass' },
      { status: 'fail', error: 'check returned False' },
    ]);
  });

  it('an unknown property is an error response, not a crash', async () => {
    const client = await start(sharedFile('reference', 'seed000', 'properties.py'));
    await expect(client.check('nope', [{}])).rejects.toMatchObject({
      code: 'HARNESS_REQUEST_FAILED',
      message: expect.stringContaining("unknown property 'nope'"),
    });
    expect(await client.list()).toHaveLength(1);
  });

  it('carries megabyte fixtures', async () => {
    const file = writeModule(
      'big.py',
      'PROPERTIES = [{"name": "len", "claimed_fields": ["s"], "check": lambda fx: len(fx["s"]) == 3_000_000}]\n',
    );
    const client = await start(file, { batchSize: 4 });
    const big = { s: 'q'.repeat(3_000_000) };
    expect(await client.check('len', [big, big, { s: 'short' }, big, big])).toEqual([
      { status: 'pass' },
      { status: 'pass' },
      { status: 'fail', error: 'check returned False' },
      { status: 'pass' },
      { status: 'pass' },
    ]);
  });

  it("does not pass the test process's environment to the properties", async () => {
    process.env.PATCHGATE_TEST_SECRET = 'do-not-leak';
    try {
      const file = writeModule(
        'env_probe.py',
        `import os
def check(fx):
    assert "PATCHGATE_TEST_SECRET" not in os.environ, "leaked"
    assert os.environ.get("GIVEN") == "yes", "GIVEN missing"
PROPERTIES = [{"name": "env", "claimed_fields": [], "check": check}]
`,
      );
      const client = await start(file, { env: { ...ENV, GIVEN: 'yes' } });
      expect(await client.check('env', [{}])).toEqual([{ status: 'pass' }]);
    } finally {
      delete process.env.PATCHGATE_TEST_SECRET;
    }
  });

  it('a hung Python check times out and the interpreter is gone', async () => {
    const file = writeModule(
      'sleepy.py',
      'import time\nPROPERTIES = [{"name": "sleepy", "claimed_fields": [], "check": lambda fx: time.sleep(60)}]\n',
    );
    const client = await start(file, { timeoutMs: 100 });
    const pid = client.pid!;
    await expect(client.check('sleepy', [{}, {}])).rejects.toMatchObject({ code: 'HARNESS_TIMEOUT' });
    expect(alive(pid)).toBe(false);
  });
});

describe('start errors', () => {
  it('a module without PROPERTIES', async () => {
    const err = await startError(writeModule('empty.py', 'X = 1\n'));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toMatch(/empty\.py does not define PROPERTIES/);
  });

  it('a syntax error shows the last line of the Python traceback', async () => {
    const file = writeModule('broken.py', 'def f(:\n    pass\nPROPERTIES = []\n');
    const direct = spawnSync('python3', [file], { env: ENV, encoding: 'utf8' });
    const lastLine = direct.stderr.trim().split('\n').pop()!;
    expect(lastLine).toMatch(/^SyntaxError: /);
    const err = await startError(file);
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain(`before answering hello: ${lastLine}`);
    expect(err.message).toContain('Traceback');
  });

  it('an exception at import', async () => {
    const err = await startError(writeModule('raises_at_import.py', 'raise RuntimeError("no database")\n'));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain('RuntimeError: no database');
  });

  it.each([
    ['not_a_list.py', 'PROPERTIES = {"a": 1}\n', 'PROPERTIES must be a list, not dict'],
    ['no_check.py', 'PROPERTIES = [{"name": "a", "claimed_fields": []}]\n', "has no 'check' key"],
    [
      'dup.py',
      'PROPERTIES = [{"name": "a", "claimed_fields": [], "check": print}] * 2\n',
      'PROPERTIES[1] (a): duplicate property name',
    ],
    [
      'str_claims.py',
      'PROPERTIES = [{"name": "a", "claimed_fields": "ab", "check": print}]\n',
      'not a string',
    ],
    [
      'not_callable.py',
      'PROPERTIES = [{"name": "a", "claimed_fields": [], "check": 3}]\n',
      'check is not callable',
    ],
  ])('%s is refused with a clear message', async (name, source, reason) => {
    const err = await startError(writeModule(name, source));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain(reason);
  });

  it('a missing module file', async () => {
    const err = await startError(path.join(dir, 'nowhere.py'));
    expect(err.code).toBe('HARNESS_START_FAILED');
    expect(err.message).toContain('no such file');
  });
});
