import { chmodSync, closeSync, openSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { InputError } from '../errors.js';
import { SerialQueue, type SqlDb, type SqlQueryable, type SqlRow, type SqlValue } from './sql.js';

/** How long a writer waits for another's lock (two shards recording at once) before it gives up. */
const BUSY_TIMEOUT_MS = 30_000;

/** SQLite's answers that mean "this is not a history file we can use", in words a user can act on. */
const OPEN_FAILURES: Record<string, string> = {
  SQLITE_NOTADB: 'it is not an SQLite database',
  SQLITE_CORRUPT: 'the database is corrupt',
  SQLITE_CANTOPEN: 'it cannot be opened (a missing folder, or no permission)',
  SQLITE_READONLY: 'it is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_IOERR: 'an I/O error',
};

function failure(file: string, err: unknown): InputError {
  const code = (err as { code?: unknown }).code;
  const why =
    typeof code === 'string'
      ? // Extended codes (SQLITE_IOERR_WRITE) share their primary code's meaning.
        (OPEN_FAILURES[code] ?? OPEN_FAILURES[code.split('_').slice(0, 2).join('_')] ?? code)
      : String(err);
  return new InputError(
    'HISTORY_UNAVAILABLE',
    `the run history at ${file} cannot be used: ${why} (${err instanceof Error ? err.message : String(err)}); expected an SQLite file patchgate wrote, or no file (one is created)`,
    { file },
    { cause: err },
  );
}

/**
 * Loaded on first use, and installed only by who wants it (an optional peer
 * dependency, as database drivers are): a command without `--history` never
 * needs the native module.
 */
export type SqliteDriverLoader = () => Promise<{ default: typeof BetterSqlite3 }>;

async function loadDriver(load: SqliteDriverLoader): Promise<typeof BetterSqlite3> {
  try {
    return (await load()).default;
  } catch (err) {
    throw new InputError(
      'HISTORY_UNAVAILABLE',
      `the run history's SQLite driver cannot be loaded (${err instanceof Error ? err.message : String(err)}): install it next to patchgate, \`npm install --save-dev better-sqlite3@12\` (its install script fetches or builds the native module), or set PATCHGATE_DATABASE_URL to a PostgreSQL server and install pg`,
      {},
      { cause: err },
    );
  }
}

/**
 * An embedded history file. WAL lets readers go on while one writer works;
 * every write transaction takes the lock at BEGIN (IMMEDIATE), so two
 * processes recording at once queue for it instead of one failing half-way.
 */
export async function openSqlite(
  file: string,
  load: SqliteDriverLoader = () => import('better-sqlite3'),
): Promise<SqlDb> {
  const Database = await loadDriver(load);
  let db: BetterSqlite3.Database;
  try {
    // The gate's user alone may read it (SQLite gives its -wal and -shm files the database's mode): with the
    // gate running as root, sandboxed head code runs as another user and cannot read what other runs recorded.
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
  } catch (err) {
    throw failure(file, err);
  }
  const queue = new SerialQueue();
  const run = <T extends SqlRow>(sql: string, params: readonly SqlValue[]): T[] => {
    try {
      const stmt = db.prepare(sql);
      // An array is bound as the anonymous parameters, in order.
      const values = params as SqlValue[];
      if (stmt.reader) return stmt.all(values) as T[];
      stmt.run(values);
      return [];
    } catch (err) {
      throw failure(file, err);
    }
  };
  const tx: SqlQueryable = {
    query: async (sql, params = []) => run(sql, params),
  };
  return {
    dialect: 'sqlite',
    where: file,
    query: (sql, params = []) => queue.run(async () => run(sql, params)),
    transaction: (fn) =>
      queue.run(async () => {
        run('BEGIN IMMEDIATE', []);
        try {
          const result = await fn(tx);
          run('COMMIT', []);
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      }),
    close: () =>
      queue.run(async () => {
        db.close();
      }),
  };
}
