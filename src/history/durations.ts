import type { RecordedDurations } from '../shard/plan.js';
import { FLAKE_WINDOW_DAYS } from './flake-history.js';
import { fileDurations } from './queries.js';
import type { SqlQueryable } from './sql.js';

/**
 * Test file durations for planning shards: the mean per file over trusted
 * runs in the month before `before` (the base commit's date, the same for
 * every shard of a run). Undefined when the history has no such run, so the
 * plan balances by count instead.
 */
export function durationsFrom(
  db: SqlQueryable,
  repository: string,
): (files: readonly string[], before: string) => Promise<RecordedDurations | undefined> {
  return async (files, before) => {
    const since = new Date(Date.parse(before) - FLAKE_WINDOW_DAYS * 86_400_000).toISOString();
    const found = await fileDurations(db, repository, since, before);
    if (found.runs === 0) return undefined;
    const wanted = new Set(files);
    const ms = new Map([...found.ms].filter(([f]) => wanted.has(f)));
    return ms.size === 0 ? undefined : { ms, runs: found.runs, before };
  };
}
