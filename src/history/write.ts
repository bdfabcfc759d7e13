import type { FailureSignature } from '../signatures/signature.js';
import type { HistoryRun, TestResult } from './run.js';
import { artifactDigest, MAX_ARTIFACT_CHARS, TRUSTED_SIDES, TRUSTED_SQL } from './run.js';
import { inChunks, type SqlDb, type SqlQueryable, type SqlValue } from './sql.js';

/** Rows per INSERT: far below both engines' limits on bound values, and one round trip each on PostgreSQL. */
const BATCH_ROWS = 400;

async function insertMany(
  tx: SqlQueryable,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly SqlValue[])[],
): Promise<void> {
  const one = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    const batch = rows.slice(i, i + BATCH_ROWS);
    await tx.query(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${batch.map(() => one).join(', ')}`,
      batch.flat(),
    );
  }
}

const orNull = <T extends SqlValue>(v: T | undefined): T | null => (v === undefined ? null : v);

/** The commit a run's trusted results are of: the base's in a check, the tested one in a record. */
function trustedCommit(run: HistoryRun): string | undefined {
  return run.kind === 'record' ? run.headCommit : run.baseCommit;
}

/**
 * A test that passed on a commit in one trusted run and failed on the same
 * commit in another (CI's "re-run failed jobs", two gate runs against one
 * base) is flaky there even though neither run saw both: the same code gave
 * both answers. The later run's result carries the flake, with the failure's
 * signature when it was the earlier run that failed.
 */
async function withEarlierRuns(tx: SqlQueryable, run: HistoryRun): Promise<readonly TestResult[]> {
  const commit = trustedCommit(run);
  const trusted = (t: TestResult) => (TRUSTED_SIDES as readonly string[]).includes(t.side);
  if (commit === undefined || !run.tests.some(trusted)) return run.tests;
  // The runs first, by their commit indexes, then their results by run: one query over both tables would
  // let the planner scan every result ever recorded, on every write.
  const runs = await tx.query<{ id: number }>(
    `SELECT id FROM patchgate_runs
      WHERE (repository = ? AND kind = 'record' AND head_commit = ?)
         OR (repository = ? AND kind = 'check' AND base_commit = ?)`,
    [run.repository, commit, run.repository, commit],
  );
  if (runs.length === 0) return run.tests;
  const earlier = await inChunks(
    runs.map((r) => Number(r.id)),
    (ids, list) =>
      tx.query<{
        test_id: string;
        passed: number;
        failed: number;
        signature: string | null;
        template: string | null;
      }>(
        `SELECT test_id, passed, failed, signature, template FROM patchgate_tests
          WHERE run_id IN (${list}) AND side IN ${TRUSTED_SQL}`,
        ids,
      ),
  );
  if (earlier.length === 0) return run.tests;
  interface Seen {
    passed: boolean;
    failed: boolean;
    signature?: FailureSignature;
  }
  const seen = new Map<string, Seen>();
  for (const e of earlier) {
    const s = seen.get(e.test_id) ?? { passed: false, failed: false };
    if (Number(e.passed) > 0) s.passed = true;
    if (Number(e.failed) > 0) {
      s.failed = true;
      if (e.signature !== null && e.template !== null)
        s.signature = { sha256: e.signature, template: e.template };
    }
    seen.set(e.test_id, s);
  }
  return run.tests.map((t) => {
    const s = seen.get(t.testId);
    if (!s || t.flaky || !trusted(t)) return t;
    if (t.passed > 0 && s.failed) {
      const signature = t.signature ?? s.signature;
      return { ...t, flaky: true, ...(signature ? { signature } : {}) };
    }
    if (t.failed > 0 && s.passed) return { ...t, flaky: true };
    return t;
  });
}

/**
 * Writes one run, all of it or nothing, and returns its id. Only the gate
 * calls this, after the verdict, in its own process: nothing a head process
 * can reach holds the store.
 */
export async function writeRun(db: SqlDb, run: HistoryRun): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO patchgate_runs (repository, kind, recorded_at, base_commit, head_commit, verdict, error_kind,
        branch, commits, ci_run, shard_index, shard_count, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [
        run.repository,
        run.kind,
        run.recordedAt,
        orNull(run.baseCommit),
        run.headCommit,
        orNull(run.verdict),
        orNull(run.errorKind),
        orNull(run.branch),
        orNull(run.commits),
        orNull(run.ciRun),
        orNull(run.shard?.index),
        orNull(run.shard?.count),
        orNull(run.durationMs),
      ],
    );
    if (!row) throw new Error('the history store returned no id for the run it inserted');
    const id = Number(row.id);
    const tests = await withEarlierRuns(tx, run);
    await insertMany(
      tx,
      'patchgate_findings',
      ['run_id', 'code', 'layer', 'severity', 'file', 'line'],
      run.findings.map((f) => [id, f.code, f.layer, f.severity, orNull(f.file), orNull(f.line)]),
    );
    await insertMany(
      tx,
      'patchgate_authors',
      ['run_id', 'name', 'email', 'roles', 'commits'],
      run.authors.map((a) => [id, a.name, a.email, a.roles.join(','), a.commits]),
    );
    await insertMany(
      tx,
      'patchgate_tests',
      [
        'run_id',
        'side',
        'test_id',
        'file',
        'runs',
        'passed',
        'failed',
        'skipped',
        'flaky',
        'duration_ms',
        'signature',
        'template',
      ],
      tests.map((t) => [
        id,
        t.side,
        t.testId,
        orNull(t.file),
        t.runs,
        t.passed,
        t.failed,
        t.skipped,
        t.flaky ? 1 : 0,
        orNull(t.durationMs),
        orNull(t.signature?.sha256),
        orNull(t.signature?.template),
      ]),
    );
    await insertMany(
      tx,
      'patchgate_artifacts',
      ['run_id', 'name', 'sha256', 'content'],
      run.artifacts.map((a) => [
        id,
        a.name,
        artifactDigest(a.content),
        a.content.length > MAX_ARTIFACT_CHARS ? '' : a.content,
      ]),
    );
    return id;
  });
}
