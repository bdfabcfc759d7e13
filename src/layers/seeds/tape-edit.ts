import { isDeepStrictEqual } from 'node:util';
import { parseTape, TAPE_RUNNERS, type Tape, type TapeRunner } from '../../contracts/seed-tape.js';
import { ContractFileError, formatProblem, InputError } from '../../errors.js';
import { type JsonNode, JsonSyntaxError, parseJson, toPlainValue } from '../../json/parse.js';
import { pushAll } from '../../util/arrays.js';

/**
 * `patchgate seeds add`: the human path onto the seed tape. The tape's rules
 * hold for humans too: seeds only grow and `min_examples` may stay or rise,
 * so this edit never removes or lowers anything. It edits the file's raw JSON
 * value rather than re-emitting parsed rows, so entries it does not touch
 * keep the form they were written in (numeric seeds, bare string seeds).
 */

export interface AddSeedRequest {
  /** The row's `id`. */
  id: string;
  /** Decimal integer text. */
  seed: string;
  /** fast-check replay path. */
  path?: string;
  /** The shrunk counterexample (fast-check: the tuple of arguments; pytest: the arguments by name). */
  counterexample?: unknown;
  note?: string;
  minExamples?: number;
  runner?: TapeRunner;
  nodeid?: string;
  seedSwitch?: string;
  command?: string[];
}

export interface AddSeedResult {
  /** The whole tape value to write (the input is never mutated). */
  value: unknown;
  /** False when the tape already held everything the request asks for. */
  changed: boolean;
  /** What changed, or why nothing did, in sentences for the human. */
  message: string;
  /** True when the row was created. */
  createdRow: boolean;
}

const SEED_TEXT = /^-?(0|[1-9][0-9]*)$/;
const PATH_TEXT = /^[0-9]+(:[0-9]+)*$/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The value of an empty tape, for a repository that has none yet. */
export function emptyTape(): { properties: unknown[] } {
  return { properties: [] };
}

function fail(message: string, details: Record<string, unknown> = {}): never {
  throw new InputError('USAGE', `seeds add: ${message}`, details);
}

/** A number JavaScript reads back differently: rewriting the file would silently change it. */
function lossyNumber(node: JsonNode): Extract<JsonNode, { type: 'number' }> | undefined {
  const stack: JsonNode[] = [node];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.type === 'array') pushAll(stack, n.items);
    else if (n.type === 'object') for (const e of n.entries) stack.push(e.value);
    else if (n.type === 'number') {
      const v = Number(n.lexeme);
      if (!Number.isFinite(v)) return n;
      // Integers are exact in Python and most JSON readers; past 2^53 a double rounds them.
      if (n.isInteger && !Number.isSafeInteger(v) && BigInt(n.lexeme) !== BigInt(v)) return n;
    }
  }
  return undefined;
}

/**
 * The raw JSON value of a tape's text. The text must already have passed
 * `parseTape`: an invalid tape is never rewritten, the human fixes it first.
 */
export function rawTapeValue(text: string, file: string): unknown {
  const root = parseJson(text, { duplicateKeys: 'error' });
  const lossy = lossyNumber(root);
  if (lossy) {
    throw new InputError(
      'CONTRACT_INVALID',
      `seeds add: ${file}:${lossy.loc.line}:${lossy.loc.column} holds the number ${lossy.lexeme}, which would change when the file is rewritten (JavaScript cannot hold it exactly); write it as a string, then add the seed`,
      { file, line: lossy.loc.line, column: lossy.loc.column },
    );
  }
  return toPlainValue(root);
}

/** A flag whose value is JSON, read strictly and without losing digits. */
export function parseJsonFlag(flag: string, text: string): unknown {
  let root: JsonNode;
  try {
    root = parseJson(text, { duplicateKeys: 'error' });
  } catch (err) {
    if (err instanceof JsonSyntaxError) fail(`--${flag} must be JSON: ${err.message}; got ${text}`);
    throw err;
  }
  const lossy = lossyNumber(root);
  if (lossy) fail(`--${flag} holds the number ${lossy.lexeme}, which JavaScript cannot hold exactly`);
  return toPlainValue(root);
}

export interface SeedFlags {
  seed?: string;
  path?: string;
  counterexample?: string;
  note?: string;
  'min-examples'?: string;
  runner?: string;
  nodeid?: string;
  'seed-switch'?: string;
  command?: string;
}

/** The request the flags of `seeds add` spell; every problem with a single flag is reported here. */
export function seedRequestFromFlags(id: string | undefined, flags: SeedFlags): AddSeedRequest {
  const trimmedId = id?.trim() ?? '';
  if (trimmedId === '') fail('needs the property id: patchgate seeds add <property-id> --seed S');
  if (flags.seed === undefined) fail('--seed is required: the seed that found the counterexample');
  const seed = flags.seed.trim();
  if (!SEED_TEXT.test(seed))
    fail(`--seed must be a decimal integer such as 1048291, got ${JSON.stringify(flags.seed)}`);
  const request: AddSeedRequest = { id: trimmedId, seed };

  if (flags.path !== undefined) {
    if (!PATH_TEXT.test(flags.path))
      fail(`--path must be a fast-check replay path such as 12:0:3, got ${JSON.stringify(flags.path)}`);
    request.path = flags.path;
  }
  if (flags.counterexample !== undefined)
    request.counterexample = parseJsonFlag('counterexample', flags.counterexample);
  if (flags.note !== undefined) {
    if (flags.note.trim() === '') fail('--note must not be empty');
    request.note = flags.note;
  }
  if (flags['min-examples'] !== undefined) {
    const text = flags['min-examples'].trim();
    const n = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1)
      fail(
        `--min-examples must be a whole number of examples, at least 1, got ${JSON.stringify(flags['min-examples'])}`,
      );
    request.minExamples = n;
  }
  if (flags.runner !== undefined) {
    if (!(TAPE_RUNNERS as readonly string[]).includes(flags.runner))
      fail(`unknown --runner '${flags.runner}'; allowed: ${TAPE_RUNNERS.join(', ')}`);
    request.runner = flags.runner as TapeRunner;
  }
  if (flags.nodeid !== undefined) {
    if (flags.nodeid.trim() === '') fail('--nodeid must name a test');
    request.nodeid = flags.nodeid.trim();
  }
  if (flags['seed-switch'] !== undefined) request.seedSwitch = flags['seed-switch'];
  if (flags.command !== undefined) {
    const argv = parseJsonFlag('command', flags.command);
    if (
      !Array.isArray(argv) ||
      argv.length === 0 ||
      !argv.every((a): a is string => typeof a === 'string' && a !== '')
    )
      fail(
        `--command must be a JSON array of non-empty strings (argv), such as '["node","prop.js","--seed","{seed}","--report","{report}"]', got ${flags.command}`,
      );
    request.command = argv;
  }
  return request;
}

type RawObject = Record<string, unknown>;

function isObject(v: unknown): v is RawObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The seed text of a raw entry, as the tape schema reads it. */
function seedTextOf(entry: unknown): string | undefined {
  const v = isObject(entry) ? entry.seed : entry;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return v.trim();
  return undefined;
}

function describeSeed(req: AddSeedRequest): string {
  const extra = [
    req.path !== undefined ? `path ${req.path}` : undefined,
    req.counterexample !== undefined ? `counterexample ${JSON.stringify(req.counterexample)}` : undefined,
    req.note !== undefined ? `note ${JSON.stringify(req.note)}` : undefined,
  ].filter((s) => s !== undefined);
  return `seed ${req.seed}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
}

/** Flags that only fit some runners, checked against the row's runner. */
function checkForRunner(req: AddSeedRequest, runner: TapeRunner): void {
  if (runner === 'fast-check') {
    const n = Number(req.seed);
    if (n < INT32_MIN || n > INT32_MAX)
      fail(`seed ${req.seed} is outside fast-check's 32-bit seed range [${INT32_MIN}, ${INT32_MAX}]`);
    if (req.counterexample !== undefined && !Array.isArray(req.counterexample))
      fail(
        `--counterexample must be the JSON array of the property's arguments (fast-check's counterexample tuple, e.g. [3,-1]), got ${JSON.stringify(req.counterexample)}`,
      );
  } else {
    if (req.path !== undefined)
      fail(
        `--path only applies to fast-check rows, and '${req.id}' is a ${runner} row: it replays the seed alone`,
      );
    const ce = req.counterexample;
    if (ce !== undefined && runner !== 'pytest')
      fail(
        `--counterexample only applies to fast-check and pytest rows, and '${req.id}' is a ${runner} row: it replays the seed alone`,
      );
    if (ce !== undefined && (ce === null || typeof ce !== 'object' || Array.isArray(ce)))
      fail(
        `--counterexample must be the JSON object of the test's arguments by name (e.g. {"total":1,"count":2}), got ${JSON.stringify(ce)}`,
      );
  }
  if (req.seedSwitch !== undefined) {
    if (runner !== 'pytest')
      fail(`--seed-switch only applies to pytest rows, and '${req.id}' is a ${runner} row`);
    if (!req.seedSwitch.includes('{seed}'))
      fail(
        `--seed-switch must contain {seed}, where the recorded seed goes (e.g. "--hypothesis-seed={seed}"), got ${JSON.stringify(req.seedSwitch)}`,
      );
  }
  if (req.command !== undefined && runner !== 'command')
    fail(`--command only applies to command rows, and '${req.id}' is a ${runner} row`);
}

function newRow(req: AddSeedRequest): RawObject {
  const runner = req.runner ?? 'pytest';
  checkForRunner(req, runner);
  if (req.minExamples === undefined)
    fail(
      `'${req.id}' is not on the tape yet; creating its row needs --min-examples N, the floor of examples the property must run`,
      { property: req.id },
    );
  if (runner !== 'fast-check' && req.nodeid === undefined)
    fail(
      `'${req.id}' is not on the tape yet and would be a ${runner} row, which needs --nodeid: the test the seeds are replayed through${req.runner === undefined ? ' (pass --runner fast-check for a property defined with defineSeedProperty)' : ''}`,
      { property: req.id },
    );
  if (runner === 'command' && req.command === undefined)
    fail(
      `'${req.id}' is not on the tape yet and would be a command row, which needs --command: the argv (JSON) with {seed} and {report}`,
      { property: req.id },
    );
  return {
    id: req.id,
    // The seed's own format has no runner field; pytest rows stay in it.
    ...(runner !== 'pytest' ? { runner } : {}),
    ...(req.nodeid !== undefined ? { nodeid: req.nodeid } : {}),
    min_examples: req.minExamples,
    seeds: [newEntry(req)],
    ...(req.seedSwitch !== undefined ? { seed_switch: req.seedSwitch } : {}),
    ...(req.command !== undefined ? { command: req.command } : {}),
  };
}

function newEntry(req: AddSeedRequest): unknown {
  if (req.path === undefined && req.counterexample === undefined && req.note === undefined) return req.seed;
  return {
    seed: req.seed,
    ...(req.path !== undefined ? { path: req.path } : {}),
    ...(req.counterexample !== undefined ? { counterexample: req.counterexample } : {}),
    ...(req.note !== undefined ? { note: req.note } : {}),
  };
}

/** The fields that define how a row replays; `seeds add` matches them, it never rewrites them. */
function checkRowFields(req: AddSeedRequest, row: RawObject, runner: TapeRunner): void {
  const keep = (flag: string, field: string, given: unknown, current: unknown) => {
    if (given === undefined || isDeepStrictEqual(given, current)) return;
    fail(
      `'${req.id}' already has ${current === undefined ? `no ${field}` : `${field} ${JSON.stringify(current)}`}, and ${flag} ${JSON.stringify(given)} would change how it replays; seeds add only adds seeds and raises floors (change it by hand, in a human commit)`,
      { property: req.id, field },
    );
  };
  keep('--runner', 'runner', req.runner, runner);
  keep('--nodeid', 'nodeid', req.nodeid, typeof row.nodeid === 'string' ? row.nodeid.trim() : row.nodeid);
  if (runner === 'pytest')
    keep('--seed-switch', 'seed_switch', req.seedSwitch, row.seed_switch ?? '--hypothesis-seed={seed}');
  if (runner === 'command') keep('--command', 'command', req.command, row.command);
}

/** Adds the seed to an existing entry with the same seed, or says why it cannot. */
function mergeEntry(req: AddSeedRequest, entry: unknown): { entry: unknown; added: string[] } {
  const given: [key: 'path' | 'counterexample' | 'note', value: unknown][] = [
    ['path', req.path],
    ['counterexample', req.counterexample],
    ['note', req.note],
  ];
  const current: RawObject = isObject(entry) ? entry : {};
  const added: string[] = [];
  for (const [key, value] of given) {
    if (value === undefined) continue;
    if (current[key] === undefined) added.push(key);
    else if (!isDeepStrictEqual(current[key], value))
      fail(
        `seed ${req.seed} of '${req.id}' already records ${key} ${JSON.stringify(current[key])}; seeds add never replaces what the tape records (a different ${key} is a hand edit, in a human commit)`,
        { property: req.id, seed: req.seed, field: key },
      );
  }
  if (added.length === 0) return { entry, added };
  // A bare seed becomes an object and keeps its seed exactly as written (a number stays a number).
  const upgraded: RawObject = isObject(entry) ? { ...entry } : { seed: entry };
  for (const [key, value] of given) if (added.includes(key)) upgraded[key] = value;
  return { entry: upgraded, added };
}

/**
 * Adds `request.seed` to the row `request.id` of a raw tape value, creating
 * the row when the tape has none; raises `min_examples` when asked. Throws
 * an InputError rather than remove, lower or replace anything.
 */
export function addSeed(rawTapeValue: unknown, request: AddSeedRequest): AddSeedResult {
  if (!isObject(rawTapeValue) || !Array.isArray(rawTapeValue.properties))
    throw new InputError(
      'CONTRACT_INVALID',
      'seeds add: the tape is not an object with a `properties` array',
    );
  const value = structuredClone(rawTapeValue) as RawObject & { properties: unknown[] };
  const rows = value.properties;
  const index = rows.findIndex((r) => isObject(r) && typeof r.id === 'string' && r.id.trim() === request.id);

  if (index < 0) {
    rows.push(newRow(request));
    const runner = request.runner ?? 'pytest';
    return {
      value,
      changed: true,
      createdRow: true,
      message: `created row '${request.id}' (${runner}, min_examples ${request.minExamples}) with ${describeSeed(request)}`,
    };
  }

  const row = rows[index] as RawObject;
  const runner = (typeof row.runner === 'string' ? row.runner : 'pytest') as TapeRunner;
  checkForRunner(request, runner);
  checkRowFields(request, row, runner);
  const changes: string[] = [];

  if (request.minExamples !== undefined) {
    const floor = row.min_examples;
    if (typeof floor === 'number' && request.minExamples < floor)
      fail(
        `--min-examples ${request.minExamples} is lower than the current floor of '${request.id}', min_examples ${floor}; the floor may stay or rise, never fall`,
        { property: request.id, floor, requested: request.minExamples },
      );
    if (floor !== request.minExamples) {
      row.min_examples = request.minExamples;
      changes.push(`raised min_examples of '${request.id}' from ${String(floor)} to ${request.minExamples}`);
    }
  }

  if (!Array.isArray(row.seeds))
    throw new InputError('CONTRACT_INVALID', `seeds add: row '${request.id}' has no \`seeds\` array`);
  const seeds = row.seeds as unknown[];
  const at = seeds.findIndex((e) => seedTextOf(e) === request.seed);
  if (at < 0) {
    seeds.push(newEntry(request));
    changes.push(`added ${describeSeed(request)} to '${request.id}'`);
  } else {
    const merged = mergeEntry(request, seeds[at]);
    if (merged.added.length > 0) {
      seeds[at] = merged.entry;
      changes.push(
        `recorded ${merged.added.join(' and ')} for seed ${request.seed} of '${request.id}' (it was already on the tape)`,
      );
    } else if (changes.length === 0) {
      return {
        value: rawTapeValue,
        changed: false,
        createdRow: false,
        message: `seed ${request.seed} is already on '${request.id}' with everything given; nothing to change`,
      };
    } else changes.push(`seed ${request.seed} was already on '${request.id}'`);
  }
  return { value, changed: true, createdRow: false, message: changes.join('; ') };
}

/**
 * The text to write, checked by the same reader the gate uses: a tape that
 * would not load is never written.
 */
export function formatTape(value: unknown, file: string): { text: string; tape: Tape } {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  try {
    return { text, tape: parseTape(text, file) };
  } catch (err) {
    if (err instanceof ContractFileError) {
      throw new InputError(
        'CONTRACT_INVALID',
        `seeds add: the edit would make ${file} invalid, so nothing was written:\n${err.problems.map((p) => `  - ${formatProblem({ ...p, line: undefined })}`).join('\n')}`,
        { file, problems: err.problems.map((p) => ({ ...p })) },
      );
    }
    throw err;
  }
}
