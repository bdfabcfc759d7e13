#!/usr/bin/env node
// Real-repository benchmark (issue 18): recent benign commits of public
// repositories replayed through the built CLI as a new user would run it,
// with the stability probe on, against one plain run of the same checkout's
// suite, both measured in this run.
//   For each repository: clone it from the path or URL given, then for each of
//   its most recent commits C (not a merge, not touching CI workflows or a
//   submodule): base = C's parent + a config commit (what `patchgate init
//   --baseline` writes there: the config, and freeze rows for what already
//   fails or skips, as a maintainer adopting the gate commits them),
//   head = base + C's diff.
//   Then, interleaved, --runs rounds of: one plain run of the suite on the
//   head's checkout, one `patchgate check --base <base> --head <head>`.
//   ratio = check wall time (less the dependency install the plain run also
//   needs: the scorecard's setupMs) / the plain run; median of the rounds per
//   commit, then the median over commits per repository and overall.
//                                                          goal: <= 2.0x
// Usage:
//   node bench/real/run.mjs hpack=PATH|URL yaml=PATH|URL \
//        yaml-test-suite=PATH|URL json-test-suite=PATH|URL [--commits N] [--runs N] [--only NAME] [--keep]
// Nothing of these repositories is committed here; the clones live in a temp folder.
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';
import { cloneRepo, git, initBaseline, sh, tryGit } from '../lib/replay.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
requireBuild('real', pathToFileURL(cli));
const { parseJUnitFile } = await import(pathToFileURL(path.join(repoRoot, 'dist', 'junit', 'index.js')).href);

const args = benchArgs(process.argv.slice(2), { runs: 3 });
const flagValue = (flag, fallback) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? Number(process.argv[i + 1]) || fallback : fallback;
};
const COMMITS = flagValue('--commits', 4);
const sources = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => /^[a-z-]+=/.test(a))
    .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);
// The interpreter the gate's sandbox finds on its PATH (/usr/bin first): the plain run uses the same one.
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const TODAY = '2026-12-01';

/**
 * What each repository needs: its plain suite (the command its own CI runs, with the JUnit reporter the
 * gate's preset adds), an install the plain run needs first, and its submodules (a source to fetch
 * them from, and a ref to pin when the recorded commit is in no repository we were given).
 */
const PROFILES = {
  hpack: {
    plain: (junit) => ({
      argv: [PYTHON, '-m', 'pytest', '--rootdir=.', `--junitxml=${junit}`, '-p', 'no:cacheprovider', '-q'],
      env: { PYTHONPATH: 'src' },
    }),
    submodules: {},
  },
  yaml: {
    plain: (junit) => ({
      argv: [
        'npx',
        '--no',
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=junit',
        `--outputFile.junit=${junit}`,
      ],
      env: {},
    }),
    install: ['npm', 'ci', '--no-audit', '--no-fund'],
    // init finds no folder of a conventional name: a maintainer names the test data to lock.
    init: ['--root', 'tests/artifacts'],
    submodules: {
      // The recorded commit (50861920) is in neither eemeli/yaml-test-suite nor yaml/yaml-test-suite as fetched.
      'tests/yaml-test-suite': { source: 'yaml-test-suite', fallback: 'main' },
      'tests/json-test-suite': { source: 'json-test-suite', fallback: 'HEAD' },
    },
  },
};

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The most recent commits a replay can judge as an agent's patch, and why others are left out. */
function pickCommits(dir, profile) {
  const picked = [];
  const skipped = [];
  for (const c of git(dir, 'rev-list', '--first-parent', '--no-merges', '--max-count=60', 'HEAD').split(
    '\n',
  )) {
    if (picked.length >= COMMITS) break;
    const files = git(dir, 'diff-tree', '--no-commit-id', '--name-only', '-r', c).split('\n').filter(Boolean);
    const subject = git(dir, 'log', '-1', '--format=%s', c);
    const why = files.some((f) => f.startsWith('.github/'))
      ? 'touches CI workflows (contracts.protect: a human commit by design)'
      : files.some((f) => Object.hasOwn(profile.submodules, f))
        ? 'moves a submodule'
        : files.length === 0
          ? 'changes nothing'
          : undefined;
    if (why) skipped.push(`${c.slice(0, 8)} ${subject.slice(0, 50)}: ${why}`);
    else picked.push({ sha: c, subject, files: files.length });
  }
  return { picked, skipped };
}

function plainRun(dir, profile, junit) {
  const { argv, env } = profile.plain(junit);
  const t0 = performance.now();
  const r = sh(argv[0], argv.slice(1), dir, env);
  return { ms: performance.now() - t0, status: r.status, tail: `${r.stdout}${r.stderr}`.slice(-1500) };
}

function check(dir, baseRef, headRef) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-real-out-'));
  const t0 = performance.now();
  const r = sh(
    'node',
    [cli, 'check', '--base', baseRef, '--head', headRef, '--out', out, '--today', TODAY, '--quiet'],
    dir,
  );
  const ms = performance.now() - t0;
  const file = path.join(out, 'scorecard.json');
  if (!fs.existsSync(file))
    throw new Error(`the gate wrote no scorecard (exit ${r.status}):\n${r.stderr.slice(-3000)}`);
  const card = JSON.parse(fs.readFileSync(file, 'utf8'));
  const stability = path.join(out, 'stability.json');
  return {
    ms,
    card,
    out,
    stability: fs.existsSync(stability) ? JSON.parse(fs.readFileSync(stability, 'utf8')) : undefined,
  };
}

/**
 * The base: the parent and what `patchgate init --baseline` writes there, committed as a maintainer
 * adopting the gate would: the config, empty contract files, and freeze rows for what already fails
 * or skips on the parent.
 */
function makeBase(dir, c, pins, profile) {
  git(dir, 'checkout', '-q', '-f', '--detach', `${c.sha}^`);
  git(dir, 'clean', '-q', '-fdx', '-e', 'node_modules');
  for (const [sub, pin] of Object.entries(pins))
    git(dir, 'update-index', '--cacheinfo', `160000,${pin},${sub}`);
  // --force: a failed first update (the recorded commit missing) leaves the submodule's files deleted.
  if (Object.keys(pins).length > 0) {
    git(dir, 'submodule', 'update', '--force', '--', ...Object.keys(pins));
    // Committed before the baseline, which runs the suite from HEAD's committed tree (and its gitlinks),
    // and made the remote's main branch there: a baseline runs only on the branch patches target.
    if (tryGit(dir, 'diff', '--cached', '--quiet').status !== 0) {
      git(dir, 'commit', '-q', '--no-verify', '-m', 'bench: submodules pinned to commits this machine has');
      git(dir, 'update-ref', git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD'), 'HEAD');
    }
  }
  const onboarding = initBaseline(cli, dir, TODAY, profile.init ?? []);
  const rows = (file) => {
    try {
      const j = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      return Array.isArray(j) ? j.length : (j.signatures ?? j.freezes ?? []).length;
    } catch {
      return 0;
    }
  };
  return {
    ref: git(dir, 'rev-parse', 'HEAD'),
    frozen: rows('flake_signatures.json') + rows('stability_freeze.json'),
    onboarding,
  };
}

function makeHead(dir, c) {
  const diff = sh('git', ['diff', '--binary', `${c.sha}^`, c.sha], dir).stdout;
  const apply = sh('git', ['apply', '--index', '--whitespace=nowarn'], dir, {}, diff);
  if (apply.status !== 0) throw new Error(`the commit's diff does not apply: ${apply.stderr}`);
  git(dir, 'commit', '-q', '--no-verify', '-m', `replay ${c.sha.slice(0, 12)}: ${c.subject}`);
  return git(dir, 'rev-parse', 'HEAD');
}

function describeFinding(f) {
  const e = f.evidence ?? {};
  const keys = [
    'test',
    'path',
    'file',
    'line',
    'property',
    'seed',
    'headRuns',
    'baseRuns',
    'template',
    'what',
    'changes',
    'reach',
  ];
  const shown = keys
    .filter((k) => e[k] !== undefined)
    .map((k) => `${k}=${JSON.stringify(e[k]).slice(0, 160)}`);
  return `${f.severity} ${f.code} (${f.layer}): ${f.message.split('\n')[0].slice(0, 240)}${shown.length ? `\n        ${shown.join(' ')}` : ''}`;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-real-'));
console.log(
  `real: ${COMMITS} commit(s) per repository, ${args.runs} interleaved round(s) each; load ${load()}, ${os.cpus().length} CPUs`,
);
const perRepo = {};
try {
  for (const [name, profile] of Object.entries(PROFILES)) {
    if (args.only && args.only !== name) continue;
    if (!sources[name]) {
      console.log(`${name}: skipped (give ${name}=PATH|URL)`);
      continue;
    }
    console.log(`\n${name} (${sources[name]})`);
    const { dir, pins } = cloneRepo(name, profile.submodules, sources, work);
    const { picked, skipped } = pickCommits(dir, profile);
    for (const x of skipped) console.log(`  left out ${x}`);
    let installedFor;
    perRepo[name] = [];
    for (const c of picked) {
      console.log(`\n  ${c.sha.slice(0, 12)} ${c.subject} (${c.files} files)  load ${load()}`);
      let base;
      let head;
      try {
        base = makeBase(dir, c, pins, profile);
        head = makeHead(dir, c);
      } catch (err) {
        console.log(`    not replayed: ${err.message.split('\n')[0]}`);
        continue;
      }
      if (profile.install) {
        const lock = sh('git', ['hash-object', 'package-lock.json'], dir).stdout.trim();
        if (lock !== installedFor) {
          const r = sh(profile.install[0], profile.install.slice(1), dir);
          if (r.status !== 0)
            throw new Error(`${profile.install.join(' ')} failed: ${r.stderr.slice(-1000)}`);
          installedFor = lock;
        }
      }
      console.log(
        `    base: parent + patchgate init --baseline (${base.frozen} freeze rows for what fails or skips there; ${s(base.onboarding)})`,
      );
      const plains = [];
      const checks = [];
      const nets = [];
      let last;
      for (let round = 0; round < args.runs; round++) {
        const junit = path.join(work, `${name}-plain.xml`);
        const p = plainRun(dir, profile, junit);
        plains.push(p.ms);
        const k = check(dir, base.ref, head);
        checks.push(k.ms);
        const setupMs = k.card.timings?.setupMs ?? 0;
        nets.push(k.ms - setupMs);
        const layers = Object.entries(k.card.timings?.layers ?? {})
          .filter(([, v]) => v >= 50)
          .map(([l, v]) => `${l} ${s(v)}`)
          .join(', ');
        const tests = fs.existsSync(junit) ? (await parseJUnitFile(junit)).tests.length : 0;
        console.log(
          `    round ${round + 1} (load ${load()}): plain ${s(p.ms)} (${tests} tests, exit ${p.status}), check ${s(k.ms)} = revisions ${s(k.card.timings.revisionsMs)} + install ${s(setupMs)} + ${layers}; ratio ${(k.ms / p.ms).toFixed(2)}x, less install ${((k.ms - setupMs) / p.ms).toFixed(2)}x`,
        );
        if (last) fs.rmSync(last.out, { recursive: true, force: true });
        last = k;
      }
      const ratio = median(nets.map((n, i) => n / plains[i]));
      const st = last.stability;
      const scope = st
        ? st.scope === 'all'
          ? `all ${st.probed.length} test files (${(st.reasons ?? [])[0] ?? ''})`
          : `${st.probed.length} of ${st.probed.length + st.notProbed.length} test files${
              st.probed.length
                ? `: ${st.probed
                    .slice(0, 4)
                    .map((p) => p.file)
                    .join(', ')}${st.probed.length > 4 ? ', …' : ''}`
                : ''
            }`
        : `not run (${last.card.layers.find((l) => l.name === 'stability')?.reason ?? 'off'})`;
      const codes = [...new Set(last.card.findings.map((f) => f.code))];
      console.log(
        `    verdict ${last.card.verdict}${codes.length ? ` (${codes.join(', ')})` : ''}; stability probed ${scope}`,
      );
      for (const f of last.card.findings.filter((x) => x.severity !== 'warn'))
        console.log(`      ${describeFinding(f)}`);
      console.log(
        `    median: plain ${s(median(plains))}, check ${s(median(checks))}, ratio ${median(checks.map((x, i) => x / plains[i])).toFixed(2)}x, less install ${ratio.toFixed(2)}x`,
      );
      perRepo[name].push({ sha: c.sha.slice(0, 12), ratio, verdict: last.card.verdict, scope: st?.scope });
      if (!args.has('--keep')) fs.rmSync(last.out, { recursive: true, force: true });
      else console.log(`    kept ${last.out}`);
    }
  }
  console.log('');
  // The goal is about checks in which the stability probe ran: a rejected check stops before it
  // (onlyAfterClean), so its ratio is printed but not counted.
  const all = [];
  for (const [name, rows] of Object.entries(perRepo)) {
    if (rows.length === 0) continue;
    const probed = rows.filter((r) => r.scope !== undefined);
    for (const r of probed) all.push(r.ratio);
    const m = probed.length > 0 ? `median ${median(probed.map((r) => r.ratio)).toFixed(2)}x` : 'no check';
    console.log(
      `${name}: ${m} over ${probed.length} commit(s) with the stability probe run [${rows.map((r) => `${r.sha} ${r.ratio.toFixed(2)}x ${r.verdict}${r.scope ? ` probe ${r.scope}` : ', no probe: not counted'}`).join('; ')}]`,
    );
  }
  if (all.length > 0) {
    const m = median(all);
    console.log(
      `whole check (less the install) / one plain suite run, stability on: median ${m.toFixed(2)}x over ${all.length} commit(s)  goal <= 2.0x  ${m <= 2.0 ? 'PASS' : 'MISS'}  (load ${load()})`,
    );
  }
} finally {
  if (args.has('--keep')) console.log(`kept the clones in ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
