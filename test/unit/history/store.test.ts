import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durationsFrom } from '../../../src/history/durations.js';
import { mainBranchRuns } from '../../../src/history/main-runs.js';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../../src/history/migrations.js';
import { openPostgres } from '../../../src/history/postgres.js';
import {
  agentRecords,
  fileDurations,
  flakyTests,
  rejectionsByCode,
  slowestTests,
} from '../../../src/history/queries.js';
import type { TestResult } from '../../../src/history/run.js';
import { numberedPlaceholders, type SqlDb } from '../../../src/history/sql.js';
import { openSqlite } from '../../../src/history/sqlite.js';
import { historyLocation, openHistory } from '../../../src/history/store.js';
import { writeRun } from '../../../src/history/write.js';
import { tempDir } from '../../helpers/gitdir.js';
import { historyRun, testResult } from '../../helpers/history-rows.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { repoRoot } from '../../helpers/shared.js';

const pgMissing = postgresUnavailable();
if (pgMissing) console.log(`history store tests: the PostgreSQL half is skipped: ${pgMissing}`);

let server: TestPostgres | undefined;
let databases = 0;
beforeAll(async () => {
  if (!pgMissing) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

interface Engine {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty store: its location's env and root. */
  fresh(): Promise<{ env: Record<string, string>; root: string }>;
}

const ENGINES: Engine[] = [
  { name: 'sqlite', fresh: async () => ({ env: {}, root: tempDir() }) },
  {
    name: 'postgres',
    fresh: async () => {
      if (!server) throw new Error('no server');
      const url = await server.database(`history_${++databases}`);
      return { env: { PATCHGATE_DATABASE_URL: url }, root: tempDir() };
    },
  },
];

const test = testResult;
const run = historyRun;

const agent = { name: 'Agent A', email: 'Agent-A@agents.example', roles: ['author' as const], commits: 2 };
const human = { name: 'Jane', email: 'jane@example.com', roles: ['co-author' as const], commits: 1 };

describe.each(ENGINES)('the run history on $name', (engine) => {
  const skip = engine.name === 'postgres' && pgMissing !== undefined;
  let db: SqlDb;
  let loc: Awaited<ReturnType<Engine['fresh']>>;
  beforeAll(async () => {
    if (skip) return;
    loc = await engine.fresh();
    db = await openHistory(historyLocation(loc.env, loc.root));
  });
  afterAll(async () => {
    await db?.close();
  });

  it.skipIf(skip)('migrates a new store to the schema version once, however often it is opened', async () => {
    const again = await openHistory(historyLocation(loc.env, loc.root));
    await again.close();
    const rows = await db.query<{ version: number }>('SELECT version FROM patchgate_schema ORDER BY version');
    expect(rows.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
    expect(SCHEMA_VERSION).toBe(1);
  });

  it.skipIf(skip)('answers flaky, slowest, rejections and agents from trusted runs only', async () => {
    const flakyBase = test('suite::test_flaky', 'base', {
      file: 'tests/test_a.py',
      runs: 3,
      passed: 2,
      failed: 1,
      flaky: true,
      durationMs: 120,
      signature: { sha256: 'f'.repeat(64), template: 'AssertionError|assert <n> == <n>' },
    });
    await writeRun(
      db,
      run({
        recordedAt: '2026-11-02T10:00:00.000Z',
        headCommit: '1'.repeat(40),
        verdict: 'reject',
        authors: [agent, human],
        findings: [
          { code: 'REGRESSION', layer: 'regression', severity: 'reject', file: 'src/a.py', line: 3 },
          { code: 'TEST_SKIPPED', layer: 'test-edits', severity: 'warn' },
        ],
        tests: [
          flakyBase,
          // The head's own runs ran the patch's code: a flake there is its testimony, never history's.
          test('suite::test_head_only_flaky', 'head', { runs: 2, passed: 1, failed: 1, flaky: true }),
          test('suite::test_slow', 'base', { durationMs: 5000 }),
          test('suite::test_fast', 'base', { durationMs: 3 }),
        ],
      }),
    );
    await writeRun(
      db,
      run({
        recordedAt: '2026-11-04T09:00:00.000Z',
        // Another base: the same base passing a test it failed before would make it flaky there (see below).
        baseCommit: 'c'.repeat(40),
        headCommit: '2'.repeat(40),
        verdict: 'accept',
        authors: [{ ...agent, email: 'agent-a@AGENTS.example' }],
        tests: [
          test('suite::test_flaky', 'base', { durationMs: 80 }),
          test('suite::test_slow', 'base', { durationMs: 3000 }),
        ],
      }),
    );
    await writeRun(
      db,
      run({
        kind: 'record',
        recordedAt: '2026-11-10T09:00:00.000Z',
        headCommit: '3'.repeat(40),
        verdict: undefined,
        baseCommit: undefined,
        tests: [test('suite::test_flaky', 'main', { runs: 1, passed: 0, failed: 1, flaky: true })],
      }),
    );
    // Another repository in the same store is kept apart.
    await writeRun(
      db,
      run({
        repository: 'github.com/acme/other',
        verdict: 'reject',
        authors: [agent],
        findings: [{ code: 'CONTRACT_TOUCHED', layer: 'contracts', severity: 'reject' }],
        tests: [test('suite::test_flaky', 'base', { runs: 2, passed: 1, failed: 1, flaky: true })],
      }),
    );
    const scope = { repository: 'github.com/acme/app' };

    const flaky = await flakyTests(db, scope, 10);
    expect(flaky).toEqual([
      {
        testId: 'suite::test_flaky',
        file: 'tests/test_a.py',
        flakyRuns: 2,
        runs: 3,
        rate: 2 / 3,
        firstSeen: '2026-11-02T10:00:00.000Z',
        lastSeen: '2026-11-10T09:00:00.000Z',
      },
    ]);
    expect((await flakyTests(db, { ...scope, since: '2026-11-03' }, 10))[0]).toMatchObject({
      flakyRuns: 1,
      runs: 2,
    });
    const both = await flakyTests(db, {}, 10);
    expect(both[0]).toMatchObject({ flakyRuns: 3, runs: 4 });

    const slow = await slowestTests(db, scope, 2);
    expect(slow).toEqual([
      { testId: 'suite::test_slow', runs: 2, meanMs: 4000, maxMs: 5000 },
      { testId: 'suite::test_flaky', file: 'tests/test_a.py', runs: 2, meanMs: 100, maxMs: 120 },
    ]);

    expect(await rejectionsByCode(db, scope, 'day')).toEqual([
      { period: '2026-11-02', code: 'REGRESSION', patches: 1 },
    ]);
    expect(await rejectionsByCode(db, {}, 'week')).toEqual([
      { period: '2026-11-02', code: 'CONTRACT_TOUCHED', patches: 1 },
      { period: '2026-11-02', code: 'REGRESSION', patches: 1 },
    ]);

    const agents = await agentRecords(db, scope, 10);
    expect(agents).toEqual([
      {
        email: 'agent-a@agents.example',
        names: ['Agent A'],
        roles: ['author'],
        patches: 2,
        accepted: 1,
        rejected: 1,
        errored: 0,
        codes: { REGRESSION: 1 },
      },
      {
        email: 'jane@example.com',
        names: ['Jane'],
        roles: ['co-author'],
        patches: 1,
        accepted: 0,
        rejected: 1,
        errored: 0,
        codes: { REGRESSION: 1 },
      },
    ]);
  });

  it.skipIf(skip)(
    'marks a test flaky when one commit passed it in one trusted run and failed it in another, with the failure',
    async () => {
      const fresh = await engine.fresh();
      const store = await openHistory(historyLocation(fresh.env, fresh.root));
      try {
        const signature = { sha256: 'e'.repeat(64), template: 'TimeoutError|timed out after <N>ms' };
        const main = (at: string, t: TestResult[]) =>
          run({
            kind: 'record',
            verdict: undefined,
            baseCommit: undefined,
            headCommit: 'm'.repeat(40),
            recordedAt: at,
            tests: t,
          });
        await writeRun(
          store,
          main('2026-11-01T00:00:00Z', [test('net', 'main', { passed: 0, failed: 1, signature })]),
        );
        // CI's "re-run failed jobs": the same commit passes it.
        await writeRun(store, main('2026-11-01T01:00:00Z', [test('net', 'main')]));
        // A check whose base is that commit fails it again; its head run failing it too is the patch's word, not history's.
        await writeRun(
          store,
          run({
            baseCommit: 'm'.repeat(40),
            recordedAt: '2026-11-02T00:00:00Z',
            tests: [
              test('net', 'base', { passed: 0, failed: 1, signature }),
              test('net', 'head', { passed: 0, failed: 1 }),
            ],
          }),
        );
        // Another commit that only ever passes it is no flake.
        await writeRun(
          store,
          run({ kind: 'record', headCommit: 'n'.repeat(40), tests: [test('net', 'main')] }),
        );
        const rows = await store.query<{ side: string; flaky: number; template: string | null }>(
          'SELECT side, flaky, template FROM patchgate_tests ORDER BY run_id, side',
        );
        expect(rows.map((r) => [r.side, Number(r.flaky), r.template])).toEqual([
          ['main', 0, signature.template],
          ['main', 1, signature.template],
          ['base', 1, signature.template],
          ['head', 0, null],
          ['main', 0, null],
        ]);
        expect(await flakyTests(store, {}, 10)).toMatchObject([
          { testId: 'net', flakyRuns: 2, runs: 4, template: signature.template },
        ]);
      } finally {
        await store.close();
      }
    },
  );

  it.skipIf(skip)('counts a head judged twice once, by its latest verdict', async () => {
    const fresh = await engine.fresh();
    const store = await openHistory(historyLocation(fresh.env, fresh.root));
    try {
      const head = '9'.repeat(40);
      await writeRun(
        store,
        run({ headCommit: head, verdict: 'error', authors: [agent], recordedAt: '2026-11-01T00:00:00Z' }),
      );
      await writeRun(
        store,
        run({ headCommit: head, verdict: 'accept', authors: [agent], recordedAt: '2026-11-01T01:00:00Z' }),
      );
      expect(await agentRecords(store, {}, 10)).toMatchObject([{ patches: 1, accepted: 1, errored: 0 }]);
    } finally {
      await store.close();
    }
  });

  it.skipIf(skip)('writes a run whole or not at all', async () => {
    const before = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM patchgate_runs');
    const broken = run({
      tests: [test('ok', 'base'), { ...test('broken', 'base'), testId: null as unknown as string }],
    });
    await expect(writeRun(db, broken)).rejects.toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    const after = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM patchgate_runs');
    expect(Number(after[0]?.n)).toBe(Number(before[0]?.n));
  });

  it.skipIf(skip)('refuses a store a newer patchgate migrated, naming both versions', async () => {
    const fresh = await engine.fresh();
    const store = await openHistory(historyLocation(fresh.env, fresh.root));
    await store.query("INSERT INTO patchgate_schema (version, name, applied_at) VALUES (99, 'future', 'x')");
    await store.close();
    const err = await openHistory(historyLocation(fresh.env, fresh.root)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'HISTORY_INCOMPATIBLE',
      details: { version: 99, known: SCHEMA_VERSION },
    });
    expect((err as Error).message).toMatch(/schema version 99, newer than this patchgate knows \(1\)/);
  });

  it.skipIf(skip)(
    'loses nothing when four processes record at once, in two repositories',
    async () => {
      const fresh = await engine.fresh();
      // The first open migrates; the writers then race on the same tables.
      const script = path.join(tempDir(), 'writer.mjs');
      writeFileSync(
        script,
        `import { historyLocation, openHistory } from ${JSON.stringify(path.join(repoRoot, 'dist/history/store.js'))};
import { writeRun } from ${JSON.stringify(path.join(repoRoot, 'dist/history/write.js'))};
const [who, repository] = process.argv.slice(2);
const db = await openHistory(historyLocation(JSON.parse(process.env.LOC_ENV), process.env.LOC_ROOT));
for (let i = 0; i < 15; i++) {
  const tests = Array.from({ length: 300 }, (_, t) => ({ side: 'base', testId: who + '::t' + t, runs: 1, passed: 1, failed: 0, skipped: 0, flaky: false }));
  await writeRun(db, { repository, kind: 'check', recordedAt: new Date().toISOString(), headCommit: who + i, verdict: 'accept', authors: [], findings: [], tests, artifacts: [] });
}
await db.close();
`,
      );
      const writer = (who: string, repository: string) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [script, who, repository], {
            env: { ...process.env, LOC_ENV: JSON.stringify(fresh.env), LOC_ROOT: fresh.root },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (b: Buffer) => {
            stderr += b.toString();
          });
          child.on('exit', (code) => resolve({ code, stderr }));
        });
      const results = await Promise.all([
        writer('w1', 'repo-a'),
        writer('w2', 'repo-a'),
        writer('w3', 'repo-b'),
        writer('w4', 'repo-b'),
      ]);
      for (const r of results) expect(r).toEqual({ code: 0, stderr: '' });
      const store = await openHistory(historyLocation(fresh.env, fresh.root));
      try {
        const runs = await store.query<{ repository: string; n: number }>(
          'SELECT repository, COUNT(*) AS n FROM patchgate_runs GROUP BY repository ORDER BY repository',
        );
        expect(runs.map((r) => [r.repository, Number(r.n)])).toEqual([
          ['repo-a', 30],
          ['repo-b', 30],
        ]);
        const tests = await store.query<{ n: number }>('SELECT COUNT(*) AS n FROM patchgate_tests');
        expect(Number(tests[0]?.n)).toBe(4 * 15 * 300);
        const schema = await store.query<{ n: number }>('SELECT COUNT(*) AS n FROM patchgate_schema');
        expect(Number(schema[0]?.n)).toBe(1);
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});

describe.each(ENGINES)('what shards and the freeze window read on $name', (engine) => {
  const skip = engine.name === 'postgres' && pgMissing !== undefined;
  it.skipIf(skip)(
    'file durations: trusted runs in the month before the cutoff only, mean per run; main-branch runs oldest first',
    async () => {
      const loc = await engine.fresh();
      const db = await openHistory(historyLocation(loc.env, loc.root));
      try {
        const t = (
          id: string,
          side: TestResult['side'],
          file: string,
          durationMs: number,
          more: Partial<TestResult> = {},
        ) => test(id, side, { file, durationMs, ...more });
        // Two trusted runs before the cutoff: a.py takes 100 then 300 (two tests of 50+50, then one of 300).
        await writeRun(
          db,
          run({
            kind: 'record',
            recordedAt: '2026-11-10T00:00:00.000Z',
            ciRun: 'm1',
            tests: [
              t('a1', 'main', 'a.py', 50),
              t('a2', 'main', 'a.py', 50),
              t('b', 'main', 'b.py', 10, { failed: 1, passed: 0 }),
            ],
          }),
        );
        await writeRun(
          db,
          run({
            recordedAt: '2026-11-11T00:00:00.000Z',
            tests: [t('a1', 'base', 'a.py', 300), t('h', 'head', 'h.py', 9999)],
          }),
        );
        // After the cutoff (another shard's run being recorded meanwhile), long ago, and another repository.
        await writeRun(
          db,
          run({
            kind: 'record',
            recordedAt: '2026-11-20T00:00:00.000Z',
            ciRun: 'm2',
            tests: [t('a1', 'main', 'a.py', 5000)],
          }),
        );
        await writeRun(
          db,
          run({ recordedAt: '2026-09-01T00:00:00.000Z', tests: [t('a1', 'base', 'a.py', 7000)] }),
        );
        await writeRun(
          db,
          run({
            repository: 'other',
            recordedAt: '2026-11-10T00:00:00.000Z',
            tests: [t('a1', 'base', 'a.py', 8000)],
          }),
        );
        const d = await fileDurations(
          db,
          'github.com/acme/app',
          '2026-10-15T00:00:00.000Z',
          '2026-11-15T00:00:00.000Z',
        );
        expect(d.runs).toBe(2);
        expect(Object.fromEntries(d.ms)).toEqual({ 'a.py': 200, 'b.py': 10 });
        const planned = await durationsFrom(db, 'github.com/acme/app')(
          ['a.py', 'c.py'],
          '2026-11-15T00:00:00.000Z',
        );
        expect(planned).toEqual({
          ms: new Map([['a.py', 200]]),
          runs: 2,
          before: '2026-11-15T00:00:00.000Z',
        });
        expect(await durationsFrom(db, 'nowhere')(['a.py'], '2026-11-15T00:00:00.000Z')).toBeUndefined();

        const main = await mainBranchRuns(db, 'github.com/acme/app');
        expect(main.map((r) => [r.ciRun, r.tests.length])).toEqual([
          ['m1', 3],
          ['m2', 1],
        ]);
        expect(main[0]?.tests.find((x) => x.testId === 'b')).toMatchObject({
          failed: 1,
          passed: 0,
          file: 'b.py',
        });
      } finally {
        await db.close();
      }
    },
  );
});

describe('opening a store', () => {
  it('refuses a file that is not an SQLite database, naming it and what was expected', async () => {
    const root = tempDir();
    const loc = historyLocation({}, root);
    if (loc.kind !== 'sqlite') throw new Error('expected the SQLite store');
    await openHistory(loc).then((db) => db.close());
    writeFileSync(loc.file, 'this is not a database, it is what a patch wrote here\n'.repeat(200));
    const err = await openHistory(loc).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'HISTORY_UNAVAILABLE', details: { file: loc.file } });
    expect((err as Error).message).toContain(
      `the run history at ${loc.file} cannot be used: it is not an SQLite database`,
    );
    expect((err as Error).message).toContain('expected an SQLite file patchgate wrote');
  });

  it('refuses a PATCHGATE_DATABASE_URL that is not PostgreSQL, without printing its password', () => {
    const env = { PATCHGATE_DATABASE_URL: 'mysql://ci:s3cret@db.internal/history' };
    let err: unknown;
    try {
      historyLocation(env, tempDir());
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    expect((err as Error).message).toContain('PATCHGATE_DATABASE_URL must be a PostgreSQL URL');
    expect((err as Error).message).toContain('mysql://ci:***@db.internal/history');
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('says which server it cannot reach, without its password', async () => {
    // Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
    const loc = historyLocation(
      { PATCHGATE_DATABASE_URL: 'postgresql://ci:s3cret@127.0.0.1:9/history' },
      tempDir(),
    );
    const err = await openHistory(loc).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    expect((err as Error).message).toMatch(
      /^the run history at postgresql:\/\/ci:\*\*\*@127\.0\.0\.1:9\/history cannot be used: connecting failed/,
    );
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('migrates with the steps after the store version only', async () => {
    const root = tempDir();
    const db = await openHistory(historyLocation({}, root));
    try {
      const extra = {
        version: 2,
        name: 'an index',
        statements: () => ['CREATE INDEX extra_idx ON patchgate_runs (verdict)'],
      };
      expect(await migrate(db, [...MIGRATIONS, extra])).toBe(2);
      // Step 1 ran once, long ago: running it again would fail on its CREATE TABLE.
      expect(await migrate(db, [...MIGRATIONS, extra])).toBe(2);
      const rows = await db.query<{ version: number }>(
        'SELECT version FROM patchgate_schema ORDER BY version',
      );
      expect(rows.map((r) => r.version)).toEqual([1, 2]);
    } finally {
      await db.close();
    }
  });
});

describe('numberedPlaceholders', () => {
  it('numbers each ? outside quotes, and refuses one inside a quoted string', () => {
    expect(
      numberedPlaceholders("SELECT a FROM t WHERE b IN ('x', 'y') AND c = ? OR (d = 'z' AND e = ?)"),
    ).toBe("SELECT a FROM t WHERE b IN ('x', 'y') AND c = $1 OR (d = 'z' AND e = $2)");
    expect(numberedPlaceholders("SELECT 'it''s' WHERE a = ?")).toBe("SELECT 'it''s' WHERE a = $1");
    expect(() => numberedPlaceholders("SELECT 'what?' WHERE a = ?")).toThrow(
      /holds '\?' inside a quoted string/,
    );
  });
});

describe('a missing driver', () => {
  // A package that is not installed, loaded the way the drivers are: what a user without the peer dependency meets.
  const missing = () => import(['better-sqlite3', 'not-installed'].join('-')) as never;

  it('says which package to install for the SQLite store', async () => {
    const err = await openSqlite(path.join(tempDir(), 'h.sqlite'), missing).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    expect((err as Error).message).toMatch(
      /^the run history's SQLite driver cannot be loaded \(.*not-installed.*\): install it next to patchgate, `npm install --save-dev better-sqlite3@12`/,
    );
  });

  it('says which package to install for PostgreSQL', async () => {
    const err = await openPostgres('postgresql://127.0.0.1:9/x', missing).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    expect((err as Error).message).toContain('PostgreSQL driver cannot be loaded');
    expect((err as Error).message).toContain('`npm install --save-dev pg@8`');
  });
});
