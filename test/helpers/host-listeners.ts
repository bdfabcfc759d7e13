import { randomBytes } from 'node:crypto';
import net from 'node:net';

/**
 * Real services on the host that head code must not reach: TCP on
 * 127.0.0.1 and on ::1 (when this machine has IPv6 loopback), and an
 * abstract unix socket (which lives in the host's network namespace). Each
 * answers a connection with a secret line, and counts the connections it
 * accepted, so a test sees both sides: what head code said it reached, and
 * what the host saw.
 */
export interface HostListeners {
  /** What every listener sends: seeing it means the listener was reached. */
  secret: string;
  tcp4: number;
  /** undefined when ::1 cannot be bound here. */
  tcp6?: number;
  /** The abstract socket's name, without the leading NUL. */
  abstract: string;
  /** Connections accepted so far, all listeners together. */
  accepted(): number;
  close(): Promise<void>;
}

function serve(secret: string, onAccept: () => void): net.Server {
  return net.createServer((socket) => {
    onAccept();
    socket.on('error', () => undefined);
    socket.end(`${secret}\n`);
  });
}

function listen(server: net.Server, options: net.ListenOptions): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(options, () => resolve(true));
  });
}

export async function hostListeners(): Promise<HostListeners> {
  const secret = `host-secret-${randomBytes(8).toString('hex')}`;
  let accepted = 0;
  const onAccept = () => {
    accepted++;
  };
  const v4 = serve(secret, onAccept);
  const v6 = serve(secret, onAccept);
  const unix = serve(secret, onAccept);
  const abstract = `patchgate-test-${randomBytes(6).toString('hex')}`;
  if (!(await listen(v4, { host: '127.0.0.1', port: 0 }))) throw new Error('cannot listen on 127.0.0.1');
  const has6 = await listen(v6, { host: '::1', port: 0, ipv6Only: true });
  if (!(await listen(unix, { path: `\0${abstract}` })))
    throw new Error('cannot listen on an abstract socket');
  const port = (s: net.Server) => (s.address() as net.AddressInfo).port;
  return {
    secret,
    tcp4: port(v4),
    ...(has6 ? { tcp6: port(v6) } : {}),
    abstract,
    accepted: () => accepted,
    close: async () => {
      await Promise.all(
        [v4, ...(has6 ? [v6] : []), unix].map((s) => new Promise<void>((r) => s.close(() => r()))),
      );
    },
  };
}

/**
 * A Node script (head code) that tries every listener, the slirp gateway
 * 10.0.2.2 (which must not lead to the host's loopback), resolves the npm
 * registry and asks it for a version with the real npm, then prints one line
 * `PROBE {json}` and exits `exitCode`.
 */
export function probeScript(l: HostListeners, exitCode: number): string {
  const targets: [string, Record<string, unknown>][] = [
    ['tcp4', { host: '127.0.0.1', port: l.tcp4 }],
    ['gateway', { host: '10.0.2.2', port: l.tcp4 }],
    ['abstract', { path: `\0${l.abstract}` }],
  ];
  if (l.tcp6 !== undefined) targets.push(['tcp6', { host: '::1', port: l.tcp6 }]);
  return `import net from 'node:net';
import dns from 'node:dns/promises';
import { execFileSync } from 'node:child_process';
const targets = ${JSON.stringify(targets)};
const reach = (opts) => new Promise((resolve) => {
  const s = net.connect(opts);
  s.setTimeout(3000);
  let got = '';
  s.on('data', (d) => { got += d; });
  s.once('end', () => resolve(got.includes(${JSON.stringify(l.secret)}) ? 'reached' : 'connected'));
  s.once('error', (e) => resolve('blocked:' + e.code));
  s.once('timeout', () => { s.destroy(); resolve('blocked:timeout'); });
});
const found = {};
for (const [name, opts] of targets) found[name] = await reach(opts);
try { found.dns = (await dns.lookup('registry.npmjs.org')).address; } catch (e) { found.dns = 'failed:' + e.code; }
try {
  found.npm = execFileSync('npm', ['view', 'is-number', 'version', '--no-update-notifier'], { encoding: 'utf8', timeout: 90000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
} catch (e) { found.npm = 'failed:' + String(e.stderr || e.message).split('\\n').slice(0, 3).join(' ').slice(0, 300); }
found.uid = process.getuid();
console.log('PROBE ' + JSON.stringify(found));
process.exit(${exitCode});
`;
}

/** The probe's findings, from text holding its `PROBE {json}` line. */
export function probeFound(text: string): Record<string, unknown> | undefined {
  const m = /PROBE (\{.*\})/.exec(text);
  return m ? (JSON.parse(m[1] as string) as Record<string, unknown>) : undefined;
}
