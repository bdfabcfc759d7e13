import type { FlakeHistory, FlakeRecord } from '../layers/flake-history.js';
import { flakyTests } from './queries.js';
import type { SqlQueryable } from './sql.js';

/**
 * How far back a flake on a trusted run still counts as the base's own. A
 * month: long enough to have seen a test that flakes one run in twenty a few
 * times on a busy main branch, short enough that a fixed flake stops
 * excusing the same failure.
 */
export const FLAKE_WINDOW_DAYS = 30;

/** The UTC date `days` before `today` (YYYY-MM-DD). */
export function windowStart(today: string, days: number = FLAKE_WINDOW_DAYS): string {
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

/** The history's answer to the gate's one question about flakes, for one repository and window. */
export function flakeHistoryFrom(
  db: SqlQueryable,
  where: string,
  repository: string,
  since: string,
): FlakeHistory {
  return {
    async flakes(testIds) {
      const out = new Map<string, FlakeRecord>();
      if (testIds.length === 0) return out;
      for (const t of await flakyTests(db, { repository, since }, testIds.length, testIds))
        out.set(t.testId, {
          flakyRuns: t.flakyRuns,
          runs: t.runs,
          lastSeen: t.lastSeen,
          ...(t.template !== undefined ? { template: t.template } : {}),
          since,
          where,
        });
      return out;
    },
  };
}
