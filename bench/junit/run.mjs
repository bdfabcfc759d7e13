#!/usr/bin/env node
// JUnit ingestion benchmark. Measures patchgate's streaming parser against
// Python's xml.etree.ElementTree.iterparse counting the same testcases, on the
// same generated reports in the same run:
//   100 MB report   goal: >= 0.8x Python's MB/s, peak RSS <= 150 MB
//   1 GB report     goal: >= 0.8x Python's MB/s, peak RSS <= 150 MB
// Our side parses with an onTest callback (outcomes not retained); the 100 MB
// report is also parsed in the default mode, which keeps every outcome.
// Usage: node bench/junit/run.mjs [--fresh] [--runs N] [--only 100mb|1gb]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerIdle, benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = path.resolve(here, '..', '.data', 'junit');
const moduleUrl = new URL('../../dist/junit/index.js', import.meta.url);

// Bump when the generated data changes shape, so stale data is rebuilt.
const DATA_VERSION = '1';
const MB = 1e6;
const CASES = [
  { label: '100 MB', file: 'report-100mb.xml', bytes: 100 * MB, retained: true },
  { label: '1 GB', file: 'report-1gb.xml', bytes: 1000 * MB, retained: false },
];
const RSS_GOAL = 150 * MB;
const RATIO_GOAL = 0.8;

// What a team would write to count testcases in Python: iterparse on end
// events, clearing each testcase and suite once seen so memory stays flat.
// Timed inside Python around the parse only, so interpreter start-up is not
// charged to it.
const PYTHON = `
import json, resource, sys, time
import xml.etree.ElementTree as ET

def count(path):
    n = 0
    for _, el in ET.iterparse(path, events=("end",)):
        tag = el.tag
        if tag == "testcase":
            n += 1
            el.clear()
        elif tag == "testsuite":
            el.clear()
    return n

path, warm = sys.argv[1], sys.argv[2] == "1"
if warm:
    count(path)
t0 = time.perf_counter()
n = count(path)
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "count": n, "maxRssBytes": rss}))
`;

// ---------------------------------------------------------------- child mode
// Ours runs in a fresh process per round so its peak RSS is its own.
if (process.argv[2] === '--child') {
  const [, , , file, mode, warm] = process.argv;
  const { parseJUnitFile } = await import(moduleUrl.href);
  let count = 0;
  let longestBody = 0;
  let cut = 0;
  const look = (t) => {
    count++;
    for (const f of t.failures) {
      longestBody = Math.max(longestBody, Buffer.byteLength(f.body));
      if (f.truncated) cut++;
    }
  };
  const opts = mode === 'stream' ? { onTest: look } : {};
  if (warm === '1') {
    await parseJUnitFile(file, opts); // page cache and JIT
    // So the timed pass's peak RSS is not lifted by the warm-up's leftovers.
    globalThis.gc?.();
  }
  count = 0;
  longestBody = 0;
  cut = 0;
  const t0 = process.hrtime.bigint();
  const report = await parseJUnitFile(file, opts);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (mode !== 'stream') for (const t of report.tests) look(t);
  // maxRSS is in KiB.
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({ seconds, maxRssBytes, count, tests: report.counts.tests, longestBody, cut }),
  );
  process.exit(0);
}
await answerIdle(moduleUrl);

// ---------------------------------------------------------------- main
const args = benchArgs();
const fresh = args.has('--fresh');
const RUNS = args.runs;
const only = args.only;

requireBuild('junit', moduleUrl);
const py = spawnSync('python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' });
if (py.status !== 0) {
  console.error('junit: python3 not found; the benchmark needs it as the yardstick');
  process.exit(0);
}

ensureData();
console.log(
  `junit: data in ${path.relative(process.cwd(), dataDir) || '.'}; ${RUNS} interleaved rounds, best taken; ` +
    `python ${py.stdout.trim()}, node ${process.version}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.availableParallelism()} CPUs`,
);
const idleRss = runChild(['--idle']).maxRssBytes;
console.log(`junit: idle node + module peak RSS ${mbs(idleRss)} MB (floor for the RSS figures below)`);

for (const c of CASES) {
  if (only !== undefined && only !== c.file.replace(/^report-|\.xml$/g, '')) continue;
  const file = path.join(dataDir, c.file);
  const size = fs.statSync(file).size;
  // The 1 GB report is read once up front instead of once per process, which
  // would double every round; either way both sides read page-cached bytes.
  const warm = size < 500 * MB ? '1' : '0';
  if (warm === '0') readThrough(file);

  // Rounds alternate the sides so a busy neighbour on a shared machine slows
  // both alike instead of whichever side happened to run during the burst.
  const ours = [];
  const kept = [];
  const pyRuns = [];
  for (let i = 0; i < RUNS; i++) {
    ours.push(runChild(['--child', file, 'stream', warm]));
    pyRuns.push(runPython(file, warm));
    if (c.retained) kept.push(runChild(['--child', file, 'retain', warm]));
  }
  const oursBest = Math.min(...ours.map((r) => r.seconds));
  const pyBest = Math.min(...pyRuns.map((r) => r.seconds));
  const oursMBs = size / MB / oursBest;
  const pyMBs = size / MB / pyBest;
  const ratio = oursMBs / pyMBs;
  const oursRss = Math.max(...ours.map((r) => r.maxRssBytes));
  const pyRss = Math.max(...pyRuns.map((r) => r.maxRssBytes));
  const counts = new Set([...ours, ...kept].map((r) => r.count).concat(pyRuns.map((r) => r.count)));
  const agree = counts.size === 1 && ours.every((r) => r.tests === r.count);
  const name = `junit (${c.label})`;

  console.log(`  ${c.label}: patchgate runs ${fmtTimes(ours)}; python runs ${fmtTimes(pyRuns)}`);
  console.log(
    `  ${c.label}: testcases ${agree ? `agree (${ours[0].count})` : `DIFFER (patchgate ${ours.map((r) => r.count).join('/')}, python ${pyRuns.map((r) => r.count).join('/')})`}; ` +
      `longest failure body kept ${(ours[0].longestBody / 1024).toFixed(1)} KiB, ${ours[0].cut} cut at the cap`,
  );
  console.log(
    `${name}: patchgate ${oursMBs.toFixed(0)} MB/s, python iterparse ${pyMBs.toFixed(0)} MB/s, ` +
      `ratio ${ratio.toFixed(2)}x (goal >= ${RATIO_GOAL}x) ${ratio >= RATIO_GOAL && agree ? 'PASS' : 'MISS'}`,
  );
  console.log(
    `${name}: patchgate peak RSS ${mbs(oursRss)} MB (goal <= ${mbs(RSS_GOAL)} MB) ${oursRss <= RSS_GOAL ? 'PASS' : 'MISS'}; ` +
      `python peak RSS ${mbs(pyRss)} MB`,
  );
  if (kept.length > 0) {
    const keptBest = Math.min(...kept.map((r) => r.seconds));
    const keptRss = Math.max(...kept.map((r) => r.maxRssBytes));
    console.log(
      `${name}: retained mode (every outcome kept): ${(size / MB / keptBest).toFixed(0)} MB/s, ` +
        `peak RSS ${mbs(keptRss)} MB for ${kept[0].count} outcomes (informational)`,
    );
  }
}
process.exit(0);

// ---------------------------------------------------------------- helpers

function runChild(childArgs) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...childArgs], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`benchmark child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function runPython(file, warm) {
  const r = spawnSync('python3', ['-c', PYTHON, file, warm], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function readThrough(file) {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 24);
  while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
  fs.closeSync(fd);
}

// ---------------------------------------------------------------- data

function ensureData() {
  const marker = path.join(dataDir, `.complete-v${DATA_VERSION}`);
  if (!fresh && fs.existsSync(marker)) return;
  console.log(`junit: generating data in ${dataDir} ...`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  for (const c of CASES) writeReport(path.join(dataDir, c.file), c.bytes);
  fs.writeFileSync(marker, '');
}

/**
 * A Surefire-style report: suites of 20-200 testcases, about 4% failing and 1%
 * erroring with multi-KB CDATA stack traces and system-out, 3% skipped, a few
 * flaky ones with rerun traces, suite properties and CDATA system-out logs,
 * some non-ASCII. Halfway through sits one testcase with a failure body and a
 * system-out each several MB long (40 MB of system-out in the 1 GB report):
 * the parser must keep to its caps through them. Everything comes from a
 * seeded PRNG, so every machine benchmarks the same bytes.
 */
function writeReport(file, target) {
  const rand = mulberry32(0x7e57);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const modules = [
    'billing',
    'catalog',
    'checkout',
    'identity',
    'inventory',
    'search',
    'shipping',
    'notifications',
  ];
  const nouns = [
    'Invoice',
    'Order',
    'Cart',
    'Customer',
    'Token',
    'Session',
    'Price',
    'Address',
    'Parcel',
    'Résumé',
  ];
  const verbs = ['should', 'rejects', 'handles', 'computes', 'returns', 'keeps', 'parses', 'retries'];
  const whens = [
    'WhenEmpty',
    'WithNullInput',
    'ForUnicodeNames',
    'AfterTimeout',
    'OnConcurrentUpdate',
    'InUTC',
  ];
  const frames = Array.from(
    { length: 64 },
    (_, i) =>
      `\tat com.example.${modules[i % modules.length]}.internal.Handler${i}.process${i % 5}(Handler${i}.java:${40 + i * 7})`,
  );
  const logLine = (i) =>
    `2024-05-0${1 + (i % 9)} 12:${String(i % 60).padStart(2, '0')}:07.${String(i % 1000).padStart(3, '0')} INFO  [worker-${i % 8}] c.e.${pick(modules)}.Service - processed request id=${int(1000, 99999)} in ${int(1, 900)} ms (naïve path ✓)\n`;
  const stack = (head, frameCount) => {
    let s = `${head}\n`;
    for (let k = 0; k < frameCount; k++) s += `${pick(frames)}\n`;
    return s;
  };
  const log = (lines) => {
    let s = '';
    for (let k = 0; k < lines; k++) s += logLine(k);
    return s;
  };

  const fd = fs.openSync(file, 'w');
  let written = 0;
  let pending = [];
  let pendingBytes = 0;
  const put = (s) => {
    pending.push(s);
    pendingBytes += s.length;
    if (pendingBytes > 8 << 20) flush();
  };
  const flush = () => {
    const buf = Buffer.from(pending.join(''), 'utf8');
    fs.writeSync(fd, buf);
    written += buf.length;
    pending = [];
    pendingBytes = 0;
  };

  put('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="all-modules" tests="0" failures="0">\n');
  let suiteNo = 0;
  let hugeDone = false;
  while (written + pendingBytes < target) {
    const mod = modules[suiteNo % modules.length];
    const cls = `com.example.${mod}.${pick(nouns).replace('é', 'e')}${suiteNo}Test`;
    const n = int(20, 200);
    let s = `  <testsuite name="${cls}" tests="${n}" failures="0" errors="0" skipped="0" time="${(rand() * 30).toFixed(3)}" timestamp="2024-05-01T12:00:00" hostname="ci-runner-${suiteNo % 16}">\n    <properties>\n`;
    for (const [k, v] of [
      ['java.version', '17.0.9'],
      ['java.vendor', 'Eclipse Adoptium'],
      ['os.name', 'Linux'],
      ['user.timezone', 'UTC'],
      ['file.encoding', 'UTF-8'],
      ['surefire.rerunFailingTestsCount', '2'],
      ['basedir', `/home/runner/work/shop/${mod}`],
      ['line.separator', '&#10;'],
    ]) {
      s += `      <property name="${k}" value="${v}"/>\n`;
    }
    s += '    </properties>\n';
    for (let i = 0; i < n; i++) {
      const name = `${pick(verbs)}${pick(nouns)}${pick(whens)}_${i}`;
      const head = `    <testcase name="${name}" classname="${cls}" time="${(rand() * 2).toFixed(3)}"`;
      const r = rand();
      if (!hugeDone && written > target / 2) {
        hugeDone = true;
        // Sizes scale with the report: 4% of it as one system-out, 1% as one failure body.
        const body = stack('java.lang.AssertionError: huge diff', Math.floor(target / 100 / 70));
        const out = log(Math.floor((target * 0.04) / 150));
        s += `${head}>\n      <failure message="huge" type="java.lang.AssertionError"><![CDATA[${body}]]></failure>\n      <system-out><![CDATA[${out}]]></system-out>\n    </testcase>\n`;
      } else if (r < 0.04) {
        const expected = 'x'.repeat(int(10, 400));
        const msg = `expected: &lt;${expected}&gt; but was: &lt;${expected.slice(1)}y&gt; in &quot;${name}&quot;`;
        s += `${head}>\n      <failure message="${msg}" type="org.opentest4j.AssertionFailedError"><![CDATA[${stack(`org.opentest4j.AssertionFailedError: ${msg}`, int(15, 110))}]]></failure>\n      <system-out><![CDATA[${log(int(5, 40))}]]></system-out>\n    </testcase>\n`;
      } else if (r < 0.05) {
        s += `${head}>\n      <error message="Cannot invoke &quot;String.length()&quot; because &quot;value&quot; is null" type="java.lang.NullPointerException"><![CDATA[${stack('java.lang.NullPointerException: Cannot invoke "String.length()"', int(20, 80))}]]></error>\n    </testcase>\n`;
      } else if (r < 0.08) {
        s += `${head}>\n      <skipped message="disabled on Linux: flaky clock 🚀 (JIRA-${int(100, 999)})"/>\n    </testcase>\n`;
      } else if (r < 0.085) {
        s += `${head}>\n      <flakyFailure message="timed out after 5000 ms" type="java.util.concurrent.TimeoutException">\n        <stackTrace><![CDATA[${stack('java.util.concurrent.TimeoutException', int(10, 40))}]]></stackTrace>\n        <system-out><![CDATA[${log(int(3, 12))}]]></system-out>\n      </flakyFailure>\n    </testcase>\n`;
      } else if (r < 0.18) {
        s += `${head}>\n      <system-out><![CDATA[${log(int(1, 8))}]]></system-out>\n    </testcase>\n`;
      } else {
        s += `${head}/>\n`;
      }
    }
    s += `    <system-out><![CDATA[${log(int(10, 150))}]]></system-out>\n    <system-err><![CDATA[]]></system-err>\n  </testsuite>\n`;
    put(s);
    suiteNo++;
  }
  put('</testsuites>\n');
  flush();
  fs.closeSync(fd);
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

function fmtTimes(runs) {
  return runs.map((r) => `${r.seconds.toFixed(3)}s`).join(', ');
}

function mbs(bytes) {
  return (bytes / MB).toFixed(0);
}
