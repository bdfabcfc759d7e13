/**
 * `patchgate validate`, as a library: reads the config and every contract
 * file of a checkout (the working tree) with the very readers the gate uses
 * on the base revision, and collects every problem of every file instead of
 * stopping at the first. A human runs it on an edit before committing it:
 * `check` reads contracts from the base, so an uncommitted edit only shows up
 * there as CONTRACT_TOUCHED.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { type ConfiguredSource, missingSources } from '../config/configured-sources.js';
import { contractReadOptions, rootHas } from '../config/contract-file.js';
import { detectTests } from '../config/detect.js';
import { layersOn } from '../config/layers-on.js';
import { loadConfig } from '../config/load.js';
import type { PatchgateConfig } from '../config/schema.js';
import { TESTS_ON_NEXT, testsOffHeadline, testsOnLines } from '../config/tests-off.js';
import { ContractFileError, formatProblem, InternalError, PatchgateError, type Problem } from '../errors.js';
import { pushAll } from '../util/arrays.js';
import { byCodePoint } from '../util/compare.js';
import type { ContractFormat, ContractPath, ReadEnv } from './format.js';
import { CONTRACT_FORMATS, contractFilesFor, formatOfRole } from './registry.js';

export interface ValidateOptions {
  /** Stops reading between slices (the CLI's SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /**
   * The repo-relative files contract globs (the claim matrix) are matched
   * against: the CLI passes git's tracked and untracked-not-ignored files,
   * what `check` takes as the working tree. Default: every file under the
   * root outside `.git` and `node_modules`.
   */
  listFiles?: () => Promise<string[]>;
  /** How the checkout is named in messages (default `the working tree`). */
  revision?: string;
}

export interface CheckedFile {
  file: string;
  /** Where the config names it (`fixtures.lock`, `claims.matrix`…), or `config`. */
  role: string;
  /** `missing`: the config names it and the gate would stop on its absence. `absent`: missing, and the gate reads that as empty. */
  status: 'ok' | 'invalid' | 'missing' | 'absent';
}

export interface ValidationResult {
  /** The config file found, when there is exactly one. */
  configFile?: string;
  /** Every file read or looked for, the config first, in the gate's layer order. */
  files: CheckedFile[];
  /** Every problem of every file, located where the reader could. */
  problems: Problem[];
  /** What is fine but worth knowing (a freeze file the gate reads as empty). */
  notes: string[];
  /**
   * Set when the config has no `tests` section: the layers that run the
   * repository's tests are off. Valid, but the gate then judges a patch on
   * the other layers alone, so the CLI says it first, with the lines to add.
   */
  testsOff?: TestsOff;
}

export interface TestsOff {
  /** The first line: which layers the gate still judges with. */
  headline: string;
  /** Why, in a sentence. */
  detail: string;
  /** The lines to add to the config, as they are pasted. */
  lines: string[];
  /** What to do after adding them. */
  next: string;
}

/** The test layers' warning for a valid config without `tests`, with the section `detectTests` suggests. */
async function testsOffFor(root: string, config: PatchgateConfig, configFile: string): Promise<TestsOff> {
  const detected = await detectTests(root);
  const suggestion = detected.tests ?? detected.suggestion ?? { preset: 'pytest' };
  return {
    headline: testsOffHeadline(layersOn(config)),
    detail: `${configFile} has no \`tests\` section, so a patch that breaks every test is not rejected for it${detected.tests ? ` (\`patchgate init\` would now find ${detected.tests.preset}: ${detected.reasons[0]?.reason ?? ''})` : ''}. To turn them on, add these lines to it:`,
    lines: testsOnLines(configFile, suggestion),
    next: TESTS_ON_NEXT,
  };
}

/** Every file under `root`, repo-relative, outside `.git` and `node_modules`. */
async function walkFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(rel === '' ? root : path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== '.git' && e.name !== 'node_modules') await walk(child);
      } else out.push(child);
    }
  };
  await walk('');
  return out;
}

/** An input error as a problem of `file`, its message without the file's name repeated in front. */
function asProblem(err: PatchgateError, file: string): Problem {
  let message = err.message;
  for (const prefix of [`${file} `, `digest file ${file} `, `cannot read digest file ${file} `]) {
    if (message.startsWith(prefix)) {
      message = `${prefix.startsWith('cannot') ? 'cannot be read ' : ''}${message.slice(prefix.length)}`;
      break;
    }
  }
  return { file, path: '', message };
}

interface Env extends ReadEnv {
  root: string;
  signal?: AbortSignal;
}

/** Runs one reader and the format's own checks; a problem of the file is recorded, anything else is thrown. */
async function attempt(
  env: Env,
  result: ValidationResult,
  contract: ContractPath,
  read: () => Promise<Problem[]>,
): Promise<void> {
  const { path: file, role } = contract;
  try {
    const problems = await read();
    pushAll(result.problems, problems);
    result.files.push({ file, role, status: problems.length === 0 ? 'ok' : 'invalid' });
  } catch (err) {
    if (env.signal?.aborted) throw err;
    if (err instanceof ContractFileError) pushAll(result.problems, err.problems);
    else if (err instanceof PatchgateError && err.kind === 'input' && err.code !== 'ABORTED')
      result.problems.push(asProblem(err, file));
    else throw err;
    result.files.push({ file, role, status: 'invalid' });
  }
}

/** The format that reads `contract`: every role the registry's formats name has one. */
function formatOf(contract: ContractPath): ContractFormat {
  const format = formatOfRole(contract.role);
  if (!format)
    throw new InternalError(`no contract format fills the role '${contract.role}' (${contract.path})`);
  return format;
}

async function checkNamed(env: Env, result: ValidationResult, c: ContractPath): Promise<void> {
  const { root, config, configFile, revision } = env;
  const { path: file, role } = c;
  const format = formatOf(c);
  // init asks for one file by name; a glob format's files are only ever read together.
  if (format.kind !== 'file') throw new InternalError(`${role} (${file}) is read by globs, not by name`);
  if (!(await rootHas(root, file))) {
    if ('readAsEmpty' in format.missing) {
      result.files.push({ file, role, status: 'absent' });
      result.notes.push(`${file} (${role}) does not exist; ${format.missing.readAsEmpty}`);
      return;
    }
    result.files.push({ file, role, status: 'missing' });
    result.problems.push({
      file,
      path: '',
      message: `does not exist in ${revision}, and ${configFile} names it (${role}); ${format.missing.create(role, config)}, and commit it in a human commit.`,
    });
    return;
  }
  await attempt(env, result, c, async () => {
    const value = await format.read(root, c, env);
    return format.check?.(value, c, env) ?? [];
  });
}

async function checkGlobs(
  env: Env,
  result: ValidationResult,
  contracts: readonly ContractPath[],
  all: readonly string[],
): Promise<void> {
  const { root } = env;
  for (const format of CONTRACT_FORMATS) {
    if (format.kind !== 'glob') continue;
    const mine = contracts.filter((c) => formatOfRole(c.role) === format);
    const role = mine[0]?.role;
    if (role === undefined) continue;
    const patterns = mine.map((c) => c.path);
    const match = picomatch(patterns, { dot: true });
    const files = all.filter((p) => match(p)).sort(byCodePoint);
    const read = await format.readMatched(root, files, env, asProblem);
    pushAll(result.problems, read.problems);
    if (read.value !== undefined && read.failed.size === 0)
      pushAll(result.problems, format.check?.(read.value, { files, patterns }, env) ?? []);
    for (const file of files)
      result.files.push({ file, role, status: read.failed.has(file) ? 'invalid' : 'ok' });
  }
}

/**
 * One named contract file (not a glob) of `root`, read as the gate reads it
 * for `config`: what `init` runs on a contract file it finds already there
 * before wiring it in.
 */
export async function validateContractFile(
  root: string,
  loaded: { config: PatchgateConfig; file: string },
  contract: ContractPath,
  options: Omit<ValidateOptions, 'listFiles'> = {},
): Promise<ValidationResult> {
  const result: ValidationResult = { configFile: loaded.file, files: [], problems: [], notes: [] };
  const env: Env = {
    root,
    config: loaded.config,
    configFile: loaded.file,
    revision: options.revision ?? 'the working tree',
    read: contractReadOptions(loaded.config, options.signal),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  await checkNamed(env, result, contract);
  return result;
}

/**
 * Reads the config and every contract file of `root` exactly as the gate
 * reads them from the base: the same files (each enabled layer's
 * `contractFiles`, the claim matrix's globs), the same readers, the same caps.
 * Never throws for a problem of the files; throws only for an internal error
 * or an interruption.
 */
export async function validateContracts(
  root: string,
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  const revision = options.revision ?? 'the working tree';
  const result: ValidationResult = { files: [], problems: [], notes: [] };
  let loaded: { config: PatchgateConfig; file: string };
  try {
    loaded = await loadConfig(root, revision, options.signal ? { signal: options.signal } : {});
  } catch (err) {
    if (options.signal?.aborted) throw err;
    if (err instanceof ContractFileError) {
      pushAll(result.problems, err.problems);
      const file = err.problems[0]?.file;
      if (file !== undefined) {
        result.configFile = file;
        result.files.push({ file, role: 'config', status: 'invalid' });
      }
    } else if (err instanceof PatchgateError && err.kind === 'input' && err.code !== 'ABORTED') {
      // No config, or more than one: named by what was found, or by the names looked for.
      const files = err.details.files;
      const file = Array.isArray(files) ? files.join(', ') : 'patchgate.config.*';
      result.problems.push({ file, path: '', message: err.message });
    } else throw err;
    return result;
  }
  const { config, file: configFile } = loaded;
  result.configFile = configFile;
  result.files.push({ file: configFile, role: 'config', status: 'ok' });
  const env: Env = {
    root,
    config,
    configFile,
    revision,
    read: contractReadOptions(config, options.signal),
    ...(options.signal ? { signal: options.signal } : {}),
  };

  // The config's own sources: a glob or module that finds nothing is the gate's CONFIG_INVALID.
  const sources: ConfiguredSource[] = [];
  if (config.hits?.enabled) {
    config.hits.properties.forEach((g, i) => {
      sources.push({ key: `hits.properties[${i}]`, kind: 'glob', value: g });
    });
    config.hits.python.forEach((p, i) => {
      sources.push({ key: `hits.python[${i}].module`, kind: 'file', value: p.module });
    });
  }
  if (config.seeds?.enabled) {
    config.seeds.properties.forEach((g, i) => {
      sources.push({ key: `seeds.properties[${i}]`, kind: 'glob', value: g });
    });
  }
  for (const p of await missingSources(root, configFile, sources)) {
    result.problems.push({ ...p, message: p.message.replace('in the base revision', `in ${revision}`) });
  }

  const named = contractFilesFor(config);
  const byGlob = (c: ContractPath) => formatOfRole(c.role)?.kind === 'glob';
  const seen = new Set<string>();
  for (const c of named) {
    const key = `${c.role}\0${c.path}`;
    if (byGlob(c) || seen.has(key)) continue;
    seen.add(key);
    await checkNamed(env, result, c);
  }
  const globs = named.filter(byGlob);
  if (globs.length > 0)
    await checkGlobs(env, result, globs, await (options.listFiles ?? (() => walkFiles(root)))());
  if (!config.tests) result.testsOff = await testsOffFor(root, config, configFile);
  return result;
}

/** The problems as the CLI prints them, one `file:line:column: field: sentence` a line. */
export function formatValidation(result: ValidationResult): string[] {
  return result.problems.map(formatProblem);
}
