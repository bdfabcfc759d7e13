/**
 * The narrow door between the run history and a database: SQL text with `?`
 * placeholders and positional values in, plain rows out. Both drivers take
 * the same statements, so every query in this folder is written once and
 * runs on SQLite and on PostgreSQL alike.
 */
export type SqlValue = string | number | null;

export type SqlRow = Record<string, SqlValue>;

export type Dialect = 'sqlite' | 'postgres';

export interface SqlQueryable {
  /** Runs one statement; rows for a query (or a `RETURNING` clause), none otherwise. */
  query<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
}

export interface SqlDb extends SqlQueryable {
  readonly dialect: Dialect;
  /** Where the store is, fit to print: a file path, or a URL without its password. */
  readonly where: string;
  /**
   * Runs `fn` in one transaction that holds the store's write lock from its
   * first statement (SQLite's `BEGIN IMMEDIATE`; PostgreSQL row locks and,
   * for migrations, an advisory lock), committed when `fn` resolves and
   * rolled back when it throws. Transactions of one handle never interleave.
   */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * PostgreSQL numbers its placeholders (`$1`, `$2`…). Our statements never
 * hold a `?` inside a string literal or identifier, so a plain rewrite is
 * exact; one that did would be our bug, so it is refused rather than guessed.
 */
export function numberedPlaceholders(sql: string): string {
  let out = '';
  let quote: string | undefined;
  let n = 0;
  for (const ch of sql) {
    if (quote !== undefined) {
      if (ch === '?') throw new Error(`a history statement holds '?' inside a quoted string: ${sql}`);
      // A doubled quote ('it''s') closes and reopens: the state comes out right either way.
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${++n}` : ch;
  }
  return out;
}

/** Bound values per IN list: well inside both engines' limits (SQLite 32,766, PostgreSQL 65,535). */
const IN_CHUNK = 500;

/**
 * Rows for `values` asked in IN lists of a bounded size: `query` gets each
 * chunk and its placeholders (`?, ?, ?`) and returns that chunk's rows.
 */
export async function inChunks<V extends SqlValue, R>(
  values: readonly V[],
  query: (chunk: V[], placeholders: string) => Promise<readonly R[]>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < values.length; i += IN_CHUNK) {
    const chunk = values.slice(i, i + IN_CHUNK);
    for (const row of await query(chunk, chunk.map(() => '?').join(', '))) out.push(row);
  }
  return out;
}

/** One serial queue: a transaction's statements must not interleave with another's on one connection. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
