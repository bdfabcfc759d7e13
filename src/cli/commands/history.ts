import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CODEOWNERS_FILES, ownersOf, parseCodeowners } from '../../config/codeowners.js';
import { InputError } from '../../errors.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import {
  agentRecords,
  type FlakyTest,
  flakyTests,
  type HistoryScope,
  rejectionsByCode,
  runCounts,
  slowestTests,
} from '../../history/queries.js';
import { renderHistoryDashboard } from '../../report/history-html.js';
import { byCodePoint } from '../../util/compare.js';
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

/** Opens the scope's store, answers, closes it whatever happens. */
async function withStore<T>(
  io: CliIO,
  flags: ScopeFlags,
  command: string,
  fn: (o: Opened) => Promise<T>,
): Promise<T> {
  const o = await open(io, flags, command);
  try {
    return await fn(o);
  } finally {
    await o.db.close();
  }
}

interface Answer<T> {
  rows: readonly T[];
  title: string;
  /** What to say when there are no rows: never a bare empty table. */
  none: string;
  head: string[];
  cells(row: T): string[];
  /** Lines printed after the table. */
  after?: (rows: readonly T[]) => string;
}

/** One answer as JSON (`--json`), or as its header line and a table. */
function print<T>(io: CliIO, o: Opened, asJson: boolean, a: Answer<T>): number {
  if (asJson) {
    json(io, o, a.rows);
    return 0;
  }
  io.stdout.write(header(o, a.title));
  if (a.rows.length === 0) {
    io.stdout.write(`  ${a.none}\n`);
    return 0;
  }
  io.stdout.write(table([a.head, ...a.rows.map(a.cells)]));
  if (a.after) io.stdout.write(a.after(a.rows));
  return 0;
}

/** The flaky tests with their CODEOWNERS owner, for `flaky` and the dashboard alike. */
async function flakyWithOwners(o: Opened, limit: number): Promise<(FlakyTest & { owner?: string })[]> {
  const owner = await ownerLookup(o.git, o.root);
  return (await flakyTests(o.db, o.scope, limit)).map((t) => {
    const who = owner(t.file);
    return { ...t, ...(who !== undefined ? { owner: who } : {}) };
  });
}

async function flaky(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_FLAKY, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history flaky');
  return withStore(io, values, 'history flaky', async (o) =>
    print(io, o, values.json, {
      rows: await flakyWithOwners(o, limit),
      title: 'Flaky tests',
      none: 'no test flaked on a trusted run',
      head: ['rate', 'flaky/runs', 'first seen', 'last seen', 'test'],
      cells: (t) => [
        `${(t.rate * 100).toFixed(1)}%`,
        `${t.flakyRuns}/${t.runs}`,
        minute(t.firstSeen),
        minute(t.lastSeen),
        t.testId,
      ],
      after: (rows) =>
        `\n${rows
          .map((t) => {
            const facts = [
              t.file !== undefined ? `file ${t.file}` : undefined,
              t.owner !== undefined ? `owner ${t.owner}` : 'no owner in CODEOWNERS',
              t.template !== undefined ? `latest failure ${t.template}` : undefined,
            ].filter((f): f is string => f !== undefined);
            return `  ${t.testId}: ${facts.join('; ')}\n`;
          })
          .join('')}`,
    }),
  );
}

async function slowest(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_SLOWEST, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history slowest');
  return withStore(io, values, 'history slowest', async (o) =>
    print(io, o, values.json, {
      rows: await slowestTests(o.db, o.scope, limit),
      title: 'Slowest tests',
      none: 'no trusted run reported a test duration',
      head: ['mean', 'max', 'runs', 'test'],
      cells: (t) => [`${t.meanMs} ms`, `${t.maxMs} ms`, String(t.runs), t.testId],
    }),
  );
}

async function rejections(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_REJECTIONS, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const by = values.by;
  if (by !== 'day' && by !== 'week') throw usage(`history rejections: --by must be day or week, got '${by}'`);
  return withStore(io, values, 'history rejections', async (o) =>
    print(io, o, values.json, {
      rows: await rejectionsByCode(o.db, o.scope, by),
      title: `Rejected patches by reason code, per ${by}`,
      none: 'no patch was rejected',
      head: [by === 'week' ? 'week of' : 'day', 'patches', 'code'],
      cells: (r) => [r.period, String(r.patches), r.code],
    }),
  );
}

async function agents(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_AGENTS, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history agents');
  return withStore(io, values, 'history agents', async (o) =>
    print(io, o, values.json, {
      rows: await agentRecords(o.db, o.scope, limit),
      title: 'Patches by identity',
      none: 'no judged patch names an identity',
      head: ['patches', 'accepted', 'rejected', 'errors', 'identity', 'rejected for'],
      cells: (a) => [
        String(a.patches),
        String(a.accepted),
        String(a.rejected),
        String(a.errored),
        `${a.names[0] ?? ''} <${a.email}>`,
        Object.entries(a.codes)
          .sort(([x, m], [y, n]) => n - m || byCodePoint(x, y))
          .map(([code, n]) => `${code} ×${n}`)
          .join(', ') || '-',
      ],
      after: () =>
        '\nIdentities are what the commits say (author, committer, Co-authored-by): a patch can sign as anyone.\n',
    }),
  );
}

async function dashboard(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(HISTORY_DASHBOARD, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const limit = limitOf(values.limit, 'history dashboard');
  return withStore(io, values, 'history dashboard', async (o) => {
    const html = renderHistoryDashboard({
      ...(o.scope.repository !== undefined ? { repository: o.scope.repository } : {}),
      where: o.where,
      ...(o.scope.since !== undefined ? { since: o.scope.since } : {}),
      runs: o.counts,
      flaky: await flakyWithOwners(o, limit),
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
  });
}
