// bench/sandbox/watch.mjs: what the caps' watchers cost on a big checkout, in
// the same run as their yardstick.
//
//   (c) a CPU-bound head process (a fixed amount of work, about a second)
//       sandboxed with a checkout of --files files (default 50,000, a large
//       node_modules) as its writable folder, started through Sandbox.spawn
//       (the memory watcher reading /proc and the tmpfs mounts 4 times a
//       second, the disk watcher walking the checkout), against the very same
//       bubblewrap command line started without any watcher. Goal: at most
//       1.10x its wall time. Printed besides: the gate's own CPU while it
//       watched (the first walk of the checkout, at the start, included;
//       after it the walks keep to one walk's time in twenty).
//   (d) how soon a fast writer is stopped on that checkout: a head process
//       writing 100 MiB files as fast as the disk takes them, with a cap of
//       64 MiB; the time from its start to its stop, against one walk of the
//       checkout (measured in the same run), and how much it had written by
//       then. Goal: stopped within 5 walks (one to see the cap crossed, the
//       rest it takes before the file system says to look again).
//
//   npm run bench:sandbox-watch                 (builds first)
//   node bench/sandbox/watch.mjs [--runs N] [--files N]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const dist = new URL('../../dist/', import.meta.url);
const args = benchArgs(undefined, { runs: 9, min: 3 });
const RUNS = args.runs;
const filesFlag = process.argv.indexOf('--files');
const FILES = filesFlag > 0 ? Math.max(1000, Number(process.argv[filesFlag + 1]) || 50_000) : 50_000;

requireBuild('sandbox-watch', new URL('sandbox/sandbox.js', dist));
const { Sandbox } = await import(new URL('sandbox/sandbox.js', dist).href);
const { detectIsolation } = await import(new URL('sandbox/isolation.js', dist).href);
const { measureFolderSync } = await import(new URL('sandbox/disk-watch.js', dist).href);

const isolation = await detectIsolation(process.env.PATH);
console.log(
  `sandbox-watch: isolation ${isolation.mode}${isolation.user ? ` (user ${isolation.user})` : ''}; ${RUNS} rounds, medians; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.availableParallelism()} CPUs`,
);
if (isolation.mode !== 'bwrap') {
  console.log(`sandbox-watch: no bubblewrap here (${isolation.reason}); nothing to measure`);
  process.exit(0);
}

// A checkout shaped like an installed node_modules: packages of folders of small files.
const data = path.resolve(new URL('../.data/sandbox-watch/', import.meta.url).pathname, String(FILES));
if (!fs.existsSync(path.join(data, '.done'))) {
  fs.rmSync(data, { recursive: true, force: true });
  const perDir = 25;
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(
      data,
      'node_modules',
      `pkg-${Math.floor(i / (perDir * 8))}`,
      `lib-${Math.floor(i / perDir) % 8}`,
    );
    if (i % perDir === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.js`), `module.exports = ${i};\n`.repeat(1 + (i % 40)));
  }
  fs.writeFileSync(path.join(data, '.done'), '');
}
let t0 = performance.now();
const usage = measureFolderSync(data);
const walkMs = performance.now() - t0;
console.log(
  `  checkout: ${FILES} files, ${Math.round(usage.bytes / 1024 ** 2)} MiB allocated; one walk ${walkMs.toFixed(0)} ms`,
);

const sandbox = new Sandbox(isolation);
await sandbox.grant(data);
// The same work every time, about a second of one core: the watchers compete with it for the CPUs.
const WORK = 'let x = 0; for (let i = 0; i < 6e8; i++) x = (x + i) % 1000003; process.exit(x < 0 ? 1 : 0);';
const spec = {
  argv: [process.execPath, '-e', WORK],
  cwd: data,
  env: { PATH: '/usr/bin:/bin' },
  writable: [data],
  readOnly: [path.dirname(path.dirname(process.execPath))],
  stdio: ['ignore', 'ignore', 'inherit'],
};

function exited(child) {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function timed(side) {
  const cpu0 = process.cpuUsage();
  t0 = performance.now();
  if (side === 'watched') await exited(sandbox.spawn(spec).child);
  else
    await exited(
      spawn(isolation.tools.bwrap, sandbox.bwrapArgv(spec), {
        cwd: data,
        env: {},
        stdio: ['ignore', 'ignore', 'inherit', 'ignore', 'pipe'],
      }),
    );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuShare: (cpu.user + cpu.system) / 1000 / ms };
}

const sides = { watched: [], bare: [] };
for (let r = -1; r < RUNS; r++) {
  // Alternate which side goes first; round -1 only warms up.
  for (const side of r % 2 === 0 ? ['watched', 'bare'] : ['bare', 'watched']) {
    const m = await timed(side);
    if (r >= 0) sides[side].push(m);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wall = (side) => median(sides[side].map((m) => m.ms));
const share = (side) => median(sides[side].map((m) => m.cpuShare));
const ratio = wall('watched') / wall('bare');
const watcherCpu = share('watched') - share('bare');
console.log(
  `  (c) the work without watchers: ${wall('bare').toFixed(0)} ms; watched: ${wall('watched').toFixed(0)} ms; the gate's CPU while it ran: ${(share('bare') * 100).toFixed(1)}% vs ${(share('watched') * 100).toFixed(1)}% of one core`,
);
console.log(
  `sandbox-watch (c) a watched run takes ${ratio.toFixed(3)}x the same run without watchers (goal <= 1.10x) ${ratio <= 1.1 ? 'PASS' : 'MISS'}`,
);
console.log(
  `  (c) the watchers used ${(watcherCpu * 100).toFixed(1)}% of one core over the run, on ${FILES} files (one walk: ${walkMs.toFixed(0)} ms)`,
);

// ------------------------------------------------------------ (d) a fast writer
const CAP = 64 * 1024 ** 2;
const capped = new Sandbox(isolation, { limits: { diskBytes: CAP } });
await capped.grant(data);
const overshoots = [];
const stops = [];
for (let r = 0; r < Math.min(RUNS, 5); r++) {
  t0 = performance.now();
  const p = capped.spawn({
    ...spec,
    argv: [
      '/bin/sh',
      '-c',
      'mkdir -p fill; i=0; while [ $i -lt 40 ]; do head -c 104857600 /dev/zero > fill/f$i; i=$((i+1)); done',
    ],
  });
  await new Promise((resolve) => p.child.once('exit', resolve));
  stops.push(performance.now() - t0);
  overshoots.push((p.breach?.observed ?? Number.POSITIVE_INFINITY) / CAP);
  fs.rmSync(path.join(data, 'fill'), { recursive: true, force: true });
  await capped.grant(data);
}
const over = median(overshoots);
const walks = median(stops) / walkMs;
console.log(
  `  (d) a writer of 100 MiB files against a 64 MiB cap on ${FILES} files: stopped after ${median(stops).toFixed(0)} ms, having written ${over.toFixed(1)}x the cap (${Math.round((over * CAP) / 1024 ** 2)} MiB)`,
);
console.log(
  `sandbox-watch (d) a fast writer is stopped after ${walks.toFixed(1)} walks of the checkout (goal <= 5) ${walks <= 5 ? 'PASS' : 'MISS'}`,
);
process.exit(0);
