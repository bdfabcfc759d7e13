import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/gitdir.js';
import { hitsRepo, SEED_OPERATORS, seedInvoice, TS_INVOICE_PROPERTY } from '../helpers/hits-repo.js';
import { pythonEnv, sharedFile } from '../helpers/shared.js';

const SEED_FIELDS = [
  'property',
  'baseline',
  'hit_count',
  'hits',
  'claimed',
  'false_claims',
  'unclaimed_hits',
] as const;

/** Runs the seed's own score_hits.py, unmodified, on the seed's invoice fixture. */
function seedHitReport(): Record<string, unknown>[] {
  const cwd = tempDir();
  mkdirSync(path.join(cwd, 'fixtures'));
  writeFileSync(path.join(cwd, 'fixtures', 'lock.json'), seedInvoice());
  execFileSync('python3', [sharedFile('reference', 'seed000', 'score_hits.py')], { cwd, env: pythonEnv() });
  return JSON.parse(readFileSync(path.join(cwd, 'hit_report.json'), 'utf8'));
}

const seedView = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(SEED_FIELDS.map((k) => [k, r[k]])));

describe('hits layer against seed 000 score_hits.py (differential)', () => {
  const seedConfig = { maxDepth: 1, operators: SEED_OPERATORS };

  it("reports what the seed's script reports for the seed's Python property, run unchanged through our adapter", async () => {
    const expected = seedHitReport();
    expect(expected).toHaveLength(1);
    const repo = hitsRepo({
      ...seedConfig,
      python: [{ module: 'properties.py', fixture: 'fixtures/lock.json' }],
    });
    copyFileSync(sharedFile('reference', 'seed000', 'properties.py'), repo.path('properties.py'));
    repo.commit('the seed property');
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ours = JSON.parse(readFileSync(repo.path('.patchgate/out/hit_report.head.json'), 'utf8'));
    expect(seedView(ours)).toEqual(expected);
  });

  it('reports the same for the same invariant written as a TypeScript property', async () => {
    const expected = seedHitReport();
    const repo = hitsRepo(
      { ...seedConfig, properties: ['properties/*.ts'] },
      { 'properties/invoice.ts': TS_INVOICE_PROPERTY },
    );
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    const ours = JSON.parse(readFileSync(repo.path('.patchgate/out/hit_report.head.json'), 'utf8'));
    expect(seedView(ours)).toEqual(expected);
    // Ours also says which operator hit each field.
    expect(ours[0].hit_operators).toEqual({
      currency: ['set:"EUR"'],
      lines: ['append:{"qty":1,"unit_cents":1}'],
      total_cents: ['add:1'],
    });
  });
});
