// Writes the JSON Schema of the config and of every contract format in the
// registry (src/contracts/registry.ts) that has one, from the zod schemas the
// gate validates with, so editors and other tools check those files exactly
// as the gate does. A new format's schema is shipped by listing the format.
import { writeFileSync } from 'node:fs';
import { jsonSchemaDocument } from '../dist/config/schema-files.js';
import { ALL_JSON_SCHEMAS } from '../dist/contracts/json-schemas.js';

for (const entry of ALL_JSON_SCHEMAS) {
  const out = new URL(`../schema/${entry.file}`, import.meta.url);
  writeFileSync(out, `${JSON.stringify(jsonSchemaDocument(entry), null, 2)}\n`);
  console.log(`wrote ${out.pathname.replace(`${process.cwd()}/`, '')}`);
}
