// Writes the JSON Schema of the config and of every contract file (fixture
// lock, flake ledger, seed tape, signature freeze, stability freeze, claim
// matrix, claim ledger) from the zod schemas the gate validates with, so
// editors and other tools check those files exactly as the gate does.
import { writeFileSync } from 'node:fs';
import { ALL_JSON_SCHEMAS, jsonSchemaDocument } from '../dist/config/contract-schemas.js';

for (const entry of ALL_JSON_SCHEMAS) {
  const out = new URL(`../schema/${entry.file}`, import.meta.url);
  writeFileSync(out, `${JSON.stringify(jsonSchemaDocument(entry), null, 2)}\n`);
  console.log(`wrote ${out.pathname.replace(`${process.cwd()}/`, '')}`);
}
