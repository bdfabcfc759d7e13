// A real PostgreSQL server of its own, for the run history's tests and
// benchmark: a fresh cluster in a temp folder, on loopback, on a port
// nobody else uses, trust auth for one user. Debian's `postgresql` package
// (which .ci/run installs) has the binaries; as root, the server runs as the
// `postgres` account, since PostgreSQL refuses to run as root.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where PostgreSQL's server binaries are, or undefined when it is not installed. */
export function postgresBinDir() {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(path.join(debian, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return path.join(debian, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v postgres'], { encoding: 'utf8' });
  return which.status === 0 ? path.dirname(which.stdout.trim()) : undefined;
}

function account() {
  if (process.getuid?.() !== 0) return undefined;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0)
    throw new Error('running as root, and there is no postgres account');
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Starts the server; `database(name)` creates an empty database and returns its URL. */
export async function startPostgres() {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)');
  const owner = account();
  const dir = mkdtempSync(path.join(tmpdir(), 'postgres-test-'));
  const data = path.join(dir, 'data');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'patchgate', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { encoding: 'utf8', cwd: dir, ...as },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = 20_000 + Math.floor(Math.random() * 30_000);
  const server = spawn(
    path.join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=50',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], ...as },
  );
  let log = '';
  server.stderr.on('data', (b) => {
    log += b.toString('utf8');
  });
  const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  const admin = `postgresql://patchgate@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import('pg');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: admin });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (server.exitCode !== null || Date.now() > deadline) {
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`postgres did not start: ${err.message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    async database(name) {
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgresql://patchgate@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      server.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
