/**
 * The JSON Schema of the config and of every contract file, each generated
 * from the zod schema its reader validates with (scripts/gen-schema.mjs
 * writes them to schema/), so an editor and the gate agree on the shape.
 * The schemas check shape only: rules that relate fields or rows (a
 * template that must hash to its row, a count that must match its window)
 * are the readers' and `patchgate validate`'s.
 */
import path from 'node:path';
import { z } from 'zod';
import { CONTRACT_FORMATS } from '../contracts/registry.js';
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

/** One per kind of JSON (or YAML) contract file, from the registry; digest files are plain text and have none. */
export const CONTRACT_JSON_SCHEMAS: readonly ContractSchema[] = CONTRACT_FORMATS.flatMap((f) =>
  f.schema
    ? [
        {
          file: f.schema.file,
          title: `patchgate ${f.describe}`,
          role: f.roles[0] ?? '',
          schema: f.schema.schema,
        },
      ]
    : [],
);

/** Every schema the package ships, the config's first. */
export const ALL_JSON_SCHEMAS: readonly ContractSchema[] = [CONFIG_JSON_SCHEMA, ...CONTRACT_JSON_SCHEMAS];

/** The schema of a contract role, when the role's file is JSON or YAML. */
export function schemaForRole(role: string): ContractSchema | undefined {
  return ALL_JSON_SCHEMAS.find((s) => s.role === role);
}

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
