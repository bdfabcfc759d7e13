#!/usr/bin/env node
// The test suite's wall time (issue 20: `npm test` under 6 minutes on two
// cores). `npm test` is the build and then the whole vitest suite; this times
// both, the suite twice in the same run:
//   ours:     the suite as it runs (an e2e test's `patchgate` command runs in its
//             test process, test/helpers/gitdir.ts, unless it must be spawned)
//   baseline: the same suite with every command spawned as the built CLI
//             (PATCHGATE_TEST_CLI=spawn), as every e2e test did before
//   Both must pass every test. Printed: the build's time, each suite's wall
//   time, the ratio of the two, and the build plus our suite against the
//   goal of 360 s.
//   goal: build + suite <= 360 s
// Usage: node bench/suite/run.mjs [--runs N] [--only ours|baseline]   (default 1 run of each, ~12 minutes)
// Needs what `npm test` needs (.ci/run installs it); always exits 0, since it
// is a measurement. Run it on an idle machine: the suite fills both cores.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../lib/cli.mjs';
import { median } from '../lib/stats.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = benchArgs(process.argv.slice(2), { runs: 1, min: 1 });
const GOAL_S = 360;

function timed(argv, env = {}) {
  const started = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), {
    cwd: repoRoot,
    // Plain output, so the summary line can be read back.
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const s = (performance.now() - started) / 1000;
  return { s, status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** vitest's own summary lines: `Tests  2751 passed (2751)`. */
function summary(out) {
  return /Tests\s+(.*)/.exec(out)?.[1]?.trim() ?? '(no summary)';
}

console.log(`load average at the start: ${os.loadavg()[0].toFixed(1)}`);
const build = timed(['npm', 'run', 'build']);
if (build.status !== 0) {
  console.error(`npm run build failed:\n${build.out.slice(-4000)}`);
  process.exit(0);
}
console.log(`build: ${build.s.toFixed(1)} s`);

const modes = [
  { name: 'baseline', env: { PATCHGATE_TEST_CLI: 'spawn' } },
  { name: 'ours', env: {} },
].filter((m) => args.only === undefined || m.name === args.only);
const walls = new Map(modes.map((m) => [m.name, []]));
for (let i = 0; i < args.runs; i++) {
  for (const mode of modes) {
    const r = timed(['npx', 'vitest', 'run'], mode.env);
    const ok = r.status === 0;
    console.log(`${mode.name} run ${i + 1}: ${r.s.toFixed(1)} s, ${summary(r.out)}${ok ? '' : ' (FAILED)'}`);
    if (ok) walls.get(mode.name).push(r.s);
  }
}
const ours = walls.get('ours') ?? [];
const baseline = walls.get('baseline') ?? [];
if (ours.length > 0 && baseline.length > 0)
  console.log(
    `suite: ours ${median(ours).toFixed(1)} s, baseline ${median(baseline).toFixed(1)} s: ${(median(ours) / median(baseline)).toFixed(2)}x`,
  );
if (ours.length > 0) {
  const total = build.s + median(ours);
  console.log(
    `npm test (build + suite): ${total.toFixed(1)} s against the goal of ${GOAL_S} s: ${(total / GOAL_S).toFixed(2)}x ${total <= GOAL_S ? 'PASS' : 'MISS'}`,
  );
}
