import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkGuard,
  GUARD_REPORT,
  type GuardSpec,
  guardEnv,
} from '../../../../src/runners/tests/python-guard.js';
import { runLogged } from '../../../../src/runners/tests/run-tests.js';
import { shippedPythonFile } from '../../../../src/util/package-root.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

/** Runs pytest in `root` with the gate's guard, through the sandbox, and checks what it reported. */
async function guarded(
  files: Record<string, string>,
  opts: {
    python?: string;
    env?: (env: Record<string, string>) => Record<string, string>;
    isTestPath?: (f: string) => boolean;
    args?: string[];
    /** Folders the sandboxed run may read besides its checkout. */
    readOnly?: string[];
  } = {},
) {
  const root = tempDir('pg-guard-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  const logDir = tempDir('pg-guard-logs-');
  const io = path.join(logDir, 'io');
  mkdirSync(io);
  await sandbox.grant(root);
  await sandbox.grant(io);
  const spec: GuardSpec = {
    root,
    trusted: [],
    report: path.join(io, GUARD_REPORT),
    plugins: [],
    addopts: [],
  };
  const base = { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' };
  const env = { ...base, ...guardEnv(base, spec) };
  const run = await runLogged({
    sandbox,
    cwd: root,
    writable: [root, io],
    ...(opts.readOnly ? { readOnly: opts.readOnly } : {}),
    argv: [opts.python ?? 'python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...(opts.args ?? [])],
    env: opts.env ? opts.env(env) : env,
    channel: true,
    timeoutMs: 60_000,
    outDir: logDir,
    label: 'run',
  });
  const result = await checkGuard({
    spec,
    manifest: run.channel,
    required: true,
    isTestPath: opts.isTestPath ?? (() => false),
  });
  return { run, result, root };
}

const PASSING = { 'tests/test_ok.py': 'def test_ok():\n    assert True\n' };

describe("the gate's pytest loader and guard", () => {
  it("collects what pyproject.toml's native [tool.pytest] table says on a pytest older than 9 (a bench/ left out)", async () => {
    const { run, result } = await guarded({
      ...PASSING,
      'pyproject.toml': '[tool.pytest]\ntestpaths = [ "tests" ]\naddopts = ["-x"]\n',
      // pytest 7 would collect it and fail: the fixture comes from a plugin the project installs only for benches.
      'bench/test_bench.py': 'def test_speed(benchmark):\n    benchmark(lambda: None)\n',
    });
    expect(run.exitCode).toBe(0);
    expect(result.collected?.map((c) => c.nodeid)).toEqual(['tests/test_ok.py::test_ok']);
  });

  it("report the gate's own plugins, loaded from the gate's folder, and every selected test", async () => {
    const { run, result } = await guarded(PASSING);
    expect(run.exitCode).toBe(0);
    expect(result.started).toBe(true);
    expect(result.problems).toEqual([]);
    expect(result.collected).toEqual([
      { nodeid: 'tests/test_ok.py::test_ok', classname: 'tests.test_ok', name: 'test_ok' },
    ]);
  }, 60_000);

  it('name a gate plugin loaded from another folder, with both digests', async () => {
    const elsewhere = tempDir('pg-guard-elsewhere-');
    copyFileSync(shippedPythonFile('patchgate_guard.py'), path.join(elsewhere, 'patchgate_guard.py'));
    writeFileSync(path.join(elsewhere, 'patchgate_guard.py'), '\n# a changed copy\n', { flag: 'a' });
    await sandbox.grant(elsewhere);
    const { result } = await guarded(PASSING, {
      readOnly: [elsewhere],
      // The copy's folder between the loader's and the gate's plugins: it is found first.
      env: (env) => {
        const [boot, ...rest] = (env.PYTHONPATH ?? '').split(':');
        return { ...env, PYTHONPATH: [boot, elsewhere, ...rest].join(':') };
      },
    });
    expect(result.problems).toEqual([
      expect.objectContaining({
        module: 'patchgate_guard',
        expected: expect.stringContaining(shippedPythonFile('patchgate_guard.py')),
        found: expect.stringContaining(path.join(elsewhere, 'patchgate_guard.py')),
      }),
    ]);
  }, 60_000);

  it('name code that imported the toolchain before the loader ran (a .pth line of a site folder)', async () => {
    const venv = tempDir('pg-guard-venv-');
    execFileSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', '--system-site-packages', venv]);
    const lib = readdirSync(path.join(venv, 'lib'))[0] as string;
    writeFileSync(
      path.join(venv, 'lib', lib, 'site-packages', 'evil.pth'),
      'import sys; sys.path.append("/usr/lib/python3/dist-packages"); import pytest\n',
    );
    await sandbox.grant(venv);
    const { result } = await guarded(PASSING, {
      python: path.join(venv, 'bin', 'python3'),
      readOnly: [venv],
    });
    expect(result.problems.map((p) => p.module)).toContain('pytest');
    expect(result.problems[0]?.what).toMatch(/already imported when the gate's loader started/);
  }, 60_000);

  it("record the loader's own failure without blaming the patch", async () => {
    const { result } = await guarded(PASSING, {
      env: (env) => ({ ...env, PATCHGATE_GUARD_MODULES: 'patchgate_guard,patchgate_no_such_plugin' }),
    });
    expect(result.loaderError).toMatch(/patchgate_no_such_plugin/);
    expect(result.problems).toEqual([]);
  }, 60_000);

  it('count a module that shadows a standard name only when the file is production code', async () => {
    const files = {
      'colorsys.py': 'X = 1\n',
      'test_root.py': 'import colorsys\n\n\ndef test_it():\n    assert colorsys.X == 1\n',
    };
    const production = await guarded(files);
    expect(production.result.problems).toEqual([
      expect.objectContaining({ module: 'colorsys', file: 'colorsys.py' }),
    ]);
    const testSide = await guarded(files, { isTestPath: (f) => f === 'colorsys.py' });
    expect(testSide.result.problems).toEqual([]);
  }, 60_000);

  it('leave Python processes the tests start to behave as Python does (a script imports its neighbour)', async () => {
    const { run, result } = await guarded({
      'tools/helper.py': 'VALUE = 7\n',
      'tools/script.py': 'import helper\nprint(helper.VALUE)\n',
      'tests/test_child.py':
        'import subprocess, sys\n\n\ndef test_child():\n    out = subprocess.run([sys.executable, "tools/script.py"], capture_output=True, text=True)\n    assert out.stdout.strip() == "7", out.stderr\n',
    });
    expect(run.exitCode).toBe(0);
    expect(result.problems).toEqual([]);
  }, 60_000);
});

describe('checkGuard on what arrived', () => {
  const spec = (root: string): GuardSpec => ({
    root,
    trusted: [],
    report: path.join(root, 'no-report.json'),
    plugins: [],
    addopts: [],
  });

  it('treats a missing manifest as a problem only where the gate started Python itself', async () => {
    const root = tempDir('pg-guard-none-');
    const required = await checkGuard({
      spec: spec(root),
      manifest: undefined,
      required: true,
      isTestPath: () => false,
    });
    expect(required.problems.map((p) => p.what)).toEqual([expect.stringMatching(/loader never reported/)]);
    const custom = await checkGuard({
      spec: spec(root),
      manifest: undefined,
      required: false,
      isTestPath: () => false,
    });
    expect(custom.problems).toEqual([]);
  });

  it('reads a manifest that is not the loader’s as no manifest at all', async () => {
    const root = tempDir('pg-guard-garbled-');
    const r = await checkGuard({
      spec: spec(root),
      manifest: '{"schema": "patchgate/guard-start@1", "modules": []}',
      required: true,
      isTestPath: () => false,
    });
    expect(r.started).toBe(false);
    expect(r.problems.map((p) => p.what)).toEqual([expect.stringMatching(/not what the loader writes/)]);
  });

  it('names a toolchain module loaded from inside the checkout', async () => {
    const root = tempDir('pg-guard-tool-');
    writeFileSync(path.join(root, 'pytest.py'), '');
    const manifest = JSON.stringify({
      schema: 'patchgate/guard-start@1',
      preloaded: [],
      toolchain: { pytest: path.join(root, 'pytest.py') },
      modules: {},
      error: 'stopped early',
    });
    const r = await checkGuard({ spec: spec(root), manifest, required: true, isTestPath: () => false });
    expect(r.problems).toEqual([expect.objectContaining({ module: 'pytest', file: 'pytest.py' })]);
  });
});
