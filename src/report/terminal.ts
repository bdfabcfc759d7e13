import pc from 'picocolors';
import { evidenceLine } from './evidence.js';
import type { Scorecard } from './scorecard.js';

export interface TerminalOptions {
  color: boolean;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** The table a human reads in CI logs: verdict, layers, then every finding with its evidence. */
export function renderTerminal(card: Scorecard, opts: TerminalOptions): string {
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
  lines.push(
    `${c.bold('patchgate')} ${paint(card.verdict, c.bold(card.verdict.toUpperCase()))}  base ${card.base.ref} @ ${card.base.commit.slice(0, 12)}  head ${card.head.ref} @ ${card.head.commit.slice(0, 12)}${card.head.worktree ? ' (+ working tree)' : ''}`,
  );
  lines.push('');
  lines.push(c.dim(`${pad('layer', 12)} ${pad('status', 8)} findings`));
  for (const l of card.layers) {
    lines.push(
      `${pad(l.name, 12)} ${paint(l.status, pad(l.status, 8))} ${l.findings}${l.reason ? c.dim(`  ${l.reason}`) : ''}`,
    );
  }
  if (card.findings.length > 0) {
    lines.push('');
    lines.push(c.dim(`${pad('severity', 8)} ${pad('code', 26)} message`));
    for (const f of card.findings) {
      lines.push(`${paint(f.severity, pad(f.severity, 8))} ${pad(f.code, 26)} ${f.message}`);
      lines.push(c.dim(`${' '.repeat(36)}${evidenceLine(f.evidence)}`));
    }
  }
  if (card.frozen.length > 0) {
    lines.push('');
    lines.push(c.cyan(`frozen (${card.frozen.length}) — not counted as hits or passes:`));
    for (const z of card.frozen) {
      lines.push(
        `  ${z.layer} ${z.covers}${z.cause ? ` cause=${z.cause}` : ''}${z.matched ? ` matched=${JSON.stringify(z.matched)}` : ''} owner=${z.owner} expires=${z.expires} action: ${z.action}`,
      );
    }
  }
  if (card.overrides.length > 0) {
    lines.push('');
    lines.push(c.yellow(`overrides (${card.overrides.length}):`));
    for (const o of card.overrides) lines.push(`  ${o.code} ${o.path} via ${o.variable}`);
  }
  return `${lines.join('\n')}\n`;
}
