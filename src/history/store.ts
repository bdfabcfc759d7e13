import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { Git } from '../git/git.js';
import { migrate } from './migrations.js';
import { openPostgres, redactUrl } from './postgres.js';
import type { SqlDb } from './sql.js';
import { openSqlite } from './sqlite.js';

/** The variable that moves the history to a PostgreSQL server, for organisations with many repositories. */
export const DATABASE_URL_VARIABLE = 'PATCHGATE_DATABASE_URL';

/** The embedded store, relative to the repository root: kept between CI runs by the CI system's cache. */
export const HISTORY_FILE = '.patchgate/history.sqlite';

/** SQLite's companions of a database file: each is part of the store, and each is a path a patch could plant. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

export type HistoryLocation =
  | { kind: 'sqlite'; file: string; root: string }
  | { kind: 'postgres'; url: string; shown: string };

/** PATCHGATE_DATABASE_URL when set (it must be a PostgreSQL URL), else the repository's own file. */
export function historyLocation(
  env: Readonly<Record<string, string | undefined>>,
  root: string,
): HistoryLocation {
  const url = env[DATABASE_URL_VARIABLE];
  if (url !== undefined && url.trim() !== '') {
    let protocol: string | undefined;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:')
      throw new InputError(
        'HISTORY_UNAVAILABLE',
        `${DATABASE_URL_VARIABLE} must be a PostgreSQL URL such as postgresql://user:password@host:5432/patchgate, got ${redactUrl(url)}; unset it to use ${HISTORY_FILE}`,
        { variable: DATABASE_URL_VARIABLE },
      );
    return { kind: 'postgres', url, shown: redactUrl(url) };
  }
  return { kind: 'sqlite', file: path.join(root, HISTORY_FILE), root };
}

export function describeLocation(loc: HistoryLocation): string {
  return loc.kind === 'sqlite' ? path.relative(loc.root, loc.file) || loc.file : loc.shown;
}

function unsafe(file: string, why: string): InputError {
  return new InputError(
    'HISTORY_UNSAFE',
    `the run history ${file} ${why}: the patch under judgement could have written or redirected it, so patchgate neither reads nor writes it; remove it from the repository (and add ${path.dirname(HISTORY_FILE)}/ to .gitignore), or set ${DATABASE_URL_VARIABLE}`,
    { file },
  );
}

/**
 * A checkout's `.patchgate/` is the head's to write when it is tracked: a
 * patch could commit a history that vouches for its flaky tests, or a
 * symlink that points the gate's writes at a file of its choosing. The store
 * is used only when git tracks nothing there (in the index or in HEAD) and
 * no part of its path is a symlink.
 */
export async function guardSqliteLocation(
  git: Git,
  loc: Extract<HistoryLocation, { kind: 'sqlite' }>,
): Promise<void> {
  const rel = path.relative(loc.root, loc.file);
  const dir = path.dirname(rel);
  const tracked = [
    await git.out(['ls-files', '-z', '--', dir]),
    (await git.try(['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', dir])).stdout,
  ].join('');
  if (tracked.replace(/\0/g, '') !== '')
    throw unsafe(rel, `is in a folder git tracks (${tracked.split('\0').filter(Boolean)[0]})`);
  const parts = rel.split(path.sep);
  const paths = [
    ...parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join(path.sep)),
    ...COMPANIONS.map((s) => `${rel}${s}`),
  ];
  for (const p of paths) {
    const st = await lstat(path.join(loc.root, p)).catch(() => undefined);
    if (st?.isSymbolicLink()) throw unsafe(rel, `has a symlink on its path (${p})`);
    if (st && p !== rel && !p.startsWith(`${rel}-`) && !st.isDirectory())
      throw unsafe(rel, `cannot be created: ${p} is not a folder`);
  }
}

/** Opens the store and brings its schema up to date. */
export async function openHistory(loc: HistoryLocation): Promise<SqlDb> {
  let db: SqlDb;
  if (loc.kind === 'sqlite') {
    await mkdir(path.dirname(loc.file), { recursive: true });
    db = await openSqlite(loc.file);
  } else db = await openPostgres(loc.url);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}

/** The store's files in a repository (the database and its companions), absolute. */
export function historyCompanions(root: string): string[] {
  return COMPANIONS.map((s) => path.join(root, `${HISTORY_FILE}${s}`));
}
