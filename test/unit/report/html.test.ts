import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Artifact, Finding, FrozenItem } from '../../../src/layers/types.js';
import { readArtifacts } from '../../../src/report/html/artifacts.js';
import { expiryOf } from '../../../src/report/html/freezes.js';
import { cellOf, comparePaths } from '../../../src/report/html/heatmap.js';
import { renderHtml, verdictReason } from '../../../src/report/html.js';
import { type Scorecard, verdictOf } from '../../../src/report/scorecard.js';

const finding = (over: Partial<Finding> & Pick<Finding, 'code'>): Finding => ({
  layer: 'hits',
  severity: 'reject',
  message: `${over.code} message`,
  evidence: {},
  ...over,
});

const frozenItem = (covers: string, expires: string, layer = 'signatures'): FrozenItem => ({
  layer,
  covers,
  matched: 'AssertionError|boom',
  owner: 'payments',
  expires,
  action: 'fix it, then delete this row',
  source: { file: 'flake_signatures.json', index: 0, line: 3 },
});

function card(findings: Finding[], over: Partial<Scorecard> = {}): Scorecard {
  return {
    schema: 'patchgate/scorecard@1',
    verdict: verdictOf(findings),
    base: { ref: 'main', requested: 'a'.repeat(40), commit: 'b'.repeat(40) },
    head: { ref: 'agent', commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: false },
    config: { file: 'patchgate.config.json', revision: 'base' },
    layers: [
      { name: 'contracts', status: 'pass', findings: 0 },
      { name: 'hits', status: findings.length > 0 ? 'reject' : 'pass', findings: findings.length },
      { name: 'claims', status: 'skipped', findings: 0, reason: 'not enabled in patchgate.config.json' },
    ],
    findings,
    overrides: [],
    frozen: [],
    today: '2026-12-01',
    isolation: { mode: 'bwrap', user: 'separate' },
    timings: {
      totalMs: 5081,
      revisionsMs: 698,
      setupMs: 0,
      cleanupMs: 22,
      layers: { contracts: 1, hits: 3125 },
    },
    ...over,
  };
}

const row = (over: Record<string, unknown>) => ({
  property: 'p',
  baseline: 'pass',
  hit_count: 0,
  hits: [],
  claimed: [],
  false_claims: [],
  unclaimed_hits: [],
  hit_operators: {},
  fixture: 'fixtures/lock.json',
  source: 'properties/p.property.ts',
  ...over,
});

const hitArtifacts = (base: unknown[], head: unknown[]): Artifact[] => [
  { name: 'hit_report.base.json', content: JSON.stringify(base) },
  { name: 'hit_report.head.json', content: JSON.stringify(head) },
];

const count = (html: string, needle: string) => html.split(needle).length - 1;
/** The markup of the element with this id, through its matching closing tag. */
const section = (html: string, id: string, tag = 'section') => {
  const at = html.indexOf(` id="${id}"`);
  const start = at === -1 ? -1 : html.lastIndexOf(`<${tag}`, at);
  if (start === -1) return '';
  const re = new RegExp(`<${tag}[\\s>]|</${tag}>`, 'g');
  re.lastIndex = start;
  let depth = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[0].startsWith('</') ? -1 : 1;
    if (depth === 0) return html.slice(start, m.index + m[0].length);
  }
  return html.slice(start);
};

const ATTACK = '<script>alert(1)</script>';

describe('renderHtml: text the patch wrote is inert', () => {
  const evil = [
    finding({
      code: 'UNFROZEN_SKIP',
      layer: 'signatures',
      message: `test ${ATTACK} was skipped </script><img src=x onerror=alert(2)>`,
      evidence: {
        test: `pytest::t::test_${ATTACK}`,
        note: '</style><style>body{display:none}</style>',
        quote: '" onmouseover="alert(3)',
        next: `patchgate signatures add --test '</script>'`,
      },
    }),
  ];
  const html = renderHtml(
    card(evil, { frozen: [frozenItem('pytest::t::</style><script>alert(4)</script>', '2027-03-31')] }),
    hitArtifacts(
      [row({ property: `"><script>alert(5)</script>`, hit_count: 1, hits: ['a'], claimed: ['a'] })],
      [row({ property: `"><script>alert(5)</script>`, hit_count: 0 })],
    ),
  );

  it('shows a <script> or </script> in a message, evidence, test name or property as text', () => {
    expect(html).toContain('test &lt;script&gt;alert(1)&lt;/script&gt; was skipped &lt;/script&gt;&lt;img');
    expect(html).toContain('pytest::t::test_&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt;');
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(5)&lt;/script&gt;');
    expect(html).not.toContain('alert(1)</script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('" onmouseover="');
  });

  it('holds exactly the one inline script and the one style it wrote', () => {
    expect(count(html, '<script')).toBe(1);
    expect(count(html, '</script>')).toBe(1);
    expect(count(html, '<style')).toBe(1);
    expect(count(html, '</style>')).toBe(1);
    expect(html.trimEnd().endsWith('</script>\n</body>\n</html>')).toBe(true);
  });

  it('allows only that script and that style to run, by hash, and nothing to be fetched', () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1] ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const b64 = (s: string) => createHash('sha256').update(s).digest('base64');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src 'sha256-${b64(script)}'`);
    expect(csp).toContain(`style-src 'sha256-${b64(style)}'`);
    expect(csp).not.toContain('unsafe-inline');
  });
});

describe('renderHtml: one self-contained file', () => {
  const render = () =>
    renderHtml(
      card([
        finding({
          code: 'FIXTURE_CHANGED',
          layer: 'fixtures',
          message: 'see https://example.com/evil.js and http://cdn.example.com/x.css',
          evidence: { path: 'testdata/a.json', url: 'https://example.com/evil.js' },
        }),
      ]),
      hitArtifacts([row({ hits: ['a'], hit_count: 1 })], [row({ hits: ['a'], hit_count: 1 })]),
    );
  const html = render();

  it('references no network resource (src, href, action, url(), @import)', () => {
    expect(html).not.toMatch(/\b(?:src|href|action|srcset|poster|data)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/<(?:link|iframe|object|embed|img)\b/i);
    // A URL the patch wrote is text, never a link.
    expect(html).toContain('see https://example.com/evil.js');
    for (const href of html.matchAll(/href="([^"]*)"/g)) expect(href[1]).toMatch(/^#/);
  });

  it('is the same bytes for the same inputs', () => {
    const again = render();
    expect(again).toBe(html);
  });
});

describe('renderHtml: the verdict first', () => {
  it('says why in one line, naming the codes that block', () => {
    const c = card([
      finding({ code: 'HIT_SURFACE_SHRANK' }),
      finding({ code: 'FALSE_CLAIM' }),
      finding({ code: 'FALSE_CLAIM' }),
      finding({ code: 'UNCLAIMED_HIT', severity: 'warn' }),
    ]);
    expect(verdictReason(c)).toBe('reject: 3 findings block the merge — HIT_SURFACE_SHRANK, FALSE_CLAIM ×2');
    const html = renderHtml(c);
    expect(html.indexOf('id="verdict-reason"')).toBeLessThan(html.indexOf('id="layers"'));
    expect(html).toContain('<title>patchgate: reject · agent</title>');
    expect(verdictReason(card([]))).toBe('accept: no finding blocks the merge');
    expect(verdictReason(card([finding({ code: 'UNCLAIMED_HIT', severity: 'warn' })]))).toBe(
      'accept: no finding blocks the merge (1 warning recorded)',
    );
    expect(verdictReason(card([finding({ code: 'INTERNAL_ERROR', severity: 'error' })]))).toBe(
      'error: the gate could not decide (1 error: INTERNAL_ERROR); an error is never an accept',
    );
  });

  it('lists every layer in gate order with its status and time', () => {
    const html = section(renderHtml(card([finding({ code: 'ZERO_HIT' })])), 'layers');
    const names = [...html.matchAll(/<tr class="layer[^"]*" data-layer="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(['contracts', 'hits', 'claims']);
    expect(html).toContain('3.1 s');
    expect(html).toContain('not enabled in patchgate.config.json');
    expect(html).toMatch(/<th scope="row">hits<\/th>\s*<td><span class="badge status-reject">/);
  });
});

describe('renderHtml: sections follow the artifacts', () => {
  it('leaves out the hit matrix, fixture diff, claim matrix and freezes when nothing feeds them', () => {
    const html = renderHtml(card([finding({ code: 'CONTRACT_TOUCHED', layer: 'contracts' })]));
    for (const id of ['hits', 'fixtures', 'claims', 'freezes', 'seeds'])
      expect(html, id).not.toContain(`<section id="${id}"`);
    expect(html).toContain('<section id="findings"');
    expect(html).not.toContain('href="#hits"');
  });

  it('draws the hit matrix from the hit reports: every state, a zero-hit row, the overlay beside', () => {
    const base = [
      row({
        property: 'total',
        hit_count: 3,
        hits: ['lines', 'total_cents', 'currency'],
        claimed: ['lines', 'total_cents'],
        hit_operators: {
          lines: ['arr.empty'],
          total_cents: ['num.inc', 'num.zero'],
          currency: ['str.empty'],
        },
      }),
      row({
        property: 'decor',
        hit_count: 1,
        hits: ['lines'],
        claimed: ['lines'],
        hit_operators: { lines: ['to_null'] },
      }),
    ];
    const head = [
      row({
        property: 'total',
        hit_count: 2,
        hits: ['total_cents', 'currency'],
        claimed: ['lines', 'total_cents'],
        false_claims: ['lines'],
        unclaimed_hits: ['currency'],
        hit_operators: { total_cents: ['num.inc'], currency: ['str.empty'] },
      }),
      row({ property: 'decor', hit_count: 0, claimed: ['lines'], false_claims: ['lines'] }),
    ];
    const artifacts = [
      ...hitArtifacts(base, head),
      { name: 'hit_report.overlay.json', content: JSON.stringify(head) },
    ];
    const html = section(renderHtml(card([]), artifacts), 'hits');
    expect(html).toContain('<table class="heatmap" data-side="base">');
    expect(html).toContain('<table class="heatmap" data-side="head">');
    expect(html).toContain('<table class="heatmap" data-side="overlay">');
    const head_ = html.slice(html.indexOf('data-side="head"'), html.indexOf('data-side="overlay"'));
    expect(head_).toContain('aria-label="total, lines: lost since base');
    expect(head_).toContain('aria-label="total, currency: unclaimed hit');
    expect(head_).toMatch(
      /aria-label="total, total_cents: hit [^"]*, by fewer operators than on the base \(head\)"/,
    );
    expect(head_).toContain('data-lost-ops="[&quot;num.zero&quot;]"');
    expect(head_).toContain('aria-label="decor, lines: lost since base');
    expect(head_).toMatch(
      /<tr class="prop-row zero-hit"><th scope="row" class="prop zero-hit"><code>decor<\/code> <span class="badge zero">zero hits<\/span>/,
    );
    // Every cell is a keyboard-reachable button that says what it is.
    const buttons = count(html, '<button type="button" class="cell');
    expect(buttons).toBeGreaterThan(0);
    expect([...html.matchAll(/<button type="button" class="cell[^"]*" aria-label="[^"]+"/g)]).toHaveLength(
      buttons,
    );
    expect(html).toContain('id="cell-detail" class="panel" role="status" aria-live="polite"');
    expect(html).toContain('class="legend"');
  });

  it('draws a changed fixture as the values that moved', () => {
    const html = renderHtml(
      card([
        finding({
          code: 'FIXTURE_CHANGED',
          layer: 'fixtures',
          evidence: {
            path: 'testdata/invoice.json',
            owner: 'payments',
            format: 'json',
            changes: [
              { key: 'total_cents', from: '1499', to: '1500' },
              { key: 'lines[2]', from: null, to: '{"qty":1}' },
            ],
            more: 4,
          },
        }),
      ]),
    );
    const diff = section(html, 'fixtures');
    expect(diff).toMatch(
      /<th scope="row"><code><span>total_cents<\/span><\/code><\/th><td class="from"><code><span>1499<\/span><\/code><\/td>/,
    );
    expect(diff).toContain('<td class="to"><code><span>1500</span></code></td>');
    expect(diff).toContain('(added)');
    expect(diff).toContain('4 more changes not listed');
    expect(diff).toContain('<code>testdata/invoice.json</code>');
  });

  it('draws the claim matrix with the cells that are not bound marked', () => {
    const claims = {
      schema: 'patchgate/claims@1',
      ledger: 'freeze/ledger.json',
      window_runs: 20,
      claims: [
        {
          id: 'C1',
          statement: 'totals add up',
          source: { file: 'claims/invoice.yaml', index: 0, line: 5 },
          cells: {
            fixture: { value: 'testdata/a.tsv', status: 'bound', detail: { digest: 'f'.repeat(64) } },
            property: { status: 'empty' },
            freeze: { value: 'freeze/ledger.json#c1', status: 'blocked', why: 'is blocked', detail: {} },
          },
          statement_problems: ['vague'],
        },
      ],
    };
    const blocked = finding({
      code: 'FREEZE_BLOCKED',
      layer: 'claims',
      evidence: {
        claim: 'C1',
        freeze: 'c1',
        ledgerLine: 9,
        next: 'patchgate freeze reopen c1 --reason TEXT --owner WHO',
      },
    });
    const html = renderHtml(card([blocked]), [{ name: 'claims.json', content: JSON.stringify(claims) }]);
    const matrix = section(html, 'claims');
    expect(matrix).toContain('<th scope="row"><code>C1</code>');
    expect(matrix).toContain('class="claim-cell c-bound"');
    expect(matrix).toContain('class="claim-cell c-empty c-bad" aria-label="C1 property: empty"');
    expect(matrix).toContain('class="claim-cell c-blocked c-bad"');
    expect(matrix).toContain('<li>vague</li>');
    // A blocked claim freeze is a row of the freeze table too.
    const freezes = section(html, 'freezes');
    expect(freezes).toMatch(/claim freeze window[\s\S]*<code><span>C1<\/span><\/code>[\s\S]*blocked/);
    // The finding and the matrix cell are one freeze: one row, with the finding's next step.
    expect(count(freezes, '<tr class="freeze')).toBe(1);
    expect(freezes).toContain('patchgate freeze reopen c1 --reason TEXT --owner WHO');
    expect(freezes).toContain('<code>freeze/ledger.json#c1 (line 9)</code>');
  });

  it('draws the mutation probe per changed function, base and head side by side, the shrunk mutant marked', () => {
    const verdict = (status: string, by?: string[]) => ({ status, ...(by ? { by } : {}) });
    const report = {
      scope: 'affected',
      testFiles: ['tests/test_cart.py'],
      skipped: 3,
      defeats: [],
      functions: [
        {
          file: 'src/cart.py',
          function: 'total',
          changed: [5],
          onBase: true,
          skipped: 0,
          mutants: [
            {
              id: 'a',
              operator: 'drop-statement',
              line: 4,
              original: 'result += p',
              mutated: 'pass',
              base: verdict('killed', ['t::total']),
              head: verdict('survived'),
            },
            {
              id: 'b',
              operator: 'raise',
              line: 5,
              original: 'return <b>',
              mutated: 'raise',
              base: verdict('killed'),
              head: verdict('killed', ['t::total']),
            },
            {
              id: 'd',
              operator: 'constant-return',
              line: 6,
              original: 'return result',
              mutated: 'return 0',
              onBase: true,
              base: verdict('not-run'),
              head: verdict('killed', ['t::total']),
            },
          ],
        },
        {
          file: 'src/cart.py',
          function: 'median',
          changed: [9],
          onBase: false,
          skipped: 0,
          mutants: [
            {
              id: 'c',
              operator: 'raise',
              line: 9,
              original: 'return s',
              mutated: 'raise',
              onBase: false,
              base: verdict('not-run'),
              head: verdict('survived'),
            },
          ],
        },
      ],
    };
    const html = renderHtml(card([]), [{ name: 'mutation.json', content: JSON.stringify(report) }]);
    const s = section(html, 'mutation');
    expect(html).toContain('<a href="#mutation">mutation probe</a>');
    expect(s).toContain('1 test file of the base that reach the changed files');
    expect(s).toContain('3 mutants over the budget');
    expect(s).toMatch(
      /<code>total<\/code>[\s\S]*2 killed · 0 survived[\s\S]*2 killed · 1 survived[\s\S]*kill surface shrank/,
    );
    // Why a base cell is empty: the head's code killed the mutant, or the base has no such mutant.
    expect(s).toContain('not needed: killed on the head');
    expect(s).toContain('not on the base');
    expect(count(s, 'class="mutant mutant-shrank"')).toBe(1);
    expect(s).toContain('t::total');
    expect(s).toContain('&lt;b&gt;');
    expect(s).toMatch(/<code>median<\/code>[\s\S]*new in the patch[\s\S]*unseen/);
  });

  it('names an artifact it could not read instead of failing', () => {
    const html = renderHtml(card([]), [{ name: 'claims.json', content: '{not json' }]);
    expect(html).toContain('Could not read <code>claims.json</code>');
    expect(html).not.toContain('<section id="claims"');
  });
});

describe('renderHtml: freezes', () => {
  it('highlights expired rows and rows within 14 days of today', () => {
    const html = section(
      renderHtml(
        card([], {
          frozen: [
            frozenItem('pytest::t::old', '2026-11-30'),
            frozenItem('pytest::t::soon', '2026-12-15', 'stability'),
            frozenItem('invoice_total', '2027-03-31', 'hits'),
          ],
        }),
      ),
      'freezes',
    );
    const stateOf = (covers: string) => {
      const at = html.indexOf(covers);
      return html.slice(html.lastIndexOf('<tr class="freeze', at), at);
    };
    expect(stateOf('pytest::t::old')).toContain('exp-expired');
    expect(stateOf('pytest::t::soon')).toContain('exp-near');
    expect(stateOf('invoice_total')).toContain('exp-ok');
    expect(html).toContain('expired 1 day ago');
    expect(html).toContain('expires in 14 days');
    expect(html).toContain('signature freeze');
    expect(html).toContain('flake ledger (hits)');
    expect(html).toContain('<code>flake_signatures.json:3</code>');
  });

  it('counts days on the calendar, a freeze holding through its expiry day', () => {
    expect(expiryOf('2026-12-01', '2026-12-01')).toEqual({ state: 'near', text: 'expires today' });
    expect(expiryOf('2026-12-15', '2026-12-01').state).toBe('near');
    expect(expiryOf('2026-12-16', '2026-12-01')).toEqual({ state: 'ok', text: '15 days left' });
    expect(expiryOf('2027-01-02', '2026-12-31').text).toBe('expires in 2 days');
    expect(expiryOf('2026-02-31', '2026-01-01').state).toBe('expired');
    expect(expiryOf('soon', '2026-01-01').state).toBe('expired');
  });
});

describe('renderHtml: findings', () => {
  const long = 'x'.repeat(1000);
  const findings = [
    finding({ code: 'CONTRACT_TOUCHED', layer: 'contracts', evidence: { path: 'FIXTURE_LOCK.json' } }),
    finding({
      code: 'REGRESSION',
      layer: 'regression',
      evidence: { test: 't', override: 'TESTS_OVERRIDE' },
    }),
    finding({
      code: 'FREEZE_BLOCKED',
      layer: 'claims',
      evidence: { claim: 'C3', freeze: 'f', next: 'patchgate freeze reopen f --reason TEXT --owner WHO' },
    }),
    finding({
      code: 'FIXTURE_CHANGED',
      layer: 'fixtures',
      severity: 'warn',
      evidence: {
        path: 'testdata/x.json',
        blob: long,
        list: ['a', 'b'],
        nested: { deep: [1, 2] },
        records: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, to: null })),
      },
    }),
  ];
  const html = renderHtml(
    card(findings, {
      overrides: [
        { layer: 'fixtures', code: 'FIXTURE_CHANGED', path: 'testdata/x.json', variable: 'FIXTURE_OVERRIDE' },
      ],
    }),
  );
  const list = section(html, 'finding-list', 'ol');

  it('puts every finding in the markup, shown without JavaScript; the filters wait for the script', () => {
    expect(count(list, '<li class="finding')).toBe(4);
    expect(list).not.toMatch(/<li[^>]* hidden/);
    for (const f of findings) expect(list).toContain(`${f.code} message`);
    expect(html).toMatch(/<form id="finding-filter" class="filters" hidden>/);
    expect(html).toContain('<option value="contracts">contracts</option>');
    expect(html).toContain('<option value="FREEZE_BLOCKED">FREEZE_BLOCKED</option>');
    expect(list).toContain('data-layer="claims" data-code="FREEZE_BLOCKED"');
  });

  it('highlights the next step: the layer’s own, the override that accepted it, or explain', () => {
    expect(list).toContain(
      '<p class="next"><strong>Next step:</strong> <span>patchgate freeze reopen f --reason TEXT --owner WHO</span></p>',
    );
    expect(list).toContain('<strong>Accepted by a human override:</strong> <code>FIXTURE_OVERRIDE</code>');
    expect(list).toContain('<code>patchgate explain CONTRACT_TOUCHED</code>');
    expect(list).toContain(
      '<strong>Next step:</strong> fix the patch, or a human job (never the patch) may accept it by setting <code>TESTS_OVERRIDE</code>.',
    );
    expect(list).not.toContain('<dt>next</dt>');
  });

  it('shows evidence as a definition list, a 1,000-character value cut behind "show more"', () => {
    expect(list).toContain('<dt>path</dt><dd><span>testdata/x.json</span></dd>');
    expect(list).toContain('<dt>list</dt><dd><span>a, b</span> <span class="note">(2)</span></dd>');
    expect(list).toContain(
      `<span>${'x'.repeat(240)}…</span><details class="more"><summary>show more (1000 characters)</summary>`,
    );
    // Shown outside the folded part: 240 characters, never the whole 1,000.
    expect(list.replace(/<details class="more">[\s\S]*?<\/details>/g, '')).not.toMatch(/x{241}/);
    expect(list).toContain(
      '<dt>records</dt><dd><ul class="items"><li><span>{&quot;key&quot;:&quot;k0&quot;,&quot;to&quot;:null}</span></li>',
    );
    expect(list).toContain('<details class="more"><summary>show 2 more</summary>');
    expect(list).toContain('<dt>nested</dt><dd><dl class="evidence"><dt>deep</dt><dd><span>1, 2</span>');
  });
});

describe('heatmap cells', () => {
  const base = row({ hits: ['a', 'b'], claimed: ['a'], hit_operators: { a: ['x', 'y'], b: ['z'] } });
  it('tells hit, unclaimed, false claim and lost since base apart', () => {
    const head = row({ hits: ['a'], claimed: ['a', 'c'], hit_operators: { a: ['x'] } });
    expect(cellOf(head, base, 'a')).toEqual({ state: 'hit', ops: ['x'], lostOps: ['y'] });
    expect(cellOf(head, base, 'b')).toEqual({ state: 'lost', ops: [], lostOps: ['z'] });
    expect(cellOf(head, base, 'c')?.state).toBe('false-claim');
    expect(cellOf(base, undefined, 'b')?.state).toBe('unclaimed');
    expect(cellOf(base, undefined, 'c')).toBeUndefined();
    // A property the head removed lost every hit it had.
    expect(cellOf(undefined, base, 'a')?.state).toBe('lost');
  });

  it('orders paths as a reader would', () => {
    expect(['lines[10]', 'lines', 'lines[2].qty', 'lines[2]', 'currency'].sort(comparePaths)).toEqual([
      'currency',
      'lines',
      'lines[2]',
      'lines[2].qty',
      'lines[10]',
    ]);
  });

  it('reads only the artifacts it knows, tolerating odd shapes', () => {
    const inputs = readArtifacts([
      { name: 'hit_report.head.json', content: JSON.stringify([row({}), 7, { nope: 1 }]) },
      { name: 'hit_report.base.json', content: '{}' },
      {
        name: 'seed_replay.json',
        content: JSON.stringify({ tape: 't', replays: [{ property: 'p', seed: 1, status: 'pass' }] }),
      },
      { name: 'overlay.json', content: 'whatever' },
    ]);
    expect(inputs.hits.head).toHaveLength(1);
    expect(inputs.hits.base).toBeUndefined();
    expect(inputs.unreadable).toEqual(['hit_report.base.json']);
    expect(inputs.seeds[0]?.replays[0]?.seed).toBe('1');
  });
});
