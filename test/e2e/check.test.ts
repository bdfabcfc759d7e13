import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureRepo, INVOICE, lockFor, sha256 } from '../helpers/fixture-repo.js';
import { type GitDir, runCliProcess } from '../helpers/gitdir.js';

// This file pins the binary a user's CI runs: every command here is the spawned dist/cli/bin.js.
const runCli = runCliProcess;

function scorecard(repo: GitDir, out = '.patchgate/out') {
  return JSON.parse(readFileSync(path.join(repo.dir, out, 'scorecard.json'), 'utf8'));
}

const codes = (card: { findings: { code: string }[] }) => card.findings.map((f) => f.code);

describe('patchgate check (built CLI on real git repos)', () => {
  it('accepts a benign source change and writes scorecard.json and summary.md', async () => {
    const repo = fixtureRepo();
    repo.write({ 'src/total.ts': 'export const total = 2;\n' });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const card = scorecard(repo);
    expect(card.schema).toBe('patchgate/scorecard@1');
    expect(card.verdict).toBe('accept');
    expect(card.head.worktree).toBe(true);
    expect(card.layers.map((l: { name: string; status: string }) => `${l.name}:${l.status}`)).toEqual([
      'contracts:pass',
      'fixtures:pass',
      'hits:skipped',
      'seeds:skipped',
      'signatures:skipped',
      'regression:skipped',
      'test-edits:skipped',
      'stability:skipped',
      'mutation:skipped',
      'claims:skipped',
    ]);
    expect(readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8')).toContain('accept');
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('rejects a pretty-printed golden file with FIXTURE_CHANGED and the digests as evidence', async () => {
    const repo = fixtureRepo();
    const pretty = `${JSON.stringify(JSON.parse(INVOICE), null, 4)}\n`;
    repo.write({ 'testdata/invoice_v3.json': pretty });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const card = scorecard(repo);
    expect(card.verdict).toBe('reject');
    const f = card.findings.find((x: { code: string }) => x.code === 'FIXTURE_CHANGED');
    expect(f.evidence).toMatchObject({
      path: 'testdata/invoice_v3.json',
      owner: 'payments',
      expected: sha256(INVOICE),
      actual: sha256(pretty),
    });
    expect(r.stdout).toContain('FIXTURE_CHANGED');
  });

  it('rejects a patch that rewrites the golden file and FIXTURE_LOCK.json to match (CONTRACT_TOUCHED + FIXTURE_CHANGED)', async () => {
    const repo = fixtureRepo();
    const forged = INVOICE.replace('1500', '1600');
    repo.write({
      'testdata/invoice_v3.json': forged,
      'FIXTURE_LOCK.json': lockFor({
        'testdata/invoice_v3.json': forged,
        'testdata/nested/rates.csv': 'code,rate\nUSD,1\n',
      }),
    });
    repo.commit('agent: update golden');
    const r = await runCli(['check', '--base', 'main~1', '--head', 'HEAD'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const card = scorecard(repo);
    expect(codes(card)).toEqual(['CONTRACT_TOUCHED', 'FIXTURE_CHANGED']);
    expect(card.findings[0].evidence).toMatchObject({
      path: 'FIXTURE_LOCK.json',
      change: 'modified',
      role: 'fixtures.lock',
    });
    // Judged by the base lock, not the head's forged one.
    expect(card.findings[1].evidence.expected).toBe(sha256(INVOICE));
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('accepts a changed fixture only with the override variable set, lists it, and never prints the token', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/invoice_v3.json': INVOICE.replace('1500', '1501') });
    const token = 's3cret-token-value';
    const r = await runCli(['check', '--base', 'main', '--json'], {
      cwd: repo.dir,
      env: { FIXTURE_OVERRIDE: token },
    });
    expect(r.code).toBe(0);
    const card = JSON.parse(r.stdout);
    expect(card.verdict).toBe('accept');
    expect(card.overrides).toEqual([
      {
        layer: 'fixtures',
        code: 'FIXTURE_CHANGED',
        path: 'testdata/invoice_v3.json',
        variable: 'FIXTURE_OVERRIDE',
      },
    ]);
    const everything =
      r.stdout +
      r.stderr +
      readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8') +
      readFileSync(repo.path('.patchgate/out/scorecard.json'), 'utf8');
    expect(everything).not.toContain(token);
  });

  it('treats a whitespace-only override token as unset', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/invoice_v3.json': INVOICE.replace('1500', '1501') });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir, env: { FIXTURE_OVERRIDE: '  ' } });
    expect(r.code).toBe(1);
  });

  it('rejects a deleted fixture with FIXTURE_MISSING even with the override set', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/nested/rates.csv': null });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir, env: { FIXTURE_OVERRIDE: 'yes' } });
    expect(r.code).toBe(1);
    const card = scorecard(repo);
    expect(codes(card)).toEqual(['FIXTURE_MISSING']);
    expect(card.findings[0].evidence.path).toBe('testdata/nested/rates.csv');
  });

  it('records an untracked new fixture as FIXTURE_ADDED without rejecting', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/new_case.json': '{}' });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    const card = scorecard(repo);
    expect(card.findings).toMatchObject([
      { code: 'FIXTURE_ADDED', severity: 'warn', evidence: { path: 'testdata/new_case.json' } },
    ]);
    expect(card.layers[1].status).toBe('warn');
  });

  it('judges the head by the base config even when the head switches the fixtures layer off', async () => {
    const repo = fixtureRepo();
    repo.write({
      'patchgate.config.json': JSON.stringify({ fixtures: { enabled: false } }),
      'testdata/invoice_v3.json': '{"total_cents": 0}',
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const card = scorecard(repo);
    expect(card.layers.find((l: { name: string }) => l.name === 'fixtures').status).toBe('reject');
    expect(codes(card)).toEqual(['CONTRACT_TOUCHED', 'FIXTURE_CHANGED']);
    expect(card.findings[0].evidence).toMatchObject({ path: 'patchgate.config.json', role: 'config' });
  });

  it('protects a new config file in another format and CI workflows (added, deleted, renamed)', async () => {
    const repo = fixtureRepo({ '.github/workflows/ci.yml': 'on: push\n', CODEOWNERS: '* @team\n' });
    repo.write({
      'patchgate.config.yaml': 'fixtures:\n  enabled: false\n',
      '.github/workflows/ci.yml': null,
      'OWNERS.old': '* @team\n',
      CODEOWNERS: null,
    });
    repo.commit('agent');
    const r = await runCli(['check', '--base', 'HEAD~1', '--head', 'HEAD'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const touched = scorecard(repo)
      .findings.filter((f: { code: string }) => f.code === 'CONTRACT_TOUCHED')
      .map((f: { evidence: unknown }) => f.evidence);
    expect(touched).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: '.github/workflows/ci.yml',
          change: 'deleted',
          glob: '.github/workflows/**',
        }),
        expect.objectContaining({ path: 'OWNERS.old', from: 'CODEOWNERS', change: 'renamed' }),
        expect.objectContaining({ path: 'patchgate.config.yaml', change: 'added', role: 'config' }),
      ]),
    );
  });

  it('reports CONTRACT_MISSING when the base config names a canonical digest file that does not exist', async () => {
    const repo = fixtureRepo(
      { 'fixtures/lock.json': INVOICE },
      {
        fixtures: {
          roots: ['testdata'],
          canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }],
        },
      },
    );
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    const card = scorecard(repo);
    expect(codes(card)).toContain('CONTRACT_MISSING');
    expect(card.findings.find((f: { code: string }) => f.code === 'CONTRACT_MISSING').evidence).toMatchObject(
      { path: 'fixtures/lock.sha256', revision: 'base' },
    );
    // The fixtures layer cannot read the digest: the verdict is error (bad input), never accept.
    expect(card.verdict).toBe('error');
    expect(r.code).toBe(2);
  });

  it('rejects a canonical fixture whose digest no longer matches (FIXTURE_DIGEST_MISMATCH), but not a reformat', async () => {
    const { canonicalDigest } = await import('../../src/json/python-dumps.js');
    const config = {
      fixtures: {
        roots: ['testdata'],
        canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }],
      },
    };
    const repo = fixtureRepo(
      { 'fixtures/lock.json': INVOICE, 'fixtures/lock.sha256': `${canonicalDigest(INVOICE)}\n` },
      config,
    );
    repo.write({ 'fixtures/lock.json': JSON.stringify(JSON.parse(INVOICE)) });
    let r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    // Reformatting keeps the canonical digest but still touches a contract file.
    expect(codes(scorecard(repo))).toEqual(['CONTRACT_TOUCHED']);
    repo.write({ 'fixtures/lock.json': INVOICE.replace('"USD"', '"EUR"') });
    r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const f = scorecard(repo).findings.find((x: { code: string }) => x.code === 'FIXTURE_DIGEST_MISMATCH');
    expect(f.evidence).toMatchObject({
      path: 'fixtures/lock.json',
      digestFile: 'fixtures/lock.sha256',
      expected: canonicalDigest(INVOICE),
      baseMatches: true,
    });
  });

  it('judges against the merge-base, so commits that landed on main after the branch point are not blamed on the patch', async () => {
    const repo = fixtureRepo();
    const branchPoint = repo.head();
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'src/total.ts': 'export const total = 3;\n' });
    repo.commit('agent work');
    repo.git('checkout', '-q', 'main');
    // Main moves on: a human re-locks a fixture.
    repo.write({
      'testdata/invoice_v3.json': '{}',
      'FIXTURE_LOCK.json': lockFor({
        'testdata/invoice_v3.json': '{}',
        'testdata/nested/rates.csv': 'code,rate\nUSD,1\n',
      }),
    });
    repo.commit('human relock');
    const r = await runCli(['check', '--base', 'main', '--head', 'agent'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    const card = scorecard(repo);
    expect(card.base.commit).toBe(branchPoint);
    expect(card.base.requested).toBe(repo.git('rev-parse', 'main'));
  });

  it('sees a same-size contract edit whose mtime matches the index (no trusted stat cache)', async () => {
    const repo = fixtureRepo();
    // ctime cannot be set from user space; with trustctime off (a documented git setting) the stat
    // cache alone decides, so the race a copied index loses is reproduced on every run.
    repo.git('config', 'core.trustctime', 'false');
    const lock = repo.path('FIXTURE_LOCK.json');
    const past = new Date('2020-01-01T00:00:00Z');
    utimesSync(lock, past, past);
    repo.git('update-index', '--refresh');
    const original = readFileSync(lock, 'utf8');
    const [digest] = /[0-9a-f]{64}/.exec(original) ?? [''];
    const forged = original.replace(digest, sha256('forged'));
    expect(forged.length).toBe(original.length);
    writeFileSync(lock, forged);
    utimesSync(lock, past, past);
    expect(repo.git('status', '--porcelain')).toBe('');
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const card = scorecard(repo);
    expect(
      card.findings.find((f: { code: string }) => f.code === 'CONTRACT_TOUCHED')?.evidence,
    ).toMatchObject({
      path: 'FIXTURE_LOCK.json',
      change: 'modified',
      role: 'fixtures.lock',
    });
  });

  it('produces the same scorecard bytes for the same inputs, timings aside', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/invoice_v3.json': '{}', 'testdata/extra.bin': Buffer.from([0, 1, 2]) });
    const strip = (s: string) => JSON.stringify({ ...JSON.parse(s), timings: null });
    const a = await runCli(['check', '--base', 'main', '--json'], { cwd: repo.dir });
    const b = await runCli(['check', '--base', 'main', '--json'], {
      cwd: repo.dir,
      env: { LC_ALL: 'C', LANG: 'tr_TR.UTF-8' },
    });
    expect(a.code).toBe(1);
    expect(strip(b.stdout)).toBe(strip(a.stdout));
    expect(Object.keys(JSON.parse(a.stdout).timings)).toEqual([
      'cleanupMs',
      'layers',
      'revisionsMs',
      'setupMs',
      'totalMs',
    ]);
  });

  it('works when the output folder is gitignored, and leaves it out of the head', async () => {
    const repo = fixtureRepo({ '.gitignore': '.patchgate/\n' });
    repo.write({ 'src/total.ts': 'export const total = 5;\n' });
    const first = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(first.stderr).toBe('');
    const second = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(second.code).toBe(0);
    expect(scorecard(repo).findings).toEqual([]);
  });

  it('appends summary.md to $GITHUB_STEP_SUMMARY and honours --out', async () => {
    const repo = fixtureRepo();
    const summary = repo.path('step-summary.md');
    repo.write({ 'step-summary.md': '# earlier step\n' });
    repo.git('add', 'step-summary.md');
    const r = await runCli(['check', '--base', 'main', '--out', 'reports'], {
      cwd: repo.dir,
      env: { GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(0);
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toContain('## patchgate');
    expect(scorecard(repo, 'reports').verdict).toBe('accept');
  });
});
