import { isReasonCode, REASON_CODES } from '../codes.js';
import type { PatchAuthor } from '../git/authors.js';
import type { Finding } from '../layers/types.js';
import { findingCount } from './aggregate.js';
import { mdCode, mdProse } from './markdown-text.js';
import type { Scorecard } from './scorecard.js';

const ICON: Record<string, string> = {
  accept: '✅',
  reject: '❌',
  error: '⚠️',
  pass: '✅',
  warn: '🟡',
  skipped: '⏭️',
};

/**
 * GitHub refuses a step summary over 1 MiB (and shows none of it). The
 * default budget leaves room for whatever else the job appends.
 */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;
const DEFAULT_BUDGET = 512 * 1024;

export interface MarkdownOptions {
  /** Where the full report is (the CI run's artifacts page); named in the summary when given. */
  reportLink?: string;
  /** Largest summary in bytes; findings past it are counted, not shown. */
  maxBytes?: number;
}

/** At most `max` characters, cut at a word boundary, with an ellipsis when cut. */
export function shorten(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

const RANK: Record<string, number> = { error: 0, reject: 1, warn: 2 };

/** Where a finding points, when its evidence says: `file:line`. */
function location(e: Record<string, unknown>): string | undefined {
  const source = e.source as { file?: unknown; line?: unknown } | undefined;
  const file = [e.file, e.path, source?.file].find((v): v is string => typeof v === 'string');
  if (!file) return undefined;
  const line = [e.line, source?.line].find((v): v is number => typeof v === 'number');
  return line === undefined ? file : `${file}:${line}`;
}

/** The few facts a reviewer needs, never a whole JSON blob. */
const KEY_FACTS = [
  'claim',
  'cell',
  'property',
  'test',
  'seed',
  'fixture',
  'freeze',
  'field',
  'template',
  'variable',
];

function facts(e: Record<string, unknown>): string {
  const out: string[] = [];
  for (const k of KEY_FACTS) {
    const v = e[k];
    if (v === undefined || v === null || typeof v === 'object') continue;
    out.push(`${k} ${mdCode(shorten(String(v), 60))}`);
    if (out.length === 3) break;
  }
  return out.join(', ');
}

/**
 * The finding's own next step (a layer's, which may quote the patch's paths: shown as code), else the
 * override a human job may give, else the code's general one (our words).
 */
function nextStep(f: Finding): string {
  const next = f.evidence.next;
  if (typeof next === 'string' && next !== '') return mdCode(shorten(next, 200));
  const override = f.evidence.override;
  if (typeof override === 'string' && override !== '')
    return `fix the patch, or a human job sets ${mdCode(override)}`;
  return isReasonCode(f.code) ? mdProse(shorten(REASON_CODES[f.code].next, 200)) : '';
}

function findingRow(f: Finding): string {
  const where = location(f.evidence);
  const known = facts(f.evidence);
  return `| ${ICON[f.severity] ?? ''} ${mdProse(f.severity)} | ${mdCode(f.code)} | ${where ? mdCode(shorten(where, 80)) : ''} | ${mdCode(shorten(f.message, 300))}${known ? `<br>${known}` : ''} | ${nextStep(f)} |`;
}

/** The verdict in one line: what blocks the merge, or that nothing does. */
export function verdictReason(card: Scorecard): string {
  const blocking = card.findings.filter((f) => f.severity !== 'warn');
  if (blocking.length === 0) {
    let warns = 0;
    for (const f of card.findings) warns += findingCount(f);
    return warns === 0 ? 'nothing blocks the merge' : `nothing blocks the merge (${warns} warning(s))`;
  }
  const counts = new Map<string, number>();
  let n = 0;
  for (const f of blocking) {
    counts.set(f.code, (counts.get(f.code) ?? 0) + findingCount(f));
    n += findingCount(f);
  }
  const codes = [...counts].map(([c, k]) => (k > 1 ? `${c} ×${k}` : c)).join(', ');
  const what = card.verdict === 'error' ? 'the gate could not decide' : 'blocking the merge';
  return `${n} finding(s) ${what}: ${codes}`;
}

/** Who the patch's commits say wrote it: names, addresses and the branch are the patch's own text, so code. */
function patchLine(card: Scorecard, text: (s: string) => string): string | undefined {
  const p = card.patch;
  if (!p || p.commits === 0) return undefined;
  const who = (a: PatchAuthor) => text(a.email === '' ? a.name : `${a.name} <${a.email}>`);
  const authors = p.authors.filter((a) => a.roles.includes('author') || a.roles.includes('committer'));
  const coAuthors = p.authors.filter((a) => !authors.includes(a));
  const parts = [
    `${p.commits}${p.truncated ? '+' : ''} commit(s) by ${authors.map(who).join(', ') || 'nobody named'}`,
    ...(coAuthors.length > 0 ? [`co-authored by ${coAuthors.map(who).join(', ')}`] : []),
    ...(p.moreAuthors ? [`${p.moreAuthors} more identit(ies) in scorecard.json`] : []),
    ...(p.branch !== undefined ? [`on branch ${text(p.branch)}`] : []),
  ];
  return `Patch: ${parts.join('; ')} (as the commits say).`;
}

/**
 * `summary.md`: what a reviewer sees in the pull request (also appended to
 * $GITHUB_STEP_SUMMARY). The most important findings come first, each with
 * where it points, a few facts and the human next step; the evidence in full
 * is in scorecard.json and report.html. However many findings there are, the
 * summary stays under `maxBytes`: the rest is counted.
 */
/** A shard's partial card says so before anything else is read; a merged one says what it was made of. */
export function shardLine(card: Pick<Scorecard, 'shard' | 'shards'>): string | undefined {
  if (card.shard)
    return `**Partial: shard ${card.shard.index} of ${card.shard.total}** (${card.shard.testFiles} test file(s) of this run). This verdict covers this shard's share only: \`patchgate merge\` of every shard's out folder gives the run's.`;
  if (card.shards)
    return `Merged from ${card.shards.total} shard(s): ${card.shards.plan.files} test file(s) split by ${card.shards.plan.by === 'duration' ? 'recorded durations' : card.shards.plan.by === 'suite' ? 'none (the runner cannot select files: shard 1 ran the suite)' : 'count'}.`;
  return undefined;
}

export function renderMarkdown(card: Scorecard, options: MarkdownOptions = {}): string {
  const budget = Math.min(options.maxBytes ?? DEFAULT_BUDGET, STEP_SUMMARY_LIMIT);
  const head: string[] = [];
  head.push(`## patchgate: ${ICON[card.verdict] ?? ''} ${card.verdict} — ${mdProse(verdictReason(card))}`);
  head.push('');
  // The refs are what the job passed (a branch name is the patch author's to choose): code, like every other
  // string that did not come from this module.
  const text = (s: string) => mdCode(s, { table: false });
  head.push(
    `Base ${text(card.base.ref)} → merge-base ${text(card.base.commit.slice(0, 12))}; head ${text(card.head.ref)} ${text(card.head.commit.slice(0, 12))}${card.head.worktree ? ' + working tree' : ''}. Rules read from ${text(card.config.file)} in the base.`,
  );
  const by = patchLine(card, text);
  if (by) head.push('', by);
  const shards = shardLine(card);
  if (shards) head.push('', shards);
  if (options.reportLink) {
    head.push('');
    // reportLinkFrom only lets through an http(s) URL with nothing Markdown could read as syntax.
    head.push(
      `Full report: \`report.html\` in the out folder artifact, [${mdProse(options.reportLink)}](${options.reportLink}).`,
    );
  }
  head.push('');
  head.push('| layer | status | findings | time |');
  head.push('| --- | --- | --- | --- |');
  for (const l of card.layers) {
    const ms = card.timings?.layers?.[l.name];
    head.push(
      `| ${mdProse(l.name)} | ${ICON[l.status] ?? ''} ${mdProse(l.status)}${l.reason ? ` (${mdProse(shorten(l.reason, 80))})` : l.note ? ` (${mdCode(shorten(l.note, 120))})` : ''} | ${l.findings} | ${ms === undefined ? '' : `${(ms / 1000).toFixed(1)} s`} |`,
    );
  }

  const tail: string[] = [];
  if (card.frozen.length > 0) {
    tail.push('');
    tail.push(
      '**Frozen** (human-owned freezes; never counted as a hit or a pass; a baseline row was written by `patchgate baseline` for what the suite already failed or skipped at adoption):',
    );
    tail.push('');
    tail.push('| layer | covers | cause or signature | owner | expires | action |');
    tail.push('| --- | --- | --- | --- | --- | --- |');
    for (const z of card.frozen.slice(0, 50)) {
      tail.push(
        `| ${mdProse(z.origin === 'baseline' ? `${z.layer} (baseline row)` : z.layer)} | ${mdCode(shorten(z.covers, 100))} | ${(z.cause ?? z.matched) ? mdCode(shorten(z.cause ?? z.matched ?? '', 100)) : ''} | ${mdCode(z.owner)} | ${mdCode(z.expires)} | ${mdCode(shorten(z.action, 120))} |`,
      );
    }
    if (card.frozen.length > 50)
      tail.push(`\n… and ${card.frozen.length - 50} more frozen item(s) (see scorecard.json).`);
  }
  if (card.overrides.length > 0) {
    tail.push('');
    tail.push(`**Overrides** (a human token was set; its value is never recorded):`);
    for (const o of card.overrides.slice(0, 50))
      tail.push(
        `- ${mdCode(o.code, { table: false })} ${mdCode(shorten(o.path, 100), { table: false })} via ${mdCode(o.variable, { table: false })}`,
      );
  }
  tail.push('');

  const size = (lines: string[]) => Buffer.byteLength(`${lines.join('\n')}\n`, 'utf8');
  const ordered = card.findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (RANK[a.f.severity] ?? 3) - (RANK[b.f.severity] ?? 3) || a.i - b.i)
    .map((x) => x.f);
  const body: string[] = [];
  if (ordered.length > 0) {
    body.push('');
    body.push('| severity | code | where | what | next step |');
    body.push('| --- | --- | --- | --- | --- |');
  }
  // What the truncation line itself needs.
  const reserve = 200;
  let used = size(head) + size(tail) + size(body) + reserve;
  let shown = 0;
  for (const f of ordered) {
    const row = findingRow(f);
    const bytes = Buffer.byteLength(row, 'utf8') + 1;
    if (used + bytes > budget) break;
    body.push(row);
    used += bytes;
    shown++;
  }
  if (shown < ordered.length) {
    const hidden = ordered.slice(shown);
    const blocking = hidden.filter((f) => f.severity !== 'warn').length;
    body.push('');
    body.push(
      `… and ${hidden.length} more finding(s) (${blocking} blocking) not shown, to stay under GitHub's summary size limit: see scorecard.json or report.html.`,
    );
  }
  return `${[...head, ...body, ...tail].join('\n')}\n`;
}
