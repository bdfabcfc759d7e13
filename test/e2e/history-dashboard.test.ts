/**
 * `patchgate history dashboard` in a real browser (Debian's chromium, driven
 * by playwright-core): a history written by the gate's own writer, with names
 * a hostile patch would choose, rendered by the CLI and read back as a
 * reviewer's browser shows it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryKeyOf } from '../../src/history/repository.js';
import type { HistoryRun } from '../../src/history/run.js';
import { historyLocation, openHistory } from '../../src/history/store.js';
import { writeRun } from '../../src/history/write.js';
import { GitDir, runCli } from '../helpers/gitdir.js';
import { historyRun, testResult } from '../helpers/history-rows.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE_NAME = '<img src=x onerror="document.title=1">Mallory';
const HOSTILE_TEST = 'tests/test_x.py::test_<script>document.title="pwned"</script>';

let browser: Browser;
let page: Page;
let html: string;
const requests: string[] = [];
const errors: string[] = [];
let cli: { code: number; stdout: string; stderr: string };

const result = testResult;

beforeAll(async () => {
  const repo = GitDir.create({ '.gitignore': '.patchgate\n', 'a.txt': 'a\n' });
  const repository = repositoryKeyOf(undefined, repo.dir);
  const db = await openHistory(historyLocation({}, repo.dir));
  const run = (i: number, fields: Partial<HistoryRun>): HistoryRun =>
    historyRun({
      repository,
      recordedAt: `2026-11-${String(2 + i).padStart(2, '0')}T10:00:00.000Z`,
      baseCommit: `base${i}`,
      headCommit: `head${i}`,
      ...fields,
    });
  try {
    await writeRun(
      db,
      run(0, {
        verdict: 'reject',
        authors: [{ name: HOSTILE_NAME, email: 'mallory@agents.example', roles: ['author'], commits: 1 }],
        findings: [{ code: 'CONTRACT_TOUCHED', layer: 'contracts', severity: 'reject' }],
        tests: [
          result(HOSTILE_TEST, 'base', {
            runs: 2,
            failed: 1,
            flaky: true,
            durationMs: 900,
            signature: { sha256: 'c'.repeat(64), template: 'AssertionError|<b>bold</b> <N>' },
          }),
        ],
      }),
    );
    await writeRun(
      db,
      run(8, {
        verdict: 'reject',
        authors: [{ name: 'Agent B', email: 'b@agents.example', roles: ['author'], commits: 2 }],
        findings: [{ code: 'REGRESSION', layer: 'regression', severity: 'reject' }],
        tests: [result(HOSTILE_TEST, 'base', { durationMs: 300 })],
      }),
    );
    await writeRun(
      db,
      run(9, { authors: [{ name: 'Agent B', email: 'b@agents.example', roles: ['author'], commits: 1 }] }),
    );
  } finally {
    await db.close();
  }
  cli = await runCli(['history', 'dashboard'], { cwd: repo.dir });
  const file = path.join(repo.dir, '.patchgate', 'history.html');
  html = readFileSync(file, 'utf8');
  // Running as root (CI, this container): chromium's own sandbox needs a user namespace per renderer.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('history.html', () => {
  it('is written by the CLI for this repository', () => {
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(
      /^wrote \.patchgate\/history\.html: .*, 3 check run\(s\) and 0 main-branch record\(s\)\n$/,
    );
  });

  it('opens from file:// and fetches nothing; its style passes its CSP and it runs no script', async () => {
    expect(errors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(await page.evaluate('document.scripts.length')).toBe(0);
    // The page's own style applied: a CSP that blocked it would leave the browser's 8px body margin.
    expect(await page.evaluate('getComputedStyle(document.body).margin')).not.toBe('8px');
  });

  it('shows the rejections per week, with a bar per code', async () => {
    const rows = await page.locator('#rejections-by-week tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      'CONTRACT_TOUCHED 1 1',
      'REGRESSION 1 1',
    ]);
    const weeks = await page.locator('#rejections-by-week thead th').allInnerTexts();
    expect(weeks).toEqual(['code', 'all weeks', '2026-11-02', '2026-11-09']);
    expect(await page.locator('#rejections-by-week svg rect').count()).toBe(2);
  });

  it('shows per-agent accountability, with the hostile name as text', async () => {
    const rows = await page.locator('#agents-table tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      'Agent B <b@agents.example> author 2 1 1 0 1',
      `${HOSTILE_NAME} <mallory@agents.example> author 1 0 1 0 1`,
    ]);
    expect(await page.locator('#agents-table thead th').allInnerTexts()).toEqual([
      'identity',
      'roles',
      'patches',
      'accepted',
      'rejected',
      'errors',
      'CONTRACT_TOUCHED',
      'REGRESSION',
    ]);
  });

  it('shows the flaky and the slowest tests, names and templates as text', async () => {
    const flaky = (await page.locator('#flaky-table tbody tr').allInnerTexts()).map((r) =>
      r.replace(/\s+/g, ' ').trim(),
    );
    expect(flaky).toEqual([
      `50.0% 1 / 2 2026-11-02 10:00Z 2026-11-02 10:00Z ${HOSTILE_TEST} — AssertionError|<b>bold</b> <N>`,
    ]);
    const slow = (await page.locator('#slowest-table tbody tr').allInnerTexts()).map((r) =>
      r.replace(/\s+/g, ' ').trim(),
    );
    expect(slow).toEqual([`600 ms 900 ms 2 ${HOSTILE_TEST}`]);
  });

  it('holds nothing the names could have made: no image, no script, no bold, the title untouched', async () => {
    expect(await page.locator('img, script, b').count()).toBe(0);
    expect(await page.title()).toMatch(/^patchgate history · /);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
  });
});
