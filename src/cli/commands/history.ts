import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CODEOWNERS_FILES, ownersOf, parseCodeowners } from '../../config/codeowners.js';
import { InputError } from '../../errors.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import {
  agentRecords,
  flakyTests,
  type HistoryScope,
  rejectionsByCode,
  runCounts,
  slowestTests,
} from '../../history/queries.js';
import { renderHistoryDashboard } from '../../report/history-html.js';
import { writeFileAtomic } from '../atomic-write.js';
import { openRepoHistory, type RepoHistory } from '../history-store.js';
import type { CliIO } from '../io.js';
import { parseCommand, renderGroupHelp } from '../options.js';
import {
  HISTORY,
  HISTORY_AGENTS,
  HISTORY_DASHBOARD,
  HISTORY_FLAKY,
  HISTORY_REJECTIONS,
  HISTORY_SLOWEST,
} from '../specs.js';
import { usage } from '../usage.js';

const SUBCOMMANDS = ['flaky', 'slowest', 'rejections', 'agents', 'dashboard'] as const;

/** `patchgate history <subcommand>`: questions to the run history. */
export async function historyCommand(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'flaky':
      return flaky(rest, io);
    case 'slowest':
      return slowest(rest, io);
    case 'rejections':
      return rejections(rest, io);
    case 'agents':
      return agents(rest, io);
    case 'dashboard':
      return dashboard(rest, io);
    case '--help':
    case '-h':
      io.stdout.write(renderGroupHelp(HISTORY));
      return 0;
    case undefined:
      throw usage(
        `history needs a subcommand: ${SUBCOMMANDS.map((s) => `patchgate history ${s}`).join(', ')}`,
      );
    default:
      throw usage(`unknown history subcommand '${sub}' (expected: ${SUBCOMMANDS.join(', ')})`);
  }
}

interface ScopeFlags {
  repository?: string | undefined;
  'all-repositories'?: boolean;
  since?: string | undefined;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function sinceOf(value: string | undefined, command: string): string | undefined {
  if (value === undefined) return undefined;
  const m = DAY.exec(value);
  const d = m ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value)
    throw usage(
      `${command}: --since must be a UTC date such as 2026-11-01 (YYYY-MM-DD, a real date), got '${value}'`,
    );
  return value;
}

function limitOf(value: string, command: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > 10_000)
    throw usage(`${command}: --limit must be a whole number from 1 to 10000, got '${value}'`);
  return n;
}

interface Opened extends RepoHistory {
  scope: HistoryScope;
  /** `github.com/acme/app` or `every repository`. */
  scopeName: string;
  counts: { check: number; record: number };
  root: string;
  git: Git;
}

/** Opens the store and checks the scope holds runs: an answer out of nothing is refused, never printed as "none". */
async function open(io: CliIO, flags: ScopeFlags, command: string): Promise<Opened> {
  const since = sinceOf(flags.since, command);
  if (flags.repository !== undefined && flags['all-repositories'])
    throw usage(`${command}: --repository and --all-repositories exclude each other; give one`);
  if (flags.repository !== undefined && flags.repository.trim() === '')
    throw usage(`${command}: --repository must name a repository; it must not be blank`);
  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const root = await findRepoRoot(git);
  const store = await openRepoHistory(io, git, root, { mustExist: true });
  try {
    const repository = flags['all-repositories'] ? undefined : (flags.repository ?? store.repository);
    const scope: HistoryScope = {
      ...(repository !== undefined ? { repository } : {}),
      ...(since !== undefined ? { since } : {}),
    };
    const counts = await runCounts(store.db, scope);
    const scopeName = repository ?? 'every repository';
    if (counts.check + counts.record === 0)
      throw new InputError(
        'HISTORY_UNAVAILABLE',
        `${command}: the run history at ${store.where} holds no runs of ${scopeName}${since ? ` since ${since}` : ''}; runs get there with \`patchgate check --history\` and \`patchgate record --history\`${repository !== undefined ? ' (--all-repositories lists every repository it holds)' : ''}`,
        { where: store.where, ...(repository !== undefined ? { repository } : {}) },
      );
    return { ...store, scope, scopeName, counts, root, git };
  } catch (err) {
    await store.db.close();
    throw err;
  }
}

function header(o: Opened, what: string): string {
  const since = o.scope.since !== undefined ? ` since ${o.scope.since}` : '';
  return `${what} of ${o.scopeName} in ${o.where}${since} (${o.counts.check} check run(s), ${o.counts.record} main-branch record(s))\n`;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  return rows
    .map((row) =>
      `  ${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

function json(io: CliIO, o: Opened, rows: unknown): void {
  io.stdout.write(
    `${JSON.stringify({ repository: o.scope.repository ?? null, where: o.where, since: o.scope.since ?? null, runs: o.counts, rows }, null, 2)}\n`,
  );
}

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')}Z`;

/** Owners of each file by HEAD's CODEOWNERS (the committed one, never a working-tree edit). */
async function ownerLookup(
  git: Git,
  root: string,
): Promise<(file: string | undefined) => string | undefined> {
  for (const name of CODEOWNERS_FILES) {
    const r = await git.at(root).try(['show', `HEAD:${name}`]);
    if (r.code !== 0) continue;
    const rules = parseCodeowners(r.stdout);
    return (file) => {
      if (file === undefined) return undefined;
      const hit = ownersOf(rules, file);
      return hit && hit.owners.length > 0 ? hit.owners.join(' ') : undefined;
    };
  }
  return () => undefined;
}

async function flaky(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_FLAKY, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history flaky');
  const o = await open(io, values, 'history flaky');
  try {
    const owner = await ownerLookup(o.git, o.root);
    const rows = (await flakyTests(o.db, o.scope, limit)).map((t) => {
      const who = owner(t.file);
      return { ...t, ...(who !== undefined ? { owner: who } : {}) };
    });
    if (values.json) {
      json(io, o, rows);
      return 0;
    }
    io.stdout.write(header(o, 'Flaky tests'));
    if (rows.length === 0) {
      io.stdout.write('  no test flaked on a trusted run\n');
      return 0;
    }
    const cells = [['rate', 'flaky/runs', 'first seen', 'last seen', 'test']];
    for (const t of rows)
      cells.push([
        `${(t.rate * 100).toFixed(1)}%`,
        `${t.flakyRuns}/${t.runs}`,
        minute(t.firstSeen),
        minute(t.lastSeen),
        t.testId,
      ]);
    io.stdout.write(table(cells));
    io.stdout.write('\n');
    for (const t of rows) {
      const facts = [
        t.file !== undefined ? `file ${t.file}` : undefined,
        t.owner !== undefined ? `owner ${t.owner}` : 'no owner in CODEOWNERS',
        t.template !== undefined ? `latest failure ${t.template}` : undefined,
      ].filter((f): f is string => f !== undefined);
      io.stdout.write(`  ${t.testId}: ${facts.join('; ')}\n`);
    }
    return 0;
  } finally {
    await o.db.close();
  }
}

async function slowest(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_SLOWEST, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history slowest');
  const o = await open(io, values, 'history slowest');
  try {
    const rows = await slowestTests(o.db, o.scope, limit);
    if (values.json) {
      json(io, o, rows);
      return 0;
    }
    io.stdout.write(header(o, 'Slowest tests'));
    if (rows.length === 0) {
      io.stdout.write('  no trusted run reported a test duration\n');
      return 0;
    }
    const cells = [['mean', 'max', 'runs', 'test']];
    for (const t of rows) cells.push([`${t.meanMs} ms`, `${t.maxMs} ms`, String(t.runs), t.testId]);
    io.stdout.write(table(cells));
    return 0;
  } finally {
    await o.db.close();
  }
}

async function rejections(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_REJECTIONS, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const by = values.by;
  if (by !== 'day' && by !== 'week') throw usage(`history rejections: --by must be day or week, got '${by}'`);
  const o = await open(io, values, 'history rejections');
  try {
    const rows = await rejectionsByCode(o.db, o.scope, by);
    if (values.json) {
      json(io, o, rows);
      return 0;
    }
    io.stdout.write(header(o, `Rejected patches by reason code, per ${by}`));
    if (rows.length === 0) {
      io.stdout.write('  no patch was rejected\n');
      return 0;
    }
    const cells = [[by === 'week' ? 'week of' : 'day', 'patches', 'code']];
    for (const r of rows) cells.push([r.period, String(r.patches), r.code]);
    io.stdout.write(table(cells));
    return 0;
  } finally {
    await o.db.close();
  }
}

async function agents(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_AGENTS, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history agents');
  const o = await open(io, values, 'history agents');
  try {
    const rows = await agentRecords(o.db, o.scope, limit);
    if (values.json) {
      json(io, o, rows);
      return 0;
    }
    io.stdout.write(header(o, 'Patches by identity'));
    if (rows.length === 0) {
      io.stdout.write('  no judged patch names an identity\n');
      return 0;
    }
    const cells = [['patches', 'accepted', 'rejected', 'errors', 'identity', 'rejected for']];
    for (const a of rows)
      cells.push([
        String(a.patches),
        String(a.accepted),
        String(a.rejected),
        String(a.errored),
        `${a.names[0] ?? ''} <${a.email}>`,
        Object.entries(a.codes)
          .sort(([x, m], [y, n]) => n - m || (x < y ? -1 : 1))
          .map(([code, n]) => `${code} ×${n}`)
          .join(', ') || '-',
      ]);
    io.stdout.write(table(cells));
    io.stdout.write(
      '\nIdentities are what the commits say (author, committer, Co-authored-by): a patch can sign as anyone.\n',
    );
    return 0;
  } finally {
    await o.db.close();
  }
}

async function dashboard(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_DASHBOARD, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history dashboard');
  const o = await open(io, values, 'history dashboard');
  try {
    const owner = await ownerLookup(o.git, o.root);
    const flakyRows = (await flakyTests(o.db, o.scope, limit)).map((t) => {
      const who = owner(t.file);
      return { ...t, ...(who !== undefined ? { owner: who } : {}) };
    });
    const html = renderHistoryDashboard({
      ...(o.scope.repository !== undefined ? { repository: o.scope.repository } : {}),
      where: o.where,
      ...(o.scope.since !== undefined ? { since: o.scope.since } : {}),
      runs: o.counts,
      flaky: flakyRows,
      slowest: await slowestTests(o.db, o.scope, limit),
      rejections: await rejectionsByCode(o.db, o.scope, 'week'),
      agents: await agentRecords(o.db, o.scope, limit),
    });
    const out = path.resolve(io.cwd, values.out);
    await mkdir(path.dirname(out), { recursive: true });
    await writeFileAtomic(out, html, values.out);
    io.stdout.write(
      `wrote ${values.out}: ${o.scopeName}, ${o.counts.check} check run(s) and ${o.counts.record} main-branch record(s)\n`,
    );
    return 0;
  } finally {
    await o.db.close();
  }
}
