import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ContractFileError, InputError, InternalError } from '../errors.js';
import { createModuleLoader } from '../util/module-loader.js';
import { runInSlices } from '../util/time-slice.js';
import {
  type CappedRead,
  type ContractRoot,
  DEFAULT_CONTRACT_BYTES,
  readRootText,
  tooLarge,
} from './contract-file.js';
import { parseJsonDocumentSliced, parseYamlDocument, validateDocumentSliced } from './documents.js';
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

/**
 * The cap on a YAML config, far below the one on everything else: the yaml
 * library reads about 1 MB/s on a small VM and cannot pause inside a
 * document, so a larger file would hold off SIGTERM for over a second. A
 * config a human writes is a few kilobytes.
 */
export const YAML_CONFIG_MAX_BYTES = 256 * 1024;

export interface LoadedConfig {
  config: PatchgateConfig;
  /** Repo-relative path of the config file. */
  file: string;
}

export interface LoadConfigOptions {
  /** Stops reading the config between slices (the CLI's SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /**
   * With a snapshot as the root: the checkout of the same revision, where a
   * `.ts`/`.js` config is loaded from (it is code, and may import its
   * neighbours). Loaded before any head code runs.
   */
  moduleRoot?: string;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new InputError('FILE_UNREADABLE', `cannot read ${p}: ${(err as Error).message}`, { file: p });
  }
}

export async function findConfigFile(root: ContractRoot, revisionLabel: string): Promise<string> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    if (typeof root === 'string' ? await exists(path.join(root, name)) : root.has(name)) found.push(name);
  }
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

/**
 * The cap on a config file. The config cannot raise its own cap before it
 * has been read, so it is always the default one (or YAML's).
 */
function configCap(file: string): CappedRead {
  const yaml = file.endsWith('.yaml') || file.endsWith('.yml');
  return {
    label: file,
    details: { file },
    maxBytes: yaml ? YAML_CONFIG_MAX_BYTES : DEFAULT_CONTRACT_BYTES,
    what: yaml ? 'a YAML config' : 'a config file',
    raise: yaml
      ? 'YAML is parsed in one step that cannot be interrupted, so write a config this large as patchgate.config.json'
      : '`limits.contractBytes` does not apply to the config itself, so make it smaller',
  };
}

/** Reads, parses and validates the config found in `root` (a checkout). */
export async function loadConfig(
  root: ContractRoot,
  revisionLabel = 'the working tree',
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const file = await findConfigFile(root, revisionLabel);
  const moduleRoot = typeof root === 'string' ? root : options.moduleRoot;
  const cap = configCap(file);
  if (file.endsWith('.json') || file.endsWith('.yaml') || file.endsWith('.yml')) {
    // findConfigFile just saw it, so a vanished file is a read failure, not a missing config.
    const text = (await readRootText(root, file, cap)) ?? '';
    const config = await runInSlices(function* (budget) {
      const doc = file.endsWith('.json')
        ? yield* parseJsonDocumentSliced(text, file, 'CONFIG_INVALID', budget)
        : parseYamlDocument(text, file, 'CONFIG_INVALID');
      return yield* validateDocumentSliced(configSchema, doc, file, 'CONFIG_INVALID', budget);
    }, options.signal);
    return { config, file };
  }
  if (moduleRoot === undefined)
    throw new InternalError(`loadConfig: ${file} is a module and no checkout was given`);
  const abs = path.join(moduleRoot, file);
  const { size } = await stat(abs).catch((err: Error) => {
    throw new InputError('FILE_UNREADABLE', `cannot read ${file}: ${err.message}`, { file });
  });
  if (size > cap.maxBytes) throw tooLarge(cap, size);
  const value = await loadModule(abs, file);
  return {
    config: await runInSlices(
      (budget) => validateDocumentSliced(configSchema, { value }, file, 'CONFIG_INVALID', budget),
      options.signal,
    ),
    file,
  };
}
