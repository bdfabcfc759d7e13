import { inChunks, type SqlQueryable } from './sql.js';

/** One main-branch run (`record --history`) as the history keeps it: when, which CI run, and each test's outcome. */
export interface MainRun {
  id: number;
  /** UTC, ISO 8601, as recorded. */
  at: string;
  ciRun?: string;
  tests: MainRunTest[];
}

export interface MainRunTest {
  testId: string;
  file?: string;
  passed: number;
  failed: number;
  skipped: number;
  flaky: boolean;
}

/**
 * The repository's main-branch runs recorded at or after `since` (all when
 * absent), oldest first, each with the outcomes of its tests: what the
 * freeze-window ledger is computed from (`patchgate freeze window`). Only
 * `record` runs count: a check's runs are of a patch, not of the main branch.
 */
export async function mainBranchRuns(
  db: SqlQueryable,
  repository: string,
  since?: string,
): Promise<MainRun[]> {
  const runs = await db.query<{ id: number; at: string; ci_run: string | null }>(
    `SELECT r.id AS id, r.recorded_at AS at, r.ci_run AS ci_run FROM patchgate_runs r
      WHERE r.repository = ? AND r.kind = 'record'${since !== undefined ? ' AND r.recorded_at >= ?' : ''}
      ORDER BY r.recorded_at, r.id`,
    since !== undefined ? [repository, since] : [repository],
  );
  const byRun = new Map<number, MainRun>(
    runs.map((r) => [
      Number(r.id),
      { id: Number(r.id), at: r.at, ...(r.ci_run !== null ? { ciRun: r.ci_run } : {}), tests: [] },
    ]),
  );
  type Row = {
    run_id: number;
    test_id: string;
    file: string | null;
    passed: number;
    failed: number;
    skipped: number;
    flaky: number;
  };
  const rows = await inChunks([...byRun.keys()], (chunk, list) =>
    db.query<Row>(
      `SELECT run_id, test_id, file, passed, failed, skipped, flaky FROM patchgate_tests
        WHERE run_id IN (${list}) AND side = 'main'`,
      chunk,
    ),
  );
  for (const r of rows)
    byRun.get(Number(r.run_id))?.tests.push({
      testId: r.test_id,
      ...(r.file !== null ? { file: r.file } : {}),
      passed: Number(r.passed),
      failed: Number(r.failed),
      skipped: Number(r.skipped),
      flaky: Number(r.flaky) === 1,
    });
  return [...byRun.values()];
}
