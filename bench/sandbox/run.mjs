// bench/sandbox: what the sandbox door costs, in the same run as its yardstick.
//
//   (a) one process start: spawn to exit of /bin/true through Sandbox.spawn
//       (bubblewrap: namespaces, mounts, prlimit, setpriv) against a bare
//       child_process.spawn of the same program. Goal: at most 15 ms more.
//   (b) one round trip: a small task to a head-code host and back over the
//       signed channel, host in the sandbox against the same host as a plain
//       child process. Goal: at most 1.5x.
//
//   npm run bench:sandbox          (builds first)
//   node bench/sandbox/run.mjs [--runs N]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = new URL('../../dist/', import.meta.url);
const RUNS = benchArgs(undefined, { runs: 41, min: 5 }).runs;
const TRIPS = 400;

requireBuild('sandbox', new URL('sandbox/sandbox.js', dist));
const { Sandbox } = await import(new URL('sandbox/sandbox.js', dist).href);
const { detectIsolation } = await import(new URL('sandbox/isolation.js', dist).href);
const { ProcessPool } = await import(new URL('sandbox/process-pool.js', dist).href);

const isolation = await detectIsolation(process.env.PATH);
console.log(
  `sandbox: isolation ${isolation.mode}${isolation.user ? ` (user ${isolation.user})` : ''}; ${RUNS} rounds, medians; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.availableParallelism()} CPUs`,
);
if (isolation.mode !== 'bwrap') {
  console.log(`sandbox: no bubblewrap here (${isolation.reason}); nothing to measure`);
  process.exit(0);
}
const sandboxed = new Sandbox(isolation);
const plain = new Sandbox({ mode: 'process', uid: isolation.uid, gid: isolation.gid });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'patchgate-bench-sandbox-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timeExit(child) {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

// ------------------------------------------------------------ (a) start
const bare = [];
const boxed = [];
for (let r = -3; r < RUNS; r++) {
  // Alternate which side goes first; the first three rounds only warm up.
  const sides = [
    async () => {
      const t0 = performance.now();
      await timeExit(spawn('/bin/true', [], { stdio: 'ignore', env: {} }));
      return ['bare', performance.now() - t0];
    },
    async () => {
      const t0 = performance.now();
      const p = sandboxed.spawn({
        argv: ['/bin/true'],
        cwd: work,
        env: { PATH: '/usr/bin:/bin' },
        writable: [work],
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      await timeExit(p.child);
      return ['boxed', performance.now() - t0];
    },
  ];
  for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
    const [name, ms] = await side();
    if (r >= 0) (name === 'bare' ? bare : boxed).push(ms);
  }
}
const extra = median(boxed) - median(bare);
console.log(
  `  (a) bare spawn of /bin/true: ${median(bare).toFixed(1)} ms; through the sandbox: ${median(boxed).toFixed(1)} ms`,
);
console.log(
  `sandbox (a) one sandboxed process start costs ${extra.toFixed(1)} ms over a bare spawn (goal <= 15 ms) ${extra <= 15 ? 'PASS' : 'MISS'}`,
);

// ------------------------------------------------------------ (b) round trip
const handler = path.join(here, 'echo-handler.mjs');
const pool = (sandbox) =>
  new ProcessPool({
    sandbox,
    handler,
    root: work,
    workers: 1,
    timeoutMs: 10_000,
    env: { PATH: '/usr/bin:/bin' },
  });
const pools = { boxed: pool(sandboxed), plain: pool(plain) };
const trips = { boxed: [], plain: [] };
const payload = {
  value: { property: 'p', fixture: { total_cents: 1500, lines: [{ qty: 2, unit_cents: 500 }] } },
};
for (const p of Object.values(pools))
  for (let i = 0; i < 50; i++)
    await p.run(payload, { label: 'warm-up', onTimeout: () => new Error('timeout') });
for (let r = 0; r < RUNS; r++) {
  for (const name of r % 2 === 0 ? ['boxed', 'plain'] : ['plain', 'boxed']) {
    const t0 = performance.now();
    for (let i = 0; i < TRIPS; i++)
      await pools[name].run(payload, { label: 'trip', onTimeout: () => new Error('timeout') });
    trips[name].push(((performance.now() - t0) * 1000) / TRIPS);
  }
}
for (const p of Object.values(pools)) await p.close();
const ratio = median(trips.boxed) / median(trips.plain);
console.log(
  `  (b) round trip of a small task: plain child process ${median(trips.plain).toFixed(1)} us, sandboxed ${median(trips.boxed).toFixed(1)} us (${TRIPS} trips a round)`,
);
console.log(
  `sandbox (b) one round trip costs ${ratio.toFixed(2)}x the unsandboxed round trip (goal <= 1.5x) ${ratio <= 1.5 ? 'PASS' : 'MISS'}`,
);
process.exit(0);
