import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HitRow } from '../../src/report/html/artifacts.js';
import { verdictReason } from '../../src/report/html.js';
import type { Scorecard } from '../../src/report/scorecard.js';
import { exampleFiles } from '../helpers/example-repo.js';
import { GitDir, runCli } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * report.html in a real browser (Debian's chromium, driven by
 * playwright-core): one gate run per example, shared by every assertion on
 * its report.
 */

const CHROMIUM = '/usr/bin/chromium';
const TODAY = '2026-12-01';
const screenshots = path.join(repoRoot, 'test-output');

let browser: Browser;
const outDirs: string[] = [];

beforeAll(async () => {
  // Running as root (CI, this container): chromium's own sandbox needs a user namespace per renderer.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  out: string;
  url: string;
  card: Scorecard;
  code: number;
}

/** The example on `main`, the patch applied and committed on `agent`, judged once by the built CLI. */
async function judge(example: string, patch: string, extra: string[] = []): Promise<Run> {
  const dir = path.join(repoRoot, 'examples', example);
  const repo = GitDir.create(exampleFiles(dir), 'initial');
  repo.git('checkout', '-q', '-b', 'agent');
  repo.git('apply', path.join(dir, 'patches', `${patch}.patch`));
  repo.commit(`agent: ${patch}`);
  // Not tempDir(): that one is removed after the first test, and every test here reads this report.
  const out = realpathSync(mkdtempSync(path.join(tmpdir(), 'pg-html-')));
  outDirs.push(out);
  const r = await runCli(
    ['check', '--base', 'main', '--head', 'agent', '--out', out, '--today', TODAY, ...extra],
    {
      cwd: repo.dir,
      env: { FIXTURE_OVERRIDE: undefined },
    },
  );
  expect(r.stdout).toContain(`${out}/scorecard.json, summary.md, report.html`);
  const card = readScorecard(out);
  return { out, url: pathToFileURL(path.join(out, 'report.html')).href, card, code: r.code };
}

interface Opened {
  page: Page;
  /** Every request the page made (there must be none off file://). */
  requests: string[];
  /** Console errors and uncaught exceptions: a script error, or a style or script the CSP blocked. */
  errors: string[];
}

async function open(run: Pick<Run, 'url'>, context?: BrowserContext): Promise<Opened> {
  const page = await (context ?? browser).newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(run.url);
  return { page, requests, errors };
}

const hitRows = (run: Run, side: string): HitRow[] =>
  JSON.parse(readFileSync(path.join(run.out, `hit_report.${side}.json`), 'utf8'));

describe('report.html of examples/invoice 04-total-ignores-lines (HIT_SURFACE_SHRANK)', () => {
  let run: Run;
  let page: Page;
  let requests: string[];
  let errors: string[];
  beforeAll(async () => {
    run = await judge('invoice', '04-total-ignores-lines');
    ({ page, requests, errors } = await open(run));
  }, 180_000);
  afterAll(async () => {
    await page?.close();
  });

  it('is the run the report describes: a rejection for a hit surface that shrank', () => {
    expect(run.code).toBe(1);
    expect(run.card.verdict).toBe('reject');
    expect(run.card.findings.map((f) => f.code)).toContain('HIT_SURFACE_SHRANK');
  });

  it('opens from file:// and fetches nothing else; its own style and script pass its CSP', async () => {
    expect(requests.length).toBeGreaterThan(0);
    for (const url of requests) expect(url).toMatch(/^file:\/\//);
    // The stylesheet applied (a CSP-blocked one would leave the verdict unstyled) and the script ran.
    expect(await page.evaluate('getComputedStyle(document.getElementById("verdict")).borderLeftStyle')).toBe(
      'solid',
    );
    await expect.poll(() => page.locator('#finding-filter').isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('shows the verdict and its one-line reason first, then the layers in gate order with times', async () => {
    await expect(page.title()).resolves.toBe('patchgate: reject · agent');
    expect(await page.locator('h1').innerText()).toBe('patchgate: reject');
    const reason = await page.locator('#verdict-reason').innerText();
    expect(reason).toBe(verdictReason(run.card));
    expect(reason).toMatch(/^reject: 3 findings block the merge — .*HIT_SURFACE_SHRANK/);
    const layers = await page.locator('#layers tbody tr th[scope="row"]').allInnerTexts();
    expect(layers).toEqual(run.card.layers.map((l) => l.name));
    expect(await page.locator('#layers tr[data-layer="hits"]').innerText()).toMatch(
      /reject\s+3\s+[\d.]+ (ms|s)/,
    );
  });

  it('draws the heatmap with a row per property, base and head side by side, and a lost-since-base cell', async () => {
    const properties = [
      ...new Set([...hitRows(run, 'base'), ...hitRows(run, 'head')].map((r) => r.property)),
    ];
    expect(properties.length).toBeGreaterThan(1);
    for (const side of ['base', 'head']) {
      const rows = page.locator(`table.heatmap[data-side="${side}"] tbody th[scope="row"] code`);
      expect(await rows.allInnerTexts()).toEqual(properties);
    }
    const lost = page.locator('table.heatmap[data-side="head"] button.s-lost');
    expect(await lost.count()).toBeGreaterThan(0);
    expect(await lost.first().getAttribute('aria-label')).toMatch(
      /^invoice_total_matches_lines, \S+: lost since base .*\(head\)$/,
    );
    // Base and head sit next to each other on a wide screen.
    const base = await page.locator('section.side-base').boundingBox();
    const head = await page.locator('section.side-head').boundingBox();
    expect(base && head && head.x > base.x && Math.abs(head.y - base.y) < 5).toBe(true);
  });

  it("shows a cell's operators in the details panel on click", async () => {
    const row = hitRows(run, 'head').find((r) => r.property === 'invoice_lines_are_positive');
    const ops = row?.hit_operators['lines[0].qty'];
    expect(ops?.length).toBeGreaterThan(0);
    await page
      .locator(
        'table.heatmap[data-side="head"] button.cell[data-property="invoice_lines_are_positive"][data-path="lines[0].qty"]',
      )
      .click();
    const panel = page.locator('#cell-detail');
    await expect
      .poll(() => panel.locator('h3').innerText())
      .toBe('invoice_lines_are_positive · lines[0].qty');
    expect(await panel.locator('ul.ops li').allInnerTexts()).toEqual(ops);
    expect(await panel.getAttribute('aria-live')).toBe('polite');

    // A lost cell lists what made it fail on the base.
    const baseOps = hitRows(run, 'base').find((r) => r.property === 'invoice_total_matches_lines')
      ?.hit_operators.total_cents;
    await page
      .locator(
        'table.heatmap[data-side="head"] button.s-lost[data-property="invoice_total_matches_lines"][data-path="total_cents"]',
      )
      .click();
    await expect.poll(() => panel.locator('h4').innerText()).toBe('operators that made it fail on the base');
    expect(await panel.locator('ul.ops li').allInnerTexts()).toEqual(baseOps);
  });

  it('reaches cells with the keyboard: Tab moves between them, Enter opens one', async () => {
    const cells = page.locator('table.heatmap[data-side="base"] button.cell');
    await cells.nth(0).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(
      await cells.nth(1).getAttribute('aria-label'),
    );
    const property = await cells.nth(1).getAttribute('data-property');
    const cellPath = await cells.nth(1).getAttribute('data-path');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#cell-detail h3').innerText()).toBe(`${property} · ${cellPath}`);
  });

  it('filters the findings by code and by layer', async () => {
    const all = page.locator('#finding-list > li.finding');
    expect(await all.count()).toBe(run.card.findings.length);
    await expect.poll(() => page.locator('#finding-filter').isVisible()).toBe(true);
    await page.locator('#filter-code').selectOption('FALSE_CLAIM');
    const visible = page.locator('#finding-list > li.finding:visible');
    const want = run.card.findings.filter((f) => f.code === 'FALSE_CLAIM').length;
    await expect.poll(() => visible.count()).toBe(want);
    for (const code of await visible.locator('h3 code.code').allInnerTexts())
      expect(code).toBe('FALSE_CLAIM');
    expect(await page.locator('#finding-count').innerText()).toBe(
      `${want} of ${run.card.findings.length} shown`,
    );
    await page.locator('#filter-code').selectOption('');
    await page.locator('#filter-layer').selectOption('hits');
    await expect.poll(() => visible.count()).toBe(run.card.findings.filter((f) => f.layer === 'hits').length);
    await page.locator('#filter-layer').selectOption('');
    await expect.poll(() => visible.count()).toBe(run.card.findings.length);
  });

  it('shows each finding with its evidence and next step', async () => {
    const shrank = page.locator('#finding-list > li[data-code="HIT_SURFACE_SHRANK"]');
    expect(await shrank.locator('dl.evidence dt').allInnerTexts()).toEqual(
      expect.arrayContaining(['property', 'lostPaths', 'baseHits', 'headHits']),
    );
    expect(await shrank.locator('.next').innerText()).toContain('patchgate explain HIT_SURFACE_SHRANK');
  });

  it('follows the colour scheme: dark has another background than light', async () => {
    const background = async (colorScheme: 'light' | 'dark') => {
      const context = await browser.newContext({ colorScheme });
      try {
        const { page: p } = await open(run, context);
        return await p.evaluate('getComputedStyle(document.body).backgroundColor');
      } finally {
        await context.close();
      }
    };
    const light = await background('light');
    const dark = await background('dark');
    expect(light).toBe('rgb(255, 255, 255)');
    expect(dark).not.toBe(light);
  });

  it('shows the verdict and every finding without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const { page: p } = await open(run, context);
      expect(await p.locator('#verdict-reason').isVisible()).toBe(true);
      expect(await p.locator('#verdict-reason').innerText()).toBe(verdictReason(run.card));
      const findings = p.locator('#finding-list > li.finding');
      expect(await findings.count()).toBe(run.card.findings.length);
      for (let i = 0; i < run.card.findings.length; i++) {
        expect(await findings.nth(i).isVisible()).toBe(true);
        expect(await findings.nth(i).locator('.message').innerText()).toBe(run.card.findings[i]?.message);
      }
      // Controls that would do nothing without the script are not shown.
      expect(await p.locator('#finding-filter').isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('saves a screenshot in test-output/', async () => {
    mkdirSync(screenshots, { recursive: true });
    const file = path.join(screenshots, 'report.png');
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.screenshot({ path: file, fullPage: true });
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('report.html of examples/python-invoice 07-claim-cell-dropped (claims.json, frozen flakes)', () => {
  let run: Run;
  let page: Page;
  beforeAll(async () => {
    // --all-layers: the stability layer runs after the contracts rejection too, so its freeze is listed.
    run = await judge('python-invoice', '07-claim-cell-dropped', ['--all-layers']);
    ({ page } = await open(run));
  }, 240_000);
  afterAll(async () => {
    await page?.close();
  });

  it('shows the claim matrix with C1–C3, and the patch’s emptied cell marked', async () => {
    expect(run.card.verdict).toBe('reject');
    const ids = await page.locator('#claims-base tbody th[scope="row"] code').allInnerTexts();
    expect(ids).toEqual(['C1', 'C2', 'C3']);
    expect(await page.locator('#claims-base td.c-bad').count()).toBe(0);
    const emptied = page.locator('#claims-head tr[data-claim="C2"] td.c-empty');
    expect(await emptied.getAttribute('aria-label')).toBe('C2 property: empty');
    expect(await emptied.innerText()).toContain('empty');
  });

  it('lists the frozen flakes in the freeze table with owner, expiry and action', async () => {
    expect(run.card.frozen.length).toBeGreaterThan(0);
    const table = page.locator('table.freezes');
    for (const z of run.card.frozen) {
      const row = table.locator('tbody tr', { hasText: z.covers }).filter({ hasText: z.owner });
      expect(await row.count(), z.covers).toBeGreaterThan(0);
      expect(await row.first().innerText()).toContain(z.expires);
    }
    const covers = await table.locator('tbody th[scope="row"]').allInnerTexts();
    expect(covers).toEqual(
      expect.arrayContaining([
        'pytest::tests.test_known_issues::test_legacy_rounding',
        'pytest::tests.test_known_issues::test_rate_cache_warmup',
      ]),
    );
    // The claim matrix's freeze windows are freezes too.
    expect(await table.locator('tbody tr', { hasText: 'claim freeze window' }).count()).toBe(3);
  });

  it('has no heatmap when the hits layer did not run', async () => {
    expect(await page.locator('#hits').count()).toBe(0);
    expect(await page.locator('nav.toc a').allInnerTexts()).not.toContain('hit matrix');
  });
});

describe('report.html with text a hostile patch wrote', () => {
  it('shows a <script>, </style> or <img onerror> in a test name or message as text, and runs none of it', async () => {
    const { renderHtml } = await import('../../src/report/html.js');
    const payload =
      '</script><script>window.pwned = 1</script></style><style>body{display:none}</style><img src=x onerror="window.pwned = 2">';
    const card: Scorecard = {
      schema: 'patchgate/scorecard@1',
      verdict: 'reject',
      base: { ref: 'main', requested: 'a'.repeat(40), commit: 'b'.repeat(40) },
      head: { ref: payload, commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: false },
      config: { file: 'patchgate.config.json', revision: 'base' },
      layers: [{ name: 'signatures', status: 'reject', findings: 1 }],
      findings: [
        {
          code: 'UNFROZEN_SKIP',
          layer: 'signatures',
          severity: 'reject',
          message: `test ${payload} was skipped`,
          evidence: { test: `pytest::t::${payload}`, next: payload },
        },
      ],
      overrides: [],
      frozen: [
        {
          layer: 'signatures',
          covers: payload,
          matched: payload,
          owner: payload,
          expires: '2027-01-01',
          action: payload,
          source: { file: 'flake_signatures.json', index: 0 },
        },
      ],
      today: TODAY,
      isolation: { mode: 'bwrap', user: 'separate' },
      timings: { totalMs: 1, revisionsMs: 0, setupMs: 0, cleanupMs: 0, layers: {} },
    };
    const hits = [
      {
        property: payload,
        baseline: 'pass',
        hit_count: 1,
        hits: [payload],
        claimed: [],
        false_claims: [],
        unclaimed_hits: [payload],
        hit_operators: { [payload]: [payload] },
        fixture: payload,
        source: payload,
      },
    ];
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'pg-html-attack-')));
    outDirs.push(dir);
    const file = path.join(dir, 'report.html');
    writeFileSync(
      file,
      renderHtml(card, [
        { name: 'hit_report.base.json', content: JSON.stringify(hits) },
        { name: 'hit_report.head.json', content: JSON.stringify(hits) },
      ]),
    );
    const { page, requests, errors } = await open({ url: pathToFileURL(file).href });
    try {
      expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
      expect(await page.locator('body').isVisible()).toBe(true);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(1);
      expect(await page.locator('style').count()).toBe(1);
      expect(await page.locator('#finding-list .message').innerText()).toBe(`test ${payload} was skipped`);
      expect(await page.locator('#finding-list .next > span').innerText()).toBe(payload);
      // The cell's panel writes the payload as text too.
      await page.locator('table.heatmap[data-side="head"] button.cell').click();
      await expect.poll(() => page.locator('#cell-detail ul.ops li').innerText()).toBe(payload);
      expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
      for (const url of requests) expect(url).toMatch(/^file:\/\//);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
