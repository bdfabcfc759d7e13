/**
 * The JSON Schema of the config and of every contract file, each generated
 * from the zod schema its reader validates with (scripts/gen-schema.mjs
 * writes them to schema/), so an editor and the gate agree on the shape.
 * The schemas check shape only: rules that relate fields or rows (a
 * template that must hash to its row, a count that must match its window)
 * are the readers' and `patchgate validate`'s.
 */

import { CONFIG_JSON_SCHEMA, type ContractSchema } from '../config/schema-files.js';
import { CONTRACT_FORMATS } from './registry.js';

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
