/**
 * The sandbox's own edges, played for real through the built CLI: head code
 * the base config gives network (the setup command, a test run) against real
 * listeners on the host's loopback and an abstract unix socket; head code
 * that fills its /tmp, /dev/shm or its checkout past the caps; and a gate
 * whose own TMPDIR head code cannot see. Each asserts the verdict, the reason
 * code and its evidence, and that the machine is left clean.
 */
import { chownSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { processesWith } from '../helpers/fake-harness.js';
import {
  type GitDir,
  leftoverTempDirs,
  GitDir as Repo,
  type RunAs,
  runCli,
  tempDir,
} from '../helpers/gitdir.js';
import { hitsRepo, TS_INVOICE_PROPERTY } from '../helpers/hits-repo.js';
import { type HostListeners, hostListeners, probeFound, probeScript } from '../helpers/host-listeners.js';
import { readScorecard, type Scorecard } from '../helpers/out.js';

const MiB = 1024 ** 2;
const JUNIT_PASS = `printf '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>' > "$1"\n`;

/** A folder for the gate's own TMPDIR, outside /tmp, as many CI runners set it. */
function privateTmp(owner?: RunAs): string {
  const dir = tempDir('pg-gate-tmpdir-');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

async function check(
  repo: GitDir,
  opts: { args?: string[]; env?: Record<string, string | undefined>; as?: RunAs; tmp?: string } = {},
) {
  const out = tempDir('pg-edges-out-');
  if (opts.as) chownSync(out, opts.as.uid, opts.as.gid);
  const tmp = opts.tmp ?? privateTmp(opts.as);
  const r = await runCli(
    ['check', '--base', 'main', '--out', out, '--today', '2026-12-01', ...(opts.args ?? [])],
    {
      cwd: repo.dir,
      env: { CI: undefined, TMPDIR: tmp, ...opts.env },
      ...(opts.as ? { as: opts.as } : {}),
    },
  );
  // A run the sandbox could not start writes no scorecard; the tests say when that is expected.
  const card = existsSync(path.join(out, 'scorecard.json')) ? readScorecard(out, r) : undefined;
  return { ...r, out, tmp, card, codes: card?.findings.map((f) => f.code) ?? [] };
}

const finding = (card: Scorecard | undefined, code: string) => card?.findings.find((f) => f.code === code);

/** A repo whose tests run `run.sh` (a passing report) after `setup`, with the signatures layer on. */
function testsRepo(
  tests: Record<string, unknown>,
  files: Record<string, string>,
  sandbox?: Record<string, unknown>,
) {
  return Repo.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { command: ['sh', 'run.sh', '{junit}'], timeoutMs: 120_000, ...tests },
      signatures: {},
      ...(sandbox ? { sandbox } : {}),
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    'run.sh': JUNIT_PASS,
    ...files,
  });
}

function chownTree(dir: string, as: RunAs): void {
  chownSync(dir, as.uid, as.gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(p, as);
    else chownSync(p, as.uid, as.gid);
  }
}

/** Everything that shows the host was reached: the probe's own words, and the host's count. */
function expectHostUnreached(
  found: Record<string, unknown> | undefined,
  l: HostListeners,
  accepted0: number,
) {
  expect(found).toBeDefined();
  expect(found?.tcp4).toMatch(/^blocked:/);
  expect(found?.gateway).toMatch(/^blocked:/);
  expect(found?.abstract).toMatch(/^blocked:/);
  if (l.tcp6 !== undefined) expect(found?.tcp6).toMatch(/^blocked:/);
  expect(l.accepted()).toBe(accepted0);
}

describe(
  'head code given network gets its own, never the host loopback (real listeners)',
  { timeout: 300_000 },
  () => {
    let l: HostListeners;
    beforeAll(async () => {
      l = await hostListeners();
    });
    afterAll(async () => {
      await l.close();
    });

    it('a setup command cannot reach 127.0.0.1, ::1 or an abstract unix socket of the host, and still resolves and asks the npm registry', async () => {
      const accepted0 = l.accepted();
      const repo = testsRepo({ setup: ['node', 'probe.mjs'] }, { 'probe.mjs': probeScript(l, 1) });
      const r = await check(repo, { args: ['--head', 'HEAD'] });
      expect(r.card?.isolation).toEqual({ mode: 'bwrap', user: 'separate' });
      // The probe fails its install on purpose, so its findings come back in the finding's output.
      const f = finding(r.card, 'SETUP_FAILED');
      const found = probeFound(String(f?.evidence.output));
      expectHostUnreached(found, l, accepted0);
      expect(found?.dns).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(found?.npm).toMatch(/^\d+\.\d+\.\d+$/);
      expect(found?.uid).toBe(65534);
      expect(r.codes).not.toContain('SANDBOX_NETWORK_UNAVAILABLE');
    });

    it('the same when the gate is not root: head code in its user namespace, the network namespace held for it', async () => {
      const accepted0 = l.accepted();
      const nobody: RunAs = { uid: 65534, gid: 65534 };
      expect(statSync(os.tmpdir()).mode & 0o001, `${os.tmpdir()} must be traversable by other users`).toBe(1);
      const repo = testsRepo({ setup: ['node', 'probe.mjs'] }, { 'probe.mjs': probeScript(l, 1) });
      chownTree(repo.dir, nobody);
      const home = tempDir('pg-edges-home-');
      chownSync(home, nobody.uid, nobody.gid);
      const r = await check(repo, {
        args: ['--head', 'HEAD'],
        as: nobody,
        env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin' },
      });
      expect(r.card?.isolation.user).toBe('same');
      const found = probeFound(String(finding(r.card, 'SETUP_FAILED')?.evidence.output));
      expectHostUnreached(found, l, accepted0);
      expect(found?.dns).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(found?.npm).toMatch(/^\d+\.\d+\.\d+$/);
    });

    it('a test run the config gives tests.network gets the same: the registry, never the host loopback', async () => {
      const accepted0 = l.accepted();
      const repo = testsRepo(
        { command: ['node', 'probe.mjs', '{junit}'], network: true },
        { 'probe.mjs': probeScript(l, 0) },
      );
      const r = await check(repo, { args: ['--head', 'HEAD'] });
      // It writes no report: the finding carries its output.
      const found = probeFound(String(finding(r.card, 'TESTS_NO_REPORT')?.evidence.output));
      expectHostUnreached(found, l, accepted0);
      expect(found?.npm).toMatch(/^\d+\.\d+\.\d+$/);
    });

    it('accepts a benign patch whose setup installs a package from the registry', async () => {
      const repo = testsRepo(
        { setup: ['npm', 'install', '--no-audit', '--no-fund', '--no-update-notifier'] },
        {
          'package.json': '{"name": "t", "private": true, "dependencies": {"is-number": "7.0.0"}}\n',
          'run.sh': `node -e "if (!require('is-number')(7)) process.exit(1)" || exit 1\n${JUNIT_PASS}`,
          '.gitignore': 'node_modules\n',
        },
      );
      repo.write({ 'README.md': 'a benign change\n' });
      repo.commit('agent: docs');
      const r = await check(repo, { args: ['--head', 'HEAD'] });
      expect(r.codes).toEqual([]);
      expect(r.card?.verdict).toBe('accept');
    });
  },
);

describe(
  'without slirp4netns, head code given network runs with none, never the host network',
  { timeout: 180_000 },
  () => {
    let l: HostListeners;
    beforeAll(async () => {
      l = await hostListeners();
    });
    afterAll(async () => {
      await l.close();
    });

    /** A PATH with the tools the gate needs but no slirp4netns, readable in the sandbox. */
    function pathWithoutSlirp(): string {
      const bin = tempDir('pg-edges-bin-');
      for (const tool of ['node', 'git', 'bwrap', 'sh'])
        symlinkSync(path.join('/usr/bin', tool), path.join(bin, tool));
      return bin;
    }

    function offlineRepo(bin: string): GitDir {
      return testsRepo(
        { setup: ['node', 'probe.mjs'] },
        { 'probe.mjs': probeScript(l, 1) },
        { readOnly: [bin] },
      );
    }

    it('outside CI: a warning naming the settings, and the setup ran offline in its own namespace', async () => {
      const accepted0 = l.accepted();
      const bin = pathWithoutSlirp();
      const r = await check(offlineRepo(bin), { args: ['--head', 'HEAD'], env: { PATH: bin } });
      const w = finding(r.card, 'SANDBOX_NETWORK_UNAVAILABLE');
      expect(w).toMatchObject({ severity: 'warn', layer: 'gate' });
      expect(w?.evidence).toMatchObject({ settings: ['tests.setupNetwork'], ci: false, network: 'none' });
      expect(w?.message).toContain('slirp4netns is not installed');
      expect(w?.message).toContain('apt-get install -y slirp4netns');
      const found = probeFound(String(finding(r.card, 'SETUP_FAILED')?.evidence.output));
      expectHostUnreached(found, l, accepted0);
      expect(found?.dns).toMatch(/^failed:/);
    });

    it('under CI=true: an error verdict before any head code runs', async () => {
      const bin = pathWithoutSlirp();
      const r = await check(offlineRepo(bin), { args: ['--head', 'HEAD'], env: { PATH: bin, CI: 'true' } });
      // Exit 2: the machine or the config must change, as the finding says.
      expect(r.code).toBe(2);
      expect(r.card?.verdict).toBe('error');
      expect(finding(r.card, 'SANDBOX_NETWORK_UNAVAILABLE')).toMatchObject({ severity: 'error' });
      expect(r.codes).not.toContain('SETUP_FAILED');
      expect(r.card?.layers.find((x) => x.name === 'signatures')).toMatchObject({
        status: 'skipped',
        reason: expect.stringContaining('SANDBOX_NETWORK_UNAVAILABLE'),
      });
    });
  },
);

describe('memory-backed folders and the disk are capped (RESOURCE_LIMIT)', { timeout: 180_000 }, () => {
  /** Head code that writes `total` bytes in 1 MiB files into `dir` (ENOSPC is ignored), then waits to be stopped. */
  const filler = (dir: string, total: number, chunk = MiB) => `import fs from 'node:fs';
import os from 'node:os';
const dir = ${dir};
fs.mkdirSync(dir, { recursive: true });
const buf = Buffer.alloc(${chunk}, 7);
for (let i = 0; i * ${chunk} < ${total}; i++) {
  try { fs.writeFileSync(dir + '/f' + i, buf); } catch {}
}
setTimeout(() => {}, 60000);
`;

  function expectClean(r: { tmp: string }, marker: string) {
    expect(leftoverTempDirs(r.tmp)).toEqual([]);
    expect(processesWith(marker)).toEqual([]);
  }

  it('a test that fills /tmp with twice the memory cap is stopped: tmpfs, with the cap and what it held', async () => {
    const repo = testsRepo(
      { command: ['node', 'fill-tmp.mjs', '{junit}'] },
      { 'fill-tmp.mjs': filler("os.tmpdir() + '/fill'", 256 * MiB) },
      { limits: { memoryMb: 128 } },
    );
    const r = await check(repo, { args: ['--head', 'HEAD'] });
    expect(r.card?.verdict).toBe('reject');
    const f = finding(r.card, 'RESOURCE_LIMIT');
    expect(f?.severity).toBe('reject');
    expect(f?.evidence).toMatchObject({
      limit: 'tmpfs',
      cap: 128 * MiB,
      mount: '/tmp',
      setting: 'sandbox.limits.memoryMb',
      label: 'head-run-1',
    });
    expect(f?.evidence.observed as number).toBeGreaterThan(128 * MiB);
    expect(f?.evidence.tmpfs as number).toBeGreaterThan(0);
    expect(f?.message).toContain('memory-backed folders');
    expectClean(r, 'fill-tmp.mjs');
  });

  it('a test that writes many small files into its checkout past the disk cap is stopped: disk, with the folder that grew', async () => {
    const repo = testsRepo(
      { command: ['node', 'fill-disk.mjs', '{junit}'] },
      { 'fill-disk.mjs': filler("'junk'", 64 * MiB, 4096) },
      { limits: { diskMb: 16 } },
    );
    const r = await check(repo, { args: ['--head', 'HEAD'] });
    expect(r.card?.verdict).toBe('reject');
    const f = finding(r.card, 'RESOURCE_LIMIT');
    expect(f?.evidence).toMatchObject({
      limit: 'disk',
      cap: 16 * MiB,
      entry: 'junk',
      setting: 'sandbox.limits.diskMb',
    });
    expect(f?.evidence.observed as number).toBeGreaterThan(16 * MiB);
    expect(String(f?.evidence.folder)).toMatch(/patchgate-/);
    expect(f?.message).toMatch(/wrote \d+ MiB into .*junk/);
    expectClean(r, 'fill-disk.mjs');
  });

  it('a setup command that fills the checkout is stopped the same way (RESOURCE_LIMIT, not SETUP_FAILED)', async () => {
    const repo = testsRepo(
      { setup: ['node', 'fill-disk.mjs'], setupNetwork: false },
      { 'fill-disk.mjs': filler("'vendor'", 64 * MiB, 4096) },
      { limits: { diskMb: 16 } },
    );
    const r = await check(repo, { args: ['--head', 'HEAD'] });
    expect(r.card?.verdict).toBe('reject');
    expect(r.codes).not.toContain('SETUP_FAILED');
    const f = finding(r.card, 'RESOURCE_LIMIT');
    expect(f?.evidence).toMatchObject({ limit: 'disk', entry: 'vendor', command: ['node', 'fill-disk.mjs'] });
    expect(f?.message).toContain('setup command `node fill-disk.mjs`');
    expectClean(r, 'fill-disk.mjs');
  });

  it('a property that fills /dev/shm is stopped and reported, never scored', async () => {
    const check_ = `const buf = Buffer.alloc(1024 * 1024, 7);
    for (let i = 0; i < 256; i++) { try { fs.writeFileSync('/dev/shm/f' + i, buf); } catch {} }
    return true;`;
    const property = TS_INVOICE_PROPERTY.replace(
      "import { defineProperty } from 'patchgate';",
      "import { defineProperty } from 'patchgate';\nimport * as fs from 'node:fs';",
    ).replace('check(fx) {', `check(fx) {\n    ${check_}`);
    const repo = hitsRepo({ properties: ['properties/*.ts'], maxDepth: 1 }, { 'properties/p.ts': property });
    const config = JSON.parse(readFileSync(repo.path('patchgate.config.json'), 'utf8'));
    config.sandbox = { limits: { memoryMb: 128 } };
    repo.write({ 'patchgate.config.json': JSON.stringify(config) });
    repo.commit('human: a tight memory cap');
    const r = await check(repo);
    expect(r.card?.verdict).not.toBe('accept');
    const f = r.card?.findings.find((x) => x.code === 'RESOURCE_LIMIT' && x.evidence.side === 'head');
    expect(f).toMatchObject({ severity: 'reject', layer: 'hits' });
    expect(f?.evidence).toMatchObject({
      limit: 'tmpfs',
      mount: '/dev/shm',
      cap: 128 * MiB,
      property: 'invoice_total_matches_lines',
    });
    expect(leftoverTempDirs(r.tmp)).toEqual([]);
  });

  it('a seed replay that fills /tmp is stopped and reported with the seed (RESOURCE_LIMIT)', async () => {
    const property = `import fc from 'fast-check';
import fs from 'node:fs';
import { defineSeedProperty } from 'patchgate';
export const fills = defineSeedProperty({
  id: 'fills_tmp',
  property: fc.property(fc.nat(), () => {
    const buf = Buffer.alloc(1024 * 1024, 7);
    for (let i = 0; i < 256; i++) { try { fs.writeFileSync('/tmp/f' + i, buf); } catch {} }
    const end = Date.now() + 5000;
    while (Date.now() < end) {}
    return true;
  }),
  params: { numRuns: 1 },
});
`;
    const repo = Repo.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        seeds: { properties: ['props/*.ts'] },
        sandbox: { limits: { memoryMb: 128 } },
      }),
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'fills_tmp', runner: 'fast-check', min_examples: 1, seeds: ['42'] }],
      }),
      'props/fills.ts': property,
    });
    const r = await check(repo, { args: ['--head', 'HEAD'] });
    expect(r.card?.verdict).toBe('reject');
    const f = finding(r.card, 'RESOURCE_LIMIT');
    expect(f).toMatchObject({ severity: 'reject', layer: 'seeds' });
    expect(f?.evidence).toMatchObject({ property: 'fills_tmp', seed: '42', limit: 'tmpfs', mount: '/tmp' });
    expect(leftoverTempDirs(r.tmp)).toEqual([]);
  });
});

describe("the gate's own TMPDIR", { timeout: 180_000 }, () => {
  it('accepts a benign vitest patch when the gate runs with a private TMPDIR head code cannot see', async () => {
    const repo = vitestRepo({
      'sum.ts': 'export const sum = (a: number, b: number) => a + b;\n',
      'sum.test.ts':
        "import { mkdtempSync, writeFileSync } from 'node:fs';\nimport os from 'node:os';\nimport { expect, it } from 'vitest';\nimport { sum } from './sum';\n" +
        "it('adds', () => {\n  const dir = mkdtempSync(os.tmpdir() + '/t-');\n  writeFileSync(dir + '/x', 'x');\n  expect(sum(1, 2)).toBe(3);\n});\n",
    });
    // The working tree is the head: it borrows the repository's installed vitest.
    repo.write({ 'sum.ts': 'export const sum = (a: number, b: number) => b + a;\n' });
    // Not /tmp itself: inside the sandbox /tmp is a private tmpfs, where the gate's folder does not exist.
    const tmp = privateTmp();
    expect(tmp).not.toBe('/tmp');
    const r = await check(repo, { tmp });
    expect(r.codes).toEqual([]);
    expect(r.card?.verdict).toBe('accept');
    expect(leftoverTempDirs(tmp)).toEqual([]);
  });
});
