/**
 * How head code is isolated on this machine, decided once per gate run by
 * trying the real thing: a sandbox that cannot start must never be assumed.
 *
 * - `bwrap`, user `separate`: the gate runs as root, so bubblewrap sets up
 *   the namespaces and mounts with root's privileges and the command then
 *   drops to an unprivileged uid with no capabilities (setpriv). This is
 *   what CI gets.
 * - `bwrap`, user `same`: the gate is not root, so bubblewrap uses an
 *   unprivileged user namespace. Head code cannot see what is not mounted,
 *   but it runs under the gate's own uid.
 * - `process`: no sandbox (bubblewrap missing, or user namespaces off, as
 *   AppArmor does by default on Ubuntu 24.04). Head code runs in plain child
 *   processes with a scrubbed environment and its own process group.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type IsolationMode = 'bwrap' | 'process';

export interface Isolation {
  mode: IsolationMode;
  /** For `bwrap`: whether head code runs as another user than the gate. */
  user?: 'separate' | 'same';
  /** The uid and gid head code runs as. */
  uid: number;
  gid: number;
  /**
   * Absolute paths of the programs the sandbox is built with. `slirp4netns`
   * gives network to the head processes the base config lets have it; without
   * it they have none.
   */
  tools?: { bwrap: string; setpriv?: string; prlimit?: string; slirp4netns?: string };
  /** Why there is no (or a weaker) sandbox, and how to get one. */
  reason?: string;
}

/** The unprivileged identity head code runs as when the gate is root: `nobody`. */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;

export const HOW_TO_ENABLE =
  'install bubblewrap (Debian/Ubuntu: `sudo apt-get install -y bubblewrap`) and allow user namespaces; on Ubuntu 24.04 (GitHub ubuntu-24.04 runners) run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` first, or run the gate as root';

export const HOW_TO_ENABLE_NETWORK =
  'install slirp4netns (Debian/Ubuntu: `sudo apt-get install -y slirp4netns`) and put it on PATH; or, if the install or the tests need no network, set tests.setupNetwork (tests.network, seeds.network, hits.network) to false in the base config';

function which(program: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function probe(file: string, args: string[]): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
    });
    child.on('error', (err) => resolve({ ok: false, stderr: err.message }));
    child.on('close', (code) => resolve({ ok: code === 0, stderr: stderr.trim() }));
  });
}

const PROBE_VIEW = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-pid',
  '--unshare-net',
];

/**
 * Tries bubblewrap the way the gate will use it. `searchPath` is the PATH to
 * look the tools up on (the gate's own environment's).
 */
export async function detectIsolation(searchPath: string | undefined): Promise<Isolation> {
  const { uid, gid } = os.userInfo();
  const plain = (reason: string): Isolation => ({ mode: 'process', uid, gid, reason });
  const bwrap = which('bwrap', searchPath) ?? which('bwrap', '/usr/bin:/usr/local/bin');
  if (bwrap === undefined) return plain(`bubblewrap (bwrap) is not installed; ${HOW_TO_ENABLE}`);
  const setpriv = which('setpriv', '/usr/bin:/bin:/usr/sbin');
  const prlimit = which('prlimit', '/usr/bin:/bin:/usr/sbin');
  // Looked up on the gate's PATH only: a user who takes it off PATH gets no network, never the host's.
  const slirp4netns = which('slirp4netns', searchPath);
  const net = slirp4netns ? { slirp4netns } : {};
  if (uid === 0 && setpriv !== undefined) {
    const r = await probe(bwrap, [
      ...PROBE_VIEW,
      '--',
      setpriv,
      `--reuid=${SANDBOX_UID}`,
      `--regid=${SANDBOX_GID}`,
      '--clear-groups',
      '--no-new-privs',
      '--bounding-set=-all',
      '--inh-caps=-all',
      '--',
      '/bin/true',
    ]);
    if (r.ok) {
      return {
        mode: 'bwrap',
        user: 'separate',
        uid: SANDBOX_UID,
        gid: SANDBOX_GID,
        tools: { bwrap, setpriv, ...(prlimit ? { prlimit } : {}), ...net },
      };
    }
  }
  const r = await probe(bwrap, ['--unshare-user', ...PROBE_VIEW, '--', '/bin/true']);
  if (r.ok) {
    return {
      mode: 'bwrap',
      user: 'same',
      uid,
      gid,
      tools: { bwrap, ...(prlimit ? { prlimit } : {}), ...net },
      reason:
        "the gate does not run as root, so head code is sandboxed in a user namespace but under the gate's own uid; run the gate as root (as CI runners do) for a separate user",
    };
  }
  return plain(
    `bubblewrap cannot create its namespaces here (${r.stderr || 'no reason given'}); ${HOW_TO_ENABLE}`,
  );
}
