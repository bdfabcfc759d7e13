import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveToday } from '../../freeze/model.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { flakeHistoryFrom, windowStart } from '../../history/flake-history.js';
import { runFromCheck, type SideRun } from '../../history/run.js';
import { historyCompanions } from '../../history/store.js';
import { writeRun } from '../../history/write.js';
import type { Artifact } from '../../layers/types.js';
import { type GateHooks, type GateTestRun, type ProgressEvent, runGate } from '../../pipeline.js';
import { renderGithubAnnotations } from '../../report/github.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { stableStringify } from '../../report/stable-json.js';
import { renderTerminal } from '../../report/terminal.js';
import { exitCodeFor } from '../exit-codes.js';
import { openRepoHistory, type RepoHistory } from '../history-store.js';
import { type CliIO, rawStream, useColor } from '../io.js';
import { parseCommand } from '../options.js';
import { OutFolder, type OutFs } from '../out-folder.js';
import { ProgressLine } from '../progress.js';
import { reportLinkFrom } from '../report-link.js';
import { CHECK } from '../specs.js';
import { usage } from '../usage.js';

export const DEFAULT_OUT: string = CHECK.options.out.default;

export interface CheckDeps {
  /** The file operations behind the out folder; a test makes them fail. */
  outFs?: OutFs;
  /** The clock that stamps a run written to the history. */
  now?(): Date;
}

export const REPORTERS = ['terminal', 'github', 'json'] as const;
export type Reporter = (typeof REPORTERS)[number];

/**
 * What goes to stdout, from `--reporter` (repeatable) and `--json`: the
 * table by default; GitHub annotations before it when both are asked for.
 * JSON is the scorecard alone, so it combines with annotations only.
 */
export function resolveReporters(flags: readonly string[] | undefined, json: boolean): Reporter[] {
  const asked = [...(flags ?? []).flatMap((f) => f.split(',')), ...(json ? ['json'] : [])].map((r) =>
    r.trim(),
  );
  for (const r of asked)
    if (!(REPORTERS as readonly string[]).includes(r))
      throw usage(`check: unknown --reporter '${r}'; allowed: ${REPORTERS.join(', ')}`);
  const set = new Set(asked.length > 0 ? (asked as Reporter[]) : (['terminal'] as const));
  if (set.has('json') && set.has('terminal'))
    throw usage(
      'check: --reporter json and terminal both print to stdout; pick one (github combines with either)',
    );
  return REPORTERS.filter((r) => set.has(r));
}

export async function checkCommand(
  args: string[],
  io: CliIO,
  hooks?: GateHooks,
  deps: CheckDeps = {},
): Promise<number> {
  const parsed = parseCommand(CHECK, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  if (!values.base)
    throw usage('check needs --base REV (the branch the patch targets, e.g. --base origin/main)');
  const reporters = resolveReporters(values.reporter, values.json);
  const ciRun = values['ci-run'];
  if (ciRun !== undefined && (!values.history || ciRun.trim() === ''))
    throw usage(
      values.history
        ? "check: --ci-run must name the CI run (e.g. GitHub's run id); it must not be blank"
        : 'check: --ci-run is kept with the run in the history: it needs --history',
    );
  const out = path.resolve(io.cwd, values.out);
  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  // Outside a repository the gate itself says so, in its scorecard; only the history needs the root first.
  const top = await git.try(['rev-parse', '--show-toplevel']);
  const root = top.code === 0 ? top.stdout.trim() : undefined;
  // Found unusable before the gate runs for minutes, not after; written only once the verdict is in.
  const history = values.history
    ? await openRepoHistory(io, git, root ?? (await findRepoRoot(git)))
    : undefined;
  try {
    return await judge(values.base, values, io, hooks, deps, { out, root, reporters, history, ciRun });
  } finally {
    await history?.db.close();
  }
}

interface Judging {
  out: string;
  root: string | undefined;
  reporters: Reporter[];
  history: RepoHistory | undefined;
  ciRun: string | undefined;
}

async function judge(
  base: string,
  values: { head?: string | undefined; today?: string | undefined; quiet: boolean; 'all-layers': boolean },
  io: CliIO,
  hooks: GateHooks | undefined,
  deps: CheckDeps,
  { out, root, reporters, history, ciRun }: Judging,
): Promise<number> {
  const folder = new OutFolder(out, deps.outFs);
  // A file an earlier run left must never sit beside this run's scorecard.
  await folder.clear();
  // CI injects today; the repository never supplies it (a frozen clock in the repo is an oracle the agent can edit).
  const { today } = resolveToday(values.today, io.env);
  const artifacts: Artifact[] = [];
  const testRuns: SideRun[] = [];
  // Drawn only on a terminal (ProgressLine checks), never with --json or --quiet.
  // The line clears itself with an escape sequence of its own; it makes what it draws display-safe.
  const line = new ProgressLine(rawStream(io.stderr));
  const progress = !values.quiet && !reporters.includes('json') && line.enabled ? line : undefined;
  const card = await runGate({
    cwd: io.cwd,
    base,
    head: values.head,
    env: io.env,
    today,
    allLayers: values['all-layers'],
    ...(history
      ? { flakeHistory: flakeHistoryFrom(history.db, history.where, history.repository, windowStart(today)) }
      : {}),
    ...(io.pid !== undefined ? { ownerPid: io.pid } : {}),
    signal: io.signal,
    // The history's files are the gate's, never part of a working-tree head (a CI cache puts them there).
    excludeFromHead: [out, ...(root !== undefined ? historyCompanions(root) : [])],
    hooks: {
      ...hooks,
      ...(history || hooks?.onTestRun
        ? {
            onTestRun: (run: GateTestRun) => {
              if (history) testRuns.push({ side: run.side, tests: run.tests });
              hooks?.onTestRun?.(run);
            },
          }
        : {}),
      // Head processes wrote their logs where only they and the gate could; now that all of them are gone, the gate copies them out.
      onLogs: async (dir) => {
        await folder.copyLogs(dir);
        await hooks?.onLogs?.(dir);
      },
      onArtifact: async (artifact) => {
        artifacts.push(artifact);
        await hooks?.onArtifact?.(artifact);
      },
      onLayerStart: async (name) => {
        progress?.layerStart(name);
        await hooks?.onLayerStart?.(name);
      },
      ...(progress || hooks?.onProgress
        ? {
            onProgress: (event: ProgressEvent) => {
              progress?.update(event);
              hooks?.onProgress?.(event);
            },
          }
        : {}),
      onLayerEnd: async (summary) => {
        progress?.clear();
        await hooks?.onLayerEnd?.(summary);
      },
    },
  }).finally(() => progress?.clear());
  const reportLink = reportLinkFrom(io.env);
  const markdown = renderMarkdown(card, reportLink ? { reportLink } : {});
  await folder.publish([
    ...artifacts,
    { name: 'report.html', content: renderHtml(card, artifacts) },
    { name: 'summary.md', content: markdown },
    { name: 'scorecard.json', content: stableStringify(card) },
  ]);
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) await appendFile(stepSummary, markdown);
  // Workflow commands are what this reporter is for; each makes the patch's text in it display-safe.
  if (reporters.includes('github')) rawStream(io.stdout).write(renderGithubAnnotations(card));
  if (reporters.includes('json')) io.stdout.write(stableStringify(card));
  if (reporters.includes('terminal')) {
    // Coloured: the table makes every string from the scorecard display-safe itself.
    rawStream(io.stdout).write(renderTerminal(card, { color: useColor(io) }));
    const shown = path.relative(io.cwd, out);
    const where = shown === '' ? '.' : shown.startsWith('..') ? out : shown;
    io.stdout.write(`\nreports: ${where}/scorecard.json, summary.md, report.html\n`);
  }
  if (history) {
    const id = await writeRun(
      history.db,
      runFromCheck({
        repository: history.repository,
        recordedAt: (deps.now ? deps.now() : new Date()).toISOString(),
        card,
        runs: testRuns,
        artifacts,
        ...(ciRun !== undefined ? { ciRun } : {}),
      }),
    );
    if (!values.quiet)
      io.stderr.write(
        `patchgate: run ${id} written to the run history (${history.where}) as ${history.repository}\n`,
      );
  }
  return exitCodeFor(card);
}
