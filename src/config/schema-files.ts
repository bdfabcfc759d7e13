/**
 * The JSON Schemas the package ships, as files: where an installed package
 * keeps them, how a file points at one (`$schema`), the config's own, and
 * the document generated from a zod schema (scripts/gen-schema.mjs writes
 * them to schema/). The contract files' schemas come from their formats
 * (src/contracts/json-schemas.ts).
 */
import path from 'node:path';
import { z } from 'zod';
import { configSchema } from './schema.js';

export interface ContractSchema {
  /** The file's name in the package's `schema/` folder. */
  file: string;
  title: string;
  /** The role layers name the contract with (`contractFiles`), or `config`. */
  role: string;
  schema: z.ZodType;
}

/** Where the package's schemas are, relative to the root of a repository that installed it. */
export const INSTALLED_SCHEMA_DIR = 'node_modules/patchgate/schema';

/** The `$id` prefix of every schema. */
export const SCHEMA_ID_BASE = 'https://patchgate.dev/schema/';

export const CONFIG_JSON_SCHEMA: ContractSchema = {
  file: 'patchgate.config.schema.json',
  title: 'patchgate configuration',
  role: 'config',
  schema: configSchema,
};

/** The JSON Schema document of one entry, as the package ships it. */
export function jsonSchemaDocument(entry: ContractSchema): Record<string, unknown> {
  const schema = z.toJSONSchema(entry.schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return { ...schema, $id: `${SCHEMA_ID_BASE}${entry.file}`, title: entry.title };
}

/**
 * The `$schema` a file at repo-relative `file` points at: the installed
 * package's copy, relative to the file's own folder (editors resolve it
 * from there), e.g. `../node_modules/patchgate/schema/claim-ledger.schema.json`
 * for `freeze/ledger.json`.
 */
export function installedSchemaRef(file: string, schemaFile: string): string {
  const rel = path.posix.relative(path.posix.dirname(file), `${INSTALLED_SCHEMA_DIR}/${schemaFile}`);
  return rel.startsWith('.') ? rel : `./${rel}`;
}
