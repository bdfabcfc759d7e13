// Runs the built gate on every sample agent patch in examples/*/patches:
// each patch is applied on an `agent` branch of a throw-away copy of the
// example repository, judged against `main`, and the verdict is compared with
// the `expect:` line in the patch header. Exits 1 if any verdict differs.
// It passes --all-layers so the stability probe runs even after an earlier
// layer rejected, to show every code a patch earns.
//
//   npm run demo            (builds first)
//   node scripts/demo.mjs   (uses the existing dist/)

import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The TypeScript example (fixtures, hits) and the Python one (pytest, signatures, stability).
const EXAMPLES = ['invoice', 'python-invoice', 'python-cart'];
// Freeze rows expire; the demo judges them on a fixed day so it gives the same answer every day.
const TODAY = '2026-12-01';
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
const reportsDir = path.join(repoRoot, '.patchgate', 'demo');

const EXIT_FOR = { accept: 0, reject: 1 };
// Gate runs at once: enough to keep both cores of a CI runner busy, few enough that timeouts keep their meaning.
const CONCURRENCY = Math.max(1, Math.min(2, os.availableParallelism()));

// Fixed identities and dates make the demo's commits, and so its scorecards, the same on every run.
// The user's global and system git config stay out so that hooks, signing or templates cannot change the repos.
const HUMAN = { name: 'Hana Maintainer', email: 'hana@example.com', date: '2026-01-05T09:00:00Z' };
const AGENT = { name: 'coding-agent', email: 'agent@example.com', date: '2026-01-05T10:00:00Z' };

function gitEnv(who) {
  return {
    ...process.env,
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: who.date,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: who.date,
  };
}

function git(cwd, who, ...args) {
  try {
    return execFileSync('git', args, {
      cwd,
      env: gitEnv(who),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const detail = (err.stderr || err.message || '').toString().trim();
    throw new Error(`git ${args.join(' ')} failed: ${detail}`);
  }
}

/** The text before the first `diff --git`, which `git apply` skips. */
function headerOf(patchText) {
  const at = patchText.search(/^diff --git /m);
  return (at === -1 ? patchText : patchText.slice(0, at)).trimEnd();
}

/** `expect: reject FIXTURE_CHANGED` → { verdict: 'reject', codes: ['FIXTURE_CHANGED'] }. */
function parseExpect(header) {
  const m = /^expect:\s*(accept|reject|error)((?:[ \t]+[A-Z][A-Z0-9_]*)*)[ \t]*$/m.exec(header);
  if (!m) return undefined;
  return { verdict: m[1], codes: m[2].trim().split(/\s+/).filter(Boolean) };
}

const describeExpect = (e) => (e ? [e.verdict, ...e.codes].join(' ') : '(no expect: line)');

/**
 * The CLI's environment. The override variable named by the example's lock is
 * removed: a maintainer's token left in the shell would otherwise turn the
 * rejections this demo exists to show into accepts.
 */
function cliEnv(exampleDir) {
  const env = { ...process.env };
  let variable = 'FIXTURE_OVERRIDE';
  try {
    variable =
      JSON.parse(readFileSync(path.join(exampleDir, 'FIXTURE_LOCK.json'), 'utf8')).override_token_env ??
      variable;
  } catch {
    // The gate reports a broken lock itself; the default name is still worth scrubbing.
  }
  delete env[variable];
  delete env.FIXTURE_OVERRIDE;
  // The demo's reports are not the CI job's result, so they stay out of its step summary.
  delete env.GITHUB_STEP_SUMMARY;
  if (!process.stdout.isTTY) env.NO_COLOR = '1';
  return env;
}

let interrupted = false;
const children = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    interrupted = true;
    // A terminal's Ctrl-C already reaches the CLIs (same process group); a SIGTERM sent to us alone does not.
    if (sig === 'SIGTERM') for (const c of children) c.kill('SIGTERM');
  });
}

/** Runs the gate with its output kept in `log`, so patches judged at the same time do not interleave. */
function runCheck(cwd, out, exampleDir, log, extra = []) {
  return runCli(
    cwd,
    ['check', '--base', 'main', '--head', 'agent', '--out', out, '--today', TODAY, '--all-layers', ...extra],
    exampleDir,
    log,
  );
}

function runCli(cwd, args, exampleDir, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: cliEnv(exampleDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.stdout.on('data', (b) => log.out.push(b));
    child.stderr.on('data', (b) => log.err.push(b));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 128 : -1));
    });
  });
}

/** A patch's output, printed whole once it is judged. */
function newLog() {
  const log = { out: [], err: [] };
  log.line = (text = '') => log.out.push(Buffer.from(`${text}\n`));
  log.flush = () => {
    process.stdout.write(Buffer.concat(log.out));
    if (log.err.length > 0) process.stderr.write(Buffer.concat(log.err));
  };
  return log;
}

function readScorecard(out) {
  try {
    return JSON.parse(readFileSync(path.join(out, 'scorecard.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The example on `main` (with the patch's `.base.patch` committed by a human
 * first, if there is one) and the patch committed on `agent`, in `dir`: the
 * same commits on every run, so the same scorecard.
 */
function patchedRepo(dir, exampleDir, file, name) {
  cpSync(exampleDir, dir, { recursive: true });
  git(dir, HUMAN, 'init', '-q', '-b', 'main');
  git(dir, HUMAN, 'add', '-A');
  git(dir, HUMAN, 'commit', '-q', '-m', 'initial');
  // What a human (or the main branch's CI) committed before the agent branched: `NN-name.base.patch`.
  const before = file.replace(/\.patch$/, '.base.patch');
  if (existsSync(before)) {
    git(dir, HUMAN, 'apply', before);
    git(dir, HUMAN, 'add', '-A');
    git(dir, HUMAN, 'commit', '-q', '-m', `human: before ${name}`);
  }
  git(dir, AGENT, 'checkout', '-q', '-b', 'agent');
  git(dir, AGENT, 'apply', file);
  git(dir, AGENT, 'add', '-A');
  git(dir, AGENT, 'commit', '-q', '-m', `agent: ${name}`);
}

async function demoPatch(exampleDir, file, log) {
  const name = `${path.basename(exampleDir)}/${path.basename(file, '.patch')}`;
  const header = headerOf(readFileSync(file, 'utf8'));
  const expected = parseExpect(header);
  const out = path.join(reportsDir, name);
  const result = { name, expected, actual: undefined, ok: false, note: '' };

  log.line(`\n=== ${name} (expect: ${describeExpect(expected)}) ===\n`);
  for (const line of header.split('\n')) log.line(`  ${line}`.trimEnd());
  log.line('');

  // A report left over from an earlier run must not pass for this run's answer.
  rmSync(out, { recursive: true, force: true });
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'pg-demo-')));
  try {
    patchedRepo(dir, exampleDir, file, name);

    log.line(
      `$ patchgate check --base main --head agent --out ${path.relative(repoRoot, out)} --today ${TODAY} --all-layers\n`,
    );
    const code = await runCheck(dir, out, exampleDir, log);
    if (interrupted) return result;
    const card = readScorecard(out);
    const codes = card ? [...new Set(card.findings.map((f) => f.code))] : [];
    const verdict = card?.verdict ?? 'error';
    result.actual = { verdict, codes };
    const problems = [];
    if (!expected) problems.push('the patch header has no `expect:` line');
    else {
      if (verdict !== expected.verdict) problems.push(`expected ${expected.verdict}`);
      const absent = expected.codes.filter((c) => !codes.includes(c));
      if (absent.length > 0) problems.push(`missing ${absent.join(', ')}`);
    }
    if (!card) problems.push(`no scorecard was written (exit ${code})`);
    else if (EXIT_FOR[verdict] !== undefined && EXIT_FOR[verdict] !== code)
      problems.push(`exit ${code} does not match ${verdict}`);
    result.ok = problems.length === 0;
    result.note = problems.join('; ');

    // The gate already printed where its reports are.
    log.line(`\nexit ${code} → ${verdict}${result.ok ? ' (as expected)' : ` — MISMATCH: ${result.note}`}`);
  } catch (err) {
    result.note = err instanceof Error ? err.message : String(err);
    log.line(`\nFAILED before a verdict: ${result.note}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '))
    .join('\n');
}

const only = process.argv.slice(2);

async function main() {
  if (!existsSync(cli)) {
    console.error(
      `patchgate demo: ${path.relative(repoRoot, cli)} is missing; run \`npm run build\` (or \`npm run demo\`) first`,
    );
    return 2;
  }
  const results = [];
  const jobs = [];
  for (const example of EXAMPLES) {
    const exampleDir = path.join(repoRoot, 'examples', example);
    const patchesDir = path.join(exampleDir, 'patches');
    const patches = existsSync(patchesDir)
      ? readdirSync(patchesDir)
          .filter((n) => n.endsWith('.patch') && !n.endsWith('.base.patch'))
          .sort()
      : [];
    if (patches.length === 0) {
      console.error(`patchgate demo: no *.patch files in ${path.relative(repoRoot, patchesDir)}`);
      return 2;
    }
    console.log(
      `patchgate demo: ${patches.length} agent patches against ${path.relative(repoRoot, exampleDir)}`,
    );
    for (const name of patches) {
      // `node scripts/demo.mjs python-invoice/07 …` judges only the patches whose name contains an argument.
      const full = `${example}/${name.replace(/\.patch$/, '')}`;
      if (only.length > 0 && !only.some((o) => full.includes(o))) continue;
      jobs.push({ exampleDir, file: path.join(patchesDir, name) });
    }
  }
  // Patches are judged two at a time (each gate run is mostly waiting on its child processes); the
  // output still comes out in patch order.
  const logs = jobs.map(() => newLog());
  const done = jobs.map(() => undefined);
  let printed = 0;
  let next = 0;
  const worker = async () => {
    while (!interrupted && next < jobs.length) {
      const i = next++;
      const job = jobs[i];
      results[i] = await demoPatch(job.exampleDir, job.file, logs[i]);
      done[i] = true;
      while (printed < jobs.length && done[printed]) logs[printed++].flush();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, worker));
  if (interrupted) {
    console.error('\npatchgate demo: interrupted; temporary repositories removed');
    return 130;
  }

  const rows = [['patch', 'expected', 'actual', 'result']];
  for (const r of results) {
    const actual = r.actual ? [r.actual.verdict, ...r.actual.codes].join(' ') : '(none)';
    rows.push([r.name, describeExpect(r.expected), actual, r.ok ? 'ok' : `MISMATCH: ${r.note}`]);
  }
  console.log(`\nsummary\n\n${table(rows)}\n`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(
    failed === 0
      ? `all ${results.length} verdicts as expected`
      : `${failed} of ${results.length} verdicts differ from their patch header`,
  );
  const sharded = [];
  for (const s of SHARDED) {
    const job = jobs.find(
      (j) => `${path.basename(j.exampleDir)}/${path.basename(j.file, '.patch')}` === s.name,
    );
    if (!job || interrupted) continue;
    sharded.push(await demoShards(job.exampleDir, job.file, s.name, s.total));
  }
  for (const r of sharded) console.log(r.line);
  console.log(`reports in ${reportsDir}`);
  return failed === 0 && sharded.every((r) => r.ok) ? 0 : 1;
}

/**
 * A big repository's CI splits the gate over parallel jobs: `check --shard
 * I/N` on each, `merge` of their parts. Two of the patches are judged that
 * way too, and the merged scorecard must be the one check's but for its
 * timings and the shards' bookkeeping.
 */
const SHARDED = [
  { name: 'python-invoice/02-rename-and-skip', total: 3 },
  { name: 'invoice/05-check-never-fails', total: 2 },
];

/** The scorecard as one run and a merge of shards must both give it: no timings, no shard bookkeeping. */
function comparable(card) {
  const { timings: _t, shards: _s, shard: _p, ...rest } = card;
  return JSON.parse(JSON.stringify(rest).replace(/tests\/shard-[0-9]+\//g, 'tests/'));
}

async function demoShards(exampleDir, file, name, total) {
  const out = path.join(reportsDir, 'shards', name);
  rmSync(out, { recursive: true, force: true });
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'pg-demo-')));
  const log = newLog();
  try {
    patchedRepo(dir, exampleDir, file, name);
    const parts = Array.from({ length: total }, (_, i) => path.join(out, `shard-${i + 1}`));
    let next = 0;
    const worker = async () => {
      while (!interrupted && next < total) {
        const i = next++;
        await runCheck(dir, parts[i], exampleDir, newLog(), ['--shard', `${i + 1}/${total}`, '--quiet']);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, worker));
    const merged = path.join(out, 'merged');
    const code = await runCli(dir, ['merge', ...parts, '--out', merged, '--quiet'], exampleDir, log);
    const one = readScorecard(path.join(reportsDir, name));
    const card = readScorecard(merged);
    const same = one && card && JSON.stringify(comparable(one)) === JSON.stringify(comparable(card));
    const where = path.relative(repoRoot, merged);
    return {
      ok: Boolean(same),
      line: same
        ? `sharded: ${name} in ${total} shards, merged (exit ${code}, ${card.verdict}) into the scorecard one check gave, but for timings and shard bookkeeping: ${where}`
        : `sharded: ${name} in ${total} shards — MISMATCH: the merged scorecard (${where}, exit ${code}) differs from the unsharded one`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
