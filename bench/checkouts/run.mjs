#!/usr/bin/env node
// Checkout benchmark (issue 19): what making each private copy a git
// repository of its own files costs (copy-repo.ts: fast-import fed the blobs
// as they are written, the index from each file's stat).
//   A repository of 500 source files (20 folders, 1 KiB to 4 KiB each).
//   yardstick: materializeTree without the repository, same tree, same run.
//   added = median(with repository) - median(yardstick), rounds alternating.
// Usage: node bench/checkouts/run.mjs [--runs N] [--files N]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url);
const args = benchArgs(process.argv.slice(2), { runs: 21 });
const filesArg = process.argv.indexOf('--files');
const FILES = filesArg >= 0 ? Number(process.argv[filesArg + 1]) : 500;

requireBuild('checkouts', dist('git/checkouts.js'));
const { materializeTree } = await import(dist('git/checkouts.js').href);
const { Git } = await import(dist('git/git.js').href);
const { execFile } = await import(dist('git/exec.js').href);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-checkouts-'));
const repo = path.join(work, 'repo');
fs.mkdirSync(repo);
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
};
const git = (...a) => execFileSync('git', a, { cwd: repo, env });
git('init', '-q', '-b', 'main');
for (let i = 0; i < FILES; i++) {
  const dir = path.join(repo, 'src', `d${i % 20}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, `m${i}.py`),
    `VALUE_${i} = ${i}  # ${'x'.repeat(40)}\n`.repeat(20 + (i % 60)),
  );
}
git('add', '-A');
git('commit', '-q', '-m', 'files');

const g = Git.forEnv(execFile, repo, process.env);
const times = { plain: [], repository: [] };
for (let round = 0; round < args.runs; round++) {
  for (const repository of round % 2 === 0 ? [false, true] : [true, false]) {
    const dir = fs.mkdtempSync(path.join(work, 'copy-'));
    const t = performance.now();
    await materializeTree(g, 'HEAD', dir, { repository });
    times[repository ? 'repository' : 'plain'].push(performance.now() - t);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
fs.rmSync(work, { recursive: true, force: true });
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const [p, r] = [median(times.plain), median(times.repository)];
console.log(
  `${FILES} files, ${args.runs} rounds: plain ${p.toFixed(1)} ms, with its repository ${r.toFixed(1)} ms (median); added ${(r - p).toFixed(1)} ms (${((r / p - 1) * 100).toFixed(0)}%)`,
);
