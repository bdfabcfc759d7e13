#!/usr/bin/env node
/**
 * Replays a repository's recent history through the gate as a new user
 * would: for each of the last N non-merge commits, the base is the commit's
 * parent plus one human commit with what `patchgate init` writes there (the
 * config and its contract files, a baseline of what already fails or skips
 * with --baseline), and the head is that base plus the commit's own diff.
 * Then `patchgate check --base base --head head`, and one line per commit:
 * verdict, codes, seconds. Nothing is hand-fixed between commits: a false
 * rejection shows as one.
 *
 *   node scripts/replay.mjs --repo <path or URL> [--commits 10] [--out DIR]
 *        [--config FILE] [--baseline] [--setup "npm ci"] [--rev HEAD] [--today YYYY-MM-DD]
 *        [--submodules] [--url-map https://github.com/o/r.git=/path/to/mirror ...] [--history]
 *        [--shards N]
 *
 * --history runs every check with `--history` and carries the store from one
 * commit's worktree to the next, as a CI cache would (<out>/history.sqlite),
 * then prints what `patchgate history` says of the replay.
 *
 * --shards N also judges every commit in N shards (`check --shard I/N`, one
 * after another) and merges their parts, and says whether the merged
 * scorecard is the unsharded one but for timings and shard bookkeeping (a
 * line per commit; "shards DIFFER" names the first field that differs).
 *
 * --submodules checks the submodules out in every worktree, as CI's checkout
 * with `submodules: recursive` would; --url-map (repeatable) sends a
 * submodule's URL to a local mirror, for machines without that network.
 *
 * --config uses that config file instead of init's (contract files it names
 * are created empty where init would). The clone is made once (from a local
 * path or bare mirror, or a URL); every commit gets its own worktree, removed
 * afterwards. No third-party code is ever copied into this repository: the
 * clone lives in a temp folder. Summary JSON: <out>/replay.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli/bin.js');
const ID = ['-c', 'user.name=patchgate replay', '-c', 'user.email=replay@patchgate.invalid'];

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    commits: { type: 'string', default: '10' },
    out: { type: 'string' },
    config: { type: 'string' },
    baseline: { type: 'boolean', default: false },
    setup: { type: 'string' },
    rev: { type: 'string', default: 'HEAD' },
    today: { type: 'string' },
    submodules: { type: 'boolean', default: false },
    'url-map': { type: 'string', multiple: true, default: [] },
    history: { type: 'boolean', default: false },
    shards: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help || !values.repo) {
  console.log(
    readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('*/')[0]
      .replace(/^#!.*\n\/\*\*\n/, ''),
  );
  process.exit(values.help ? 0 : 2);
}
const n = Number(values.commits);
if (!Number.isInteger(n) || n < 1) {
  console.error(
    `replay: --commits expects a whole number of at least 1, not ${JSON.stringify(values.commits)}`,
  );
  process.exit(2);
}
if (!existsSync(CLI)) {
  console.error(`replay: ${CLI} is missing; run npm run build first`);
  process.exit(2);
}
const shards = values.shards === undefined ? 0 : Number(values.shards);
if (values.shards !== undefined && (!Number.isInteger(shards) || shards < 2)) {
  console.error(
    `replay: --shards expects a whole number of at least 2, not ${JSON.stringify(values.shards)}`,
  );
  process.exit(2);
}
const today = values.today ?? new Date().toISOString().slice(0, 10);
const out = path.resolve(
  values.out ?? path.join('replay-out', path.basename(values.repo).replace(/\.git$/, '')),
);
mkdirSync(out, { recursive: true });

// A submodule URL sent to a local mirror: git's own insteadOf, for this script's git calls only.
const URL_MAP = values['url-map'].flatMap((pair) => {
  const at = pair.indexOf('=');
  if (at < 1) {
    console.error(`replay: --url-map expects URL=PATH, not ${JSON.stringify(pair)}`);
    process.exit(2);
  }
  return ['-c', `url.${pair.slice(at + 1)}.insteadOf=${pair.slice(0, at)}`];
});
const git = (cwd, ...args) =>
  execFileSync('git', [...ID, ...URL_MAP, '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
const work = mkdtempSync(path.join(tmpdir(), 'pg-replay-'));
const clone = path.join(work, 'clone');
execFileSync('git', ['clone', '-q', '--no-checkout', values.repo, clone], { stdio: 'inherit' });
const commits = git(clone, 'rev-list', '--no-merges', '--first-parent', '-n', String(n), values.rev)
  .split('\n')
  .filter(Boolean);

const kept = path.join(out, 'history.sqlite');
if (values.history) rmSync(kept, { force: true });
const rows = [];
for (const commit of commits) {
  const subject = git(clone, 'log', '-1', '--format=%s', commit).trim();
  const tree = path.join(work, commit.slice(0, 12));
  const row = { commit, subject };
  try {
    git(clone, 'worktree', 'add', '-q', '-B', 'pg-base', tree, `${commit}^`);
    if (values.submodules) {
      // One by one: git stops at the first that cannot be fetched. One that cannot stays empty, as on a CI
      // checkout that lacks it, and the gate says so.
      const listed = spawnSync(
        'git',
        ['config', '-f', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$'],
        {
          cwd: tree,
          encoding: 'utf8',
        },
      );
      const failed = [];
      for (const line of listed.stdout.split('\n').filter(Boolean)) {
        const sub = line.slice(line.indexOf(' ') + 1);
        const r = spawnSync(
          'git',
          [
            ...ID,
            ...URL_MAP,
            '-c',
            'protocol.file.allow=always',
            'submodule',
            'update',
            '-q',
            '--init',
            '--recursive',
            '--',
            sub,
          ],
          { cwd: tree, encoding: 'utf8' },
        );
        if (r.status !== 0) failed.push(sub);
      }
      if (failed.length > 0) row.submodules = `not fetched: ${failed.join(', ')}`;
    }
    // What a new user commits first: init's config and contract files (or theirs), in a human commit.
    if (values.config) {
      copyFileSync(path.resolve(values.config), path.join(tree, path.basename(values.config)));
      const named = JSON.parse(readFileSync(values.config, 'utf8'));
      for (const [file, text] of contractStubs(named))
        if (!existsSync(path.join(tree, file))) writeFileSync(path.join(tree, file), text);
    } else {
      const init = spawnSync(
        process.execPath,
        [CLI, 'init', '--today', today, ...(values.baseline ? ['--baseline', '--owner', 'replay'] : [])],
        { cwd: tree, encoding: 'utf8', env: { ...process.env, CI_DATE: today } },
      );
      row.init = init.status;
      writeFileSync(path.join(out, `${commit.slice(0, 12)}.init.txt`), `${init.stdout}${init.stderr}`);
      if (init.status !== 0)
        throw new Error(`init exited ${init.status}: ${lastLine(init.stderr || init.stdout)}`);
    }
    if (values.setup) patchConfigSetup(tree, values.setup);
    git(tree, 'add', '-A', '-f', '--', ':!node_modules', ':!.venv');
    git(tree, 'commit', '-q', '--allow-empty', '-m', 'patchgate config (human)');
    const base = git(tree, 'rev-parse', 'HEAD').trim();
    git(tree, 'checkout', '-q', '-B', 'pg-head');
    const diff = execFileSync('git', ['diff', '--binary', `${commit}^`, commit], {
      cwd: clone,
      maxBuffer: 1 << 30,
    });
    const apply = spawnSync('git', ['apply', '--index', '--whitespace=nowarn'], { cwd: tree, input: diff });
    if (apply.status !== 0)
      throw new Error(`the commit's diff does not apply: ${lastLine(String(apply.stderr))}`);
    // The commit's own author (and co-authors, in its message), as the patch's identity: the history keeps it.
    const author = git(clone, 'log', '-1', '--format=%an <%ae>', commit).trim();
    const body = git(clone, 'log', '-1', '--format=%b', commit);
    const coAuthors = body.split('\n').filter((l) => /^co-authored-by:/i.test(l.trim()));
    git(
      tree,
      'commit',
      '-q',
      '--allow-empty',
      `--author=${author}`,
      '-m',
      `replay ${commit}${coAuthors.length > 0 ? `\n\n${coAuthors.join('\n')}` : ''}`,
    );
    const runOut = path.join(out, commit.slice(0, 12));
    // The CI cache's restore: the store the last commit's check left.
    const store = path.join(tree, '.patchgate', 'history.sqlite');
    if (values.history && existsSync(kept)) {
      mkdirSync(path.dirname(store), { recursive: true });
      copyFileSync(kept, store);
    }
    const started = Date.now();
    const check = spawnSync(
      process.execPath,
      [
        CLI,
        'check',
        '--base',
        base,
        '--head',
        'pg-head',
        '--out',
        runOut,
        '--today',
        today,
        ...(values.history ? ['--history'] : []),
      ],
      { cwd: tree, encoding: 'utf8', env: { ...process.env, CI_DATE: today }, maxBuffer: 1 << 28 },
    );
    if (values.history && existsSync(store)) copyFileSync(store, kept);
    row.seconds = Math.round((Date.now() - started) / 100) / 10;
    row.exit = check.status;
    writeFileSync(path.join(out, `${commit.slice(0, 12)}.txt`), `${check.stdout}${check.stderr}`);
    const card = path.join(runOut, 'scorecard.json');
    if (existsSync(card)) {
      const sc = JSON.parse(readFileSync(card, 'utf8'));
      row.verdict = sc.verdict;
      row.findings = sc.findings.map((f) => `${f.code}:${f.severity}`);
    } else row.verdict = `no scorecard (exit ${check.status})`;
    if (shards > 0 && existsSync(card)) row.shards = judgeInShards(tree, base, runOut, card);
  } catch (e) {
    row.verdict = 'not replayed';
    row.why = e.message;
  } finally {
    spawnSync('git', ['worktree', 'remove', '--force', tree], { cwd: clone });
  }
  rows.push(row);
  console.log(
    `${commit.slice(0, 12)} ${String(row.verdict).padEnd(7)} ${String(row.seconds ?? '-').padStart(6)}s  ${subject.slice(0, 60)}` +
      (row.findings?.length ? `\n    ${[...new Set(row.findings)].join(' ')}` : '') +
      (row.why ? `\n    ${row.why}` : '') +
      (row.submodules ? `\n    submodules: ${row.submodules}` : '') +
      (row.shards ? `\n    shards ${row.shards}` : ''),
  );
}
if (values.history && existsSync(kept)) {
  // What the history says of the replay, asked where the clone is (its origin names the same repository).
  mkdirSync(path.join(clone, '.patchgate'), { recursive: true });
  copyFileSync(kept, path.join(clone, '.patchgate', 'history.sqlite'));
  for (const question of [['rejections'], ['agents'], ['slowest', '--limit', '5'], ['flaky']]) {
    const r = spawnSync(process.execPath, [CLI, 'history', ...question], { cwd: clone, encoding: 'utf8' });
    console.log(`\n$ patchgate history ${question.join(' ')}\n${r.stdout}${r.stderr}`);
  }
}
rmSync(work, { recursive: true, force: true });
const tally = {};
for (const r of rows) tally[r.verdict] = (tally[r.verdict] ?? 0) + 1;
writeFileSync(
  path.join(out, 'replay.json'),
  `${JSON.stringify({ repo: values.repo, today, tally, rows }, null, 2)}\n`,
);
console.log(
  `\n${Object.entries(tally)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ')}; scorecards and logs in ${out}`,
);

function lastLine(s) {
  return String(s).trim().split('\n').slice(-1)[0] ?? '';
}

/** Empty contract files for the keys a hand-written config names, as init would write them. */
function contractStubs(config) {
  const out = [];
  if (config.signatures)
    out.push([config.signatures.freeze ?? 'flake_signatures.json', '{"signatures": []}\n']);
  if (config.stability) out.push([config.stability.freeze ?? 'stability_freeze.json', '{"freezes": []}\n']);
  return out;
}

/** Gives the config written for this commit a setup command (JSON configs only). */
function patchConfigSetup(tree, setup) {
  const file = path.join(tree, 'patchgate.config.json');
  if (!existsSync(file)) throw new Error('--setup needs a JSON config (patchgate.config.json)');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  config.tests = { ...config.tests, setup: setup.split(' ').filter(Boolean) };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

/**
 * The same check in `shards` parts and their merge: "same" when the merged
 * scorecard is the unsharded one but for timings and shard bookkeeping,
 * otherwise what differs first.
 */
function judgeInShards(tree, base, runOut, card) {
  const check = ['check', '--base', base, '--head', 'pg-head', '--today', today, '--quiet'];
  const env = { ...process.env, CI_DATE: today };
  const parts = [];
  for (let i = 1; i <= shards; i++) {
    const part = `${runOut}-shard-${i}`;
    spawnSync(process.execPath, [CLI, ...check, '--shard', `${i}/${shards}`, '--out', part], {
      cwd: tree,
      env,
      maxBuffer: 1 << 28,
    });
    parts.push(part);
  }
  const merged = `${runOut}-merged`;
  const merge = spawnSync(process.execPath, [CLI, 'merge', ...parts, '--out', merged, '--quiet'], {
    cwd: tree,
    encoding: 'utf8',
    env,
    maxBuffer: 1 << 28,
  });
  const mergedCard = path.join(merged, 'scorecard.json');
  if (!existsSync(mergedCard))
    return `DIFFER: merge exited ${merge.status} without a scorecard: ${lastLine(merge.stderr)}`;
  // A test's own output can differ from run to run (an object's address in a failure message): compared as
  // it is first, then with such addresses blanked, and the line says which.
  const comparable = (file, blankAddresses) => {
    let text = readFileSync(file, 'utf8').replace(/tests\/shard-[0-9]+\//g, 'tests/');
    if (blankAddresses) text = text.replace(/0x[0-9a-f]{6,}/g, '0x…');
    const { timings: _t, shards: _s, shard: _p, ...rest } = JSON.parse(text);
    return rest;
  };
  const firstDifference = (blank) => {
    const one = comparable(card, blank);
    const many = comparable(mergedCard, blank);
    for (const key of new Set([...Object.keys(one), ...Object.keys(many)]))
      if (JSON.stringify(one[key]) !== JSON.stringify(many[key])) return key;
    return undefined;
  };
  const exact = firstDifference(false);
  if (exact === undefined) return `same (${shards} shards, merge exit ${merge.status})`;
  const blanked = firstDifference(true);
  if (blanked === undefined)
    return `same but for memory addresses a test printed in ${exact}, which differ from run to run (${shards} shards, merge exit ${merge.status})`;
  return `DIFFER in ${blanked} (merge exit ${merge.status})`;
}
