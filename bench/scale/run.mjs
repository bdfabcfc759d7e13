#!/usr/bin/env node
// The run history at scale (issue 21), on both stores, in the same run:
//   record:  one run of 20,000 test outcomes written into SQLite and into
//            PostgreSQL (a real server this script starts on loopback);
//            rows/s printed, and the time against the baseline of writing
//            the same outcomes one INSERT at a time (what a plain loop does).
//   flaky:   `history flaky` over 1,000 recorded runs (--tests-per-run
//            outcomes each, 1% of the tests flaky in 5% of the runs), timed
//            as the median of --runs queries against the goal of 1 s.
//   goal:    the flaky query over 1,000 runs under 1 s on both stores.
// Usage: node bench/scale/run.mjs [--runs N] [--only sqlite|postgres] [--tests-per-run N] [--outcomes N]
// The shards half is bench/scale/shards.mjs. Always exits 0: a benchmark is a measurement.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, requireBuild } from '../lib/cli.mjs';
import { median } from '../lib/stats.mjs';

const storeUrl = new URL('../../dist/history/store.js', import.meta.url);
requireBuild('bench/scale', storeUrl);
const { historyLocation, openHistory } = await import(storeUrl.href);
const { writeRun } = await import(new URL('../../dist/history/write.js', import.meta.url).href);
const { flakyTests } = await import(new URL('../../dist/history/queries.js', import.meta.url).href);
const { postgresBinDir, startPostgres } = await import(
  new URL('../../scripts/postgres-server.mjs', import.meta.url).href
);

const argv = process.argv.slice(2);
const args = benchArgs(argv, { runs: 5, min: 1 });
const flag = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) || dflt : dflt;
};
const OUTCOMES = flag('--outcomes', 20_000);
const TESTS_PER_RUN = flag('--tests-per-run', 2_000);
const RUNS = 1_000;
const GOAL_S = 1;

function outcomes(n, run, flakyShare = 0) {
  const tests = [];
  for (let t = 0; t < n; t++) {
    // 1% of the tests flake, each in about 5% of the runs, deterministically.
    const flaky = flakyShare > 0 && t % 100 === 7 && (run * 31 + t) % 20 === 0;
    tests.push({
      side: t % 10 === 0 ? 'head' : 'base',
      testId: `pkg/module_${t % 200}.test.ts::suite ${Math.floor(t / 200)} › case ${t}`,
      file: `pkg/module_${t % 200}.test.ts`,
      runs: flaky ? 3 : 1,
      passed: flaky ? 2 : 1,
      failed: flaky ? 1 : 0,
      skipped: 0,
      flaky,
      durationMs: (t * 7) % 900,
      ...(flaky
        ? { signature: { sha256: 'a'.repeat(64), template: 'AssertionError|expected <N> to be <N>' } }
        : {}),
    });
  }
  return tests;
}

function runOf(i, tests) {
  return {
    repository: 'bench/scale',
    kind: 'check',
    recordedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
    baseCommit: `base${i}`,
    headCommit: `head${i}`,
    verdict: i % 7 === 0 ? 'reject' : 'accept',
    authors: [{ name: 'Agent', email: `agent${i % 5}@agents.example`, roles: ['author'], commits: 1 }],
    findings: i % 7 === 0 ? [{ code: 'REGRESSION', layer: 'regression', severity: 'reject' }] : [],
    tests,
    artifacts: [],
  };
}

/** The baseline: the same rows, one INSERT statement each, in one transaction. */
async function oneByOne(db, tests) {
  await db.transaction(async (tx) => {
    const [row] = await tx.query(
      `INSERT INTO patchgate_runs (repository, kind, recorded_at, head_commit) VALUES ('baseline', 'check', '2026-01-01', 'x') RETURNING id`,
    );
    for (const t of tests)
      await tx.query(
        'INSERT INTO patchgate_tests (run_id, side, test_id, file, runs, passed, failed, skipped, flaky, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          Number(row.id),
          t.side,
          t.testId,
          t.file,
          t.runs,
          t.passed,
          t.failed,
          t.skipped,
          t.flaky ? 1 : 0,
          t.durationMs,
        ],
      );
  });
}

async function measure(name, loc) {
  const db = await openHistory(loc);
  try {
    const tests = outcomes(OUTCOMES, 0);
    let t0 = performance.now();
    await writeRun(db, runOf(0, tests));
    const recordS = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await oneByOne(db, tests);
    const baselineS = (performance.now() - t0) / 1000;
    console.log(
      `${name}: record of ${OUTCOMES} outcomes ${recordS.toFixed(3)} s (${Math.round(OUTCOMES / recordS)} rows/s); ` +
        `one INSERT per row ${baselineS.toFixed(3)} s (${Math.round(OUTCOMES / baselineS)} rows/s); ratio ${(recordS / baselineS).toFixed(2)}x`,
    );
    t0 = performance.now();
    for (let i = 1; i <= RUNS; i++) await writeRun(db, runOf(i, outcomes(TESTS_PER_RUN, i, 0.01)));
    const fillS = (performance.now() - t0) / 1000;
    console.log(
      `${name}: ${RUNS} runs of ${TESTS_PER_RUN} outcomes recorded in ${fillS.toFixed(1)} s (${Math.round((RUNS * TESTS_PER_RUN) / fillS)} rows/s)`,
    );
    const times = [];
    let found = [];
    for (let r = 0; r < args.runs; r++) {
      t0 = performance.now();
      found = await flakyTests(db, { repository: 'bench/scale' }, 20);
      times.push((performance.now() - t0) / 1000);
    }
    const q = median(times);
    console.log(
      `${name}: history flaky over ${RUNS + 1} runs: median ${q.toFixed(3)} s of ${args.runs}, ${found.length} rows (top rate ${(found[0]?.rate ?? 0).toFixed(3)}); ` +
        `against the goal of ${GOAL_S} s: ${(q / GOAL_S).toFixed(2)}x ${q < GOAL_S ? 'PASS' : 'MISS'}`,
    );
  } finally {
    await db.close();
  }
}

if (args.only === undefined || args.only === 'sqlite') {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  try {
    await measure('sqlite', historyLocation({}, root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
if (args.only === undefined || args.only === 'postgres') {
  if (postgresBinDir() === undefined)
    console.log('postgres: skipped: PostgreSQL is not installed (apt-get install postgresql)');
  else {
    const server = await startPostgres();
    try {
      const url = await server.database('bench_scale');
      await measure('postgres', historyLocation({ PATCHGATE_DATABASE_URL: url }, os.tmpdir()));
    } finally {
      await server.stop();
    }
  }
}
