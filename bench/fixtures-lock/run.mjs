#!/usr/bin/env node
// Fixture-lock hashing benchmark. Measures patchgate's digestTree against
// two yardsticks on the same data in the same run:
//   (a) one 1 GiB file      vs `openssl dgst -sha256`       goal: >= 0.9x its MB/s
//   (b) 20,000 small files  vs the seed's Python digest_tree goal: >= 1.3x its files/s
// Usage: node bench/fixtures-lock/run.mjs [--fresh] [--runs N]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerIdle, benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = path.resolve(here, '..', '.data', 'fixtures-lock');
const moduleUrl = new URL('../../dist/layers/fixtures/digest-tree.js', import.meta.url);

// Bump when the generated data changes shape, so stale data is rebuilt.
const DATA_VERSION = '1';
const BIG_REPO = path.join(dataDir, 'big');
const BIG_ROOT = 'big.bin';
const BIG_BYTES = 1024 * 1024 * 1024;
const BLOCK_BYTES = 64 * 1024 * 1024;
const TREE_REPO = path.join(dataDir, 'tree');
const TREE_ROOT = 'testdata';
const TOP_DIRS = 20;
const SUB_DIRS = 10;
const FILES_PER_DIR = 100;
const FILE_COUNT = TOP_DIRS * SUB_DIRS * FILES_PER_DIR;

const MB = 1e6;

// The seed's algorithm, as it would run as a pre-test scorer: sorted rglob,
// keep what is_file() accepts, sha256 over read_bytes(). Timed inside Python
// around the digest only, so interpreter start-up is not charged to it.
const PYTHON = `
import hashlib, json, sys, time
from pathlib import Path

def digest_tree(root):
    found = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            found[p.as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return found

root = Path(sys.argv[1])
digest_tree(root)  # warm-up, as on our side
t0 = time.perf_counter()
found = digest_tree(root)
seconds = time.perf_counter() - t0
lines = sorted(f"{p} {d}\\n" for p, d in found.items())
listing = hashlib.sha256("".join(lines).encode()).hexdigest()
print(json.dumps({"seconds": seconds, "count": len(found), "listing": listing}))
`;

// ---------------------------------------------------------------- child mode
// Ours runs in a fresh process per case so its peak RSS is its own.
if (process.argv[2] === '--child') {
  const [, , , repoRoot, root] = process.argv;
  const { digestTree } = await import(moduleUrl.href);
  await digestTree({ repoRoot, roots: [root] }); // warm-up: page cache and JIT
  const t0 = process.hrtime.bigint();
  const res = await digestTree({ repoRoot, roots: [root] });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  // maxRSS is in KiB.
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ seconds, maxRssBytes, ...summarise(res.files) }));
  process.exit(0);
}
await answerIdle(moduleUrl);

// ---------------------------------------------------------------- main
const args = benchArgs();
const fresh = args.has('--fresh');
const RUNS = args.runs;

requireBuild('fixtures-lock', moduleUrl);

ensureData();
console.log(
  `fixtures-lock: data in ${path.relative(process.cwd(), dataDir) || '.'}; ${RUNS} interleaved rounds, best taken; ` +
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.availableParallelism()} CPUs`,
);
const idleRss = runChild(['--idle']).maxRssBytes;
console.log(
  `fixtures-lock: idle node + module peak RSS ${mbs(idleRss)} MB (floor for the RSS figures below)`,
);

// Rounds alternate the two sides so a busy neighbour on a shared machine slows
// both alike instead of whichever side happened to run during the burst. Each
// side warms up inside its own process first, so both read page-cached data.

// (a) one large file
{
  const bigPath = path.join(BIG_REPO, BIG_ROOT);
  const oursTimes = [];
  const sslTimes = [];
  let oursRss = 0;
  let oursDigest = '';
  let sslDigest = '';
  runOpenssl(bigPath); // warm-up
  for (let i = 0; i < RUNS; i++) {
    const ours = runChild(['--child', BIG_REPO, BIG_ROOT]);
    oursTimes.push(ours.seconds);
    oursRss = Math.max(oursRss, ours.maxRssBytes);
    oursDigest = ours.firstDigest;
    const ssl = runOpenssl(bigPath);
    sslTimes.push(ssl.seconds);
    sslDigest = ssl.digest;
  }
  const oursMBs = BIG_BYTES / MB / Math.min(...oursTimes);
  const sslMBs = BIG_BYTES / MB / Math.min(...sslTimes);
  const ratio = oursMBs / sslMBs;
  const same = oursDigest === sslDigest;
  console.log(`  (a) patchgate runs: ${fmtTimes(oursTimes)}; openssl runs: ${fmtTimes(sslTimes)}`);
  console.log(`  (a) digests ${same ? 'agree' : `DIFFER (patchgate ${oursDigest}, openssl ${sslDigest})`}`);
  console.log(
    `fixtures-lock (a) 1 GiB file: patchgate ${oursMBs.toFixed(0)} MB/s, openssl ${sslMBs.toFixed(0)} MB/s, ` +
      `ratio ${ratio.toFixed(2)}x (goal >= 0.9x) ${ratio >= 0.9 && same ? 'PASS' : 'MISS'}`,
  );
  console.log(`fixtures-lock (a) patchgate peak RSS ${mbs(oursRss)} MB for a ${mbs(BIG_BYTES)} MB file`);
}

// (b) many small files
{
  const oursTimes = [];
  const pyTimes = [];
  let oursRss = 0;
  let ours;
  let py;
  for (let i = 0; i < RUNS; i++) {
    ours = runChild(['--child', TREE_REPO, TREE_ROOT]);
    oursTimes.push(ours.seconds);
    oursRss = Math.max(oursRss, ours.maxRssBytes);
    py = runPython(TREE_REPO, TREE_ROOT);
    pyTimes.push(py.seconds);
  }
  const oursFps = ours.count / Math.min(...oursTimes);
  const pyFps = py.count / Math.min(...pyTimes);
  const ratio = oursFps / pyFps;
  const same = ours.count === FILE_COUNT && py.count === FILE_COUNT && ours.listing === py.listing;
  console.log(`  (b) patchgate runs: ${fmtTimes(oursTimes)}; python runs: ${fmtTimes(pyTimes)}`);
  console.log(
    `  (b) ${ours.count} vs ${py.count} files, path->digest listings ${ours.listing === py.listing ? 'agree' : 'DIFFER'}`,
  );
  console.log(
    `fixtures-lock (b) ${FILE_COUNT} files of 1-8 KiB: patchgate ${oursFps.toFixed(0)} files/s, ` +
      `python ${pyFps.toFixed(0)} files/s, ratio ${ratio.toFixed(2)}x (goal >= 1.3x) ${ratio >= 1.3 && same ? 'PASS' : 'MISS'}`,
  );
  console.log(`fixtures-lock (b) patchgate peak RSS ${mbs(oursRss)} MB`);
}
process.exit(0);

// ---------------------------------------------------------------- helpers

function summarise(files) {
  // One digest over the sorted "path digest" lines lets both sides prove they saw the same bytes.
  const lines = [...files].map(([p, d]) => `${p} ${d}\n`);
  lines.sort();
  return {
    count: files.size,
    firstDigest: files.values().next().value ?? '',
    listing: createHash('sha256').update(lines.join('')).digest('hex'),
  };
}

function runChild(childArgs) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...childArgs], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`benchmark child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function runOpenssl(file) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('openssl', ['dgst', '-sha256', '-r', file], { encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`openssl failed (${r.status}): ${r.stderr}`);
  return { seconds, digest: r.stdout.split(/\s/)[0] };
}

function runPython(repoRoot, root) {
  const r = spawnSync('python3', ['-c', PYTHON, root], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function ensureData() {
  const marker = path.join(dataDir, `.complete-v${DATA_VERSION}`);
  if (!fresh && fs.existsSync(marker)) return;
  console.log(`fixtures-lock: generating data in ${dataDir} ...`);
  fs.rmSync(dataDir, { recursive: true, force: true });

  // (a) Repeating one random 64 MiB block is fast to write and still defeats any
  // shortcut a hasher could take on zeros or short periods.
  fs.mkdirSync(BIG_REPO, { recursive: true });
  const block = randomBytes(BLOCK_BYTES);
  const fd = fs.openSync(path.join(BIG_REPO, BIG_ROOT), 'w');
  for (let written = 0; written < BIG_BYTES; written += BLOCK_BYTES) fs.writeSync(fd, block);
  fs.closeSync(fd);

  // (b) Sizes and bytes come from a seeded PRNG, so every machine benchmarks the same tree.
  const rand = mulberry32(0x5eed);
  const pool = Buffer.alloc(1 << 20);
  for (let i = 0; i < pool.length; i += 4) pool.writeUInt32LE(Math.floor(rand() * 2 ** 32), i);
  for (let t = 0; t < TOP_DIRS; t++) {
    for (let s = 0; s < SUB_DIRS; s++) {
      const dir = path.join(TREE_REPO, TREE_ROOT, `d${pad(t, 2)}`, `s${pad(s, 2)}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < FILES_PER_DIR; f++) {
        const size = 1024 + Math.floor(rand() * (7 * 1024 + 1));
        const offset = Math.floor(rand() * (pool.length - size));
        fs.writeFileSync(path.join(dir, `f${pad(f, 3)}.bin`), pool.subarray(offset, offset + size));
      }
    }
  }
  fs.writeFileSync(marker, '');
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

function pad(n, width) {
  return String(n).padStart(width, '0');
}

function fmtTimes(times) {
  return times.map((t) => `${t.toFixed(3)}s`).join(', ');
}

function mbs(bytes) {
  return (bytes / MB).toFixed(0);
}
