import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ContractFileError, InputError } from '../errors.js';
import { createModuleLoader } from '../util/module-loader.js';
import { parseJsonDocument, parseYamlDocument, validateDocument } from './documents.js';
import { configSchema, type PatchgateConfig } from './schema.js';

/** Searched in this order; more than one present is ambiguous and an error. */
export const CONFIG_FILE_NAMES = [
  'patchgate.config.ts',
  'patchgate.config.mts',
  'patchgate.config.mjs',
  'patchgate.config.js',
  'patchgate.config.json',
  'patchgate.config.yaml',
  'patchgate.config.yml',
] as const;

export interface LoadedConfig {
  config: PatchgateConfig;
  /** Repo-relative path of the config file. */
  file: string;
}

async function exists(p: string): Promise<boolean> {
  try {
    await readFile(p);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') return true;
    throw new InputError('FILE_UNREADABLE', `cannot read ${p}: ${(err as Error).message}`, { file: p });
  }
}

export async function findConfigFile(root: string, revisionLabel: string): Promise<string> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) if (await exists(path.join(root, name))) found.push(name);
  if (found.length === 0) {
    throw new InputError(
      'CONFIG_NOT_FOUND',
      `no patchgate config in ${revisionLabel} (looked for ${CONFIG_FILE_NAMES.join(', ')}). Run \`patchgate init\` and commit the result in a human commit.`,
      { revision: revisionLabel },
    );
  }
  if (found.length > 1) {
    throw new InputError(
      'CONFIG_INVALID',
      `more than one patchgate config in ${revisionLabel}: ${found.join(', ')}. Keep exactly one.`,
      {
        files: found,
      },
    );
  }
  return found[0] as string;
}

async function loadModule(abs: string, file: string): Promise<unknown> {
  // A fresh loader per call: the base and head may both have a config with
  // the same path inside different worktrees, and nothing may be cached across them.
  const jiti = createModuleLoader({ cache: false });
  try {
    const mod = await jiti.import<unknown>(abs, { default: true });
    return mod;
  } catch (err) {
    throw new ContractFileError('CONFIG_INVALID', [
      { file, path: '', message: `could not be loaded: ${(err as Error).message.split('\n')[0]}` },
    ]);
  }
}

/** Reads, parses and validates the config found in `root` (a checkout). */
export async function loadConfig(root: string, revisionLabel = 'the working tree'): Promise<LoadedConfig> {
  const file = await findConfigFile(root, revisionLabel);
  const abs = path.join(root, file);
  if (file.endsWith('.json') || file.endsWith('.yaml') || file.endsWith('.yml')) {
    let text: string;
    try {
      text = await readFile(abs, 'utf8');
    } catch (err) {
      throw new InputError('FILE_UNREADABLE', `cannot read ${file}: ${(err as Error).message}`, { file });
    }
    const doc = file.endsWith('.json')
      ? parseJsonDocument(text, file, 'CONFIG_INVALID')
      : parseYamlDocument(text, file, 'CONFIG_INVALID');
    return { config: validateDocument(configSchema, doc, file, 'CONFIG_INVALID'), file };
  }
  const value = await loadModule(abs, file);
  return { config: validateDocument(configSchema, { value }, file, 'CONFIG_INVALID'), file };
}
