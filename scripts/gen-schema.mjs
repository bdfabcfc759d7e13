// Writes the JSON Schema of the config from the zod schema, so editors and
// other tools validate patchgate.config.json/yaml exactly as the gate does.
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { configSchema } from '../dist/config/schema.js';

const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
schema.$id = 'https://patchgate.dev/schema/patchgate.config.schema.json';
schema.title = 'patchgate configuration';
const out = new URL('../schema/patchgate.config.schema.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${out.pathname.replace(process.cwd() + '/', '')}`);
