import { stringify } from 'yaml';
import { EMPTY_CLAIM_LEDGER, formatClaimLedger } from '../freeze/claim-ledger.js';
import { formatFlakeLedger } from '../freeze/flake-ledger.js';
import { formatSignatureFreeze } from '../freeze/signature-freeze.js';
import { CONFIG_JSON_SCHEMA, installedSchemaRef, schemaForRole } from './contract-schemas.js';
import type { PatchgateConfigInput } from './schema.js';

export type ConfigFormat = 'json' | 'yaml' | 'ts';

export const CONFIG_FILE_FOR: Record<ConfigFormat, string> = {
  json: 'patchgate.config.json',
  yaml: 'patchgate.config.yaml',
  ts: 'patchgate.config.ts',
};

export interface RenderOptions {
  /**
   * Point the file at the installed package's JSON Schema. Only where that
   * path will exist: a repository with a package.json, where patchgate is
   * installed into node_modules.
   */
  schema?: boolean;
}

/** The text `init` writes: the same settings in whichever format the user picked. */
export function renderConfig(
  config: PatchgateConfigInput,
  format: ConfigFormat,
  options: RenderOptions = {},
): string {
  const ref = installedSchemaRef(CONFIG_FILE_FOR[format], CONFIG_JSON_SCHEMA.file);
  switch (format) {
    case 'json':
      return `${JSON.stringify(options.schema ? { $schema: ref, ...config } : config, null, 2)}\n`;
    case 'yaml':
      return `${options.schema ? `# yaml-language-server: $schema=${ref}\n` : ''}${stringify(config)}`;
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
 * installed JSON Schema, relative to its own folder.
 */
export function emptyContractText(
  role: EmptyContractRole,
  file: string,
  options: RenderOptions = {},
): string {
  const entry = schemaForRole(role);
  const $schema = options.schema && entry ? installedSchemaRef(file, entry.file) : undefined;
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
