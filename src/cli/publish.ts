import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Artifact } from '../layers/types.js';
import { renderGithubAnnotations } from '../report/github.js';
import { renderHtml } from '../report/html.js';
import { renderMarkdown } from '../report/markdown.js';
import type { Scorecard } from '../report/scorecard.js';
import { stableStringify } from '../report/stable-json.js';
import { renderTerminal } from '../report/terminal.js';
import { type CliIO, rawStream, useColor } from './io.js';
import type { OutFile, OutFolder } from './out-folder.js';
import { reportLinkFrom } from './report-link.js';
import { usage } from './usage.js';

export const REPORTERS = ['terminal', 'github', 'json'] as const;
export type Reporter = (typeof REPORTERS)[number];

/**
 * What goes to stdout, from `--reporter` (repeatable) and `--json`: the
 * table by default; GitHub annotations before it when both are asked for.
 * JSON is the scorecard alone, so it combines with annotations only.
 */
export function resolveReporters(
  flags: readonly string[] | undefined,
  json: boolean,
  command = 'check',
): Reporter[] {
  const asked = [...(flags ?? []).flatMap((f) => f.split(',')), ...(json ? ['json'] : [])].map((r) =>
    r.trim(),
  );
  for (const r of asked)
    if (!(REPORTERS as readonly string[]).includes(r))
      throw usage(`${command}: unknown --reporter '${r}'; allowed: ${REPORTERS.join(', ')}`);
  const set = new Set(asked.length > 0 ? (asked as Reporter[]) : (['terminal'] as const));
  if (set.has('json') && set.has('terminal'))
    throw usage(
      `${command}: --reporter json and terminal both print to stdout; pick one (github combines with either)`,
    );
  return REPORTERS.filter((r) => set.has(r));
}

/**
 * A verdict's reports: the artifacts, report.html, summary.md and the
 * scorecard (last) into the out folder, summary.md to the step summary of
 * GitHub Actions, and what the reporters print.
 */
export async function publishReports(
  io: CliIO,
  folder: OutFolder,
  card: Scorecard,
  artifacts: readonly Artifact[],
  reporters: readonly Reporter[],
  extra: readonly OutFile[] = [],
): Promise<void> {
  const reportLink = reportLinkFrom(io.env);
  const markdown = renderMarkdown(card, reportLink ? { reportLink } : {});
  await folder.publish([
    ...artifacts,
    { name: 'report.html', content: renderHtml(card, artifacts) },
    { name: 'summary.md', content: markdown },
    ...extra,
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
    const shown = path.relative(io.cwd, folder.dir);
    const where = shown === '' ? '.' : shown.startsWith('..') ? folder.dir : shown;
    io.stdout.write(`\nreports: ${where}/scorecard.json, summary.md, report.html\n`);
  }
}

/** `--ci-run`, which the history keeps with the run: it needs --history, and must name something. */
export function ciRunOf(
  values: { history: boolean; 'ci-run'?: string | undefined },
  command: string,
): string | undefined {
  const ciRun = values['ci-run'];
  if (ciRun !== undefined && (!values.history || ciRun.trim() === ''))
    throw usage(
      values.history
        ? `${command}: --ci-run must name the CI run (e.g. GitHub's run id); it must not be blank`
        : `${command}: --ci-run is kept with the run in the history: it needs --history`,
    );
  return ciRun;
}
