import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A scriptable harness for protocol tests, written to a temp dir and run with
 * this Node binary. `mode` picks the misbehaviour; in every mode `hello` and
 * `list` are answered correctly unless the mode is about them.
 */
const FAKE_HARNESS = `
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'ok';
// patchgate-harness/2: the protocol runs on fd 3; the first line is the key every answer is signed with.
const channel = new Socket({ fd: 3 });
let key;
let seq = 0;
const sign = (body) =>
  createHmac('sha256', Buffer.from(key, 'hex')).update(seq++ + '\\n' + body).digest('hex').slice(0, 32) + ' ' + body + '\\n';
const send = (obj) => channel.write(sign(JSON.stringify(obj)));

if (mode === 'banner') process.stdout.write('Welcome to my harness!\\n');
if (mode === 'stdout-forgery') process.stdout.write(JSON.stringify({ id: 0, result: { protocol: 'patchgate-harness/2', language: 'x', implementation: 'forged' } }) + '\\n');
if (mode === 'exit-at-start') {
  process.stderr.write('loading properties...\\nImportError: no module named nowhere\\n');
  process.exit(4);
}

const rl = createInterface({ input: channel, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (key === undefined) {
    key = line.trim();
    return;
  }
  const req = JSON.parse(line);
  const { id, method, params } = req;
  if (method === 'hello') {
    if (mode === 'hello-refused') return send({ id, error: { message: 'I only speak patchgate-harness/0' } });
    if (mode === 'hang-hello' || mode === 'stdout-forgery') return;
    if (mode === 'unsigned-hello') return channel.write(JSON.stringify({ id, result: { protocol: 'patchgate-harness/2', language: 'node', implementation: 'x' } }) + '\\n');
    const protocol = mode === 'version' ? 'patchgate-harness/3' : 'patchgate-harness/2';
    return send({ id, result: { protocol, language: 'node', implementation: 'fake-harness ' + mode, extra: true } });
  }
  if (method === 'list') {
    if (mode === 'env') {
      const claims = Object.entries(process.env).map(([k, v]) => k + '=' + v).sort();
      return send({ id, result: { properties: [{ name: 'env', claims }] } });
    }
    if (mode === 'big') {
      const claims = Array.from({ length: 30000 }, (_, i) => 'field_' + i + '_' + 'x'.repeat(100));
      // One 3 MB line in many small writes, so the client sees partial chunks.
      const text = sign(JSON.stringify({ id, result: { properties: [{ name: 'p', claims }] } }));
      let at = 0;
      const next = () => {
        if (at >= text.length) return;
        channel.write(text.slice(at, at + 65521));
        at += 65521;
        setImmediate(next);
      };
      return next();
    }
    if (mode === 'dup-names') return send({ id, result: { properties: [{ name: 'p', claims: [] }, { name: 'p', claims: [] }] } });
    return send({ id, result: { properties: [{ name: 'p', claims: ['a', 'b'] }] } });
  }
  if (method === 'check') {
    const fixtures = params.fixtures;
    const results = fixtures.map((fx) => (fx && fx.ok ? { status: 'pass' } : { status: 'fail', error: 'not ok\\nsecond line' }));
    switch (mode) {
      case 'garbage':
        return channel.write(sign('this is not json'));
      case 'wrong-id':
        return send({ id: id + 1, result: { results } });
      case 'wrong-length':
        return send({ id, result: { results: results.slice(1) } });
      case 'bad-status':
        return send({ id, result: { results: results.map(() => ({ status: 'skip' })) } });
      case 'both':
        return send({ id, result: { results }, error: { message: 'and also this' } });
      case 'refuse-check':
        return send({ id, error: { message: 'unknown property ' + JSON.stringify(params.property) } });
      case 'hang':
        return;
      case 'hang-with-child': {
        // The marker names this harness file: a test can find the grandchild on the host, whatever pid namespace it is in.
        const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000) // ' + new URL(import.meta.url).pathname], { stdio: 'ignore' });
        process.stderr.write('grandchild ' + child.pid + '\\n');
        return;
      }
      case 'crash':
        for (let i = 1; i <= 30; i++) process.stderr.write('log line ' + i + '\\n');
        process.stderr.write('fatal: boom in check\\n');
        return process.exit(7);
      case 'slow':
        return setTimeout(() => send({ id, result: { results } }), 5 * fixtures.length);
      default:
        return send({ id, result: { results } });
    }
  }
  if (method === 'shutdown') {
    send({ id, result: null });
    if (mode === 'ignore-shutdown') {
      process.on('SIGTERM', () => {});
      rl.close();
      setInterval(() => {}, 1000);
      return;
    }
    return process.exit(0);
  }
  send({ id, error: { message: 'unknown method ' + method } });
});
rl.on('close', () => {
  if (mode !== 'ignore-shutdown') process.exit(0);
});
`;

export function writeFakeHarness(dir: string): string {
  const file = path.join(dir, 'fake-harness.mjs');
  writeFileSync(file, FAKE_HARNESS);
  return file;
}

/** Host pids of live (not zombie) processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes(marker) && !deadOrZombie(Number(name))) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Whether a process with this pid still exists (zombies included). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * Killed, even if not yet reaped: a grandchild orphaned by a kill is reaped by
 * init (or the container's pid 1), which may take its time; a zombie runs nothing.
 */
export function deadOrZombie(pid: number): boolean {
  if (!alive(pid)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
