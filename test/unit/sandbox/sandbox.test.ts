/**
 * The bubblewrap command line the sandbox builds (`Sandbox.bwrapArgv`), read
 * as bubblewrap reads it: what is mounted and how, which namespaces, which
 * environment, which caps, and what runs last. The e2e tests see the same
 * door from the outside; these pin each piece of the line, so a lost flag
 * fails here by name. A few cases run the real bubblewrap of this machine to
 * show the argv is one it accepts.
 */
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Isolation } from '../../../src/sandbox/isolation.js';
import { recordLentLink } from '../../../src/sandbox/lent-links.js';
import { DEFAULT_LIMITS, type Limits, Sandbox, type SandboxSpec } from '../../../src/sandbox/sandbox.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { tempDir } from '../../helpers/gitdir.js';
import { testSandbox } from '../../helpers/sandbox.js';

/** The argv only reads the tools' paths; these are what Debian installs, whether or not they are here. */
const TOOLS = { bwrap: '/usr/bin/bwrap', setpriv: '/usr/bin/setpriv', prlimit: '/usr/bin/prlimit' };

function isolation(user: 'separate' | 'same', tools: Isolation['tools'] = TOOLS): Isolation {
  return user === 'separate'
    ? { mode: 'bwrap', user, uid: 65534, gid: 65534, tools }
    : { mode: 'bwrap', user, uid: 1000, gid: 1000, tools };
}

function spec(over: Partial<SandboxSpec> & { cwd: string }): SandboxSpec {
  return {
    argv: ['/bin/sh', '-c', 'echo hi'],
    env: { PATH: '/usr/bin:/bin' },
    writable: [over.cwd],
    stdio: ['ignore', 'pipe', 'pipe'],
    ...over,
  };
}

/** bubblewrap's own options: everything before its first `--`. */
function options(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  expect(end, 'bubblewrap options end with --').toBeGreaterThan(0);
  return argv.slice(0, end);
}

/** What runs inside: everything after bubblewrap's first `--`. */
function command(argv: readonly string[]): string[] {
  return argv.slice(argv.indexOf('--') + 1);
}

/** Every `flag a b` triple of bubblewrap's options, in order. */
function triples(argv: readonly string[], flag: string): [string, string][] {
  const opts = options(argv);
  const out: [string, string][] = [];
  opts.forEach((a, i) => {
    if (a === flag) out.push([opts[i + 1] ?? '', opts[i + 2] ?? '']);
  });
  return out;
}

/** The mounts of a host path, as `--bind` (rw) or `--ro-bind` (ro), in the order bubblewrap applies them. */
function mountsOf(argv: readonly string[]): { how: 'rw' | 'ro'; path: string; at: number }[] {
  const opts = options(argv);
  const out: { how: 'rw' | 'ro'; path: string; at: number }[] = [];
  opts.forEach((a, i) => {
    if (a === '--bind' || a === '--ro-bind') {
      const src = opts[i + 1] ?? '';
      expect(opts[i + 2], `${a} ${src} is mounted where it is on the host`).toBe(src);
      out.push({ how: a === '--bind' ? 'rw' : 'ro', path: src, at: i });
    }
  });
  return out;
}

/** The options that make the tmpfs at `dir`: its mode, its size and the mount. */
function tmpfsOf(opts: readonly string[], dir: string): string[] {
  const at = opts.findIndex((a, i) => a === '--tmpfs' && opts[i + 1] === dir);
  expect(at, `a tmpfs at ${dir}`).toBeGreaterThan(0);
  return opts.slice(at - 4, at + 2);
}

function envOf(argv: readonly string[]): Record<string, string> {
  return Object.fromEntries(triples(argv, '--setenv'));
}

describe('bwrapArgv: namespaces', () => {
  it('gives the process its own pid, ipc, uts and network namespaces, a new session, and death with the gate', () => {
    const cwd = tempDir('pg-argv-');
    const opts = options(new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd })));
    for (const flag of [
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--die-with-parent',
      '--new-session',
    ])
      expect(opts, flag).toContain(flag);
    expect(opts.slice(opts.indexOf('--hostname'), opts.indexOf('--hostname') + 2)).toEqual([
      '--hostname',
      'patchgate-sandbox',
    ]);
  });

  it('makes a user namespace only when the gate is not root (as root, setpriv drops the uid instead)', () => {
    const cwd = tempDir('pg-argv-');
    expect(options(new Sandbox(isolation('same')).bwrapArgv(spec({ cwd })))).toContain('--unshare-user');
    expect(options(new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd })))).not.toContain(
      '--unshare-user',
    );
  });

  it('throws instead of building a line when there is no bubblewrap', () => {
    const cwd = tempDir('pg-argv-');
    const bare = new Sandbox({ mode: 'bwrap', user: 'same', uid: 1000, gid: 1000 });
    expect(() => bare.bwrapArgv(spec({ cwd }))).toThrow('bwrapArgv: no bubblewrap');
  });
});

describe('bwrapArgv: what the process sees', () => {
  it('mounts its own folders read-write, listed folders and the gate package read-only, and nothing else of the host', () => {
    const root = tempDir('pg-argv-');
    const cwd = path.join(root, 'head');
    const deps = path.join(root, 'deps');
    const extra = path.join(root, 'extra');
    const baseCheckout = path.join(root, 'base');
    for (const d of [cwd, deps, extra, baseCheckout]) mkdirSync(d);
    const argv = new Sandbox(isolation('separate'), { readOnly: [extra] }).bwrapArgv(
      spec({ cwd, readOnly: [deps] }),
    );
    const mounts = mountsOf(argv);
    const outsideSystem = mounts.filter((m) => !/^\/(usr|bin|sbin|lib\w*|etc|opt)$/.test(m.path));
    expect(
      outsideSystem.map(({ how, path }) => ({ how, path })).sort((a, b) => a.path.localeCompare(b.path)),
    ).toEqual(
      [
        { how: 'ro', path: deps },
        { how: 'ro', path: extra },
        { how: 'rw', path: cwd },
        { how: 'ro', path: packageRoot() },
      ].sort((a, b) => a.path.localeCompare(b.path)),
    );
    expect(mounts.some((m) => m.path === baseCheckout || m.path === root)).toBe(false);
  });

  it('mounts the system folders read-only and never the whole root', () => {
    const cwd = tempDir('pg-argv-');
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd }));
    const mounts = mountsOf(argv);
    expect(mounts.find((m) => m.path === '/usr')).toMatchObject({ how: 'ro' });
    expect(mounts.find((m) => m.path === '/etc')).toMatchObject({ how: 'ro' });
    expect(mounts.filter((m) => m.how === 'rw').map((m) => m.path)).toEqual([cwd]);
    expect(mounts.some((m) => m.path === '/')).toBe(false);
    expect(options(argv)).not.toContain('--dev-bind');
  });

  it('leaves out a listed folder that does not exist (bubblewrap would refuse to start)', () => {
    const cwd = tempDir('pg-argv-');
    const gone = path.join(cwd, 'never-made');
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd, readOnly: [gone] }));
    expect(argv).not.toContain(gone);
  });

  it('mounts a read-only folder inside a writable one after it, so it stays read-only there', () => {
    const cwd = tempDir('pg-argv-');
    const inner = path.join(cwd, 'vendor');
    mkdirSync(inner);
    // Listed first on purpose: the order of the lists must not decide which mount wins.
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd, readOnly: [inner] }));
    const mounts = mountsOf(argv);
    const outer = mounts.find((m) => m.path === cwd);
    const sub = mounts.find((m) => m.path === inner);
    expect(outer?.how).toBe('rw');
    expect(sub?.how).toBe('ro');
    expect(sub?.at ?? -1).toBeGreaterThan(outer?.at ?? Number.POSITIVE_INFINITY);
  });

  it('keeps a sealed dependency folder read-only inside the writable checkout that holds it, and only there', () => {
    const cwd = tempDir('pg-argv-');
    const other = tempDir('pg-argv-other-');
    const sealed = path.join(cwd, 'node_modules');
    const sealedElsewhere = path.join(other, 'node_modules');
    mkdirSync(sealed);
    mkdirSync(sealedElsewhere);
    const sandbox = new Sandbox(isolation('separate'));
    sandbox.seal(sealed);
    sandbox.seal(sealedElsewhere);
    const mounts = mountsOf(sandbox.bwrapArgv(spec({ cwd })));
    const checkout = mounts.find((m) => m.path === cwd);
    const seal = mounts.find((m) => m.path === sealed);
    expect(seal?.how).toBe('ro');
    expect(seal?.at ?? -1).toBeGreaterThan(checkout?.at ?? Number.POSITIVE_INFINITY);
    // A sealed folder out of this process's view is not brought into it.
    expect(mounts.some((m) => m.path === sealedElsewhere)).toBe(false);
  });

  it("gives a read-only node_modules private tmpfs folders for the runners' caches, sized to the memory cap", () => {
    const cwd = tempDir('pg-argv-');
    const deps = path.join(tempDir('pg-argv-deps-'), 'node_modules');
    mkdirSync(deps);
    const limits: Limits = { ...DEFAULT_LIMITS, memoryBytes: 123 * 1024 ** 2 };
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd, readOnly: [deps] }), limits);
    const opts = options(argv);
    for (const cache of ['.vite-temp', '.vite', '.vitest', '.cache']) {
      const dir = path.join(deps, cache);
      expect(tmpfsOf(opts, dir)).toEqual([
        '--perms',
        '0777',
        '--size',
        String(limits.memoryBytes),
        '--tmpfs',
        dir,
      ]);
      expect(opts.indexOf(dir), `${cache} is mounted over the node_modules it is in`).toBeGreaterThan(
        opts.indexOf(deps),
      );
    }
  });

  it('follows a link the gate lent into the checkout, never one head code planted there', () => {
    const cwd = tempDir('pg-argv-');
    const lentTo = tempDir('pg-argv-lent-');
    const secret = tempDir('pg-argv-secret-');
    symlinkSync(lentTo, path.join(cwd, 'node_modules'));
    recordLentLink(path.join(cwd, 'node_modules'), lentTo);
    symlinkSync(secret, path.join(cwd, 'leak'));
    const sandbox = new Sandbox(isolation('separate'));
    const mounted = () => mountsOf(sandbox.bwrapArgv(spec({ cwd }))).map((m) => `${m.how} ${m.path}`);
    expect(mounted()).toContain(`ro ${lentTo}`);
    expect(mounted()).not.toContain(`ro ${secret}`);
    // The lent link re-pointed by head code at the secret is not followed either.
    rmSync(path.join(cwd, 'node_modules'));
    symlinkSync(secret, path.join(cwd, 'node_modules'));
    expect(mounted().filter((m) => m.endsWith(lentTo) || m.endsWith(secret))).toEqual([]);
  });

  it('makes everything but its mounts read-only, then enters the working folder', () => {
    const cwd = tempDir('pg-argv-');
    const opts = options(new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd })));
    const lastMount = Math.max(opts.lastIndexOf('--bind'), opts.lastIndexOf('--ro-bind'));
    const remount = opts.indexOf('--remount-ro');
    expect(opts.slice(remount, remount + 4)).toEqual(['--remount-ro', '/dev', '--remount-ro', '/']);
    expect(remount).toBeGreaterThan(lastMount);
    expect(opts.slice(opts.indexOf('--chdir'), opts.indexOf('--chdir') + 2)).toEqual(['--chdir', cwd]);
  });

  it('gives it a private /tmp and /dev/shm of memory, sized to the memory cap, and its own /proc and /dev', () => {
    const cwd = tempDir('pg-argv-');
    const limits: Limits = { ...DEFAULT_LIMITS, memoryBytes: 77 * 1024 ** 2 };
    const opts = options(new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd }), limits));
    for (const dir of ['/tmp', '/dev/shm'])
      expect(tmpfsOf(opts, dir)).toEqual([
        '--perms',
        '1777',
        '--size',
        String(77 * 1024 ** 2),
        '--tmpfs',
        dir,
      ]);
    expect(opts.slice(opts.indexOf('--proc'), opts.indexOf('--proc') + 2)).toEqual(['--proc', '/proc']);
    expect(opts.slice(opts.indexOf('--dev'), opts.indexOf('--dev') + 2)).toEqual(['--dev', '/dev']);
  });
});

describe('bwrapArgv: environment', () => {
  it("clears the gate's environment and sets exactly the spec's", () => {
    const cwd = tempDir('pg-argv-');
    const env = {
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      EMPTY: '',
      HOME: cwd,
      TMPDIR: cwd,
      TEMP: cwd,
      TMP: cwd,
    };
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd, env }));
    expect(options(argv)).toContain('--clearenv');
    // --clearenv before any --setenv: the other way round would clear what was set.
    expect(options(argv).indexOf('--clearenv')).toBeLessThan(options(argv).indexOf('--setenv'));
    expect(envOf(argv)).toEqual(env);
  });

  it('moves HOME and the temp folders into the private /tmp when the process may not write where they point', () => {
    const cwd = tempDir('pg-argv-');
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: '/root',
      TMPDIR: '/var/tmp/gate-own',
      // A sibling whose name starts like the checkout is not inside it.
      TEMP: `${cwd}-other`,
    };
    const got = envOf(new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd, env })));
    expect(got).toEqual({ PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp', TEMP: '/tmp', TMP: '/tmp' });
  });

  it('keeps HOME and temp folders inside a folder it may write, and leaves HOME unset when the spec has none', () => {
    const cwd = tempDir('pg-argv-');
    const scratch = path.join(cwd, 'scratch');
    const env = { PATH: '/usr/bin:/bin', TMPDIR: scratch, TEMP: cwd };
    const got = envOf(new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd, env })));
    expect(got).toEqual({ PATH: '/usr/bin:/bin', TMPDIR: scratch, TEMP: cwd, TMP: '/tmp' });
    expect('HOME' in got).toBe(false);
  });
});

describe('bwrapArgv: caps and identity', () => {
  const limits: Limits = {
    memoryBytes: 64 * 1024 ** 2,
    processes: 77,
    fileBytes: 5 * 1024 ** 2,
    diskBytes: 1,
  };

  it('as root: prlimit caps processes, file size and core dumps, then setpriv drops to nobody with no capabilities', () => {
    const cwd = tempDir('pg-argv-');
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd }), limits);
    expect(command(argv)).toEqual([
      '/usr/bin/prlimit',
      '--nproc=77',
      `--fsize=${5 * 1024 ** 2}`,
      '--core=0',
      '--',
      '/usr/bin/setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--no-new-privs',
      '--bounding-set=-all',
      '--inh-caps=-all',
      '--',
      '/bin/sh',
      '-c',
      'echo hi',
    ]);
  });

  it("not as root: no process cap (it would count the gate user's own processes) and no setpriv", () => {
    const cwd = tempDir('pg-argv-');
    const argv = new Sandbox(isolation('same')).bwrapArgv(spec({ cwd }), limits);
    expect(command(argv)).toEqual([
      '/usr/bin/prlimit',
      `--fsize=${5 * 1024 ** 2}`,
      '--core=0',
      '--',
      '/bin/sh',
      '-c',
      'echo hi',
    ]);
  });

  it("takes the caps from the sandbox's limits when the caller gives none", () => {
    const cwd = tempDir('pg-argv-');
    const sandbox = new Sandbox(isolation('separate'), { limits: { processes: 9, fileBytes: 4096 } });
    const cmd = command(sandbox.bwrapArgv(spec({ cwd })));
    expect(cmd.slice(0, 4)).toEqual(['/usr/bin/prlimit', '--nproc=9', '--fsize=4096', '--core=0']);
    expect(sandbox.limits).toEqual({ ...DEFAULT_LIMITS, processes: 9, fileBytes: 4096 });
  });

  it('runs the command itself, argument for argument, as the very last thing', () => {
    const cwd = tempDir('pg-argv-');
    const argv = ['python3', '-c', 'print("a b")', '--', '-x', ''];
    const line = new Sandbox(isolation('same')).bwrapArgv(spec({ cwd, argv }));
    expect(line.slice(-argv.length)).toEqual(argv);
  });
});

describe('bwrapArgv: network', () => {
  it('without network: its own empty network namespace, no resolver file and no wait for a link', () => {
    const cwd = tempDir('pg-argv-');
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd }));
    expect(options(argv)).toContain('--unshare-net');
    expect(argv).not.toContain('--ro-bind-data');
    expect(argv).not.toContain('patchgate-network');
  });

  it("as root with network: slirp's resolver from fd 6, and the command waits for the gate's go before it runs", () => {
    const cwd = tempDir('pg-argv-');
    const argv = new Sandbox(isolation('separate')).bwrapArgv(spec({ cwd }), DEFAULT_LIMITS, {
      networked: true,
      holder: false,
    });
    const opts = options(argv);
    expect(opts).toContain('--unshare-net');
    const data = opts.indexOf('--ro-bind-data');
    expect(opts.slice(data - 2, data + 3)).toEqual([
      '--perms',
      '0644',
      '--ro-bind-data',
      '6',
      '/etc/resolv.conf',
    ]);
    const cmd = command(argv);
    expect(cmd.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(cmd[2]).toMatch(/^echo >&8; read -r _ <&5 \|\| exit 125;/);
    expect(cmd[3]).toBe('patchgate-network');
    // The wait comes before the caps and the uid drop: it is the gate's sh, not head code.
    expect(cmd[4]).toBe('/usr/bin/prlimit');
  });

  it('not as root with network: an outer bubblewrap holds the network namespace and the sandbox runs inside it', () => {
    const cwd = tempDir('pg-argv-');
    const argv = new Sandbox(isolation('same')).bwrapArgv(spec({ cwd }), DEFAULT_LIMITS, {
      networked: true,
      holder: true,
    });
    expect(options(argv)).toEqual([
      '--unshare-user',
      '--unshare-net',
      '--die-with-parent',
      '--dev-bind',
      '/',
      '/',
      '--info-fd',
      '7',
    ]);
    const cmd = command(argv);
    expect(cmd[3]).toBe('patchgate-network');
    expect(cmd[4]).toBe('/usr/bin/bwrap');
    const inner = cmd.slice(5);
    // The inner sandbox shares the holder's network namespace and waits for nothing itself.
    expect(options(inner)).not.toContain('--unshare-net');
    expect(options(inner)).toContain('--unshare-user');
    expect(
      options(inner).slice(options(inner).indexOf('--info-fd'), options(inner).indexOf('--info-fd') + 2),
    ).toEqual(['--info-fd', '4']);
    expect(command(inner)).not.toContain('patchgate-network');
    expect(inner.slice(-3)).toEqual(['/bin/sh', '-c', 'echo hi']);
  });
});

describe('Sandbox.visible', () => {
  it('under bubblewrap: the system folders, the gate package and sandbox.readOnly, by whole path segments', () => {
    const extra = tempDir('pg-visible-');
    const sandbox = new Sandbox(isolation('separate'), { readOnly: [extra] });
    expect(sandbox.visible('/usr/bin/python3')).toBe(true);
    expect(sandbox.visible(path.join(packageRoot(), 'dist/cli/bin.js'))).toBe(true);
    expect(sandbox.visible(path.join(extra, 'x'))).toBe(true);
    expect(sandbox.visible(extra)).toBe(true);
    expect(sandbox.visible('/root/.nvm/versions/node/v20/bin/node')).toBe(false);
    expect(sandbox.visible('/usrlocal/bin/tool')).toBe(false);
    expect(sandbox.visible(`${extra}-sibling/x`)).toBe(false);
  });

  it('without a sandbox every path is where it is', () => {
    const sandbox = new Sandbox({ mode: 'process', uid: 0, gid: 0 });
    expect(sandbox.visible('/root/.nvm/versions/node/v20/bin/node')).toBe(true);
  });
});

describe('the argv through the real bubblewrap', () => {
  let real: Sandbox;
  beforeAll(async () => {
    real = await testSandbox();
    if (real.isolation.mode !== 'bwrap')
      throw new Error(
        `these tests need the bubblewrap sandbox, and this machine has none: ${real.isolation.reason}`,
      );
  });

  function run(
    sandbox: Sandbox,
    s: SandboxSpec,
  ): Promise<{ out: string; code: number | null; signal: string | null }> {
    const proc = sandbox.spawn(s);
    let out = '';
    proc.child.stdout?.on('data', (b: Buffer) => {
      out += b.toString('utf8');
    });
    proc.child.stderr?.on('data', (b: Buffer) => {
      out += b.toString('utf8');
    });
    return new Promise((resolve) => {
      proc.child.once('close', (code, signal) => resolve({ out, ...proc.exitOf(code, signal) }));
    });
  }

  it('sees the read-only folder it was given and cannot write it, and writes its own checkout', async () => {
    const cwd = tempDir('pg-argv-real-');
    const ro = tempDir('pg-argv-ro-');
    // Readable by the sandbox user (mkdtemp makes it the gate's alone): only the mount may refuse the write.
    chmodSync(ro, 0o755);
    writeFileSync(path.join(ro, 'given.txt'), 'given\n');
    const sandbox = new Sandbox(real.isolation);
    const r = await run(
      sandbox,
      spec({
        cwd,
        readOnly: [ro],
        argv: [
          '/bin/sh',
          '-c',
          `cat ${ro}/given.txt; touch ${ro}/planted 2>/dev/null || echo refused; touch mine`,
        ],
      }),
    );
    expect(r).toEqual({ out: 'given\nrefused\n', code: 0, signal: null });
    expect(existsSync(path.join(cwd, 'mine'))).toBe(true);
    expect(existsSync(path.join(ro, 'planted'))).toBe(false);
  });

  it('reports a head process killed by a signal as that signal, and a plain exit as its code', async () => {
    const cwd = tempDir('pg-argv-real-');
    const sandbox = new Sandbox(real.isolation);
    // bubblewrap turns its child's SIGTERM into exit code 143; exitOf turns it back.
    expect(await run(sandbox, spec({ cwd, argv: ['/bin/sh', '-c', 'kill -TERM $$'] }))).toMatchObject({
      code: null,
      signal: 'SIGTERM',
    });
    expect(await run(sandbox, spec({ cwd, argv: ['/bin/sh', '-c', 'exit 7'] }))).toMatchObject({
      code: 7,
      signal: null,
    });
  });
});
