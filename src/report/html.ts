import type { Artifact } from '../layers/types.js';
import { readArtifacts } from './html/artifacts.js';
import { SCRIPT } from './html/assets.js';
import { claimsSection } from './html/claims.js';
import { esc } from './html/escape.js';
import { findingsSection } from './html/findings.js';
import { fixtureDiffSection } from './html/fixture-diff.js';
import { freezesSection } from './html/freezes.js';
import { heatmapSection } from './html/heatmap.js';
import { mutationSection } from './html/mutation.js';
import { contentSecurityPolicy, pageHead } from './html/page.js';
import { seedsSection } from './html/seeds.js';
import { layersSection, verdictReason, verdictSection } from './html/verdict.js';
import type { Scorecard } from './scorecard.js';

export { verdictReason };

const CSP = contentSecurityPolicy(SCRIPT);

const TOC: [string, string][] = [
  ['layers', 'layers'],
  ['hits', 'hit matrix'],
  ['fixtures', 'changed fixtures'],
  ['claims', 'claim matrix'],
  ['mutation', 'mutation probe'],
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
    ['mutation', mutationSection(inputs.mutation)],
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
  return `${pageHead(`patchgate: ${card.verdict} · ${card.head.ref}`, CSP)}
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
