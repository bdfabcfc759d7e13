#!/usr/bin/env node
// Contract-file reading benchmark (issue 9). Reads FIXTURE_LOCK.json files of
// 10k, 100k and 1M entries the way the gate does (parse, validate, check
// every key, in slices) and compares with JSON.parse of the same text in the
// same process:
//   ratio to JSON.parse (warm)     goal: <= 3x (the cold first read is printed too)
//   1M entries, file to lock       goal: < 10 s
// Usage: node bench/contracts/run.mjs [--fresh] [--runs N] [--only 10k|100k|1m]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerIdle, benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = path.resolve(here, '..', '.data', 'contracts');
const lockUrl = new URL('../../dist/contracts/fixture-lock.js', import.meta.url);
const sliceUrl = new URL('../../dist/util/time-slice.js', import.meta.url);

// Bump when the generated data changes shape, so stale data is rebuilt.
const DATA_VERSION = '1';
const SIZES = [
  { name: '10k', entries: 10_000 },
  { name: '100k', entries: 100_000 },
  { name: '1m', entries: 1_000_000 },
];
const ROOTS = ['testdata', 'fixtures'];
const RATIO_GOAL = 3;
const ONE_M_GOAL_S = 10;

// ---------------------------------------------------------------- child mode
// One round per fresh process (started with --expose-gc): the first read is
// cold, as in a gate run, which reads each contract once; the second is warm
// (the JIT has seen the code). JSON.parse runs before or after them,
// alternating between rounds.
if (process.argv[2] === '--child') {
  const [, , , file, order] = process.argv;
  const { readFixtureLock, parseFixtureLockSliced } = await import(lockUrl.href);
  const { runInSlices } = await import(sliceUrl.href);
  const text = fs.readFileSync(file, 'utf8');
  const dir = path.dirname(file);
  const name = path.basename(file);
  const out = { longestGapMs: 0 };
  const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;
  const timeJsonParse = () => {
    const t0 = process.hrtime.bigint();
    const v = JSON.parse(text);
    out.jsonParse = seconds(t0);
    out.jsonEntries = Object.keys(v.files).length;
  };
  // The gate's path on text in memory: parse, validate and check every key, yielding between slices.
  const timeOurs = async (key) => {
    let last = performance.now();
    const watch = setInterval(() => {
      const now = performance.now();
      out.longestGapMs = Math.max(out.longestGapMs, now - last);
      last = now;
    }, 10);
    const t0 = process.hrtime.bigint();
    const lock = await runInSlices((b) => parseFixtureLockSliced(text, name, ROOTS, b), undefined);
    out[key] = seconds(t0);
    clearInterval(watch);
    out.longestGapMs = Math.max(out.longestGapMs, performance.now() - last);
    out.oursEntries = Object.keys(lock.files).length;
  };
  if (order === 'json-first') {
    timeJsonParse();
    globalThis.gc();
  }
  await timeOurs('cold');
  globalThis.gc();
  await timeOurs('warm');
  globalThis.gc();
  if (order !== 'json-first') {
    timeJsonParse();
    globalThis.gc();
  }
  // And the whole read, file to lock, as the fixtures layer does it.
  const t0 = process.hrtime.bigint();
  await readFixtureLock(dir, name, ROOTS, 'the bench', { maxBytes: 2 ** 29 - 24 });
  out.fileToLock = seconds(t0);
  out.maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}
await answerIdle(lockUrl);

// ---------------------------------------------------------------- main
const args = benchArgs();
const fresh = args.has('--fresh');
const RUNS = args.runs;
const only = args.only;

requireBuild('contracts', lockUrl);

ensureData();
console.log(
  `contracts: data in ${path.relative(process.cwd(), dataDir) || '.'}; ${RUNS} rounds per size (order alternating), best taken; ` +
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.availableParallelism()} CPUs`,
);
console.log(`contracts: idle node + module peak RSS ${mbs(runChild(['--idle']).maxRssBytes)} MB`);

for (const size of SIZES) {
  if (only && only !== size.name) continue;
  const file = lockPath(size);
  const bytes = fs.statSync(file).size;
  const rounds = [];
  for (let i = 0; i < RUNS; i++)
    rounds.push(runChild(['--child', file, i % 2 === 0 ? 'json-first' : 'ours-first']));
  const best = (k) => Math.min(...rounds.map((r) => r[k]));
  // Each round's ratio has both sides from the same process; the best round is taken.
  const ratio = (k) => Math.min(...rounds.map((r) => r[k] / r.jsonParse));
  const same = rounds.every((r) => r.oursEntries === size.entries && r.jsonEntries === size.entries);
  const gap = Math.max(...rounds.map((r) => r.longestGapMs));
  const rss = Math.max(...rounds.map((r) => r.maxRssBytes));
  const warmRatio = ratio('warm');
  console.log(
    `  ${size.name}: cold ${fmtTimes(rounds.map((r) => r.cold))}; warm ${fmtTimes(rounds.map((r) => r.warm))}; ` +
      `JSON.parse ${fmtTimes(rounds.map((r) => r.jsonParse))}; file to lock ${fmtTimes(rounds.map((r) => r.fileToLock))}`,
  );
  console.log(
    `contracts ${size.name} (${size.entries} entries, ${mbs(bytes)} MB): ours ${rate(size.entries, best('warm'))} entries/s warm, ` +
      `${rate(size.entries, best('cold'))} cold; JSON.parse ${rate(size.entries, best('jsonParse'))} entries/s; ` +
      `ratio ${warmRatio.toFixed(2)}x warm (goal <= ${RATIO_GOAL}x) ${warmRatio <= RATIO_GOAL && same ? 'PASS' : 'MISS'}, ` +
      `${ratio('cold').toFixed(2)}x cold${same ? '' : ' (entry counts DIFFER)'}`,
  );
  console.log(
    `contracts ${size.name}: longest event-loop gap ${gap.toFixed(0)} ms while reading; peak RSS ${mbs(rss)} MB`,
  );
  if (size.name === '1m') {
    const whole = best('fileToLock');
    console.log(
      `contracts 1m: file to lock ${whole.toFixed(2)} s (goal < ${ONE_M_GOAL_S} s) ${whole < ONE_M_GOAL_S ? 'PASS' : 'MISS'}`,
    );
  }
}
process.exit(0);

// ---------------------------------------------------------------- helpers

function lockPath(size) {
  return path.join(dataDir, size.name, 'FIXTURE_LOCK.json');
}

function runChild(childArgs) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...childArgs], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`benchmark child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function ensureData() {
  const marker = path.join(dataDir, `.complete-v${DATA_VERSION}`);
  if (!fresh && fs.existsSync(marker)) return;
  console.log(`contracts: generating data in ${dataDir} ...`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const size of SIZES) {
    fs.mkdirSync(path.dirname(lockPath(size)), { recursive: true });
    fs.writeFileSync(lockPath(size), lockText(size.entries));
  }
  fs.writeFileSync(marker, '');
}

/**
 * A lock as `patchgate lock` writes it (sorted paths, two-space indent):
 * paths from a seeded PRNG over a realistic tree (two roots, nested folders,
 * mixed extensions), a distinct SHA-256-shaped digest and one of a few owners each.
 */
function lockText(entries) {
  const rand = mulberry32(0xc0ffee);
  const words = [
    'invoices',
    'rates',
    'golden',
    'snapshots',
    'eu',
    'us',
    'v2',
    'v3',
    'legacy',
    'tax',
    'orders',
    'users',
  ];
  const exts = ['.json', '.csv', '.txt', '.bin', '.xml'];
  const owners = ['payments', 'billing-team', 'data-platform', 'qa'];
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const files = new Map();
  for (let i = 0; files.size < entries; i++) {
    const depth = 1 + Math.floor(rand() * 3);
    const dirs = Array.from({ length: depth }, () => pick(words));
    const p = `${i % 4 === 0 ? 'fixtures' : 'testdata'}/${dirs.join('/')}/case_${i.toString(36)}${pick(exts)}`;
    let digest = '';
    for (let k = 0; k < 8; k++)
      digest += Math.floor(rand() * 2 ** 32)
        .toString(16)
        .padStart(8, '0');
    files.set(p, { sha256: digest, owner: pick(owners) });
  }
  const sorted = {};
  for (const p of [...files.keys()].sort()) sorted[p] = files.get(p);
  return `${JSON.stringify({ override_token_env: 'FIXTURE_OVERRIDE', files: sorted }, null, 2)}\n`;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function rate(entries, seconds) {
  return Math.round(entries / seconds).toLocaleString('en-US');
}

function fmtTimes(times) {
  return times.map((t) => `${t.toFixed(3)}s`).join(', ');
}

function mbs(bytes) {
  return (bytes / 1e6).toFixed(0);
}
