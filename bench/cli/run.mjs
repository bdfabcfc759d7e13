#!/usr/bin/env node
// CLI start-up benchmark (issue 13): how long `patchgate --help` takes, the
// whole process from exec to exit, against a CLI people run every day.
//   ours:     node dist/cli/bin.js --help
//   baseline: node node_modules/vitest/vitest.mjs --help
//   Both are run N times in this run, alternating, after one warm-up each
//   (so both read their files from the page cache); median and best are
//   printed, and the ratio of the medians.                   goal: <= 0.3 s
// Usage: node bench/cli/run.mjs [--runs N]   (default 20)
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';
import { best, seconds as fmt, median } from '../lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
const vitest = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
const RUNS = benchArgs(process.argv.slice(2), { runs: 20, min: 3 }).runs;
const GOAL_S = 0.3;

requireBuild('cli', pathToFileURL(cli));
requireBuild('cli (vitest, the baseline)', pathToFileURL(vitest));

/** Wall time of one process, exec to exit, in seconds; its stdout must look like help. */
function timeOnce(script, expect) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [script, '--help'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0 || !expect.test(r.stdout))
    throw new Error(`${path.relative(repoRoot, script)} --help failed (exit ${r.status}): ${r.stderr}`);
  return s;
}

const cases = [
  { name: 'patchgate --help', script: cli, expect: /Commands:/, times: [] },
  { name: 'vitest --help', script: vitest, expect: /vitest/i, times: [] },
];

console.log(
  `cli start-up: ${RUNS} runs each, node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}`,
);
for (const c of cases) timeOnce(c.script, c.expect); // warm-up: the page cache, not the figures
for (let i = 0; i < RUNS; i++) {
  // Alternate which goes first, so neither always runs right after the other.
  const order = i % 2 === 0 ? cases : [...cases].reverse();
  for (const c of order) c.times.push(timeOnce(c.script, c.expect));
}

const [ours, base] = cases;
for (const c of cases)
  console.log(`${c.name.padEnd(18)} median ${fmt(median(c.times))}  best ${fmt(best(c.times))}`);
const ratio = median(ours.times) / median(base.times);
console.log(`ratio (median ours / median vitest): ${ratio.toFixed(2)}x`);
const m = median(ours.times);
console.log(`goal: patchgate --help <= ${GOAL_S} s (median): ${fmt(m)} ${m <= GOAL_S ? 'PASS' : 'MISS'}`);
