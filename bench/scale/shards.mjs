#!/usr/bin/env node
// The shards half of bench/scale (issue 21): a synthetic repository of 2,000
// patchgate properties (100 modules of 20) and 20,000 pytest tests (200 files
// of 100), a benign patch to one production module, judged
//   (1) by one unsharded `patchgate check`                  the baseline
//   (2) by 4 shards (`check --shard I/4`), one after another on this machine:
//       the sum of their wall times against (1)             goal: <= 1.1x
//   (3) by `patchgate merge` of the 4 parts, against (1)    goal: < 2%
// and checks that the merged scorecard is the unsharded one but for timings
// and shard bookkeeping. Every run is the real CLI (bubblewrap when the
// machine has it), on one repository; the repository is built once.
// Usage: node bench/scale/shards.mjs [--properties N] [--test-files N] [--tests-per-file N] [--shards N] [--keep]
// Always exits 0: a benchmark is a measurement.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
requireBuild('bench/scale shards', new URL('../../dist/cli/bin.js', import.meta.url));

const argv = process.argv.slice(2);
const args = benchArgs(argv, { runs: 1 });
const flag = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) || dflt : dflt;
};
const PROPERTIES = flag('--properties', 2_000);
const PER_MODULE = 20;
const TEST_FILES = flag('--test-files', 200);
const PER_FILE = flag('--tests-per-file', 100);
const SHARDS = flag('--shards', 4);
const LIBS = 50;
const TODAY = '2026-12-01';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_AUTHOR_DATE: '2026-11-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-11-01T00:00:00Z',
};
const git = (cwd, ...a) => execFileSync('git', a, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });

function write(root, rel, text) {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
}

/** The repository on `main`, and the patch on `agent`. */
function buildRepo(dir) {
  const fixture = `${JSON.stringify({ a: 1, b: 2, name: 'bench', items: [1, 2, 3] }, null, 2)}\n`;
  write(dir, 'testdata/fx.json', fixture);
  write(
    dir,
    'FIXTURE_LOCK.json',
    `${JSON.stringify(
      {
        override_token_env: 'FIXTURE_OVERRIDE',
        files: {
          'testdata/fx.json': { sha256: createHash('sha256').update(fixture).digest('hex'), owner: 'bench' },
        },
      },
      null,
      2,
    )}\n`,
  );
  write(
    dir,
    'patchgate.config.json',
    `${JSON.stringify(
      {
        fixtures: { roots: ['testdata'], owner: 'bench' },
        hits: { properties: ['properties/**/*.property.ts'], ledger: 'flake_ledger.json' },
        tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, timeoutMs: 600_000 },
        signatures: { freeze: 'flake_signatures.json' },
        stability: { runs: 3, freeze: 'stability_freeze.json' },
      },
      null,
      2,
    )}\n`,
  );
  write(dir, 'flake_ledger.json', '{"version": 1, "rules": []}\n');
  write(dir, 'flake_signatures.json', '{"signatures": []}\n');
  write(dir, 'stability_freeze.json', '{"freezes": []}\n');
  write(dir, '.gitignore', '.patchgate\n__pycache__\n');
  for (let m = 0; m < PROPERTIES / PER_MODULE; m++) {
    const props = [];
    for (let k = 0; k < PER_MODULE; k++) {
      const n = m * PER_MODULE + k;
      const field = ['a', 'b', 'name', 'items'][n % 4];
      props.push(
        `export const p${k} = defineProperty<Fx>({\n  name: 'p_${n}',\n  fixture: 'testdata/fx.json',\n  claims: ['${field}'],\n  check(fx) {\n    if (JSON.stringify(fx.${field}) !== ${JSON.stringify(JSON.stringify(JSON.parse(fixture)[field]))}) throw new Error('${field} moved');\n  },\n});\n`,
      );
    }
    write(
      dir,
      `properties/mod_${String(m).padStart(3, '0')}.property.ts`,
      `import { defineProperty } from 'patchgate';\n\ntype Fx = { a: number; b: number; name: string; items: number[] };\n\n${props.join('\n')}`,
    );
  }
  for (let l = 0; l < LIBS; l++)
    write(dir, `src/lib_${l}.py`, `def f(x):\n    return x + ${l}\n\n\ndef g(x):\n    return x * 2\n`);
  for (let t = 0; t < TEST_FILES; t++) {
    const lib = t % LIBS;
    const body = [`from lib_${lib} import f, g\n`];
    for (let k = 0; k < PER_FILE; k++)
      body.push(`\ndef test_${k}():\n    assert f(${k}) == ${k + lib}\n    assert g(${k}) == ${2 * k}\n`);
    write(dir, `tests/test_${String(t).padStart(3, '0')}.py`, body.join(''));
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  git(dir, 'checkout', '-q', '-b', 'agent');
  // A benign patch: a new helper in one production module (its tests are probed, none change).
  fs.appendFileSync(path.join(dir, 'src/lib_7.py'), '\n\ndef h(x):\n    return -x\n');
  git(dir, 'commit', '-q', '-am', 'agent: add h');
}

/**
 * The machine's busy CPU seconds so far (/proc/stat: user, nice, system, irq,
 * softirq, steal): the work a run did, sandboxed processes included, which a
 * child's rusage does not see across bubblewrap's PID namespace. Measured on
 * an otherwise idle machine.
 */
function busySeconds() {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const hz = 100;
    return (
      ((cpu[0] ?? 0) + (cpu[1] ?? 0) + (cpu[2] ?? 0) + (cpu[5] ?? 0) + (cpu[6] ?? 0) + (cpu[7] ?? 0)) / hz
    );
  } catch {
    return Number.NaN;
  }
}

function timed(cwd, cliArgs) {
  const busy = busySeconds();
  const started = performance.now();
  const r = spawnSync(process.execPath, [cli, ...cliArgs], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FIXTURE_OVERRIDE: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    seconds: (performance.now() - started) / 1000,
    cpu: busySeconds() - busy,
    code: r.status,
    stderr: r.stderr,
  };
}

const comparable = (file) => {
  const {
    timings: _t,
    shards: _s,
    ...rest
  } = JSON.parse(fs.readFileSync(file, 'utf8').replace(/tests\/shard-[0-9]+\//g, 'tests/'));
  return JSON.stringify(rest);
};

const fmt = (s) => `${s.toFixed(2)} s`;
/** The largest of `values` (a loop: a spread into Math.max overflows the stack on long inputs). */
const maxOf = (values) => values.reduce((m, v) => (v > m ? v : m), Number.NEGATIVE_INFINITY);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchgate-bench-scale-'));
const outs = fs.mkdtempSync(path.join(os.tmpdir(), 'patchgate-bench-scale-out-'));
try {
  const t0 = performance.now();
  buildRepo(dir);
  console.log(
    `bench/scale shards: ${PROPERTIES} properties in ${PROPERTIES / PER_MODULE} modules, ${TEST_FILES * PER_FILE} tests in ${TEST_FILES} files, ${SHARDS} shards (repository built in ${fmt((performance.now() - t0) / 1000)}; ${os.availableParallelism()} CPUs)`,
  );
  const check = ['check', '--base', 'main', '--head', 'agent', '--today', TODAY, '--quiet'];
  const one = timed(dir, [...check, '--out', path.join(outs, 'one')]);
  if (one.code !== 0)
    console.log(`note: the unsharded check exited ${one.code}: ${one.stderr.trim().slice(0, 500)}`);
  const shards = [];
  for (let i = 1; i <= SHARDS; i++) {
    const r = timed(dir, [...check, '--shard', `${i}/${SHARDS}`, '--out', path.join(outs, `shard-${i}`)]);
    if (r.code !== 0) console.log(`note: shard ${i} exited ${r.code}: ${r.stderr.trim().slice(0, 500)}`);
    shards.push(r);
  }
  const parts = shards.map((_, i) => path.join(outs, `shard-${i + 1}`));
  const merge = timed(dir, ['merge', ...parts, '--out', path.join(outs, 'merged'), '--quiet']);
  const sum = (key) => shards.reduce((a, b) => a + b[key], 0);
  const same =
    comparable(path.join(outs, 'one', 'scorecard.json')) ===
    comparable(path.join(outs, 'merged', 'scorecard.json'));
  const verdict = JSON.parse(fs.readFileSync(path.join(outs, 'merged', 'scorecard.json'), 'utf8')).verdict;
  const ratio = (x, y) => `${(x / y).toFixed(2)}x`;
  const met = (ok) => (ok ? 'MET' : 'MISSED');
  const rows = [
    ['case', 'wall', 'vs one', 'CPU (work)', 'vs one', 'goal'],
    ['one unsharded check', fmt(one.seconds), '1.00x', fmt(one.cpu), '1.00x', 'the baseline'],
    ...shards.map((r, i) => [
      `shard ${i + 1}/${SHARDS}`,
      fmt(r.seconds),
      ratio(r.seconds, one.seconds),
      fmt(r.cpu),
      ratio(r.cpu, one.cpu),
      '',
    ]),
    [
      `${SHARDS} shards, one after another`,
      fmt(sum('seconds')),
      ratio(sum('seconds'), one.seconds),
      fmt(sum('cpu')),
      ratio(sum('cpu'), one.cpu),
      `work <= 1.1x ${met(sum('cpu') / one.cpu <= 1.1)}`,
    ],
    [
      'the slowest shard (wall on parallel jobs)',
      fmt(maxOf(shards.map((r) => r.seconds))),
      ratio(maxOf(shards.map((r) => r.seconds)), one.seconds),
      '',
      '',
      '',
    ],
    [
      `merge of ${SHARDS} parts`,
      fmt(merge.seconds),
      `${((merge.seconds / one.seconds) * 100).toFixed(2)}%`,
      fmt(merge.cpu),
      '',
      `< 2% ${met(merge.seconds / one.seconds < 0.02)}`,
    ],
  ];
  const widths = rows[0].map((_, c) => maxOf(rows.map((r) => r[c].length)));
  for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c])).join('  '));
  console.log(
    `merged verdict: ${verdict} (merge exit ${merge.code}); the merged scorecard ${same ? 'is' : 'is NOT'} the unsharded one but for timings and shard bookkeeping`,
  );
  if (args.has('--keep')) console.log(`kept: ${dir} and ${outs}`);
} finally {
  if (!args.has('--keep')) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outs, { recursive: true, force: true });
  }
}
