#!/usr/bin/env node
// Seed replay benchmark (issue 5): the seeds layer's replay of a tape against
// the seed's approach, in the same run.
//   fast-check: 50 seeds across 10 properties (numRuns 100 each), replayed by
//     replayTape (one worker pool for the whole tape) vs a new test-runner
//     process per seed (vitest, as the seed starts `python -m pytest` per
//     seed); a bare `node` process per seed is printed too, as the cheapest
//     possible process-per-seed.                          goal: >= 50x faster
//   pytest: 10 Hypothesis properties x 5 seeds drawn from 5 distinct values,
//     replayed by replayTape (one pytest process per distinct seed) vs the
//     seed's replay_seeds (one process per property and seed); the number of
//     processes each started is printed.
// Usage: node bench/seeds/run.mjs [--runs N] [--skip-python]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
// Inside the repository so the generated project resolves fast-check and vitest from its node_modules.
const dataDir = path.resolve(here, '..', '.data', 'seeds');
const dist = new URL('../../dist/', import.meta.url);
const args = benchArgs();
const RUNS = args.runs;
const skipPython = args.has('--skip-python');
const PROPERTIES = 10;
const SEEDS_PER_PROPERTY = 5;
const NUM_RUNS = 100;
const SEARCH_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

requireBuild('seeds', new URL('layers/seeds/replay-tape.js', dist));
const { replayTape } = await import(new URL('layers/seeds/replay-tape.js', dist).href);
const { parseTape } = await import(new URL('contracts/seed-tape.js', dist).href);
const { configSchema } = await import(new URL('config/schema.js', dist).href);
const { openSandbox } = await import(new URL('sandbox/open.js', dist).href);
// The replay runs head code as the gate does: in sandboxed processes.
const sandbox = await openSandbox(process.env);

/** Ten small, real properties: list, string and arithmetic invariants of the kind a tape records. */
const BODIES = [
  [
    'fc.array(fc.integer())',
    '(xs) => { const s = [...xs].sort((a, b) => a - b); return s.every((v, i) => i === 0 || s[i - 1] <= v); }',
  ],
  ['fc.array(fc.integer())', '(xs) => [...xs].reverse().reverse().join() === xs.join()'],
  ['fc.string()', '(s) => s.split("").join("") === s'],
  [
    'fc.nat({ max: 100000 }), fc.integer({ min: 1, max: 12 })',
    '(t, n) => { const b = Math.floor(t / n); const parts = Array.from({ length: n }, (_, i) => b + (i < t % n ? 1 : 0)); return parts.reduce((a, c) => a + c, 0) === t; }',
  ],
  ['fc.array(fc.nat(), { maxLength: 50 })', '(xs) => new Set(xs).size <= xs.length'],
  ['fc.integer(), fc.integer()', '(a, b) => a + b === b + a'],
  [
    'fc.dictionary(fc.string(), fc.integer())',
    '(d) => Object.keys(JSON.parse(JSON.stringify(d))).length === Object.keys(d).length',
  ],
  ['fc.array(fc.integer(), { minLength: 1 })', '(xs) => Math.max(...xs) >= Math.min(...xs)'],
  ['fc.string(), fc.string()', '(a, b) => (a + b).startsWith(a)'],
  ['fc.uniqueArray(fc.integer())', '(xs) => new Set(xs).size === xs.length'],
];

function writeProject() {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dataDir, 'props'), { recursive: true });
  const rows = [];
  for (let i = 0; i < PROPERTIES; i++) {
    const [arbs, pred] = BODIES[i];
    fs.writeFileSync(
      path.join(dataDir, 'props', `p${i}.ts`),
      `import fc from 'fast-check';\nimport { defineSeedProperty } from 'patchgate';\nexport const p = defineSeedProperty({ id: 'prop_${i}', property: fc.property(${arbs}, ${pred}), params: { numRuns: ${NUM_RUNS} } });\n`,
    );
    rows.push({
      id: `prop_${i}`,
      runner: 'fast-check',
      min_examples: NUM_RUNS,
      seeds: Array.from({ length: SEEDS_PER_PROPERTY }, (_, j) => String(1000 * i + j * 7919)),
    });
  }
  fs.writeFileSync(path.join(dataDir, 'property_seeds.json'), JSON.stringify({ properties: rows }, null, 2));
  // The per-seed runner: one vitest process replays one (property, seed), like the seed's pytest call.
  fs.writeFileSync(
    path.join(dataDir, 'seed.test.ts'),
    `import fc from 'fast-check';\nimport { test } from 'vitest';\ntest('replay', async () => {\n  const mod = await import(\`./props/\${process.env.PG_MODULE}.ts\`);\n  fc.assert(mod.p.property, { seed: Number(process.env.PG_SEED), numRuns: ${NUM_RUNS} });\n});\n`,
  );
  fs.writeFileSync(
    path.join(dataDir, 'vitest.config.mjs'),
    `export default { resolve: { alias: { patchgate: ${JSON.stringify(path.join(repoRoot, 'dist', 'index.js'))} } }, test: { include: ['seed.test.ts'] } };\n`,
  );
  fs.writeFileSync(
    path.join(dataDir, 'seed-node.mjs'),
    `import { createJiti } from 'jiti';\nimport fc from 'fast-check';\nconst jiti = createJiti(import.meta.url, { alias: { patchgate: ${JSON.stringify(path.join(repoRoot, 'dist', 'index.js'))} } });\nconst mod = await jiti.import(\`./props/\${process.env.PG_MODULE}.ts\`);\nfc.assert(mod.p.property, { seed: Number(process.env.PG_SEED), numRuns: ${NUM_RUNS} });\n`,
  );
  return parseTape(fs.readFileSync(path.join(dataDir, 'property_seeds.json'), 'utf8'), 'property_seeds.json');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

/** replayTape on `root`, timed; every replay must pass, or the figure would time something else. */
async function timedReplay(root, rows, config) {
  const t0 = performance.now();
  const out = await replayTape({
    root,
    rows,
    config,
    env: { PATH: SEARCH_PATH },
    sandbox,
    logDir: path.join(root, 'logs'),
  });
  const ms = performance.now() - t0;
  const bad = out.replays.filter((r) => r.status !== 'pass');
  const expected = rows.reduce((n, r) => n + r.seeds.length, 0);
  if (bad.length > 0 || out.replays.length !== expected) {
    throw new Error(`replayTape did not pass every seed: ${JSON.stringify(bad.slice(0, 3))}`);
  }
  return { ms, processes: out.processes };
}

/** The seed's approach: one process per (property, seed), `run(row, seed)` giving its argv and env. */
function perSeed(root, rows, run) {
  const t0 = performance.now();
  let processes = 0;
  for (const row of rows) {
    for (const s of row.seeds) {
      const { argv, env } = run(row, s.seed);
      const r = spawnSync(argv[0], argv.slice(1), {
        cwd: root,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      processes++;
      if (r.status !== 0)
        throw new Error(`${argv.join(' ')} failed for ${row.id}@${s.seed}: ${r.stderr || r.stdout}`);
    }
  }
  return { ms: performance.now() - t0, processes };
}

const tape = writeProject();
const config = configSchema.parse({ seeds: { properties: ['props/*.ts'] } }).seeds;
const vitest = [
  process.execPath,
  path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'),
  'run',
  '--config',
  'vitest.config.mjs',
];
const bareNode = [process.execPath, 'seed-node.mjs'];

console.log(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  `seeds: ${PROPERTIES} fast-check properties x ${SEEDS_PER_PROPERTY} seeds, numRuns ${NUM_RUNS}; ${RUNS} run(s), medians`,
);
await timedReplay(dataDir, tape.rows, config); // warm the file cache and jiti's transform of the modules
const oursMs = [];
for (let i = 0; i < RUNS; i++) oursMs.push((await timedReplay(dataDir, tape.rows, config)).ms);
// The baselines take a minute each: one run is enough to see the ratio.
const fastCheckSeed = (argv) => (row, seed) => ({
  argv,
  env: { PG_MODULE: `p${row.id.slice(5)}`, PG_SEED: seed, NO_COLOR: '1' },
});
const vitestRun = perSeed(dataDir, tape.rows, fastCheckSeed(vitest));
const nodeRun = perSeed(dataDir, tape.rows, fastCheckSeed(bareNode));
const o = median(oursMs);
console.log(`  replayTape (one pool)            ${fmt(o).padStart(9)}   0 processes started`);
console.log(
  `  vitest process per seed          ${fmt(vitestRun.ms).padStart(9)}  ${vitestRun.processes} processes   ratio ${(vitestRun.ms / o).toFixed(1)}x   goal >= 50x  ${vitestRun.ms / o >= 50 ? 'PASS' : 'MISS'}`,
);
console.log(
  `  bare node process per seed       ${fmt(nodeRun.ms).padStart(9)}  ${nodeRun.processes} processes   ratio ${(nodeRun.ms / o).toFixed(1)}x   (the cheapest process per seed, for scale)`,
);

if (!skipPython) {
  // pytest: 10 Hypothesis tests, every one recording the same 5 seed values (seeds are shared across a tape in practice when a
  // nightly run finds several bugs with one seed; here it shows batching at its best and says how many processes each way starts).
  const py = path.join(dataDir, 'py');
  fs.mkdirSync(path.join(py, 'tests'), { recursive: true });
  fs.writeFileSync(path.join(py, 'tests', '__init__.py'), '');
  let src = 'from hypothesis import given, settings, strategies as st\n';
  const rows = [];
  for (let i = 0; i < PROPERTIES; i++) {
    src += `\n@settings(max_examples=${NUM_RUNS}, deadline=None)\n@given(st.lists(st.integers()))\ndef test_p${i}(xs):\n    assert sorted(sorted(xs)) == sorted(xs)\n`;
    rows.push({
      id: `py_${i}`,
      nodeid: `tests/test_props.py::test_p${i}`,
      min_examples: NUM_RUNS,
      seeds: ['11', '22', '33', '44', '55'],
    });
  }
  fs.writeFileSync(path.join(py, 'tests', 'test_props.py'), src);
  const pyTape = parseTape(JSON.stringify({ properties: rows }), 'property_seeds.json');
  const batchedRun = await timedReplay(py, pyTape.rows, config);
  // The seed's replay_seeds: one `python -m pytest nodeid --hypothesis-seed=S` per (property, seed).
  const seedRun = perSeed(py, pyTape.rows, (row, seed) => ({
    argv: [
      'python3',
      '-m',
      'pytest',
      row.nodeid,
      '-q',
      '-p',
      'no:cacheprovider',
      `--hypothesis-seed=${seed}`,
    ],
    env: {},
  }));
  const distinct = new Set(pyTape.rows.flatMap((r) => r.seeds.map((s) => s.seed))).size;
  console.log(`pytest: ${PROPERTIES} Hypothesis tests x 5 seeds, ${distinct} distinct seed values`);
  console.log(
    `  replayTape (batched by seed)     ${fmt(batchedRun.ms).padStart(9)}  ${batchedRun.processes.pytest} processes (distinct seeds: ${distinct})`,
  );
  console.log(
    `  one process per (test, seed)     ${fmt(seedRun.ms).padStart(9)}  ${seedRun.processes} processes   ratio ${(seedRun.ms / batchedRun.ms).toFixed(1)}x`,
  );
}
