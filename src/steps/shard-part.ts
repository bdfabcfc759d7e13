/**
 * What one shard of a sharded check leaves for `patchgate merge`
 * (`part.json` beside its partial scorecard): who it is, what it ran on, and
 * each layer's outcome before findings of one code were folded together, so
 * the merge can do what one run would have done with all of them.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { issuesToProblems } from '../config/issues.js';
import { formatProblem, InputError } from '../errors.js';
import type { Finding, LayerOutcome } from '../layers/types.js';
import type { Scorecard } from '../report/scorecard.js';

export const SHARD_PART_SCHEMA = 'patchgate/shard-part@1';

/** One layer on one shard. */
export interface LayerPart {
  name: string;
  /** Why it did not run on this shard (the same words the scorecard gives). */
  skipped?: string;
  /** It threw on this shard: its error finding. */
  threw?: Finding;
  /** What it gave, findings bounded and with log paths made relative to the out folder. */
  outcome?: LayerOutcome;
  /** What the write guards found after it ran (head code that wrote what it must not). */
  guards: Finding[];
  ms: number;
}

/** One suite run the shard saw, for the run history the merge may write. */
export interface PartTestRun {
  side: 'base' | 'head' | 'overlay';
  tests: unknown[];
}

export interface ShardPart {
  schema: typeof SHARD_PART_SCHEMA;
  shard: {
    index: number;
    total: number;
    /** Every shard of one run computes the same plan; the merge compares digests. */
    plan: {
      digest: string;
      by: 'duration' | 'count' | 'suite';
      files: number;
      load: number[];
      durations?: { runs: number; before: string; known: number };
    };
    /** The test files this shard ran. */
    testFiles: string[];
  };
  /** A digest of the base's config as read (every shard must have judged by the same rules). */
  configDigest: string;
  /** The scorecard's fields that do not depend on the layers' outcomes. */
  run: Pick<Scorecard, 'base' | 'head' | 'config' | 'today' | 'isolation'> & { patch?: Scorecard['patch'] };
  /** What decides whether a layer runs, besides the verdict so far. */
  skips: { allLayers: boolean; blocking?: string; enabled: string[]; configFile: string };
  layerOrder: string[];
  /** Findings before any layer's (the sandbox's shortfalls, missing submodules). */
  prelude: Finding[];
  layers: LayerPart[];
  timings: Scorecard['timings'];
  /**
   * The suite runs the shard saw, for `merge --history`: kept in a file of
   * their own beside the part (most of a part's bytes, and a merge without
   * --history never needs them), named here with their digest so that file
   * cannot be swapped. Written by the CLI.
   */
  testRuns?: { file: string; sha256: string };
}

const finding = z.object({
  code: z.string(),
  layer: z.string(),
  severity: z.enum(['reject', 'warn', 'error']),
  message: z.string(),
  evidence: z.record(z.string(), z.unknown()),
});

const outcome = z.object({
  findings: z.array(finding),
  note: z.string().optional(),
  scope: z.record(z.string(), z.unknown()).optional(),
  overrides: z.array(z.record(z.string(), z.unknown())).optional(),
  frozen: z.array(z.record(z.string(), z.unknown())).optional(),
  artifacts: z.array(z.object({ name: z.string(), content: z.string() })).optional(),
  proofs: z.array(z.record(z.string(), z.unknown())).optional(),
  part: z.unknown().optional(),
});

const int = z.number().int();
const partSchema = z.object({
  schema: z.literal(SHARD_PART_SCHEMA),
  shard: z.object({
    index: int.min(1),
    total: int.min(1),
    plan: z.object({
      digest: z.string().regex(/^[0-9a-f]{64}$/),
      by: z.enum(['duration', 'count', 'suite']),
      files: int.min(0),
      load: z.array(z.number()),
      durations: z.object({ runs: int, before: z.string(), known: int }).optional(),
    }),
    testFiles: z.array(z.string()),
  }),
  configDigest: z.string().regex(/^[0-9a-f]{64}$/),
  run: z.object({
    base: z.object({ ref: z.string(), requested: z.string(), commit: z.string() }),
    head: z.object({ ref: z.string(), commit: z.string(), tree: z.string(), worktree: z.boolean() }),
    patch: z.record(z.string(), z.unknown()).optional(),
    config: z.object({ file: z.string(), revision: z.literal('base') }),
    today: z.string(),
    isolation: z.record(z.string(), z.unknown()),
  }),
  skips: z.object({
    allLayers: z.boolean(),
    blocking: z.string().optional(),
    enabled: z.array(z.string()),
    configFile: z.string(),
  }),
  layerOrder: z.array(z.string()),
  prelude: z.array(finding),
  layers: z.array(
    z.object({
      name: z.string(),
      skipped: z.string().optional(),
      threw: finding.optional(),
      outcome: outcome.optional(),
      guards: z.array(finding),
      ms: z.number(),
    }),
  ),
  timings: z.object({
    totalMs: z.number(),
    revisionsMs: z.number(),
    setupMs: z.number(),
    cleanupMs: z.number(),
    layers: z.record(z.string(), z.number()),
  }),
  testRuns: z
    .object({
      file: z.string().regex(/^[A-Za-z0-9._-]+$/),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    })
    .optional(),
});

const testRunsSchema = z.array(
  z.object({ side: z.enum(['base', 'head', 'overlay']), tests: z.array(z.unknown()) }),
);

/**
 * The suite runs a part names, from the text of its file: the digest must be
 * the one the part gives, and the runs what a shard writes; anything else is
 * bad input naming the file.
 */
export function parsePartTestRuns(text: string, file: string, sha256: string): PartTestRun[] {
  const actual = createHash('sha256').update(text).digest('hex');
  if (actual !== sha256)
    throw new InputError(
      'SHARD_PART_INVALID',
      `${file}: its sha256 is ${actual}, but the part names ${sha256}: it is not the file the shard wrote beside its part`,
      { file, expected: sha256, actual },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError('SHARD_PART_INVALID', `${file}: not JSON (${(err as Error).message})`, { file });
  }
  const parsed = testRunsSchema.safeParse(value);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues, file, testRunsSchema);
    throw new InputError(
      'SHARD_PART_INVALID',
      `${file}: not the suite runs of a shard:\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
      { file, problems },
    );
  }
  return parsed.data;
}

/**
 * A part file's text, checked field by field: a part that does not parse is
 * bad input (exit 2) naming the file and every field that is wrong, never a
 * shard quietly missing from the merge.
 */
export function parseShardPart(text: string, file: string): ShardPart {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(
      'SHARD_PART_INVALID',
      `${file}: not a shard part: it is not JSON (${(err as Error).message}); give the part.json a \`patchgate check --shard\` wrote, or its out folder`,
      { file },
    );
  }
  const parsed = partSchema.safeParse(value);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues, file, partSchema);
    throw new InputError(
      'SHARD_PART_INVALID',
      `${file}: not a shard part patchgate ${SHARD_PART_SCHEMA} can merge:\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
      { file, problems },
    );
  }
  return parsed.data as unknown as ShardPart;
}
