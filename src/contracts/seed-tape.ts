import { z } from 'zod';
import {
  type ContractReadOptions,
  type ContractRoot,
  readContractText,
  readContractTextIfExists,
} from '../config/contract-file.js';
import { type ParsedDocument, parseJsonDocumentSliced } from '../config/documents.js';
import { byLineThenPath, issuesToProblemsSliced } from '../config/issues.js';
import type { PatchgateConfig } from '../config/schema.js';
import { safeParseSliced } from '../config/sliced-validation.js';
import { ContractFileError, type Problem } from '../errors.js';
import { runInSlices, runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';
import type { FileFormat } from './format.js';

/**
 * The seed tape (`property_seeds.json`): per property, the seeds
 * that once found a counterexample and a floor on how many examples it must
 * run. It is a contract file: read from the base, only compared on the head.
 *
 * A file in the seed's own format loads unchanged (a row with `id`, `nodeid`,
 * `min_examples` and `seeds` is a pytest + Hypothesis row). Our additions:
 *
 * - `runner`: `pytest` (the default), `fast-check` (a property defined with
 *   `defineSeedProperty`, found by `id`), or `command` (any other runner);
 * - `seed_switch` for pytest rows, when the runner's switch is not
 *   `--hypothesis-seed={seed}` (the seed asks for the switch to live in the log
 *   so a patch cannot swap in a weaker command);
 * - `command` for command rows: argv with `{seed}`, `{nodeid}`,
 *   `{min_examples}` and `{report}`, the file the command writes its counts to;
 * - a seed may be an object instead of a string: `{"seed": "77", "path":
 *   "12:0:3", "counterexample": [...]}` keeps fast-check's replay path and the
 *   shrunk counterexample itself, which replays whatever the generator now does.
 */

export const TAPE_RUNNERS = ['pytest', 'fast-check', 'command'] as const;
export type TapeRunner = (typeof TAPE_RUNNERS)[number];

export const DEFAULT_SEED_SWITCH = '--hypothesis-seed={seed}';

/** fast-check folds any other number into 32 bits, so two different tape seeds could replay the same run. */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const SEED_TEXT = /^-?(0|[1-9][0-9]*)$/;
const PATH_TEXT = /^[0-9]+(:[0-9]+)*$/;

const SEED_SHAPE = 'expected a seed written as a decimal integer, like "1048291"';

function seedText(v: string | number): string | undefined {
  const text = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : undefined) : v.trim();
  return text !== undefined && SEED_TEXT.test(text) ? text : undefined;
}

const seedObject = z.strictObject({
  seed: z.union([z.string(), z.number()]),
  path: z
    .string()
    .regex(PATH_TEXT, 'expected a fast-check replay path such as "12:0:3"')
    .optional()
    .describe("fast-check's counterexamplePath: replays the failing run and its shrink steps directly."),
  counterexample: z
    .json()
    .optional()
    .describe(
      "The shrunk counterexample as JSON (fast-check: the tuple of arguments; pytest: the test's arguments by name). Replayed as an explicit example, so no change to the generator can hide it.",
    ),
  note: z.string().optional().describe('What the counterexample found, for the humans reading the tape.'),
});

/**
 * A seed as a bare string or number (the seed's format) or an object with
 * what else a replay can use. Checked by hand rather than as a union, so a
 * bad seed is told what a seed looks like instead of "invalid input".
 */
const seedEntry = z.unknown().transform((v, ctx): TapeSeed => {
  if (typeof v === 'string' || typeof v === 'number') {
    const seed = seedText(v);
    if (seed !== undefined) return { seed };
    ctx.addIssue({ code: 'custom', message: `${SEED_SHAPE}, got ${JSON.stringify(v)}`, input: v });
    return z.NEVER;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    ctx.addIssue({
      code: 'custom',
      message: `${SEED_SHAPE}, or an object {"seed", "path", "counterexample", "note"}; got ${Array.isArray(v) ? 'a list' : JSON.stringify(v)}`,
      input: v,
    });
    return z.NEVER;
  }
  const parsed = seedObject.safeParse(v);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never);
    return z.NEVER;
  }
  const seed = seedText(parsed.data.seed);
  if (seed === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `${SEED_SHAPE}, got ${JSON.stringify(parsed.data.seed)}`,
      path: ['seed'],
      input: v,
    });
    return z.NEVER;
  }
  const { path, counterexample, note } = parsed.data;
  return {
    seed,
    ...(path !== undefined ? { path } : {}),
    ...(counterexample !== undefined ? { counterexample } : {}),
    ...(note !== undefined ? { note } : {}),
  };
});

const rowSchema = z.strictObject({
  id: z.string().trim().min(1, 'expected a non-empty property id'),
  runner: z.enum(TAPE_RUNNERS).optional(),
  nodeid: z.string().trim().min(1, 'expected a non-empty test node id').optional(),
  min_examples: z
    .number({ error: 'expected a whole number of examples, at least 1' })
    .int('expected a whole number of examples, at least 1')
    .min(1, 'must be at least 1: a property that runs no examples checks nothing'),
  seeds: z.array(seedEntry),
  seed_switch: z.string().optional(),
  command: z.array(z.string().min(1)).min(1).optional(),
});

export const tapeSchema = z.strictObject({
  $schema: z
    .string()
    .optional()
    .describe('Path or URL of the JSON Schema, for editors; `seeds add` keeps it.'),
  properties: z.array(rowSchema),
});

export interface TapeSeed {
  seed: string;
  path?: string;
  counterexample?: unknown;
  note?: string;
}

export interface TapeRow {
  id: string;
  runner: TapeRunner;
  nodeid?: string;
  min_examples: number;
  seeds: TapeSeed[];
  /** pytest rows: the switch with `{seed}`, defaulted. */
  seed_switch?: string;
  command?: string[];
  /** 0-based position in `properties`. */
  index: number;
  /** 1-based line of the row, when read from text. */
  line?: number;
}

export interface Tape {
  /** Repo-relative path. */
  file: string;
  rows: TapeRow[];
}

type RawRow = z.output<typeof rowSchema>;

const PLACEHOLDER = /\{([a-z_]+)\}/g;
const COMMAND_PLACEHOLDERS = new Set(['seed', 'nodeid', 'min_examples', 'report']);

/** Rules between fields and rows, on the validated rows, so they are reported with the shape problems. */
function* ruleProblems(
  rows: RawRow[],
  file: string,
  doc: ParsedDocument,
  budget: SliceBudget,
): Sliced<Problem[]> {
  const problems: Problem[] = [];
  const firstId = new Map<string, number>();
  yield* doc.prepare(['properties', 0], budget);
  for (const [i, row] of rows.entries()) {
    if (budget.due()) yield;
    const at = (field: string, message: string) =>
      problems.push({
        file,
        path: `properties[${i}]${field ? `.${field}` : ''}`,
        ...doc.locate(field ? ['properties', i, field] : ['properties', i], true),
        message,
      });
    const runner = row.runner ?? 'pytest';
    const first = firstId.get(row.id);
    if (first === undefined) firstId.set(row.id, i);
    else
      at('id', `repeats the id of properties[${first}]; each property has one row, so add the seeds there.`);

    const seen = new Map<string, number>();
    row.seeds.forEach((entry, j) => {
      const seed = entry.seed;
      const prev = seen.get(seed);
      if (prev !== undefined) at(`seeds`, `lists seed ${seed} twice (entries ${prev} and ${j}).`);
      else seen.set(seed, j);
      if (runner === 'fast-check') {
        const n = Number(seed);
        if (n < INT32_MIN || n > INT32_MAX) {
          at('seeds', `seed ${seed} is outside fast-check's 32-bit seed range [${INT32_MIN}, ${INT32_MAX}].`);
        }
      } else if (typeof entry !== 'string' && entry.path !== undefined) {
        at(
          'seeds',
          `seed ${seed} has a path, which only fast-check rows can replay; a ${runner} row has no replay path.`,
        );
      } else if (typeof entry !== 'string' && entry.counterexample !== undefined) {
        const ce = entry.counterexample;
        if (runner !== 'pytest') {
          at(
            'seeds',
            `seed ${seed} has a counterexample, which only fast-check and pytest rows can replay; a ${runner} row replays the seed alone.`,
          );
        } else if (ce === null || typeof ce !== 'object' || Array.isArray(ce)) {
          at(
            'seeds',
            `seed ${seed}: a pytest counterexample is the test's arguments by name, e.g. {"total": 1, "count": 2}; got ${JSON.stringify(ce)}.`,
          );
        } else if (!Object.keys(ce).every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))) {
          at('seeds', `seed ${seed}: every key of a pytest counterexample must be a Python argument name.`);
        } else if (row.seed_switch !== undefined && row.seed_switch !== DEFAULT_SEED_SWITCH) {
          at(
            'seeds',
            `seed ${seed} has a counterexample, which needs the default seed switch (the replay sets it on the test itself); this row has seed_switch ${JSON.stringify(row.seed_switch)}.`,
          );
        }
      }
    });

    if (runner !== 'fast-check' && row.nodeid === undefined) {
      at('', `is a ${runner} row and needs a \`nodeid\`: the test the seeds are replayed through.`);
    }
    if (row.seed_switch !== undefined) {
      if (runner !== 'pytest') at('seed_switch', `only applies to pytest rows, and this is a ${runner} row.`);
      else if (!row.seed_switch.includes('{seed}'))
        at(
          'seed_switch',
          `must contain {seed}, where the recorded seed goes (e.g. "${DEFAULT_SEED_SWITCH}").`,
        );
    }
    if (runner === 'command') {
      if (row.command === undefined) {
        at(
          '',
          'is a command row and needs a `command`: argv with {seed} and {report}, recorded here so a patch cannot swap in a weaker one.',
        );
      } else {
        const used = new Set<string>();
        for (const arg of row.command) for (const m of arg.matchAll(PLACEHOLDER)) used.add(m[1] ?? '');
        for (const name of used) {
          if (!COMMAND_PLACEHOLDERS.has(name))
            at(
              'command',
              `uses {${name}}; the placeholders are {seed}, {nodeid}, {min_examples} and {report}.`,
            );
        }
        if (!used.has('seed')) at('command', 'never uses {seed}, so it cannot replay a recorded seed.');
        if (!used.has('report'))
          at(
            'command',
            'never uses {report}: the command must write how many examples it ran to that file, so the floor is counted, not trusted.',
          );
      }
    } else if (row.command !== undefined) {
      at('command', `only applies to command rows, and this is a ${runner} row.`);
    }
  }
  return problems;
}

function toRow(raw: RawRow, index: number, line: number | undefined): TapeRow {
  const runner = raw.runner ?? 'pytest';
  return {
    id: raw.id,
    runner,
    ...(raw.nodeid !== undefined ? { nodeid: raw.nodeid } : {}),
    min_examples: raw.min_examples,
    seeds: raw.seeds,
    ...(runner === 'pytest' ? { seed_switch: raw.seed_switch ?? DEFAULT_SEED_SWITCH } : {}),
    ...(raw.command !== undefined ? { command: raw.command } : {}),
    index,
    ...(line !== undefined ? { line } : {}),
  };
}

/** Parses and checks a tape in slices; every problem in the file is reported at once (CONTRACT_INVALID). */
export function* parseTapeSliced(text: string, file: string, budget: SliceBudget): Sliced<Tape> {
  const doc = yield* parseJsonDocumentSliced(text, file, 'CONTRACT_INVALID', budget);
  const result = yield* safeParseSliced(tapeSchema, doc.value, budget);
  const problems = result.success
    ? yield* ruleProblems(result.data.properties, file, doc, budget)
    : yield* issuesToProblemsSliced(result.issues, file, tapeSchema, doc, budget);
  if (!result.success || problems.length > 0) {
    throw new ContractFileError('CONTRACT_INVALID', problems.sort(byLineThenPath));
  }
  const rows: TapeRow[] = [];
  for (const [i, row] of result.data.properties.entries()) {
    if (budget.due()) yield;
    rows.push(toRow(row, i, doc.locate(['properties', i], false)?.line));
  }
  return { file, rows };
}

/** {@link parseTapeSliced} in one go (`seeds add`, tests). */
export function parseTape(text: string, file: string): Tape {
  return runToEnd((budget) => parseTapeSliced(text, file, budget));
}

/** The base's tape: it must exist, since the config names it. */
export async function readTape(
  root: ContractRoot,
  file: string,
  revision: string,
  options: ContractReadOptions,
): Promise<Tape> {
  const text = await readContractText(
    root,
    file,
    revision,
    'create it with `patchgate seeds add`, or write `{"properties": []}` in a human commit',
    options.maxBytes,
  );
  return runInSlices((budget) => parseTapeSliced(text, file, budget), options.signal);
}

/** The head's tape, or undefined when the head deleted it. */
export async function readTapeIfExists(
  root: ContractRoot,
  file: string,
  revision: string,
  options: ContractReadOptions,
): Promise<Tape | undefined> {
  const text = await readContractTextIfExists(root, file, revision, options.maxBytes);
  if (text === undefined) return undefined;
  return runInSlices((budget) => parseTapeSliced(text, file, budget), options.signal);
}

export const seedTapeFormat = {
  kind: 'file',
  roles: ['seeds.tape'],
  layer: 'seeds',
  describe: 'seed tape (property_seeds.json)',
  files: (config: PatchgateConfig) => (config.seeds ? [{ path: config.seeds.tape, role: 'seeds.tape' }] : []),
  schema: { file: 'seed-tape.schema.json', schema: tapeSchema },
  empty: {
    text: (schemaRef) =>
      `${JSON.stringify({ ...(schemaRef !== undefined ? { $schema: schemaRef } : {}), properties: [] }, null, 2)}\n`,
    what: 'an empty seed tape, for the seeds layer',
  },
  missing: {
    create: () =>
      'record a seed with `patchgate seeds add` (the seeds layer needs at least one row: an empty tape checks nothing)',
  },
  read: (root, { path }, env) => readTape(root, path, env.revision, env.read),
  check: (tape, { path, role }, env) =>
    tape.rows.length > 0
      ? []
      : [
          {
            file: env.configFile,
            path: role,
            message: `the seeds layer is on, but ${path} records no property, and an enabled check that checks nothing is an error: add rows with \`patchgate seeds add\`, or set seeds.enabled to false.`,
          },
        ],
} satisfies FileFormat<Tape>;
