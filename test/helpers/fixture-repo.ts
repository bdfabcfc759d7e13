import { createHash } from 'node:crypto';
import { type Files, GitDir } from './gitdir.js';

export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

export const INVOICE = `{
  "currency": "USD",
  "total_cents": 1500,
  "lines": [
    {"qty": 2, "unit_cents": 500},
    {"qty": 1, "unit_cents": 500}
  ]
}
`;

export function lockFor(
  files: Record<string, string>,
  owner = 'payments',
  variable = 'FIXTURE_OVERRIDE',
): string {
  const entries: Record<string, { sha256: string; owner: string }> = {};
  for (const [p, c] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)))
    entries[p] = { sha256: sha256(c), owner };
  return `${JSON.stringify({ override_token_env: variable, files: entries }, null, 2)}\n`;
}

/** A repo with a config, a locked testdata/ tree and source code, committed on `main`. */
export function fixtureRepo(extra: Files = {}, config: Record<string, unknown> = {}): GitDir {
  const fixtures = { 'testdata/invoice_v3.json': INVOICE, 'testdata/nested/rates.csv': 'code,rate\nUSD,1\n' };
  return GitDir.create({
    'patchgate.config.json': `${JSON.stringify({ fixtures: { roots: ['testdata'] }, ...config }, null, 2)}\n`,
    'FIXTURE_LOCK.json': lockFor(fixtures),
    'src/total.ts': 'export const total = 1;\n',
    ...fixtures,
    ...extra,
  });
}
