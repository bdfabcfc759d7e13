import { readFileSync } from 'node:fs';
import { canonicalDigest } from '../../src/json/python-dumps.js';
import { lockFor } from './fixture-repo.js';
import { type Files, GitDir } from './gitdir.js';
import { sharedFile } from './shared.js';

/** The seed's invoice fixture, read from the shared reference folder. */
export function seedInvoice(): string {
  return readFileSync(sharedFile('reference', 'seed000', 'fixtures', 'lock.json'), 'utf8');
}

/** The seed's PERTURB table, as our declarative operators at depth 1. */
export const SEED_OPERATORS = [
  { path: 'currency', replace: true, use: [{ set: 'EUR' }] },
  { path: 'total_cents', replace: true, use: [{ add: 1 }] },
  { path: 'lines', replace: true, use: [{ append: { qty: 1, unit_cents: 1 } }] },
];

/**
 * A repo whose fixtures/ folder is tree-locked and whose fixtures/lock.json
 * is canonically digested, with a hits config and an empty flake ledger.
 */
export function hitsRepo(hits: Record<string, unknown>, files: Files = {}, fixture = seedInvoice()): GitDir {
  const locked = { 'fixtures/lock.json': fixture, 'fixtures/lock.sha256': `${canonicalDigest(fixture)}\n` };
  return GitDir.create({
    'patchgate.config.json': `${JSON.stringify(
      {
        fixtures: {
          roots: ['fixtures'],
          canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }],
        },
        hits: { ledger: 'flake_ledger.json', ...hits },
      },
      null,
      2,
    )}\n`,
    'FIXTURE_LOCK.json': lockFor(locked),
    'flake_ledger.json': '{\n  "version": 1,\n  "rules": []\n}\n',
    ...locked,
    ...files,
  });
}

/** A TypeScript property module with the seed's invariant. */
export const TS_INVOICE_PROPERTY = `import { defineProperty } from 'patchgate';

type Fx = { currency: string; total_cents: number; lines: { qty: number; unit_cents: number }[] };

export default defineProperty<Fx>({
  name: 'invoice_total_matches_lines',
  fixture: 'fixtures/lock.json',
  claims: ['lines', 'total_cents', 'currency'],
  check(fx) {
    const total = fx.lines.reduce((s, l) => s + l.qty * l.unit_cents, 0);
    if (fx.currency !== 'USD') throw new Error('unsupported currency');
    if (total !== fx.total_cents) throw new Error(\`total \${fx.total_cents} != \${total}\`);
  },
});
`;
