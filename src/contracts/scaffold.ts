import { stringify } from 'yaml';
import type { PatchgateConfigInput } from '../config/schema.js';
import { CONFIG_JSON_SCHEMA, installedSchemaRef } from '../config/schema-files.js';
import type { SchemaRefs } from '../config/schema-ref.js';
import { InternalError } from '../errors.js';
import { CONTRACT_FORMATS, formatOfRole } from './registry.js';

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

/** The roles whose contract file `emptyContractText` can write: every format that has an empty file. */
export const EMPTY_CONTRACT_ROLES: readonly string[] = CONTRACT_FORMATS.flatMap((f) =>
  f.empty ? f.roles : [],
);
export function isEmptyContractRole(role: string): boolean {
  return formatOfRole(role)?.empty !== undefined;
}

/**
 * The text of an empty, valid contract file for `role` at repo-relative
 * `file`, written the way the commands that later edit it write it (so the
 * first real edit is a clean diff). With `schema`, the file points at its
 * JSON Schema, relative to its own folder.
 */
export function emptyContractText(role: string, file: string, options: RenderOptions = {}): string {
  const format = formatOfRole(role);
  if (!format?.empty) throw new InternalError(`no empty contract file for role '${role}'`);
  return format.empty.text(format.schema ? refFor(options, file, format.schema.file) : undefined);
}

/** What the empty file of `role` is, for init's `wrote` line. */
export function emptyContractWhat(role: string): string | undefined {
  return formatOfRole(role)?.empty?.what;
}
