/**
 * The sandbox door's own edges, through the real bubblewrap of this machine:
 * what a head process can write (and what that costs it against the caps),
 * its temp folder, and its network when user-mode networking is missing or
 * broken. The CLI-level attacks are in test/e2e/sandbox-edges.test.ts.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommandCheck } from '../../../src/runners/command/command-check.js';
import { runLogged } from '../../../src/runners/tests/run-tests.js';
import { sandboxResolvConf } from '../../../src/sandbox/network.js';
import { type HeadProcess, type LimitBreach, Sandbox } from '../../../src/sandbox/sandbox.js';
import { tempDir } from '../../helpers/gitdir.js';
import { type HostListeners, hostListeners } from '../../helpers/host-listeners.js';
import { testSandbox } from '../../helpers/sandbox.js';

const MiB = 1024 ** 2;
const base = await testSandbox();
if (base.isolation.mode !== 'bwrap') {
  throw new Error(
    `these tests need the bubblewrap sandbox, and this machine has none: ${base.isolation.reason}`,
  );
}

function sandboxWith(limits: ConstructorParameters<typeof Sandbox>[1] = {}, tools = base.isolation.tools) {
  return new Sandbox({ ...base.isolation, ...(tools ? { tools } : {}) }, limits);
}

/** Runs `script` with /bin/sh in the sandbox; resolves with what it printed and how it ended. */
function sh(
  sandbox: Sandbox,
  script: string,
  opts: { cwd?: string; env?: Record<string, string>; network?: boolean } = {},
): Promise<{ out: string; code: number | null; breach: LimitBreach | undefined; proc: HeadProcess }> {
  const cwd = opts.cwd ?? tempDir('pg-edges-');
  const proc = sandbox.spawn({
    argv: ['/bin/sh', '-c', script],
    cwd,
    env: { PATH: '/usr/bin:/bin', ...opts.env },
    writable: [cwd],
    ...(opts.network ? { network: true } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.child.stdout?.on('data', (b: Buffer) => {
    out += b.toString('utf8');
  });
  proc.child.stderr?.on('data', (b: Buffer) => {
    out += b.toString('utf8');
  });
  return new Promise((resolve) => {
    proc.child.once('close', (code, signal) => {
      resolve({ out, code: proc.exitOf(code, signal).code, breach: proc.breach, proc });
    });
  });
}

describe('what a head process may write', () => {
  it("gets a temp folder it can write whatever the gate's own TMPDIR, TEMP and TMP are", async () => {
    const gateTmp = tempDir('pg-gate-tmp-');
    const r = await sh(base, 'echo "$TMPDIR $TEMP $TMP $HOME"; d=$(mktemp -d) && echo made "$d"', {
      env: { TMPDIR: gateTmp, TEMP: gateTmp, TMP: gateTmp, HOME: '/root' },
    });
    expect(r.out).toContain('/tmp /tmp /tmp /tmp\n');
    expect(r.out).toMatch(/made \/tmp\/tmp\.\w+/);
  });

  it('keeps a TMPDIR that names a folder it may write', async () => {
    const cwd = tempDir('pg-edges-');
    const own = path.join(cwd, 'tmp');
    mkdirSync(own);
    const r = await sh(base, 'echo "$TMPDIR"; touch "$TMPDIR/x" && echo wrote', {
      cwd,
      env: { TMPDIR: own },
    });
    expect(r.out).toBe(`${own}\nwrote\n`);
  });

  it("cannot write bubblewrap's own root or /dev (RAM no cap would see), only its mounts", async () => {
    // A name no checkout path starts with: a clone under /tmp/x would be mounted read-only at /tmp/x.
    const r = await sh(
      base,
      'for p in /pg-probe /dev/pg-probe /var/pg-probe /tmp/pg-probe /dev/shm/pg-probe; do if touch "$p" 2>/dev/null; then echo "$p yes"; else echo "$p no"; fi; done',
    );
    expect(r.out).toBe(
      '/pg-probe no\n/dev/pg-probe no\n/var/pg-probe no\n/tmp/pg-probe yes\n/dev/shm/pg-probe yes\n',
    );
  });

  it('has its /tmp and /dev/shm sized to the memory cap', async () => {
    const r = await sh(sandboxWith({ limits: { memoryBytes: 96 * MiB } }), 'df -k /tmp /dev/shm | tail -n 2');
    const sizes = r.out
      .trim()
      .split('\n')
      .map((l) => Number(l.split(/\s+/)[1]));
    expect(sizes).toEqual([96 * 1024, 96 * 1024]);
  });
});

describe('memory-backed folders count against the memory cap', () => {
  it('stops a process that fills /tmp: limit tmpfs, the mount, and the two parts of what it used', async () => {
    const r = await sh(
      sandboxWith({ limits: { memoryBytes: 96 * MiB } }),
      'head -c 200000000 /dev/zero > /tmp/fill; sleep 30',
    );
    expect(r.breach).toMatchObject({
      limit: 'tmpfs',
      cap: 96 * MiB,
      mount: '/tmp',
      setting: 'sandbox.limits.memoryMb',
    });
    expect((r.breach?.resident ?? 0) + (r.breach?.tmpfs ?? 0)).toBe(r.breach?.observed);
    expect(r.breach?.observed).toBeGreaterThan(96 * MiB);
  });

  it('counts a tmpfs it mounts in a mount namespace of its own', async () => {
    const probe = await sh(base, 'unshare -Urm true && echo can');
    // Where the kernel lets it nest a user namespace, it can mount a tmpfs no mount of ours holds.
    expect(probe.out).toContain('can');
    const r = await sh(
      sandboxWith({ limits: { memoryBytes: 96 * MiB } }),
      'mkdir -p /tmp/own && exec unshare -Urm sh -c "mount -t tmpfs -o size=400m none /tmp/own && head -c 200000000 /dev/zero > /tmp/own/fill; sleep 30"',
    );
    expect(r.breach).toMatchObject({ limit: 'tmpfs', mount: '/tmp/own' });
  });
});

describe('a stopped check is no answer', () => {
  it('a per-mutant command stopped for a cap is an error carrying the cap, never a failing check (a killed mutant)', async () => {
    const cwd = tempDir('pg-edges-');
    const tmpDir = tempDir('pg-edges-fixtures-');
    chmodSync(tmpDir, 0o755);
    const run = runCommandCheck({
      command: ['/bin/sh', '-c', 'head -c 200000000 /dev/zero > /tmp/fill; sleep 10; exit 1'],
      cwd,
      sandbox: sandboxWith({ limits: { memoryBytes: 96 * MiB } }),
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 20_000,
      fixture: { total_cents: 1 },
      tmpDir,
    });
    await expect(run).rejects.toMatchObject({
      code: 'HARNESS_CRASHED',
      details: { limit: { limit: 'tmpfs', mount: '/tmp', cap: 96 * MiB } },
    });
  });
});

describe('the disk cap', () => {
  it('stops a process that writes many small files: limit disk, the folder and the entry that grew', async () => {
    const cwd = tempDir('pg-edges-');
    const r = await sh(
      sandboxWith({ limits: { diskBytes: 16 * MiB } }),
      'mkdir junk; i=0; while [ $i -lt 40000 ]; do echo x > junk/f$i; i=$((i+1)); done; sleep 30',
      { cwd },
    );
    expect(r.breach).toMatchObject({
      limit: 'disk',
      cap: 16 * MiB,
      folder: cwd,
      entry: 'junk',
      setting: 'sandbox.limits.diskMb',
    });
    expect(r.breach?.observed).toBeGreaterThan(16 * MiB);
    expect(r.breach?.message).toContain(`${cwd}/junk`);
  });

  it('is one budget for every process writing a folder: a rerun cannot spend it again', async () => {
    const cwd = tempDir('pg-edges-');
    const sandbox = sandboxWith({ limits: { diskBytes: 16 * MiB } });
    await sandbox.grant(cwd);
    const write = (name: string, bytes: number) => `head -c ${bytes} /dev/zero > ${name}; sleep 3`;
    const first = await sh(sandbox, write('one', 10 * MiB), { cwd });
    expect(first.breach).toBeUndefined();
    // 8 MiB alone is under the cap: it is stopped for what the first run left.
    const second = await sh(sandbox, write('two', 8 * MiB), { cwd });
    expect(second.breach).toMatchObject({ limit: 'disk', entry: 'one', entryBytes: 10 * MiB });
    expect(second.breach?.observed).toBeGreaterThan(16 * MiB);
  });

  it('a folder the gate made again starts a new budget', async () => {
    const sandbox = sandboxWith({ limits: { diskBytes: 16 * MiB } });
    const cwd = tempDir('pg-edges-');
    const io = path.join(cwd, 'io');
    mkdirSync(io);
    await sandbox.grant(io);
    writeFileSync(path.join(io, 'old'), Buffer.alloc(20 * MiB));
    expect((await sh(sandbox, 'sleep 2', { cwd: io })).breach).toMatchObject({ limit: 'disk' });
    // Removed and made again, as a rerun's io folder is: what the last one held is not this one's.
    rmSync(io, { recursive: true });
    mkdirSync(io);
    await sandbox.grant(io);
    expect(
      (await sh(sandbox, `head -c ${8 * MiB} /dev/zero > new; sleep 2`, { cwd: io })).breach,
    ).toBeUndefined();
  });
});

describe('network: never the host namespace', () => {
  let l: HostListeners;
  beforeAll(async () => {
    l = await hostListeners();
  });
  afterAll(async () => {
    await l.close();
  });

  const reach = (port: number) =>
    `node -e "const s=require('net').connect(${port},'127.0.0.1');s.on('data',d=>{console.log('got '+d);process.exit(0)});s.on('error',e=>{console.log('blocked '+e.code);process.exit(0)})"; getent hosts registry.npmjs.org >/dev/null && echo resolved || echo unresolved`;

  it('without slirp4netns a process given network is offline in its own namespace, and the sandbox says why', async () => {
    const { slirp4netns: _gone, ...tools } = base.isolation.tools ?? { bwrap: 'bwrap' };
    const sandbox = sandboxWith({}, tools);
    expect(await sandbox.checkNetwork()).toMatchObject({
      available: false,
      reason: expect.stringContaining('slirp4netns is not installed'),
      next: expect.stringContaining('apt-get install -y slirp4netns'),
    });
    const accepted0 = l.accepted();
    const r = await sh(sandbox, reach(l.tcp4), { network: true });
    expect(r.out).toBe('blocked ECONNREFUSED\nunresolved\n');
    expect(l.accepted()).toBe(accepted0);
  });

  it('a user-mode networking tool that fails stops the process before any head code, with why; later ones run offline', async () => {
    const tools = { ...(base.isolation.tools ?? { bwrap: 'bwrap' }), slirp4netns: '/bin/false' };
    const sandbox = sandboxWith({}, tools);
    const cwd = tempDir('pg-edges-');
    const marker = path.join(cwd, 'ran');
    const run = runLogged({
      sandbox,
      cwd,
      network: true,
      argv: ['/bin/sh', '-c', `touch ${marker}`],
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 20_000,
      outDir: path.join(cwd, 'logs'),
      label: 'net',
    });
    await expect(run).rejects.toMatchObject({
      code: 'SANDBOX_NETWORK_UNAVAILABLE',
      message: expect.stringContaining('slirp4netns exited with code 1 before the network was up'),
    });
    expect(() => readFileSync(marker)).toThrow();
    expect(await sandbox.checkNetwork()).toMatchObject({ available: false });
    const offline = await sh(sandbox, reach(l.tcp4), { network: true });
    expect(offline.out).toBe('blocked ECONNREFUSED\nunresolved\n');
  });

  it("gives the sandbox slirp's resolver, keeping the host's search domains and options", () => {
    expect(sandboxResolvConf('nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch corp.example\n')).toBe(
      'nameserver 10.0.2.3\noptions edns0 trust-ad\nsearch corp.example\n',
    );
    expect(sandboxResolvConf(undefined)).toBe('nameserver 10.0.2.3\n');
  });
});

describe('stopAll', () => {
  it('ends a head process still writing into its checkout, and returns only once it is gone', async () => {
    const sandbox = sandboxWith();
    const cwd = tempDir('pg-edges-');
    // A run abandoned when another run failed first: it would go on writing while the gate removes the folder.
    const run = sh(sandbox, 'while :; do echo x >> out.txt; sleep 0.05; done', { cwd });
    await new Promise((r) => setTimeout(r, 500));
    await sandbox.stopAll();
    const ended = await Promise.race([
      run.then(() => 'ended'),
      new Promise((r) => setTimeout(() => r('running'), 100)),
    ]);
    expect(ended).toBe('ended');
    const size = readFileSync(path.join(cwd, 'out.txt')).length;
    await new Promise((r) => setTimeout(r, 300));
    expect(readFileSync(path.join(cwd, 'out.txt')).length).toBe(size);
  });
});
