/**
 * User-mode networking for the head processes the base config gives network
 * (the `tests.setup` install, and tests, seed replays or properties when the
 * config opts them in). Such a process never shares the host's network
 * namespace: bubblewrap gives it one of its own, held before the command
 * starts (`--block-fd`), and slirp4netns attaches a tap device to it from the
 * outside. Traffic leaves through ordinary sockets of the slirp4netns process,
 * NATed, so the sandbox reaches what any machine on the host's network
 * reaches and nothing more of the host:
 *
 * - `--disable-host-loopback`: 10.0.2.2, the gateway, does not lead to the
 *   host's 127.0.0.1 or ::1, and the sandbox's own loopback is its own;
 * - abstract unix sockets belong to a network namespace: the host's are not
 *   in it;
 * - DNS goes to slirp's forwarder (10.0.2.3), which asks the host's resolver
 *   on port 53 (a loopback stub such as systemd-resolved's included; that
 *   port and no other).
 *
 * Why slirp4netns and not pasta (both are Debian packages): slirp4netns
 * attaches to a namespace bubblewrap made, by pid, both when the gate is
 * root (head code then runs as `nobody`, whose uid pasta's own user
 * namespace could not map) and when it is not; pasta run as root drops to
 * `nobody` and can then no longer open the namespace (tried: "Couldn't open
 * user namespace"), and its port forwarding from the namespace to the host's
 * loopback is on by default in the versions Debian and Ubuntu ship, one
 * forgotten option from the very hole this closes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/** slirp4netns's built-in DNS forwarder in the namespace's 10.0.2.0/24. */
export const SLIRP_DNS = '10.0.2.3';

/** How long slirp4netns gets to bring the tap device up. */
const READY_TIMEOUT_MS = 10_000;

const STDERR_KEEP = 2048;

/**
 * The sandbox's /etc/resolv.conf: slirp's forwarder as the only nameserver
 * (the host's may be a loopback address, which is not the sandbox's), the
 * host's search domains and options kept.
 */
export function sandboxResolvConf(hostText: string | undefined): string {
  const kept = (hostText ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(search|domain|options)\s/.test(l));
  return [`nameserver ${SLIRP_DNS}`, ...kept, ''].join('\n');
}

export interface NetworkLink {
  /** Settles once the namespace has its network (resolves) or never will (rejects, saying why). */
  readonly ready: Promise<void>;
  /** Stops slirp4netns; safe to call at any time, more than once. */
  stop(): void;
}

/**
 * Attaches user-mode networking to the network namespace of `pid` (a process
 * bubblewrap holds before the head command). `rootful`: the gate is root, so
 * slirp4netns also confines itself (`--enable-sandbox`: its own mount
 * namespace, no capabilities once the tap device is made); not as another
 * user, where that option fails and slirp4netns has no more rights than the
 * head code anyway.
 */
export function attachNetwork(slirp4netns: string, pid: number, opts: { rootful: boolean }): NetworkLink {
  const args = [
    '--configure',
    '--mtu=65520',
    '--disable-host-loopback',
    '--enable-seccomp',
    ...(opts.rootful ? ['--enable-sandbox'] : []),
    // fd 3: slirp4netns writes "1" once the device is up; fd 4: when the gate's end closes (the gate died), it exits.
    '--ready-fd=3',
    '--exit-fd=4',
    String(pid),
    'tap0',
  ];
  let child: ChildProcess | undefined;
  let stopped = false;
  const ready = new Promise<void>((resolve, reject) => {
    let stderr = '';
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(
      () => settle(new Error(`slirp4netns did not bring the network up within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    timer.unref();
    try {
      child = spawn(slirp4netns, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: {} });
    } catch (e) {
      settle(new Error(`slirp4netns could not be started: ${(e as Error).message}`));
      return;
    }
    child.stderr?.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString('utf8')).slice(-STDERR_KEEP);
    });
    const readyFd = child.stdio[3] as Readable | null;
    readyFd?.on('error', () => undefined);
    readyFd?.once('data', () => settle());
    (child.stdio[4] as Readable | null)?.on('error', () => undefined);
    child.once('error', (e) => settle(new Error(`slirp4netns could not be started: ${e.message}`)));
    child.once('exit', (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const said = stderr.trim().split('\n').slice(-3).join(' | ');
      settle(new Error(`slirp4netns ${how} before the network was up${said ? `: ${said}` : ''}`));
    });
    if (stopped) settle(new Error('the sandbox ended before its network was up'));
  });
  // A rejection nobody awaits (the sandbox ended first) is not an unhandled one.
  ready.catch(() => undefined);
  return {
    ready,
    stop: () => {
      stopped = true;
      if (!child) return;
      (child.stdio[4] as Readable | null)?.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
}
