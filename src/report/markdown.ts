import type { Scorecard } from './scorecard.js';

const ICON: Record<string, string> = {
  accept: '✅',
  reject: '❌',
  error: '⚠️',
  pass: '✅',
  warn: '🟡',
  skipped: '⏭️',
};

function cell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** `summary.md`: what a reviewer sees in the pull request (also appended to $GITHUB_STEP_SUMMARY). */
export function renderMarkdown(card: Scorecard): string {
  const out: string[] = [];
  out.push(`## patchgate: ${ICON[card.verdict] ?? ''} ${card.verdict}`);
  out.push('');
  out.push(
    `Base \`${cell(card.base.ref)}\` → merge-base \`${card.base.commit.slice(0, 12)}\`; head \`${cell(card.head.ref)}\` \`${card.head.commit.slice(0, 12)}\`${card.head.worktree ? ' + working tree' : ''}. Rules read from \`${card.config.file}\` in the base.`,
  );
  out.push('');
  out.push('| layer | status | findings |');
  out.push('| --- | --- | --- |');
  for (const l of card.layers)
    out.push(`| ${l.name} | ${ICON[l.status] ?? ''} ${l.status} | ${l.findings} |`);
  if (card.findings.length > 0) {
    out.push('');
    out.push('| severity | code | message | evidence |');
    out.push('| --- | --- | --- | --- |');
    for (const f of card.findings) {
      out.push(
        `| ${f.severity} | \`${f.code}\` | ${cell(f.message)} | <code>${cell(JSON.stringify(f.evidence))}</code> |`,
      );
    }
  }
  if (card.frozen.length > 0) {
    out.push('');
    out.push('**Frozen** (human-owned freezes; never counted as a hit or a pass):');
    out.push('');
    out.push('| layer | covers | cause or signature | owner | expires | action |');
    out.push('| --- | --- | --- | --- | --- | --- |');
    for (const z of card.frozen) {
      out.push(
        `| ${z.layer} | ${cell(z.covers)} | ${cell(z.cause ?? z.matched ?? '')} | ${cell(z.owner)} | ${z.expires} | ${cell(z.action)} |`,
      );
    }
  }
  if (card.overrides.length > 0) {
    out.push('');
    out.push(`**Overrides** (a human token was set; its value is never recorded):`);
    for (const o of card.overrides) out.push(`- \`${o.code}\` \`${cell(o.path)}\` via \`${o.variable}\``);
  }
  out.push('');
  return `${out.join('\n')}\n`;
}
