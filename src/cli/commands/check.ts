import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveToday } from '../../freeze/model.js';
import type { Artifact } from '../../layers/types.js';
import { type GateHooks, type ProgressEvent, runGate } from '../../pipeline.js';
import { renderGithubAnnotations } from '../../report/github.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { stableStringify } from '../../report/stable-json.js';
import { renderTerminal } from '../../report/terminal.js';
import { exitCodeFor } from '../exit-codes.js';
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
  const out = path.resolve(io.cwd, values.out);
  const folder = new OutFolder(out, deps.outFs);
  // A file an earlier run left must never sit beside this run's scorecard.
  await folder.clear();
  // CI injects today; the repository never supplies it (a frozen clock in the repo is an oracle the agent can edit).
  const { today } = resolveToday(values.today, io.env);
  const artifacts: Artifact[] = [];
  // Drawn only on a terminal (ProgressLine checks), never with --json or --quiet.
  // The line clears itself with an escape sequence of its own; it makes what it draws display-safe.
  const line = new ProgressLine(rawStream(io.stderr));
  const progress = !values.quiet && !reporters.includes('json') && line.enabled ? line : undefined;
  const card = await runGate({
    cwd: io.cwd,
    base: values.base,
    head: values.head,
    env: io.env,
    today,
    allLayers: values['all-layers'],
    ...(io.pid !== undefined ? { ownerPid: io.pid } : {}),
    signal: io.signal,
    excludeFromHead: [out],
    hooks: {
      ...hooks,
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
  return exitCodeFor(card);
}
