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
import { ContractFileError, formatProblem, PatchgateError, type Problem } from '../errors.js';
import { EMPTY_CLAIM_LEDGER, readClaimLedger } from '../freeze/claim-ledger.js';
import { readFlakeLedger } from '../freeze/flake-ledger.js';
import { readSignatureFreeze } from '../freeze/signature-freeze.js';
import { readStabilityFreeze } from '../freeze/stability-freeze.js';
import { parseClaimMatrix } from '../layers/claims/matrix.js';
import { digestFixtureFile, readDigestFile } from '../layers/fixtures/canonical-check.js';
import { readFixtureLock } from '../layers/fixtures/lock-file.js';
import { readTape } from '../layers/seeds/tape.js';
import type { NamedContract } from '../layers/types.js';
import { LAYERS } from '../pipeline.js';
import { pushAll } from '../util/arrays.js';
import { byCodePoint } from '../util/compare.js';
import { type ConfiguredSource, missingSources } from './configured-sources.js';
import {
  type ContractReadOptions,
  contractReadOptions,
  readContractTextIfExists,
  rootHas,
} from './contract-file.js';
import { detectTests } from './detect.js';
import { loadConfig } from './load.js';
import type { PatchgateConfig } from './schema.js';
import { TESTS_ON_NEXT, testsOffHeadline, testsOnLines } from './tests-off.js';

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
    headline: testsOffHeadline(LAYERS.filter((l) => l.enabled(config)).map((l) => l.name)),
    detail: `${configFile} has no \`tests\` section, so a patch that breaks every test is not rejected for it${detected.tests ? ` (\`patchgate init\` would now find ${detected.tests.preset}: ${detected.reasons[0]?.reason ?? ''})` : ''}. To turn them on, add these lines to it:`,
    lines: testsOnLines(configFile, suggestion),
    next: TESTS_ON_NEXT,
  };
}

/** How a human creates a missing contract file, per role. */
function howToCreate(role: string, config: PatchgateConfig): string {
  if (role === 'fixtures.lock') return 'run `patchgate lock` to write it from the fixture roots';
  const canonical = /^fixtures\.canonical\[(\d+)\]\.(file|digest)$/.exec(role);
  if (canonical) {
    const entry = config.fixtures.canonical[Number(canonical[1])];
    return canonical[2] === 'digest'
      ? `run \`patchgate lock\` to write the canonical digest of ${entry?.file ?? 'its fixture'}`
      : 'it is the fixture the digest file locks: restore it, or remove the entry from fixtures.canonical';
  }
  switch (role) {
    case 'hits.ledger':
      return 'write `{"version": 1, "rules": []}` (or add a row with `patchgate ledger add`)';
    case 'seeds.tape':
      return 'record a seed with `patchgate seeds add` (the seeds layer needs at least one row: an empty tape checks nothing)';
    case 'signatures.freeze':
      return 'write `{"signatures": []}` (or freeze a failure with `patchgate signatures add`)';
    case 'claims.ledger':
      return `write ${EMPTY_CLAIM_LEDGER} with an entry per freeze id the claim matrix names`;
    default:
      return 'create it';
  }
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

interface Env {
  root: string;
  config: PatchgateConfig;
  configFile: string;
  revision: string;
  read: ContractReadOptions;
  signal?: AbortSignal;
}

/** Runs one reader; a problem of the file is recorded, anything else is thrown. */
async function attempt(
  env: Env,
  result: ValidationResult,
  file: string,
  role: string,
  read: () => Promise<unknown>,
): Promise<void> {
  try {
    await read();
    result.files.push({ file, role, status: 'ok' });
  } catch (err) {
    if (env.signal?.aborted) throw err;
    if (err instanceof ContractFileError) pushAll(result.problems, err.problems);
    else if (err instanceof PatchgateError && err.kind === 'input' && err.code !== 'ABORTED')
      result.problems.push(asProblem(err, file));
    else throw err;
    result.files.push({ file, role, status: 'invalid' });
  }
}

async function checkNamed(env: Env, result: ValidationResult, c: NamedContract): Promise<void> {
  const { root, config, configFile, revision, read } = env;
  const { path: file, role } = c;
  if (!(await rootHas(root, file))) {
    if (role === 'stability.freeze') {
      result.files.push({ file, role, status: 'absent' });
      result.notes.push(
        `${file} (${role}) does not exist; the gate reads that as no freezes, so every pre-existing flaky test rejects. Write {"freezes": []} to make the file a reviewed contract.`,
      );
      return;
    }
    result.files.push({ file, role, status: 'missing' });
    result.problems.push({
      file,
      path: '',
      message: `does not exist in ${revision}, and ${configFile} names it (${role}); ${howToCreate(role, config)}, and commit it in a human commit.`,
    });
    return;
  }
  const run = (reader: () => Promise<unknown>) => attempt(env, result, file, role, reader);
  if (role === 'fixtures.lock') {
    await run(() => readFixtureLock(root, file, config.fixtures.roots, revision, read));
  } else if (/^fixtures\.canonical\[\d+\]\.digest$/.test(role)) {
    await run(() => readDigestFile(root, file, revision, read.maxBytes));
  } else if (/^fixtures\.canonical\[\d+\]\.file$/.test(role)) {
    await run(async () => {
      const d = await digestFixtureFile(root, file);
      if (!d.ok && !('missing' in d)) {
        throw new ContractFileError('CONTRACT_INVALID', [
          {
            file,
            path: '',
            ...(d.line !== undefined ? { line: d.line, column: d.column ?? 1 } : {}),
            message: `${d.reason}, so its canonical digest cannot be checked (${role}).`,
          },
        ]);
      }
    });
  } else if (role === 'hits.ledger') {
    await run(() => readFlakeLedger(root, file, revision, read));
  } else if (role === 'seeds.tape') {
    await run(async () => {
      const tape = await readTape(root, file, revision, read);
      if (tape.rows.length === 0) {
        throw new ContractFileError('CONFIG_INVALID', [
          {
            file: configFile,
            path: 'seeds.tape',
            message: `the seeds layer is on, but ${file} records no property, and an enabled check that checks nothing is an error: add rows with \`patchgate seeds add\`, or set seeds.enabled to false.`,
          },
        ]);
      }
    });
  } else if (role === 'signatures.freeze') {
    await run(() => readSignatureFreeze(root, file, revision, read));
  } else if (role === 'stability.freeze') {
    await run(() => readStabilityFreeze(root, file, revision, read));
  } else if (role === 'claims.ledger') {
    await run(() => readClaimLedger(root, file, revision, read));
  } else {
    // A contract a newer layer names and this command has no reader for: its presence is all we know.
    result.files.push({ file, role, status: 'ok' });
    result.notes.push(
      `${file} (${role}) exists; patchgate validate has no reader for it, so it was not read.`,
    );
  }
}

async function checkGlobs(
  env: Env,
  result: ValidationResult,
  contracts: readonly NamedContract[],
  all: readonly string[],
): Promise<void> {
  const { root, configFile, revision, read } = env;
  for (const role of [...new Set(contracts.map((c) => c.role))]) {
    const patterns = contracts.filter((c) => c.role === role).map((c) => c.path);
    const match = picomatch(patterns, { dot: true });
    const files = all.filter((p) => match(p)).sort(byCodePoint);
    if (role !== 'claims.matrix') {
      for (const file of files) result.files.push({ file, role, status: 'ok' });
      continue;
    }
    const texts: { file: string; text: string }[] = [];
    const failed = new Set<string>();
    for (const file of files) {
      try {
        const text = await readContractTextIfExists(root, file, revision, read.maxBytes);
        if (text !== undefined) texts.push({ file, text });
      } catch (err) {
        if (!(err instanceof PatchgateError) || err.kind !== 'input' || err.code === 'ABORTED') throw err;
        if (err instanceof ContractFileError) pushAll(result.problems, err.problems);
        else result.problems.push(asProblem(err, file));
        failed.add(file);
      }
    }
    try {
      const matrix = parseClaimMatrix(texts);
      if (matrix.claims.length === 0 && failed.size === 0) {
        result.problems.push({
          file: configFile,
          path: 'claims.matrix',
          message:
            files.length === 0
              ? `matches no file in ${revision} (${patterns.join(', ')}): the claims layer would reject every patch with CLAIMS_EMPTY; write a claim matrix, or set claims.enabled to false.`
              : `the claim matrix (${files.join(', ')}) has no claims: the claims layer would reject every patch with CLAIMS_EMPTY.`,
        });
      }
    } catch (err) {
      if (!(err instanceof ContractFileError)) throw err;
      pushAll(result.problems, err.problems);
      for (const p of err.problems) failed.add(p.file);
    }
    for (const file of files) result.files.push({ file, role, status: failed.has(file) ? 'invalid' : 'ok' });
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
  contract: NamedContract,
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

  const named = LAYERS.filter((l) => l.enabled(config)).flatMap((l) => l.contractFiles(config));
  const seen = new Set<string>();
  for (const c of named) {
    const key = `${c.role}\0${c.path}`;
    if (c.glob || seen.has(key)) continue;
    seen.add(key);
    await checkNamed(env, result, c);
  }
  const globs = named.filter((c) => c.glob);
  if (globs.length > 0)
    await checkGlobs(env, result, globs, await (options.listFiles ?? (() => walkFiles(root)))());
  if (!config.tests) result.testsOff = await testsOffFor(root, config, configFile);
  return result;
}

/** The problems as the CLI prints them, one `file:line:column: field: sentence` a line. */
export function formatValidation(result: ValidationResult): string[] {
  return result.problems.map(formatProblem);
}
