import { stringify } from 'yaml';
import { EMPTY_CLAIM_LEDGER, formatClaimLedger } from '../freeze/claim-ledger.js';
import { formatFlakeLedger } from '../freeze/flake-ledger.js';
import { formatSignatureFreeze } from '../freeze/signature-freeze.js';
import { CONFIG_JSON_SCHEMA, installedSchemaRef, schemaForRole } from './contract-schemas.js';
import type { PatchgateConfigInput } from './schema.js';
import type { SchemaRefs } from './schema-ref.js';

export type ConfigFormat = 'json' | 'yaml' | 'ts';

export const CONFIG_FILE_FOR: Record<ConfigFormat, string> = {
  json: 'patchgate.config.json',
  yaml: 'patchgate.config.yaml',
  ts: 'patchgate.config.ts',
};

export interface RenderOptions {
  /**
   * Point the file at its JSON Schema: `true` for the installed package's
   * copy (`node_modules/patchgate/schema/…`), or the `$schema` each file
   * gets (schemaRefsFor: only where it resolves; undefined writes none).
   */
  schema?: boolean | SchemaRefs;
}

function refFor(options: RenderOptions, file: string, schemaFile: string): string | undefined {
  if (options.schema === true) return installedSchemaRef(file, schemaFile);
  return typeof options.schema === 'function' ? options.schema(file, schemaFile) : undefined;
}

/** The text `init` writes: the same settings in whichever format the user picked. */
export function renderConfig(
  config: PatchgateConfigInput,
  format: ConfigFormat,
  options: RenderOptions = {},
): string {
  const ref = refFor(options, CONFIG_FILE_FOR[format], CONFIG_JSON_SCHEMA.file);
  switch (format) {
    case 'json':
      return `${JSON.stringify(ref !== undefined ? { $schema: ref, ...config } : config, null, 2)}\n`;
    case 'yaml':
      return `${ref !== undefined ? `# yaml-language-server: $schema=${ref}\n` : ''}${stringify(config)}`;
    case 'ts':
      return `import { defineConfig } from 'patchgate';\n\nexport default defineConfig(${JSON.stringify(config, null, 2)});\n`;
  }
}

/** The roles whose contract file `emptyContractText` can write. */
export const EMPTY_CONTRACT_ROLES = [
  'hits.ledger',
  'seeds.tape',
  'signatures.freeze',
  'stability.freeze',
  'claims.ledger',
] as const;
export type EmptyContractRole = (typeof EMPTY_CONTRACT_ROLES)[number];

export function isEmptyContractRole(role: string): role is EmptyContractRole {
  return (EMPTY_CONTRACT_ROLES as readonly string[]).includes(role);
}

/**
 * The text of an empty, valid contract file for `role` at repo-relative
 * `file`, written the way the commands that later edit it write it (so the
 * first real edit is a clean diff). With `schema`, the file points at its
 * JSON Schema, relative to its own folder.
 */
export function emptyContractText(
  role: EmptyContractRole,
  file: string,
  options: RenderOptions = {},
): string {
  const entry = schemaForRole(role);
  const $schema = entry ? refFor(options, file, entry.file) : undefined;
  const head = $schema !== undefined ? { $schema } : {};
  switch (role) {
    case 'hits.ledger':
      return formatFlakeLedger({ ...head, version: 1, rules: [] });
    case 'signatures.freeze':
      return formatSignatureFreeze({ ...head, rows: [] });
    case 'claims.ledger': {
      const empty = JSON.parse(EMPTY_CLAIM_LEDGER) as { window_runs: number };
      return formatClaimLedger({ ...head, windowRuns: empty.window_runs, entries: new Map() });
    }
    case 'seeds.tape':
      return `${JSON.stringify({ ...head, properties: [] }, null, 2)}\n`;
    case 'stability.freeze':
      return `${JSON.stringify({ ...head, freezes: [] }, null, 2)}\n`;
  }
}
