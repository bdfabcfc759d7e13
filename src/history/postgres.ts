import type { Client, ClientConfig } from 'pg';
import { InputError } from '../errors.js';
import { numberedPlaceholders, SerialQueue, type SqlDb, type SqlQueryable, type SqlRow } from './sql.js';

/** A URL fit to print: the password (and any token in the query) never reaches a log. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    for (const key of [...u.searchParams.keys()])
      if (/pass|token|secret|key/i.test(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

function failure(where: string, err: unknown, doing: string): InputError {
  const message = err instanceof Error ? err.message : String(err);
  return new InputError(
    'HISTORY_UNAVAILABLE',
    `the run history at ${where} cannot be used: ${doing} failed: ${message}; expected a reachable PostgreSQL server (PATCHGATE_DATABASE_URL) whose user may create tables`,
    { url: where },
    { cause: err },
  );
}

/** PostgreSQL's 64-bit integers and numerics arrive as text by default; counts and averages here fit a double. */
const NUMERIC_OIDS = new Set([20, 1700]);

type PgModule = typeof import('pg')['default'];

export type PgDriverLoader = () => Promise<{ default: PgModule }>;

async function loadDriver(load: PgDriverLoader): Promise<PgModule> {
  try {
    return (await load()).default;
  } catch (err) {
    throw new InputError(
      'HISTORY_UNAVAILABLE',
      `the run history's PostgreSQL driver cannot be loaded (${err instanceof Error ? err.message : String(err)}): install it next to patchgate, \`npm install --save-dev pg@8\`, or unset PATCHGATE_DATABASE_URL to use .patchgate/history.sqlite`,
      {},
      { cause: err },
    );
  }
}

/** One connection to a history database on a PostgreSQL server, for the length of one command. */
export async function openPostgres(url: string, load: PgDriverLoader = () => import('pg')): Promise<SqlDb> {
  const pg = await loadDriver(load);
  const where = redactUrl(url);
  const config: ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: 15_000,
    application_name: 'patchgate',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        NUMERIC_OIDS.has(oid)
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format ?? 'text')) as never,
    },
  };
  const client: Client = new pg.Client(config);
  // A dropped connection is reported by the query that meets it; without a listener it would crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw failure(where, err, 'connecting');
  }
  const queue = new SerialQueue();
  const run = async <T extends SqlRow>(sql: string, params: readonly unknown[]): Promise<T[]> => {
    try {
      const result = await client.query(numberedPlaceholders(sql), params as unknown[]);
      return result.rows as T[];
    } catch (err) {
      throw failure(where, err, 'a query');
    }
  };
  const tx: SqlQueryable = { query: (sql, params = []) => run(sql, params) };
  return {
    dialect: 'postgres',
    where,
    query: (sql, params = []) => queue.run(() => run(sql, params)),
    transaction: (fn) =>
      queue.run(async () => {
        await run('BEGIN', []);
        try {
          const result = await fn(tx);
          await run('COMMIT', []);
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    close: () => queue.run(() => client.end()),
  };
}
