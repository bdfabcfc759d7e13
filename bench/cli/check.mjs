#!/usr/bin/env node
// `patchgate check` start-up benchmark (issue 20): every check is a fresh
// Node process, and the test suite starts some seven hundred of them. How
// much of one check is the CLI loading itself?
//   ours:     node dist/cli/bin.js check ...   (the CLI as built: one bundle, a chunk per command)
//   baseline: the same CLI unbundled: dist/cli/main.js and the ~400 modules tsc wrote, imported one by one
//   Both judge the same patch of a small pytest repository (a regression
//   Hypothesis finds), N times each, alternating, after one warm-up each; both
//   must reach the same verdict and findings. Measured: the CPU time of the
//   CLI's own process (user + system, its children not included: the
//   sandboxed test runs are the same for both) and the wall time of the whole
//   check. Medians and bests are printed, and the ratios of the medians.
//   goal: CPU ratio <= 0.7
// Usage: node bench/cli/check.mjs [--runs N]   (default 8)
// Needs a build first (`npm run build`), git, python3-pytest and
// python3-hypothesis; always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';
import { best, seconds as fmt, median } from '../lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const bundled = path.join(repoRoot, 'dist', 'cli', 'bin.js');
const mainModule = pathToFileURL(path.join(repoRoot, 'dist', 'cli', 'main.js'));
const RUNS = benchArgs(process.argv.slice(2), { runs: 8, min: 2 }).runs;
const GOAL = 0.7;

requireBuild('cli', pathToFileURL(bundled));
requireBuild('cli (unbundled, the baseline)', mainModule);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-check-'));
// What bin.ts does, importing the modules tsc wrote instead of the bundle.
const unbundled = path.join(work, 'unbundled-bin.mjs');
fs.writeFileSync(
  unbundled,
  `const { main } = await import(${JSON.stringify(mainModule.href)});
process.exitCode = await main({ argv: process.argv.slice(2), cwd: process.cwd(), env: process.env,
  stdout: process.stdout, stderr: process.stderr, signal: new AbortController().signal, pid: process.pid,
  script: process.argv[1] });
`,
);

const repo = path.join(work, 'repo');
const git = (...args) => {
  const r = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};
const write = (files) => {
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, p)), { recursive: true });
    fs.writeFileSync(path.join(repo, p), text);
  }
};
fs.mkdirSync(repo);
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'bench@example.com');
git('config', 'user.name', 'bench');
write({
  'patchgate.config.json': `${JSON.stringify({
    fixtures: { enabled: false },
    tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
    signatures: {},
  })}\n`,
  'flake_signatures.json': '{"signatures": []}\n',
  '.gitignore': '.patchgate\n__pycache__\n.hypothesis\n',
  'src/calc.py': 'def double(x):\n    return 2 * x\n',
  'tests/test_double.py':
    'from hypothesis import given, settings, strategies as st\nfrom calc import double\n\n\n@settings(max_examples=200)\n@given(x=st.integers())\ndef test_double(x):\n    assert double(x) == 2 * x\n',
});
git('add', '-A');
git('commit', '-qm', 'base');
git('checkout', '-qb', 'agent');
write({ 'src/calc.py': 'def double(x):\n    return 2 * x if x < 10 else 2 * x + 1\n' });
git('commit', '-qam', 'agent: tidy');

// The machine's own programs, as the test suite runs the CLI: a home-folder interpreter would be a finding.
const PATH = (process.env.PATH ?? '/usr/bin:/bin')
  .split(':')
  .filter((d) => /^\/(usr|bin|sbin|opt)(\/|$)/.test(d))
  .join(':');

// Loaded before the CLI in its process: writes that process's own CPU time when it exits.
const cpuProbe = path.join(work, 'cpu-probe.mjs');
fs.writeFileSync(
  cpuProbe,
  `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const u = process.resourceUsage();
  writeFileSync(process.env.PG_BENCH_CPU_FILE, String((u.userCPUTime + u.systemCPUTime) / 1e6));
});
`,
);

/** One check, exec to exit: its wall time and its CLI process's CPU time in seconds, and what it found. */
function timeOnce(script, n) {
  const out = path.join(work, `out-${n}`);
  const cpuFile = path.join(work, `cpu-${n}`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(cpuProbe).href,
      script,
      'check',
      '--base',
      'main',
      '--head',
      'HEAD',
      '--out',
      out,
      '--today',
      '2026-12-01',
    ],
    {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, PATH, NO_COLOR: '1', GITHUB_STEP_SUMMARY: '', PG_BENCH_CPU_FILE: cpuFile },
    },
  );
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = Number(fs.readFileSync(cpuFile, 'utf8'));
  let card;
  try {
    card = JSON.parse(fs.readFileSync(path.join(out, 'scorecard.json'), 'utf8'));
  } catch {
    throw new Error(`${path.basename(script)} check wrote no scorecard (exit ${r.status}): ${r.stderr}`);
  }
  fs.rmSync(out, { recursive: true, force: true });
  return { s, cpu, found: `${card.verdict}: ${card.findings.map((f) => f.code).join(', ')}` };
}

const cases = [
  { name: 'bundled', script: bundled, times: [], cpus: [], found: new Set() },
  { name: 'unbundled', script: unbundled, times: [], cpus: [], found: new Set() },
];
console.log(
  `check start-up: ${RUNS} checks each, node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}`,
);
let n = 0;
for (const c of cases) c.found.add(timeOnce(c.script, n++).found); // warm-up: the page cache, not the figures
for (let i = 0; i < RUNS; i++) {
  const order = i % 2 === 0 ? cases : [...cases].reverse();
  for (const c of order) {
    const r = timeOnce(c.script, n++);
    c.times.push(r.s);
    c.cpus.push(r.cpu);
    c.found.add(r.found);
  }
}
fs.rmSync(work, { recursive: true, force: true });

const [ours, base] = cases;
for (const c of cases)
  console.log(
    `${c.name.padEnd(10)} CLI process CPU median ${fmt(median(c.cpus))} best ${fmt(best(c.cpus))}` +
      `  check wall median ${fmt(median(c.times))} best ${fmt(best(c.times))}  (${[...c.found].join(' | ')})`,
  );
if (ours.found.size !== 1 || [...ours.found][0] !== [...base.found][0] || base.found.size !== 1)
  console.log('MISS: the two CLIs did not find the same things, so the times do not compare');
const ratio = median(ours.cpus) / median(base.cpus);
const wall = median(ours.times) / median(base.times);
console.log(`wall ratio (median bundled / median unbundled): ${wall.toFixed(2)}x`);
console.log(
  `CPU ratio (median bundled / median unbundled): ${ratio.toFixed(2)}x, goal <= ${GOAL}: ${ratio <= GOAL ? 'PASS' : 'MISS'}`,
);
