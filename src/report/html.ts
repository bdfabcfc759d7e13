import { createHash } from 'node:crypto';
import type { Artifact } from '../layers/types.js';
import { readArtifacts } from './html/artifacts.js';
import { SCRIPT, STYLE } from './html/assets.js';
import { claimsSection } from './html/claims.js';
import { esc } from './html/escape.js';
import { findingsSection } from './html/findings.js';
import { fixtureDiffSection } from './html/fixture-diff.js';
import { freezesSection } from './html/freezes.js';
import { heatmapSection } from './html/heatmap.js';
import { seedsSection } from './html/seeds.js';
import { layersSection, verdictReason, verdictSection } from './html/verdict.js';
import type { Scorecard } from './scorecard.js';

export { verdictReason };

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Nothing but the page's own style and script may run or apply, and nothing
 * may be fetched: a `<script>` or `<style>` the patch smuggled into a test
 * name would be inert even if escaping ever missed one.
 */
const CSP = [
  "default-src 'none'",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(SCRIPT)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
// Our own constant, attribute-safe as it is (single quotes, base64): written unescaped so it reads as a policy.
if (/["&<>]/.test(CSP)) throw new Error('report.html: the CSP must not need escaping');

const TOC: [string, string][] = [
  ['layers', 'layers'],
  ['hits', 'hit matrix'],
  ['fixtures', 'changed fixtures'],
  ['claims', 'claim matrix'],
  ['freezes', 'freezes'],
  ['seeds', 'seed replays'],
  ['findings', 'findings'],
];

/**
 * `report.html`: one self-contained page (no network, no external file) of
 * the run, for a maintainer deciding in a minute: the verdict and why, the
 * layers, the hit matrix as a heatmap, changed fixtures' values, the claim
 * matrix, every freeze, and the findings with their evidence and next step.
 * `artifacts` are the layers' reports of this run (hit_report.*.json,
 * claims.json, seed_replay*.json); a section whose artifact is absent is
 * left out. Same inputs, same bytes.
 */
export function renderHtml(card: Scorecard, artifacts: readonly Artifact[] = []): string {
  const inputs = readArtifacts(artifacts);
  const sections: [string, string][] = [
    ['layers', layersSection(card)],
    ['hits', heatmapSection(inputs.hits)],
    ['fixtures', fixtureDiffSection(card.findings)],
    ['claims', claimsSection(inputs.claims)],
    ['freezes', freezesSection(card.frozen, inputs.claims, card.findings, card.today)],
    ['seeds', seedsSection(inputs.seeds)],
    ['findings', findingsSection(card.findings, card.overrides)],
  ];
  const present = new Set(sections.filter(([, html]) => html !== '').map(([id]) => id));
  const toc = TOC.filter(([id]) => present.has(id))
    .map(([id, label]) => `<li><a href="#${id}">${esc(label)}</a></li>`)
    .join('');
  const unreadable =
    inputs.unreadable.length > 0
      ? `<p class="note" role="note">Could not read ${inputs.unreadable.map((n) => `<code>${esc(n)}</code>`).join(', ')}; the sections drawn from it are left out.</p>`
      : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(`patchgate: ${card.verdict} · ${card.head.ref}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#findings">skip to the findings</a>
${verdictSection(card)}
<nav class="toc" aria-label="sections"><ul>${toc}</ul></nav>
${unreadable}
<main>
${sections
  .map(([, html]) => html)
  .filter((html) => html !== '')
  .join('\n')}
</main>
<footer><p class="note">patchgate report · scorecard schema <code>${esc(card.schema)}</code> · same inputs, same report: only the times differ between runs.</p></footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
