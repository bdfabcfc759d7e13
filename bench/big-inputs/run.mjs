#!/usr/bin/env node
// Big-input benchmark (issue 17): the whole `patchgate check` on a repository
// whose FIXTURE_LOCK.json names 1,000,000 files that are missing from the head,
// exec to exit, against two yardsticks measured in the same run:
//   (a) the same CLI on the same kind of repository with a 1,000-entry lock
//       (what every run costs: start-up, git, checkouts, the reports);
//   (b) a fresh `node` that only reads and JSON.parses the same 1,000,000-entry
//       lock (the least any reader of that file pays).
// The big run must end in verdict reject with one aggregated FIXTURE_MISSING
// finding, exit 1 and a scorecard.                        goal: <= 60 s wall
// Usage: node bench/big-inputs/run.mjs [--runs N] [--fresh]   (default 3 runs)
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
const dataDir = path.resolve(here, '..', '.data', 'big-inputs');
// Bump when the generated repositories change shape, so stale ones are rebuilt.
const DATA_VERSION = '1';
const GOAL_S = 60;
const BIG = 1_000_000;
const SMALL = 1_000;

const args = benchArgs(process.argv.slice(2), { runs: 3, min: 1 });
requireBuild('big-inputs', pathToFileURL(cli));

const KEEP = '{"kept": true}\n';
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/** A committed repository whose lock names `missing` absent files and one present one. */
function makeRepo(dir, missing) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'testdata'), { recursive: true });
  const git = (...a) => execFileSync('git', a, { cwd: dir, env: GIT_ENV, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(
    path.join(dir, 'patchgate.config.json'),
    `${JSON.stringify({ fixtures: { roots: ['testdata'] } }, null, 2)}\n`,
  );
  fs.writeFileSync(path.join(dir, 'testdata', 'keep.json'), KEEP);
  const digest = 'a'.repeat(64);
  const rows = [];
  for (let i = 0; i < missing; i++) {
    const p = `testdata/d${String(i % 1000).padStart(3, '0')}/f${String(i).padStart(7, '0')}.json`;
    rows.push(`    ${JSON.stringify(p)}: {\n      "sha256": "${digest}",\n      "owner": "payments"\n    }`);
  }
  rows.sort();
  const keep = createHash('sha256').update(KEEP).digest('hex');
  rows.push(`    "testdata/keep.json": {\n      "sha256": "${keep}",\n      "owner": "payments"\n    }`);
  fs.writeFileSync(
    path.join(dir, 'FIXTURE_LOCK.json'),
    `{\n  "override_token_env": "FIXTURE_OVERRIDE",\n  "files": {\n${rows.join(',\n')}\n  }\n}\n`,
  );
  git('add', '-A');
  git('commit', '-q', '-m', 'lock');
}

function ensureData() {
  const marker = path.join(dataDir, `.complete-v${DATA_VERSION}`);
  if (!args.has('--fresh') && fs.existsSync(marker)) return;
  console.log(`big-inputs: generating repositories in ${path.relative(process.cwd(), dataDir)} ...`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  makeRepo(path.join(dataDir, 'big'), BIG);
  makeRepo(path.join(dataDir, 'small'), SMALL);
  fs.writeFileSync(marker, '');
}

const hasTime = fs.existsSync('/usr/bin/time');

/** One `patchgate check` of `repo`, exec to exit: seconds, peak RSS (when /usr/bin/time is there), and what it decided. */
function runCheck(repo, missing) {
  const out = path.join(os.tmpdir(), `pg-bench-big-${process.pid}`);
  const argv = [process.execPath, cli, 'check', '--base', 'main', '--head', 'HEAD', '--out', out, '--quiet'];
  const t0 = process.hrtime.bigint();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26 })
    : spawnSync(argv[0], argv.slice(1), { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = hasTime ? Number(r.stderr.trim().split('\n').at(-1)) : Number.NaN;
  let card;
  try {
    card = JSON.parse(fs.readFileSync(path.join(out, 'scorecard.json'), 'utf8'));
  } catch {
    card = undefined;
  }
  const agg = card?.findings?.find((f) => f.code === 'FIXTURE_MISSING');
  const missingCount = agg
    ? (agg.evidence.aggregated ?? card.findings.filter((f) => f.code === 'FIXTURE_MISSING').length)
    : 0;
  const ok = r.status === 1 && card?.verdict === 'reject' && missingCount === missing;
  fs.rmSync(out, { recursive: true, force: true });
  return { seconds, rssKb, ok, status: r.status, stderr: r.stderr };
}

/** A fresh node that reads and parses the lock, and nothing else. */
function runParse(repo) {
  const script = `const t=require('fs').readFileSync(${JSON.stringify(path.join(repo, 'FIXTURE_LOCK.json'))},'utf8');const n=Object.keys(JSON.parse(t).files).length;if(n<1)process.exit(1);`;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`the JSON.parse yardstick failed: ${r.stderr}`);
  return seconds;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (s) => `${s.toFixed(2)} s`;

ensureData();
const big = path.join(dataDir, 'big');
const small = path.join(dataDir, 'small');
console.log(
  `big-inputs: ${args.runs} rounds, node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.availableParallelism()} CPUs`,
);
// Warm-up: the page cache holds both repositories and the build.
runCheck(small, SMALL);
runParse(big);

const times = { big: [], small: [], parse: [] };
let rss = 0;
let allOk = true;
for (let i = 0; i < args.runs; i++) {
  const s = runCheck(small, SMALL);
  times.small.push(s.seconds);
  times.parse.push(runParse(big));
  const b = runCheck(big, BIG);
  times.big.push(b.seconds);
  rss = Math.max(rss, b.rssKb || 0);
  if (!b.ok || !s.ok) {
    allOk = false;
    console.log(
      `  round ${i + 1}: a run did not reject as it should (exit ${b.status}): ${b.stderr.slice(-400)}`,
    );
  }
}
const m = { big: median(times.big), small: median(times.small), parse: median(times.parse) };
console.log(`  check, ${BIG} missing: ${times.big.map(fmt).join(', ')}`);
console.log(`  check, ${SMALL} missing: ${times.small.map(fmt).join(', ')}`);
console.log(`  node JSON.parse of the ${BIG}-entry lock: ${times.parse.map(fmt).join(', ')}`);
console.log(
  `big-inputs: check on ${BIG} missing fixtures median ${fmt(m.big)}${hasTime ? `, peak RSS ${(rss / 1024).toFixed(0)} MB` : ''}; ` +
    `verdict reject, one aggregated FIXTURE_MISSING, exit 1: ${allOk ? 'yes' : 'NO'}`,
);
console.log(
  `big-inputs (a) ratio to the same CLI on a ${SMALL}-entry lock (${fmt(m.small)}): ${(m.big / m.small).toFixed(1)}x`,
);
console.log(
  `big-inputs (b) ratio to a bare JSON.parse of the same lock (${fmt(m.parse)}): ${(m.big / m.parse).toFixed(1)}x`,
);
console.log(
  `goal: <= ${GOAL_S} s wall (median): ${fmt(m.big)} ${m.big <= GOAL_S && allOk ? 'PASS' : 'MISS'}`,
);
process.exit(0);
