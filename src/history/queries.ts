import { byCodePoint } from '../util/compare.js';
import { TRUSTED_SQL } from './run.js';
import { inChunks, type SqlQueryable, type SqlValue } from './sql.js';

/**
 * The questions the history answers, each one statement that runs unchanged
 * on both engines. Flake questions read only trusted sides (the base's checks
 * on the base's code, main-branch runs): a head's own runs are its code's
 * testimony about itself.
 */
export interface HistoryScope {
  /** One repository's runs; all of them when absent. */
  repository?: string;
  /** Runs recorded at or after this UTC date or time (ISO 8601). */
  since?: string;
}

function scopeWhere(scope: HistoryScope): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (scope.repository !== undefined) {
    parts.push('r.repository = ?');
    params.push(scope.repository);
  }
  if (scope.since !== undefined) {
    parts.push('r.recorded_at >= ?');
    params.push(scope.since);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

/** The runs in scope, with when each was recorded: few beside the results they hold. */
async function runsInScope(db: SqlQueryable, scope: HistoryScope): Promise<Map<number, string>> {
  const where = scopeWhere(scope);
  const rows = await db.query<{ id: number; at: string }>(
    `SELECT r.id AS id, r.recorded_at AS at FROM patchgate_runs r WHERE 1 = 1${where.sql}`,
    where.params,
  );
  return new Map(rows.map((r) => [Number(r.id), r.at]));
}

export interface FlakyTest {
  testId: string;
  file?: string;
  /** Runs in which it both passed and failed (or passed only on a retry). */
  flakyRuns: number;
  /** Runs in which it ran at all. */
  runs: number;
  rate: number;
  firstSeen: string;
  lastSeen: string;
  /** The latest flaky run's failure: its signature (sha256) and template. */
  signature?: string;
  template?: string;
}

/**
 * Tests that flaked on trusted runs: highest rate first, then most flaky
 * runs. Read from the few flaky results (a partial index) and the runs in
 * scope, joined here rather than in SQL: both engines' planners, asked to
 * join, start from the runs of the repository and read every result they
 * hold, which over a thousand runs of thousands of tests misses a second.
 */
export async function flakyTests(
  db: SqlQueryable,
  scope: HistoryScope,
  limit: number,
  /** Only these tests (the gate asking about the failures in front of it); every test when absent. */
  testIds?: readonly string[],
): Promise<FlakyTest[]> {
  const at = await runsInScope(db, scope);
  type Row = {
    test_id: string;
    run_id: number;
    file: string | null;
    signature: string | null;
    template: string | null;
  };
  const select = `SELECT test_id, run_id, file, signature, template FROM patchgate_tests WHERE flaky = 1 AND side IN ${TRUSTED_SQL}`;
  const flaky =
    testIds === undefined
      ? await db.query<Row>(select)
      : await inChunks(testIds, (chunk, list) => db.query<Row>(`${select} AND test_id IN (${list})`, chunk));
  interface Acc {
    file?: string;
    n: number;
    first: string;
    last: string;
    latest: { at: string; run: number; signature: string | null; template: string | null };
  }
  const byTest = new Map<string, Acc>();
  for (const f of flaky) {
    const run = Number(f.run_id);
    const when = at.get(run);
    if (when === undefined) continue;
    const a = byTest.get(f.test_id);
    const latest = { at: when, run, signature: f.signature, template: f.template };
    if (!a) {
      byTest.set(f.test_id, {
        ...(f.file !== null ? { file: f.file } : {}),
        n: 1,
        first: when,
        last: when,
        latest,
      });
      continue;
    }
    a.n++;
    if (when < a.first) a.first = when;
    if (when > a.last) a.last = when;
    if (f.file !== null && (a.file === undefined || f.file > a.file)) a.file = f.file;
    if (when > a.latest.at || (when === a.latest.at && run > a.latest.run)) a.latest = latest;
  }
  const ids = [...byTest.keys()];
  const totals = new Map<string, number>();
  const seen = await inChunks(ids, (chunk, list) =>
    db.query<{ test_id: string; run_id: number }>(
      `SELECT test_id, run_id FROM patchgate_tests WHERE test_id IN (${list}) AND side IN ${TRUSTED_SQL}`,
      chunk,
    ),
  );
  for (const r of seen) if (at.has(Number(r.run_id))) totals.set(r.test_id, (totals.get(r.test_id) ?? 0) + 1);
  return [...byTest.entries()]
    .map(([testId, a]): FlakyTest => {
      const runs = Math.max(totals.get(testId) ?? 0, a.n);
      return {
        testId,
        ...(a.file !== undefined ? { file: a.file } : {}),
        flakyRuns: a.n,
        runs,
        rate: a.n / runs,
        firstSeen: a.first,
        lastSeen: a.last,
        ...(a.latest.signature !== null ? { signature: a.latest.signature } : {}),
        ...(a.latest.template !== null ? { template: a.latest.template } : {}),
      };
    })
    .sort((a, b) => b.rate - a.rate || b.flakyRuns - a.flakyRuns || byCodePoint(a.testId, b.testId))
    .slice(0, limit);
}

export interface SlowTest {
  testId: string;
  file?: string;
  runs: number;
  meanMs: number;
  maxMs: number;
}

/** Tests by their mean duration on trusted runs, slowest first. */
export async function slowestTests(
  db: SqlQueryable,
  scope: HistoryScope,
  limit: number,
): Promise<SlowTest[]> {
  const where = scopeWhere(scope);
  const rows = await db.query<{
    test_id: string;
    file: string | null;
    n: number;
    mean: number;
    worst: number;
  }>(
    `SELECT t.test_id AS test_id, MAX(t.file) AS file, COUNT(*) AS n,
            AVG(t.duration_ms) AS mean, MAX(t.duration_ms) AS worst
       FROM patchgate_tests t JOIN patchgate_runs r ON r.id = t.run_id
      WHERE t.duration_ms IS NOT NULL AND t.side IN ${TRUSTED_SQL}${where.sql}
      GROUP BY t.test_id
      ORDER BY AVG(t.duration_ms) DESC, t.test_id
      LIMIT ?`,
    [...where.params, limit],
  );
  return rows.map((r) => ({
    testId: r.test_id,
    ...(r.file !== null ? { file: r.file } : {}),
    runs: Number(r.n),
    meanMs: Math.round(Number(r.mean)),
    maxMs: Number(r.worst),
  }));
}

export interface RejectionCount {
  /** The UTC day (YYYY-MM-DD), or the Monday that starts the ISO week. */
  period: string;
  code: string;
  /** Rejected patches (distinct head commits) with a rejecting finding of this code. */
  patches: number;
}

/** The Monday of a UTC date's ISO week. */
export function weekOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const back = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - back);
  return d.toISOString().slice(0, 10);
}

/** Rejections by reason code over time: what agents' patches are turned away for, and whether it changes. */
export async function rejectionsByCode(
  db: SqlQueryable,
  scope: HistoryScope,
  bucket: 'day' | 'week',
): Promise<RejectionCount[]> {
  const where = scopeWhere(scope);
  const rows = await db.query<{ day: string; code: string; head: string }>(
    `SELECT DISTINCT substr(r.recorded_at, 1, 10) AS day, f.code AS code, r.head_commit AS head
       FROM patchgate_runs r JOIN patchgate_findings f ON f.run_id = r.id
      WHERE r.kind = 'check' AND r.verdict = 'reject' AND f.severity = 'reject'${where.sql}`,
    where.params,
  );
  const counts = new Map<string, { period: string; code: string; heads: Set<string> }>();
  for (const r of rows) {
    const period = bucket === 'week' ? weekOf(r.day) : r.day;
    const key = `${period}\u0000${r.code}`;
    let c = counts.get(key);
    if (!c) {
      c = { period, code: r.code, heads: new Set() };
      counts.set(key, c);
    }
    c.heads.add(r.head);
  }
  return [...counts.values()]
    .map((c) => ({ period: c.period, code: c.code, patches: c.heads.size }))
    .sort((a, b) => byCodePoint(a.period, b.period) || b.patches - a.patches || byCodePoint(a.code, b.code));
}

export interface AgentRecord {
  /** Lower-cased: one identity however its commits spell the address. */
  email: string;
  /** The names it signed with, most recent run first. */
  names: string[];
  roles: string[];
  /** Distinct head commits judged, and how each was decided (the latest run of a head decides it). */
  patches: number;
  accepted: number;
  rejected: number;
  errored: number;
  /** Rejected patches by rejecting code. */
  codes: Record<string, number>;
}

/**
 * Per-agent accountability: for every identity on the judged patches (author,
 * committer or co-author), how many patches it took part in and what the
 * rejected ones were rejected for. Identities are the patch's own claim
 * (commit metadata); the table is for accounting, never for a verdict.
 */
export async function agentRecords(
  db: SqlQueryable,
  scope: HistoryScope,
  limit: number,
): Promise<AgentRecord[]> {
  const where = scopeWhere(scope);
  const people = await db.query<{
    email: string;
    name: string;
    roles: string;
    id: number;
    head: string;
    verdict: string | null;
    at: string;
  }>(
    `SELECT LOWER(a.email) AS email, a.name AS name, a.roles AS roles, r.id AS id, r.head_commit AS head,
            r.verdict AS verdict, r.recorded_at AS at
       FROM patchgate_authors a JOIN patchgate_runs r ON r.id = a.run_id
      WHERE r.kind = 'check'${where.sql}
      ORDER BY r.recorded_at, r.id`,
    where.params,
  );
  const codes = await db.query<{ id: number; code: string }>(
    `SELECT DISTINCT r.id AS id, f.code AS code
       FROM patchgate_runs r JOIN patchgate_findings f ON f.run_id = r.id
      WHERE r.kind = 'check' AND r.verdict = 'reject' AND f.severity = 'reject'${where.sql}`,
    where.params,
  );
  const codesOfRun = new Map<number, string[]>();
  for (const c of codes) {
    const list = codesOfRun.get(Number(c.id));
    if (list) list.push(c.code);
    else codesOfRun.set(Number(c.id), [c.code]);
  }
  interface Acc {
    names: string[];
    roles: Set<string>;
    /** Per head commit, its latest run (rows come oldest first). */
    heads: Map<string, { id: number; verdict: string | null }>;
  }
  const acc = new Map<string, Acc>();
  for (const p of people) {
    let a = acc.get(p.email);
    if (!a) {
      a = { names: [], roles: new Set(), heads: new Map() };
      acc.set(p.email, a);
    }
    a.names = [p.name, ...a.names.filter((n) => n !== p.name)];
    for (const role of p.roles.split(',')) if (role !== '') a.roles.add(role);
    a.heads.set(p.head, { id: Number(p.id), verdict: p.verdict });
  }
  const out: AgentRecord[] = [];
  for (const [email, a] of acc) {
    const record: AgentRecord = {
      email,
      names: a.names,
      roles: [...a.roles].sort(byCodePoint),
      patches: a.heads.size,
      accepted: 0,
      rejected: 0,
      errored: 0,
      codes: {},
    };
    for (const { id, verdict } of a.heads.values()) {
      if (verdict === 'accept') record.accepted++;
      else if (verdict === 'reject') {
        record.rejected++;
        for (const code of codesOfRun.get(id) ?? []) record.codes[code] = (record.codes[code] ?? 0) + 1;
      } else record.errored++;
    }
    out.push(record);
  }
  return out
    .sort((x, y) => y.rejected - x.rejected || y.patches - x.patches || byCodePoint(x.email, y.email))
    .slice(0, limit);
}

/** Runs in scope, by kind: what every answer is out of. */
export async function runCounts(
  db: SqlQueryable,
  scope: HistoryScope,
): Promise<{ check: number; record: number }> {
  const where = scopeWhere(scope);
  const rows = await db.query<{ kind: string; n: number }>(
    `SELECT r.kind AS kind, COUNT(*) AS n FROM patchgate_runs r WHERE 1 = 1${where.sql} GROUP BY r.kind`,
    where.params,
  );
  const counts = { check: 0, record: 0 };
  for (const r of rows) if (r.kind === 'check' || r.kind === 'record') counts[r.kind] = Number(r.n);
  return counts;
}

export interface FileDurations {
  /** Mean wall time per test file (the sum of its tests' durations in one run), over the runs it was in. */
  ms: Map<string, number>;
  /** Trusted runs read. */
  runs: number;
}

/**
 * What each test file costs, from trusted runs recorded in [since, before):
 * the durations a sharded check balances its test files by. `before` is
 * fixed by the run being planned (its base commit's date), so every shard of
 * that run reads the same runs even while others are being recorded.
 */
export async function fileDurations(
  db: SqlQueryable,
  repository: string,
  since: string,
  before: string,
): Promise<FileDurations> {
  const runs = await db.query<{ id: number }>(
    `SELECT r.id AS id FROM patchgate_runs r
      WHERE r.repository = ? AND r.recorded_at >= ? AND r.recorded_at < ?`,
    [repository, since, before],
  );
  const ids = runs.map((r) => Number(r.id));
  type Row = { run_id: number; file: string; ms: number };
  const rows = await inChunks(ids, (chunk, list) =>
    db.query<Row>(
      `SELECT t.run_id AS run_id, t.file AS file, SUM(t.duration_ms) AS ms FROM patchgate_tests t
        WHERE t.run_id IN (${list}) AND t.side IN ${TRUSTED_SQL}
          AND t.file IS NOT NULL AND t.duration_ms IS NOT NULL
        GROUP BY t.run_id, t.file`,
      chunk,
    ),
  );
  const sums = new Map<string, { total: number; n: number }>();
  const seen = new Set<number>();
  for (const r of rows) {
    seen.add(Number(r.run_id));
    const s = sums.get(r.file) ?? { total: 0, n: 0 };
    s.total += Number(r.ms);
    s.n += 1;
    sums.set(r.file, s);
  }
  return { ms: new Map([...sums].map(([f, s]) => [f, s.total / s.n])), runs: seen.size };
}
