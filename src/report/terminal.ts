import pc from 'picocolors';
import { pushAll } from '../util/arrays.js';
import { displayText, noWorkflowCommands } from '../util/display-text.js';
import { cutAtWord, TERMINAL_WIDTH, wrapWords } from '../util/wrap.js';
import type { Scorecard } from './scorecard.js';

export interface TerminalOptions {
  color: boolean;
  /** Columns every line fits (default 100). */
  width?: number;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Column where a finding's message and evidence start: severity (8), code (26), two spaces. */
const MESSAGE_COLUMN = 36;
/** Longest shown value of one evidence key, and of a finding's whole evidence; cut between words. */
const EVIDENCE_VALUE_MAX = 240;
const EVIDENCE_MAX = 640;

/** A value as one line of words: strings with their line breaks shown, JSON with spaces between its parts. */
function evidenceValue(v: unknown): string {
  const s =
    typeof v === 'string'
      ? v.replace(/\r?\n/g, ' ↵ ')
      : (JSON.stringify(v, null, 1) ?? String(v)).replace(/\n\s*/g, ' ');
  return cutAtWord(s, EVIDENCE_VALUE_MAX);
}

/**
 * A finding's evidence as `key=value` words, long values shortened between words (never inside one).
 * Display-safe: keys and values can be the patch's.
 */
export function evidenceText(evidence: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(evidence)) {
    if (v === undefined) continue;
    parts.push(`${displayText(k)}=${displayText(evidenceValue(v))}`);
  }
  return cutAtWord(parts.join(' '), EVIDENCE_MAX);
}

/**
 * `prefix` followed by `text` wrapped to `width`, continuation lines indented
 * by `hanging`. `prefix` is measured plain and printed as `shownPrefix`
 * (coloured); the text's lines go through `paint`.
 */
function hang(
  prefix: string,
  shownPrefix: string,
  text: string,
  hanging: number,
  width: number,
  paint: (s: string) => string = (s) => s,
): string[] {
  if (text === '') return [shownPrefix.trimEnd()];
  const lines = wrapWords(text, { width, indent: prefix.length, hanging });
  return lines.map((l, i) => (i === 0 ? shownPrefix + paint(l.slice(prefix.length)) : paint(l)));
}

/**
 * The table a human reads in CI logs: verdict, layers, then every finding with its evidence. Fits `width`
 * columns. Every string from the scorecard goes through displayText before it is coloured (a test name
 * cannot move the cursor, reorder a line or start an escape sequence), and no line of the laid-out table
 * can be read by a CI runner as a workflow command.
 */
export function renderTerminal(card: Scorecard, opts: TerminalOptions): string {
  const t = displayText;
  const width = opts.width ?? TERMINAL_WIDTH;
  const c = pc.createColors(opts.color);
  const paint = (status: string, text: string) =>
    status === 'accept' || status === 'pass'
      ? c.green(text)
      : status === 'warn' || status === 'skipped'
        ? c.yellow(text)
        : status === 'reject'
          ? c.red(text)
          : c.magenta(text);
  const lines: string[] = [];
  const verdict = card.verdict.toUpperCase();
  const title = `patchgate ${verdict}  `;
  pushAll(
    lines,
    hang(
      title,
      `${c.bold('patchgate')} ${paint(card.verdict, c.bold(verdict))}  `,
      `base ${t(card.base.ref)} @ ${t(card.base.commit.slice(0, 12))}  head ${t(card.head.ref)} @ ${t(card.head.commit.slice(0, 12))}${card.head.worktree ? ' (+ working tree)' : ''}`,
      2,
      width,
    ),
  );
  const shards = card.shard
    ? `PARTIAL: shard ${card.shard.index} of ${card.shard.total} (${card.shard.testFiles} test file(s)); this verdict covers this shard's share only: patchgate merge gives the run's`
    : card.shards
      ? `merged from ${card.shards.total} shard(s), ${card.shards.plan.files} test file(s) split by ${card.shards.plan.by}`
      : undefined;
  if (shards) lines.push(card.shard ? c.bold(shards) : c.dim(shards));
  lines.push('');
  lines.push(c.dim(`${pad('layer', 12)} ${pad('status', 8)} findings`));
  for (const l of card.layers) {
    const count = String(l.findings);
    const prefix = `${pad(l.name, 12)} ${pad(l.status, 8)} ${count}  `;
    const shown = `${pad(l.name, 12)} ${paint(l.status, pad(l.status, 8))} ${count}  `;
    pushAll(lines, hang(prefix, shown, t(l.reason ?? l.note ?? ''), 24, width, c.dim));
  }
  if (card.findings.length > 0) {
    lines.push('');
    lines.push(c.dim(`${pad('severity', 8)} ${pad('code', 26)} message`));
    for (const f of card.findings) {
      const prefix = `${pad(f.severity, 8)} ${pad(f.code, 26)} `;
      const shown = `${paint(f.severity, pad(f.severity, 8))} ${pad(f.code, 26)} `;
      // A code longer than its column pushes the message right; the message still wraps at its column.
      pushAll(lines, hang(prefix, shown, t(f.message), MESSAGE_COLUMN, width));
      const evidence = evidenceText(f.evidence);
      if (evidence !== '')
        pushAll(
          lines,
          wrapWords(evidence, { width, indent: MESSAGE_COLUMN }).map((l) => c.dim(l)),
        );
    }
  }
  if (card.frozen.length > 0) {
    lines.push('');
    lines.push(c.cyan(`frozen (${card.frozen.length}) — not counted as hits or passes:`));
    for (const z of card.frozen) {
      const text = t(
        `${z.layer}${z.origin === 'baseline' ? ' (baseline row)' : ''} ${z.covers}${z.cause ? ` cause=${z.cause}` : ''}${z.matched ? ` matched=${JSON.stringify(z.matched)}` : ''} owner=${z.owner} expires=${z.expires} action: ${z.action}`,
      );
      pushAll(lines, wrapWords(text, { width, indent: 2, hanging: 4 }));
    }
  }
  if (card.overrides.length > 0) {
    lines.push('');
    lines.push(c.yellow(`overrides (${card.overrides.length}):`));
    for (const o of card.overrides)
      pushAll(lines, wrapWords(t(`${o.code} ${o.path} via ${o.variable}`), { width, indent: 2, hanging: 4 }));
  }
  return noWorkflowCommands(`${lines.join('\n')}\n`);
}
