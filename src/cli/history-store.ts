import { existsSync } from 'node:fs';
import { InputError } from '../errors.js';
import type { Git } from '../git/git.js';
import { repositoryKey } from '../history/repository.js';
import type { SqlDb } from '../history/sql.js';
import {
  describeLocation,
  guardSqliteLocation,
  HISTORY_FILE,
  type HistoryLocation,
  historyLocation,
  openHistory,
} from '../history/store.js';
import type { CliIO } from './io.js';

export interface RepoHistory {
  db: SqlDb;
  /** The store, fit to print: a repo-relative file or a URL without its password. */
  where: string;
  /** This repository's name in the store. */
  repository: string;
}

/**
 * Where this repository's history is, checked before anything is run: an
 * unusable store is found before a long gate run, not after it.
 */
export async function historyFor(io: CliIO, git: Git, root: string): Promise<HistoryLocation> {
  const loc = historyLocation(io.env, root);
  if (loc.kind === 'sqlite') await guardSqliteLocation(git.at(root), loc);
  return loc;
}

/** Opens (and migrates) the store; `mustExist` for readers, which never create an empty file to report on. */
export async function openRepoHistory(
  io: CliIO,
  git: Git,
  root: string,
  options: { mustExist?: boolean } = {},
): Promise<RepoHistory> {
  const loc = await historyFor(io, git, root);
  if (options.mustExist && loc.kind === 'sqlite' && !existsSync(loc.file))
    throw new InputError(
      'HISTORY_UNAVAILABLE',
      `there is no run history at ${HISTORY_FILE}: runs get there with \`patchgate check --history\` and \`patchgate record --history\` (in CI, keep the file between runs with the CI system's cache), or set PATCHGATE_DATABASE_URL to a PostgreSQL server that holds them`,
      { file: loc.file },
    );
  const db = await openHistory(loc);
  return { db, where: describeLocation(loc), repository: await repositoryKey(git.at(root), root) };
}
