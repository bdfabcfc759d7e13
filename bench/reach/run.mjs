#!/usr/bin/env node
// bench/reach: the precision, recall and cost of the reach check (PRODUCTION_REACHES_TESTS), issue 17.
//
//   precision  Replays the last N non-merge commits (parent -> commit) of each repository given and runs
//              exactly the gate's reach check (addedReaches from dist, the base config a preset gives) on
//              the production files each commit changed. Real commits by the projects' own developers
//              are not sniffing their test runs, so every finding counts as a false positive.
//                                                                      goal: no finding at all
//   recall     Appends each payload of payloads.mjs (one per sniffing shape) to a real production file of
//              those repositories, JavaScript, TypeScript and Python, as a patch on its newest commit, and
//              runs the same check.                                    goal: every payload caught
//   cost       The check on every file the replay read, against parsing the same texts without it: the
//              TypeScript parser alone for JavaScript/TypeScript, one sandboxed `python3 -I -S` that only
//              ast.parses them for Python (the check's own process is sandboxed the same way).
//                                                                      reported as a ratio
//
//   npm run bench:reach -- REPO...            (builds first)
//   node bench/reach/run.mjs [--commits N] [--runs N] [--preset NAME] REPO...
//
// REPO is a bare git directory (e.g. from /work/.mirror/OWNER+NAME/repo), a checkout, or a clone URL.
// `--preset` forces the tests preset; by default a repository with a package.json at its newest commit
// is judged as `vitest`, any other as `pytest`. Exits 0: a benchmark is a measurement.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';
import { PAYLOADS } from './payloads.mjs';

const dist = new URL('../../dist/', import.meta.url);
requireBuild('reach', new URL('layers/regression/reach.js', dist));
const argv = process.argv.slice(2);
const flags = benchArgs(argv, { runs: 3 });
const value = (flag) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
};
const COMMITS = Number(value('--commits') ?? 30);
const forcedPreset = value('--preset');
const repos = argv.filter(
  (a, i) => !a.startsWith('--') && !['--commits', '--runs', '--preset'].includes(argv[i - 1]),
);
if (repos.length === 0) {
  console.log('reach: no repository given; usage: node bench/reach/run.mjs [--commits N] REPO...');
  process.exit(0);
}

const { addedReaches } = await import(new URL('layers/regression/reach.js', dist).href);
const { jsReach } = await import(new URL('layers/regression/reach-js.js', dist).href);
const { PYTHON_REACH_PATH } = await import(new URL('layers/regression/reach-python.js', dist).href);
const { parsePythonTexts } = await import(new URL('runners/harness/python-parse.js', dist).href);
const { RUNNER_WORD_SOURCE, TEST_FLAG_SOURCE } = await import(
  new URL('layers/regression/reach-rules.js', dist).href
);
const { configSchema } = await import(new URL('config/schema.js', dist).href);
const { overlayTestSide } = await import(new URL('overlay/overlay-tree.js', dist).href);
const { changedPaths } = await import(new URL('git/changes.js', dist).href);
const { Git } = await import(new URL('git/git.js', dist).href);
const { execFile } = await import(new URL('git/exec.js', dist).href);
const { openSandbox } = await import(new URL('sandbox/open.js', dist).href);
const ts = (await import('typescript')).default;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'patchgate-bench-reach-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const sandbox = await openSandbox(process.env);
const JS_FILE = /\.(?:[cm]?[jt]sx?)$/;

/** A git directory for REPO: itself when it is one, else a bare clone in the scratch folder. */
function gitDirOf(repo, i) {
  const local = fs.existsSync(repo);
  if (local) {
    const inside = execFileSync('git', ['-C', repo, 'rev-parse', '--git-dir'], { encoding: 'utf8' }).trim();
    return path.resolve(repo, inside);
  }
  const dir = path.join(work, `clone-${i}`);
  execFileSync('git', ['clone', '--quiet', '--bare', repo, dir], { stdio: 'inherit' });
  return dir;
}

/** The gate's own way to read a committed file (see pipeline.ts committedReader). */
function reader(git, treeish) {
  return async (file) => {
    const r = await git.tryBuffer(['cat-file', '--batch', '--follow-symlinks'], `${treeish}:${file}\n`);
    const nl = r.indexOf(10);
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(r.subarray(0, nl === -1 ? r.length : nl).toString('utf8'));
    return m ? r.subarray(nl + 1, nl + 1 + Number(m[1])).toString('utf8') : undefined;
  };
}

function context({ config, changes, base, head, label, named = [] }) {
  const logDir = path.join(work, 'logs', label);
  fs.mkdirSync(logDir, { recursive: true });
  return {
    config,
    changes,
    base: { side: 'base', readCommitted: base },
    head: { side: 'head', readCommitted: head },
    // What the pipeline's overlay knows of the test side: the files the base's runner configuration names.
    overlay: { named },
    sandbox,
    logDir,
    env: { PATH: process.env.PATH },
    signal: new AbortController().signal,
  };
}

const texts = { js: [], py: [] };

// ------------------------------------------------------------------ precision
const precision = [];
for (const [i, repo] of repos.entries()) {
  const gitDir = gitDirOf(repo, i);
  const git = new Git(execFile, gitDir);
  const name = repo
    .replace(/\/repo$/, '')
    .split('/')
    .pop();
  const hasPackage = (await reader(git, 'HEAD')('package.json')) !== undefined;
  const preset = forcedPreset ?? (hasPackage ? 'vitest' : 'pytest');
  const config = configSchema.parse({ tests: { preset } });
  const commits = (await git.out(['rev-list', '--no-merges', `--max-count=${COMMITS}`, 'HEAD']))
    .split('\n')
    .filter(Boolean);
  const row = { name, preset, commits: 0, withCode: 0, files: 0, findings: [], flagged: 0 };
  for (const c of commits) {
    const parents = (await git.out(['rev-list', '--parents', '-n', '1', c])).split(' ').slice(1);
    if (parents.length === 0) continue; // a root commit has nothing to compare with
    const changes = await changedPaths(git, parents[0], c);
    // The test side as the pipeline's overlay has it for this base: globs and what its runner config names.
    const { side } = await overlayTestSide(git, parents[0], config, 'patchgate.config.json');
    const base = reader(git, parents[0]);
    const head = reader(git, c);
    const production = changes.filter(
      (ch) =>
        ch.kind !== 'deleted' &&
        !side.isTestPath(ch.path) &&
        (JS_FILE.test(ch.path) || ch.path.endsWith('.py')),
    );
    row.commits++;
    if (production.length > 0) row.withCode++;
    row.files += production.length;
    for (const ch of production) {
      const t = await head(ch.path);
      const b = await base(ch.from ?? ch.path);
      for (const text of [t, b])
        if (text !== undefined) texts[JS_FILE.test(ch.path) ? 'js' : 'py'].push({ path: ch.path, text });
    }
    const found = await addedReaches(
      context({ config, changes, base, head, label: `${name}-${c.slice(0, 8)}`, named: side.named }),
    );
    if (found.length > 0) row.flagged++;
    for (const f of found)
      row.findings.push(`${c.slice(0, 8)} ${f.file}:${f.reach.line} ${f.reach.shape}: ${f.reach.what}`);
  }
  precision.push({ ...row, gitDir, git, preset, config });
}

console.log(
  `reach: last ${COMMITS} non-merge commits per repository; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.availableParallelism()} CPUs; sandbox ${sandbox.isolation?.mode ?? 'open'}`,
);
console.log('\nprecision (every finding on a real commit is a false positive)');
let scanned = 0;
let flagged = 0;
for (const r of precision) {
  scanned += r.commits;
  flagged += r.flagged;
  console.log(
    `  ${r.name} (${r.preset}): ${r.commits} commits scanned, ${r.withCode} changed production code (${r.files} files), ${r.findings.length} findings; false-positive rate ${((100 * r.flagged) / Math.max(1, r.commits)).toFixed(1)}% of commits`,
  );
  for (const f of r.findings) console.log(`    ${f}`);
}
console.log(
  `reach precision: ${flagged} of ${scanned} real commits flagged (goal: 0) ${flagged === 0 ? 'PASS' : 'MISS'}`,
);

// ------------------------------------------------------------------ recall
function binsOf(manifest) {
  try {
    const bin = JSON.parse(manifest ?? '{}').bin;
    return typeof bin === 'string' ? { bin } : (bin ?? {});
  } catch {
    return {};
  }
}

/** Real production files of the repositories given to carry the payloads: JavaScript, TypeScript, Python. */
async function targets() {
  const out = { js: [], ts: [], py: [] };
  for (const r of precision) {
    const { side } = await overlayTestSide(r.git, 'HEAD', r.config, 'patchgate.config.json');
    r.named = side.named;
    const files = (await r.git.out(['ls-tree', '-r', '--name-only', 'HEAD'])).split('\n');
    const read = reader(r.git, 'HEAD');
    const manifest = await read('package.json');
    const bins = new Set(Object.values(binsOf(manifest)).map((b) => path.posix.normalize(b)));
    // Library code, where a sniff hides: not an entry point, a bench helper or a declaration file.
    const production = [];
    for (const f of files) {
      if (side.isTestPath(f) || /(^|\/)[._]/.test(f) || /bench/i.test(f) || bins.has(f)) continue;
      // Type tests (tsd, tstyche, vitest typecheck) the preset's globs do not name.
      if (/\.(?:tst|test-d|spec-d)\.[cm]?[jt]sx?$/.test(f)) continue;
      const text = await read(f);
      // Not a script, and not test code the preset misses (a type test importing its runner).
      if (text === undefined || text.startsWith('#!')) continue;
      if (JS_FILE.test(f) && jsReach(ts, f, text, side.isTestPath).some((x) => x.shape === 'test-import'))
        continue;
      if (f.endsWith('.py') && /^\s*(import|from)\s+(pytest|hypothesis)\b/m.test(text)) continue;
      production.push(f);
    }
    const depth = (f) => (f.startsWith('src/') ? 0 : 1) + f.split('/').length;
    const pick = (re) =>
      production.filter((f) => re.test(f)).sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))[0];
    for (const [lang, re] of [
      ['js', /\.[cm]?js$/],
      ['ts', /(?<!\.d)\.[cm]?ts$/],
      ['py', /\.py$/],
    ]) {
      const f = pick(re);
      if (f) out[lang].push({ repo: r, path: f, text: await reader(r.git, 'HEAD')(f) });
    }
  }
  return out;
}

const where = await targets();
const recall = [];
for (const p of PAYLOADS) {
  for (const lang of ['js', 'ts', 'py']) {
    const code = lang === 'py' ? p.py : p.js;
    if (!code) continue;
    for (const t of where[lang]) {
      const headText = `${t.text.replace(/\s*$/, '\n')}\n\n${code}\n`;
      const first = t.text.replace(/\s*$/, '\n').split('\n').length + 1;
      const changes = [{ kind: 'modified', path: t.path }];
      const baseRead = async (f) => (f === t.path ? t.text : reader(t.repo.git, 'HEAD')(f));
      const headRead = async (f) => (f === t.path ? headText : reader(t.repo.git, 'HEAD')(f));
      const found = await addedReaches(
        context({
          named: t.repo.named,
          config: t.repo.config,
          changes,
          base: baseRead,
          head: headRead,
          label: `payload-${recall.length}`,
        }),
      );
      const hit = found.find((f) => f.reach.shape === p.shape && f.reach.line >= first);
      recall.push({ name: p.name, shape: p.shape, lang, file: `${t.repo.name}:${t.path}`, hit, found });
    }
  }
}
console.log('\nrecall (payloads appended to real production files)');
const byLang = {};
for (const r of recall) {
  byLang[r.lang] ??= { caught: 0, all: 0 };
  byLang[r.lang].all++;
  if (r.hit) byLang[r.lang].caught++;
  else
    console.log(
      `  MISSED ${r.lang} ${r.shape} "${r.name}" in ${r.file}; found: ${r.found.map((f) => `${f.reach.shape}@${f.reach.line}`).join(', ') || 'nothing'}`,
    );
}
const caught = recall.filter((r) => r.hit).length;
for (const [lang, c] of Object.entries(byLang))
  console.log(`  ${lang}: ${c.caught} of ${c.all} payloads caught`);
const shapes = [...new Set(recall.map((r) => r.shape))].sort();
console.log(`  shapes covered: ${shapes.join(', ')}`);
console.log(
  `reach recall: ${caught} of ${recall.length} payloads caught (goal: all) ${caught === recall.length ? 'PASS' : 'MISS'}`,
);

// ------------------------------------------------------------------ cost
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const isTestPath = () => false;
const jsTimes = { check: [], parse: [] };
for (let r = 0; r < flags.runs + 1; r++) {
  const sides = [
    [
      'parse',
      () => {
        for (const t of texts.js) ts.createSourceFile(t.path, t.text, ts.ScriptTarget.Latest, true);
      },
    ],
    [
      'check',
      () => {
        for (const t of texts.js) jsReach(ts, t.path, t.text, isTestPath);
      },
    ],
  ];
  for (const [label, fn] of r % 2 === 0 ? sides : [...sides].reverse()) {
    const t0 = performance.now();
    fn();
    if (r > 0) jsTimes[label].push(performance.now() - t0); // round 0 warms up
  }
}
const PARSE_ONLY = fileURLToPath(new URL('parse_only.py', import.meta.url));
const pyTimes = { check: [], parse: [] };
if (texts.py.length > 0) {
  const map = new Map(texts.py.map((t, i) => [`${i}\u241f${t.path}`, t.text]));
  for (let r = 0; r < flags.runs + 1; r++) {
    const sides = [
      ['parse', PARSE_ONLY],
      ['check', PYTHON_REACH_PATH],
    ];
    for (const [label, script] of r % 2 === 0 ? sides : [...sides].reverse()) {
      const t0 = performance.now();
      await parsePythonTexts({
        sandbox,
        logDir: path.join(work, 'logs'),
        label: `cost-${label}`,
        script,
        python: 'python3',
        env: { PATH: process.env.PATH },
        texts: map,
        settings: { words: RUNNER_WORD_SOURCE, testFlag: TEST_FLAG_SOURCE, manifests: {} },
      });
      if (r > 0) pyTimes[label].push(performance.now() - t0);
    }
  }
}
console.log('\ncost (medians; the same texts the replay read, head and base copies)');
const jsRatio = median(jsTimes.check) / median(jsTimes.parse);
console.log(
  `  JavaScript/TypeScript: ${texts.js.length} texts; the check ${median(jsTimes.check).toFixed(1)} ms, the TypeScript parser alone ${median(jsTimes.parse).toFixed(1)} ms`,
);
console.log(`reach cost js: ${jsRatio.toFixed(2)}x the parse alone`);
if (texts.py.length > 0) {
  const pyRatio = median(pyTimes.check) / median(pyTimes.parse);
  console.log(
    `  Python: ${texts.py.length} texts in one sandboxed process; the check ${median(pyTimes.check).toFixed(1)} ms, ast.parse alone ${median(pyTimes.parse).toFixed(1)} ms`,
  );
  console.log(`reach cost python: ${pyRatio.toFixed(2)}x the parse alone (both in the sandbox)`);
}
