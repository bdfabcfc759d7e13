#!/usr/bin/env node
// Mutation-probe cost on real repositories (issue 22): recent benign commits of
// public repositories replayed through the built CLI, the same check with and
// without the mutation probe, both measured in this run.
//   For each repository: clone it from the path or URL given, then for each of
//   its most recent commits C (not a merge) that change production code (a
//   TypeScript, JavaScript or Python file outside the tests, benchmarks and
//   docs; not touching CI workflows or a submodule):
//     off: base = C's parent + what `patchgate init --baseline` writes there,
//          head = base + C's diff;
//     on:  base = the same base + one commit adding `"mutation": {}` to
//          patchgate.config.json, head = that base + C's diff.
//   Then --runs interleaved rounds of both checks (`patchgate check --base
//   <base> --head <head> --today 2026-12-01`), the order swapped every round.
//   ratio = on's wall time / off's, per round; median of the rounds per
//   commit, then the median over commits per repository and overall.
//                                                          goal: <= 1.5x
//   Also printed: mutants run (per side, a mutant whose status is killed or
//   survived in mutation.json) and mutants/s (mutants run / the wall time the
//   scorecard gives the mutation layer).
// Usage:
//   node bench/mutation/run.mjs hpack=PATH|URL pure-rand=PATH|URL [yaml=PATH|URL \
//        yaml-test-suite=PATH|URL json-test-suite=PATH|URL] [--commits 3] [--runs 2] \
//        [--only NAME] [--pick SHA,SHA] [--keep]
// Nothing of these repositories is committed here; the clones live in a temp folder.
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';
import { cloneRepo, git, initBaseline, sh, tryGit } from '../lib/replay.mjs';
import { median } from '../lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
requireBuild('mutation', pathToFileURL(cli));

const argv = process.argv.slice(2);
const args = benchArgs(argv, { runs: 2 });
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const COMMITS = Number(flag('--commits')) || 3;
// Commits to replay instead of the most recent ones: sha prefixes, each looked for in every repository.
const PICK = (flag('--pick') ?? '').split(',').filter(Boolean);
const sources = Object.fromEntries(
  argv
    .filter((a) => /^[a-z-]+=/.test(a))
    .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);
const TODAY = '2026-12-01';
const GOAL = 1.5;

/**
 * What each repository needs beyond `patchgate init --baseline` (which detects the rest: pytest for
 * hpack; vitest and `npm ci` for yaml; vitest and `pnpm install --frozen-lockfile` for pure-rand):
 * the init flags and submodules of bench/real's profiles, and for pure-rand a commit that makes it
 * install on this machine (see `prepare`).
 */
const PROFILES = {
  hpack: { submodules: {} },
  'pure-rand': {
    submodules: {},
    needs: 'pnpm',
    /**
     * Its lockfile pins @fast-check/packaged 0.7.0, which the registry no longer serves (a packaging
     * check, no test imports it), and its package.json's devEngines names pnpm 11 (which needs
     * Node 22) with onFail "download", which makes npm 11's `npx --no vitest` refuse to start. A
     * commit under the base drops both, as a maintainer adopting the gate on this machine would.
     */
    prepare(dir) {
      const pkgFile = path.join(dir, 'package.json');
      const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
      const edits = [];
      if (pkg.devDependencies?.['@fast-check/packaged']) {
        const r = sh('pnpm', ['remove', '@fast-check/packaged'], dir);
        if (r.status !== 0)
          throw new Error(`pnpm remove @fast-check/packaged failed: ${r.stderr.slice(-800)}`);
        edits.push('drop @fast-check/packaged (0.7.0 is not on the registry)');
      }
      const now = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
      if (now.devEngines) {
        delete now.devEngines;
        fs.writeFileSync(pkgFile, `${JSON.stringify(now, null, 2)}\n`);
        edits.push('drop devEngines (pnpm 11 with onFail "download": npx refuses to run)');
      }
      fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
      return edits.length > 0 ? edits.join('; ') : undefined;
    },
  },
  yaml: {
    // init finds no folder of a conventional name: a maintainer names the test data to lock.
    init: ['--root', 'tests/artifacts'],
    submodules: {
      // The recorded commit (50861920) is in neither eemeli/yaml-test-suite nor yaml/yaml-test-suite as fetched.
      'tests/yaml-test-suite': { source: 'yaml-test-suite', fallback: 'main' },
      'tests/json-test-suite': { source: 'json-test-suite', fallback: 'HEAD' },
    },
  },
};

/** Production code the probe mutates: TypeScript, JavaScript, Python, outside tests, benchmarks, docs and configs. */
const SOURCE = /\.(?:[cm]?[jt]sx?|py)$/;
const NOT_PRODUCTION = [
  /(?:^|\/)(?:tests?|__tests__|__mocks__|specs?|bench|benchmarks?|__bench__|docs?|examples?|scripts|\.github)\//,
  /\.(?:spec|test|bench|properties)\.[cm]?[jt]sx?$/,
  /\.d\.[cm]?ts$/,
  /(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest|setup|noxfile)\.py$/,
  /(?:^|\/)[^/]*\.(?:config|setup)\.[cm]?[jt]s$/,
];
const isProduction = (f) => SOURCE.test(f) && !NOT_PRODUCTION.some((re) => re.test(f));

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const x = (r) => `${r.toFixed(2)}x`;

/** The most recent commits that change production code (or the --pick ones), and why others are left out. */
function pickCommits(dir, profile) {
  const picked = [];
  const skipped = [];
  const list = git(dir, 'rev-list', '--first-parent', '--no-merges', '--max-count=300', 'HEAD').split('\n');
  for (const c of list) {
    if (PICK.length === 0 && picked.length >= COMMITS) break;
    if (PICK.length > 0 && !PICK.some((p) => c.startsWith(p))) continue;
    const files = git(dir, 'diff-tree', '--no-commit-id', '--name-only', '-r', c).split('\n').filter(Boolean);
    const subject = git(dir, 'log', '-1', '--format=%s', c);
    const why = files.some((f) => f.startsWith('.github/'))
      ? 'touches CI workflows (contracts.protect: a human commit by design)'
      : files.some((f) => Object.hasOwn(profile.submodules, f))
        ? 'moves a submodule'
        : !files.some(isProduction)
          ? 'changes no production code'
          : undefined;
    if (why) skipped.push(`${c.slice(0, 8)} ${subject.slice(0, 50)}: ${why}`);
    else picked.push({ sha: c, subject, files: files.length, code: files.filter(isProduction) });
  }
  return { picked, skipped };
}

/**
 * The base without the probe: the parent, the profile's preparation, and what `patchgate init
 * --baseline` writes there (the config, empty contract files, freeze rows for what already fails
 * or skips), committed as a maintainer adopting the gate would.
 */
function makeBase(dir, c, pins, profile) {
  git(dir, 'checkout', '-q', '-f', '--detach', `${c.sha}^`);
  git(dir, 'clean', '-q', '-fdx');
  for (const [sub, pin] of Object.entries(pins))
    git(dir, 'update-index', '--cacheinfo', `160000,${pin},${sub}`);
  if (Object.keys(pins).length > 0) {
    git(dir, 'submodule', 'update', '--force', '--', ...Object.keys(pins));
    if (tryGit(dir, 'diff', '--cached', '--quiet').status !== 0) {
      git(dir, 'commit', '-q', '--no-verify', '-m', 'bench: submodules pinned to commits this machine has');
      git(dir, 'update-ref', git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD'), 'HEAD');
    }
  }
  const prepared = profile.prepare?.(dir);
  if (prepared) {
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--no-verify', '-m', `bench: ${prepared}`);
    // A baseline runs only on the branch patches target.
    const remoteHead = tryGit(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD').stdout.trim();
    if (remoteHead) git(dir, 'update-ref', remoteHead, 'HEAD');
  }
  const onboarding = initBaseline(cli, dir, TODAY, profile.init ?? []);
  return { ref: git(dir, 'rev-parse', 'HEAD'), onboarding, prepared };
}

/** The same base with `"mutation": {}` in its config: the only difference between the two checks. */
function withProbe(dir, baseRef) {
  git(dir, 'checkout', '-q', '-f', '--detach', baseRef);
  const file = path.join(dir, 'patchgate.config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  config.mutation = {};
  fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  git(dir, 'commit', '-q', '--no-verify', '-am', 'patchgate: turn the mutation probe on');
  return git(dir, 'rev-parse', 'HEAD');
}

function makeHead(dir, baseRef, c) {
  git(dir, 'checkout', '-q', '-f', '--detach', baseRef);
  const diff = sh('git', ['diff', '--binary', `${c.sha}^`, c.sha], dir).stdout;
  const apply = sh('git', ['apply', '--index', '--whitespace=nowarn'], dir, {}, diff);
  if (apply.status !== 0) throw new Error(`the commit's diff does not apply: ${apply.stderr}`);
  git(dir, 'commit', '-q', '--no-verify', '-m', `replay ${c.sha.slice(0, 12)}: ${c.subject}`);
  return git(dir, 'rev-parse', 'HEAD');
}

/** One `patchgate check`, timed around the whole command, with what it wrote. */
function check(dir, baseRef, headRef) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-mutation-out-'));
  const t0 = performance.now();
  const r = sh(
    'node',
    [cli, 'check', '--base', baseRef, '--head', headRef, '--out', out, '--today', TODAY, '--quiet'],
    dir,
  );
  const ms = performance.now() - t0;
  const file = path.join(out, 'scorecard.json');
  if (!fs.existsSync(file)) {
    fs.rmSync(out, { recursive: true, force: true });
    return {
      ms,
      card: undefined,
      crash: `the gate wrote no scorecard (exit ${r.status}): ${r.stderr.slice(-1500)}`,
    };
  }
  const card = JSON.parse(fs.readFileSync(file, 'utf8'));
  const mutFile = path.join(out, 'mutation.json');
  const mutation = fs.existsSync(mutFile) ? JSON.parse(fs.readFileSync(mutFile, 'utf8')) : undefined;
  return { ms, card, mutation, out, exit: r.status };
}

/** Mutants run (per side, killed or survived), and how the run ones ended, from mutation.json. */
function mutantsOf(mutation) {
  const t = { run: 0, killed: 0, survived: 0, unreached: 0, functions: 0, skipped: 0, mutants: 0 };
  for (const f of mutation?.functions ?? []) {
    t.functions++;
    t.skipped += f.skipped ?? 0;
    for (const m of f.mutants ?? []) {
      t.mutants++;
      for (const side of [m.base, m.head]) {
        const st = side?.status;
        if (st === 'killed' || st === 'survived') {
          t.run++;
          t[st]++;
        } else if (st === 'unreached') t.unreached++;
      }
    }
  }
  return t;
}

function describeFinding(f) {
  const e = f.evidence ?? {};
  const keys = ['file', 'function', 'test', 'path', 'lines', 'why', 'added'];
  const shown = keys
    .filter((k) => e[k] !== undefined)
    .map((k) => `${k}=${JSON.stringify(e[k]).slice(0, 160)}`);
  return `${f.severity} ${f.code} (${f.layer}): ${f.message.split('\n')[0].slice(0, 240)}${shown.length ? `\n          ${shown.join(' ')}` : ''}`;
}

/** Errors that the probe itself raised: a product bug, not a measurement. */
const probeErrors = (card) =>
  (card?.findings ?? []).filter(
    (f) => f.layer === 'mutation' && (f.severity === 'error' || f.code === 'INTERNAL_ERROR'),
  );

/** Why checks ended in error: their error findings, or the crash when there was no scorecard. */
function errorsOf(checks) {
  const why = checks.flatMap((k) =>
    k.card
      ? k.card.findings
          .filter((f) => f.severity === 'error')
          .map((f) => `${f.code} (${f.layer}): ${f.message.split('\n')[0].slice(0, 160)}`)
      : [k.crash.split('\n')[0]],
  );
  return [...new Set(why)];
}

const layerLine = (card) =>
  Object.entries(card.timings?.layers ?? {})
    .filter(([, v]) => v >= 100)
    .map(([l, v]) => `${l} ${s(v)}`)
    .join(', ');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-mutation-'));
console.log(
  `mutation: ${PICK.length ? `commits ${PICK.join(', ')}` : `${COMMITS} commit(s) per repository`}, ${args.runs} interleaved round(s) each of the check without and with the probe; load ${load()}, ${os.cpus().length} CPUs`,
);
const perRepo = {};
const bugs = [];
try {
  for (const [name, profile] of Object.entries(PROFILES)) {
    if (args.only && args.only !== name) continue;
    if (!sources[name]) {
      console.log(`${name}: skipped (give ${name}=PATH|URL)`);
      continue;
    }
    if (profile.needs && sh('sh', ['-c', `command -v ${profile.needs}`], work).status !== 0) {
      console.log(`${name}: skipped (needs ${profile.needs} on PATH, e.g. npm i -g ${profile.needs}@10)`);
      continue;
    }
    console.log(`\n${name} (${sources[name]})`);
    const { dir, pins } = cloneRepo(name, profile.submodules, sources, work);
    const { picked, skipped } = pickCommits(dir, profile);
    for (const k of skipped) console.log(`  left out ${k}`);
    perRepo[name] = [];
    for (const c of picked) {
      console.log(
        `\n  ${c.sha.slice(0, 12)} ${c.subject} (${c.files} files; code: ${c.code.join(', ')})  load ${load()}`,
      );
      const refs = {};
      let base;
      try {
        base = makeBase(dir, c, pins, profile);
        refs.off = { base: base.ref, head: makeHead(dir, base.ref, c) };
        const on = withProbe(dir, base.ref);
        refs.on = { base: on, head: makeHead(dir, on, c) };
      } catch (err) {
        console.log(`    not replayed: ${err.message.split('\n')[0]}`);
        continue;
      }
      console.log(
        `    base: parent${base.prepared ? ` + bench: ${base.prepared}` : ''} + patchgate init --baseline (${s(base.onboarding)}); on: + "mutation": {}`,
      );
      const runs = { off: [], on: [] };
      const ratios = [];
      for (let round = 0; round < args.runs; round++) {
        const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        const got = {};
        for (const side of order) got[side] = check(dir, refs[side].base, refs[side].head);
        const parts = [];
        for (const side of ['off', 'on']) {
          const k = got[side];
          runs[side].push(k);
          if (!k.card) {
            parts.push(`${side} ${s(k.ms)} NO SCORECARD`);
            continue;
          }
          const m = side === 'on' ? mutantsOf(k.mutation) : undefined;
          const mutMs = k.card.timings?.layers?.mutation;
          parts.push(
            `${side} ${s(k.ms)} ${k.card.verdict} [${layerLine(k.card)}]${m ? `, ${m.run} mutant run(s)${mutMs ? ` in ${s(mutMs)}` : ''}` : ''}`,
          );
        }
        const ok = got.off.card && got.on.card;
        if (ok) ratios.push(got.on.ms / got.off.ms);
        console.log(
          `    round ${round + 1} (${order.join(' then ')}, load ${load()}): ${parts.join('; ')}${ok ? `; ratio ${x(got.on.ms / got.off.ms)}` : ''}`,
        );
      }
      const last = { off: runs.off.at(-1), on: runs.on.at(-1) };
      const verdicts = (side) => [...new Set(runs[side].map((k) => k.card?.verdict ?? 'crash'))].join('/');
      const layer = last.on.card?.layers.find((l) => l.name === 'mutation');
      const m = mutantsOf(last.on.mutation);
      const mutMs = median(runs.on.map((k) => k.card?.timings?.layers?.mutation ?? 0));
      const runMedian = median(runs.on.map((k) => mutantsOf(k.mutation).run));
      const rate = mutMs > 0 ? runMedian / (mutMs / 1000) : 0;
      console.log(
        `    mutation layer: ${layer ? `${layer.status}${layer.reason ? ` (${layer.reason})` : ''}${layer.note ? `: ${layer.note}` : ''}` : 'not in the scorecard'}`,
      );
      if (last.on.mutation)
        console.log(
          `      ${m.functions} function(s), ${m.mutants} mutant(s) (${m.skipped} over the budget); per side: ${m.run} run (${m.killed} killed, ${m.survived} survived), ${m.unreached} unreached`,
        );
      for (const side of ['off', 'on']) {
        const card = last[side].card;
        if (!card) {
          console.log(`    ${side}: ${last[side].crash}`);
          continue;
        }
        const codes = [...new Set(card.findings.map((f) => f.code))];
        console.log(`    verdict ${side}: ${verdicts(side)}${codes.length ? ` (${codes.join(', ')})` : ''}`);
        for (const f of card.findings.filter((f) => f.severity !== 'warn' || f.layer === 'mutation'))
          console.log(`      ${describeFinding(f)}`);
      }
      for (const k of runs.on)
        for (const f of probeErrors(k.card))
          bugs.push(
            `${name} ${c.sha.slice(0, 12)}: ${f.code}: ${f.message.split('\n').slice(0, 3).join(' / ')}`,
          );
      // Counted: both checks gave a verdict other than error, and the probe ran in the check with it.
      let excluded;
      const errored = ['off', 'on'].filter((side) =>
        runs[side].some((k) => !k.card || k.card.verdict === 'error'),
      );
      if (errored.length > 0)
        excluded = `the check ${errored.map((e) => (e === 'on' ? 'with' : 'without')).join(' and ')} the probe ended in error (${errorsOf(errored.flatMap((side) => runs[side])).join('; ')})`;
      else if (!layer || layer.status === 'skipped')
        excluded = `the probe did not run (${layer?.reason ?? 'no mutation layer in the scorecard'})`;
      const ratio = ratios.length > 0 ? median(ratios) : Number.NaN;
      console.log(
        `    median: off ${s(median(runs.off.map((k) => k.ms)))}, on ${s(median(runs.on.map((k) => k.ms)))}, ratio ${Number.isNaN(ratio) ? 'n/a' : x(ratio)} (${ratios.map(x).join(', ')}); ${runMedian} mutant(s) run in ${s(mutMs)}${rate > 0 ? `, ${rate.toFixed(2)} mutants/s` : ''}${excluded ? `; not counted: ${excluded}` : ''}`,
      );
      perRepo[name].push({
        sha: c.sha.slice(0, 12),
        ratio,
        run: runMedian,
        mutMs,
        rate,
        verdicts: `${verdicts('off')} / ${verdicts('on')}`,
        excluded,
      });
      for (const side of ['off', 'on'])
        for (const k of runs[side].slice(0, -1))
          if (k.out) fs.rmSync(k.out, { recursive: true, force: true });
      for (const side of ['off', 'on'])
        if (last[side].out) {
          if (args.has('--keep')) console.log(`    kept ${side}: ${last[side].out}`);
          else fs.rmSync(last[side].out, { recursive: true, force: true });
        }
    }
  }
  console.log('');
  const all = [];
  let totalRun = 0;
  let totalMs = 0;
  for (const [name, rows] of Object.entries(perRepo)) {
    if (rows.length === 0) continue;
    const counted = rows.filter((r) => !r.excluded);
    for (const r of counted) all.push(r.ratio);
    for (const r of counted) {
      totalRun += r.run;
      totalMs += r.mutMs;
    }
    const m = counted.length > 0 ? median(counted.map((r) => r.ratio)) : undefined;
    console.log(
      `${name}: ${m === undefined ? 'no commit counted' : `median ${x(m)} over ${counted.length} commit(s)  goal <= ${GOAL}x  ${m <= GOAL ? 'PASS' : 'MISS'}`}`,
    );
    for (const r of rows)
      console.log(
        `  ${r.sha}  ${Number.isNaN(r.ratio) ? 'n/a' : x(r.ratio)}  ${r.run} mutant(s) run${r.rate > 0 ? `, ${r.rate.toFixed(2)}/s` : ''}  verdict off/on ${r.verdicts}${r.excluded ? `  not counted: ${r.excluded}` : ''}`,
      );
  }
  if (all.length > 0) {
    const m = median(all);
    console.log(
      `check with the probe / without: median ${x(m)} over ${all.length} commit(s)  goal <= ${GOAL}x  ${m <= GOAL ? 'PASS' : 'MISS'}; ${totalRun} mutant(s) run in ${s(totalMs)} of mutation layer${totalMs > 0 && totalRun > 0 ? `: ${(totalRun / (totalMs / 1000)).toFixed(2)} mutants/s` : ''}  (load ${load()})`,
    );
  } else console.log('no commit counted');
  if (bugs.length > 0) {
    console.log('\nthe probe itself failed (a product bug):');
    for (const b of bugs) console.log(`  ${b}`);
  }
} finally {
  if (args.has('--keep')) console.log(`kept the clones in ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
