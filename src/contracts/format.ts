/**
 * One contract file format: everything the gate, `validate`, `init`, the
 * published JSON Schemas and CODEOWNERS need to know about a kind of file
 * only humans change, in one object. Each format lives in its own module of
 * this folder and is listed once in `registry.ts`; nothing outside a format's
 * module tests its role string, so adding a format touches one file and the
 * registry's list.
 */
import type { z } from 'zod';
import type { ContractReadOptions, ContractRoot } from '../config/contract-file.js';
import type { PatchgateConfig } from '../config/schema.js';
import type { PatchgateError, Problem } from '../errors.js';

/** A contract file a config names (what a layer's `contractFiles` lists). */
export interface ContractPath {
  path: string;
  /** Where the config names it, e.g. `fixtures.lock` or `fixtures.canonical[0].digest`. */
  role: string;
  /** `path` is a glob (the claim matrix, `claims/*.yaml`): every file it matches is a contract file. */
  glob?: boolean;
}

/** What a reader is given besides the file. */
export interface ReadEnv {
  config: PatchgateConfig;
  /** The config's file, for problems that are the config's. */
  configFile: string;
  /** Names the revision in messages: `the working tree`, `the base revision`. */
  revision: string;
  read: ContractReadOptions;
}

/** The JSON Schema a format publishes in the package's `schema/` folder. */
export interface PublishedSchema {
  /** The file's name in `schema/`. */
  file: string;
  /** The zod schema the reader validates with, so an editor and the gate agree on the shape. */
  schema: z.ZodType;
}

/** The empty, valid file `init` scaffolds. */
export interface EmptyContract {
  /** The text, with `$schema` first when given, written as the commands that later edit it write it. */
  text(schemaRef?: string): string;
  /** What the file is, for init's `wrote` line. */
  what: string;
}

/**
 * A file the config names that does not exist: either a human creates it
 * (`create` says how), or the gate reads its absence as an empty file
 * (`readAsEmpty` says what that means, as a note).
 */
export type WhenMissing = { create(role: string, config: PatchgateConfig): string } | { readAsEmpty: string };

interface FormatBase {
  /** The config key(s) it fills; an index is written `[]`: `fixtures.canonical[].digest`. */
  roles: readonly string[];
  /** The layer that reads it: its files are read only while that layer is on. */
  layer: string;
  /** What the file is, in a few words with its default name: `seed tape (property_seeds.json)`. */
  describe: string;
  /** Its files as `config` names them, whether or not the layer is on (the layer's `contractFiles`). */
  files(config: PatchgateConfig): ContractPath[];
  /** Absent for a file with no JSON or YAML shape of its own (a digest, a fixture). */
  schema?: PublishedSchema;
  /** Absent when init does not scaffold the file (it writes the lock by digesting, for one). */
  empty?: EmptyContract;
}

/** A format whose files the config names one by one. */
export interface FileFormat<T = unknown> extends FormatBase {
  kind: 'file';
  missing: WhenMissing;
  /**
   * Reads and checks one file as the gate does: every problem of the file at
   * once, located, in one ContractFileError; an InputError for a file that
   * cannot be read at all.
   */
  read(root: ContractRoot, contract: ContractPath, env: ReadEnv): Promise<T>;
  /**
   * What `validate` says beyond the reader: rules the gate applies when its
   * layer runs (an enabled layer whose file checks nothing), as problems.
   */
  check?(value: T, contract: ContractPath, env: ReadEnv): Problem[];
}

/** What reading every file a glob format's patterns match gives. */
export interface MatchedRead<T> {
  /** Undefined when a file did not parse. */
  value?: T;
  problems: Problem[];
  /** The files with a problem of their own. */
  failed: ReadonlySet<string>;
}

/** A format whose files the config names by globs, read together (ids are unique across files). */
export interface GlobFormat<T = unknown> extends FormatBase {
  kind: 'glob';
  /**
   * Reads `files` (the matches, in any order) together. A file that cannot be
   * read is thrown, unless `asProblem` turns its input error into a problem
   * of that file (validate, which reports every file).
   */
  readMatched(
    root: ContractRoot,
    files: readonly string[],
    env: ReadEnv,
    asProblem?: (err: PatchgateError, file: string) => Problem,
  ): Promise<MatchedRead<T>>;
  /** As FileFormat's `check`, given the files matched and the patterns that matched them. */
  check?(
    value: T,
    matched: { files: readonly string[]; patterns: readonly string[] },
    env: ReadEnv,
  ): Problem[];
}

export type ContractFormat = FileFormat | GlobFormat;

/** A role with its indexes written `[]`, as formats name their roles. */
export function roleKey(role: string): string {
  return role.replace(/\[\d+\]/g, '[]');
}
