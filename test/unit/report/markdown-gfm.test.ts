import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/layers/types.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { mdCode } from '../../../src/report/markdown-text.js';
import type { Scorecard } from '../../../src/report/scorecard.js';
import { displayText } from '../../../src/util/display-text.js';
import {
  codeTexts,
  outsideCode,
  RENDERERS,
  renderGfm,
  SUMMARY_TAGS,
  tableRows,
  tagNames,
} from '../../helpers/gfm.js';

/** Every payload carries this marker, so where head text ended up can be found in the rendered page. */
const MARK = 'ZQX';

/** What a patch would put in a test name or a failure message to make summary.md say something else. */
const PAYLOADS = [
  `![${MARK} pixel](https://evil.example/pixel.png)`,
  `[${MARK} accept](https://evil.example/accept)`,
  `<img src="https://evil.example/${MARK}.png">`,
  `<a href="javascript:alert(1)">${MARK}</a>`,
  `<details open><summary>${MARK}</summary>hidden</details>`,
  `${MARK} https://evil.example/autolink`,
  `${MARK} www.evil.example`,
  `${MARK} mail@evil.example`,
  `${MARK} @octocat please merge`,
  `${MARK} fixes #123 and GH-7`,
  `${MARK} :shipit:`,
  `${MARK} *all* _tests_ ~~failed~~ passed`,
  `${MARK} \` one \`\` two \`\`\` three`,
  `\`${MARK}\``,
  `${MARK} | injected | cell |`,
  `${MARK} \\| escaped \\\\| double \\\\\\| triple`,
  `${MARK} line one\n| --- | --- |\n| forged | row |`,
  `${MARK} <!-- comment`,
  `${MARK} &lt;img src=x&gt; &#60;b&#62;`,
  `${MARK} \u009b31m csi \u001b[2J esc \u202e reversed \u2066 isolate`,
  `${MARK} [ref]: https://evil.example/ref`,
  `  ${MARK}  `,
];

function attackCard(payloads: readonly string[]): Scorecard {
  const findings: Finding[] = payloads.map((p, i) => ({
    code: 'UNKNOWN_FAILURE_SIGNATURE',
    layer: 'signatures',
    severity: i % 3 === 2 ? 'warn' : 'reject',
    message: `test ${p} failed: ${p}`,
    evidence: {
      file: `tests/${p}.py`,
      line: i + 1,
      test: p,
      template: p,
      ...(i % 2 === 0 ? { next: `rename ${p}` } : { override: p }),
    },
  }));
  return {
    schema: 'patchgate/scorecard@1',
    verdict: 'reject',
    base: { ref: payloads[0] ?? 'main', requested: 'a'.repeat(40), commit: 'b'.repeat(40) },
    head: { ref: payloads[1] ?? 'head', commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: false },
    // The patch's commits name whoever the patch likes, with whatever address and branch name.
    patch: {
      commits: payloads.length,
      authors: payloads.map((p, i) => ({
        name: p,
        email: i % 2 === 0 ? '' : p,
        roles: i % 3 === 0 ? ['co-author'] : ['author'],
        commits: 1,
      })),
      moreAuthors: 3,
      branch: payloads[2] ?? 'agent',
    },
    config: { file: 'patchgate.config.json', revision: 'base' },
    layers: [{ name: 'signatures', status: 'reject', findings: findings.length }],
    findings,
    overrides: payloads.map((p) => ({
      layer: 'fixtures',
      code: 'FIXTURE_CHANGED',
      path: p,
      variable: p,
    })),
    frozen: payloads.map((p) => ({
      layer: 'signatures',
      covers: p,
      matched: p,
      owner: p,
      expires: p,
      action: p,
      source: { file: 'flake_signatures.json', index: 0 },
    })),
    today: '2026-11-30',
    isolation: { mode: 'bwrap', user: 'separate' },
    timings: { revisionsMs: 0, setupMs: 0, cleanupMs: 0, totalMs: 5, layers: {} },
  };
}

/** What a code span must show for `s`: display-safe, line breaks as ↵, a backslash run before a pipe doubled. */
const shownInTable = (s: string) =>
  displayText(s)
    .replace(/\r?\n/g, ' ↵ ')
    .replace(/(\\+)\|/g, '$1$1|');

describe('summary.md rendered by a real GFM renderer', () => {
  for (const renderer of RENDERERS) {
    it(`shows head text only as code with ${renderer}: no link, image, raw HTML, autolink or mention`, () => {
      const html = renderGfm(renderMarkdown(attackCard(PAYLOADS)), renderer);
      for (const [tag] of tagNames(html))
        expect(SUMMARY_TAGS, `tag <${tag}> in the rendered summary`).toContain(tag);
      expect(html).not.toMatch(/<a\b|<img\b/i);
      // Outside code, nothing the patch wrote is left: a mention, an issue reference or an emoji shortcode
      // there would be GitHub's to act on.
      const live = outsideCode(html);
      expect(live).not.toMatch(/href=|src=/i);
      expect(live).not.toContain(MARK);
      expect(live).not.toMatch(/@octocat|#123|:shipit:|evil\.example/);
      // Each payload is shown whole in a code element: nothing is lost on the way.
      const codes = codeTexts(html);
      for (const p of PAYLOADS) expect(codes.some((c) => c.includes(shownInTable(p).trim()))).toBe(true);
    });

    it(`keeps every table row of the summary to its own cells with ${renderer}`, () => {
      const html = renderGfm(renderMarkdown(attackCard(PAYLOADS)), renderer);
      const widths = tableRows(html).map((r) => r.length);
      // layers (4 columns), findings (5), frozen (6): never a row that gained or lost a cell.
      expect(new Set(widths)).toEqual(new Set([4, 5, 6]));
      const findingRows = tableRows(html).filter((r) => r.length === 5 && r[1]?.startsWith('<code>UNKNOWN'));
      expect(findingRows).toHaveLength(PAYLOADS.length);
    });

    it(`keeps any string the patch writes inside its code span with ${renderer}`, () => {
      const alphabet = fc.constantFrom(
        ...'`|\\*_[]()!<>&#@:~\n -/.w'.split(''),
        'www.',
        'http://',
        '@a',
        '#1',
        '<img src=x>',
        '\u009b',
        '\u202e',
        MARK,
      );
      fc.assert(
        fc.property(fc.array(alphabet, { minLength: 1, maxLength: 24 }), (parts) => {
          const s = `${MARK}${parts.join('')}`;
          const md = `| a | b |\n| --- | --- |\n| ${mdCode(s)} | x |\n\nsee ${mdCode(s, { table: false })}\n`;
          const html = renderGfm(md, renderer);
          expect(html).not.toMatch(/<a\b|<img\b/);
          expect(outsideCode(html)).not.toContain(MARK);
          const rows = tableRows(html);
          expect(rows[1]).toHaveLength(2);
          expect(rows[1]?.[1]).toBe('x');
          expect(codeTexts(html)[0]).toBe(shownInTable(s).replace(/^ (.*) $/, '$1'));
        }),
        { numRuns: renderer === 'cmark-gfm' ? 150 : 400 },
      );
    });
  }
});
