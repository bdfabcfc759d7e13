import { z } from 'zod';
import {
  type ContractReadOptions,
  type ContractRoot,
  readContractTextIfExists,
} from '../config/contract-file.js';
import { parseJsonDocumentSliced, validateDocumentSliced } from '../config/documents.js';
import { runInSlices, runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';
import { freezeDate, nonBlank } from './fields.js';
import { type Freeze, isExpired } from './model.js';

/**
 * Freeze rows for tests that were flaky before the patch (a freeze excuses
 * only what was already flaky). Every row needs an owner, a reason and an expiry: a freeze without
 * an expiry is a permanent blind spot.
 */
export const stabilityFreezeSchema = z.strictObject({
  $schema: z.string().optional().describe('Path or URL of the JSON Schema, for editors.'),
  freezes: z.array(
    z.strictObject({
      test: nonBlank('a test id').describe('The test id as patchgate reports it (suite::classname::name).'),
      owner: nonBlank('the person or team who owns the freeze'),
      reason: nonBlank('why the test is frozen'),
      expires: freezeDate,
      action: nonBlank('the next step').describe('The next step; a freeze without one is a skip.'),
      source: z
        .enum(['baseline'])
        .optional()
        .describe(
          '"baseline": written by `patchgate baseline` for a test that was already flaky when patchgate was adopted; reports show such rows as baseline rows. Absent for rows a human added.',
        ),
    }),
  ),
});

export type StabilityFreeze = z.output<typeof stabilityFreezeSchema>;

/** Parses and checks a freeze file in slices; every problem is reported at once as CONTRACT_INVALID. */
export function* parseStabilityFreezeSliced(
  text: string,
  file: string,
  budget: SliceBudget,
): Sliced<Freeze[]> {
  const doc = yield* parseJsonDocumentSliced(text, file, 'CONTRACT_INVALID', budget);
  const parsed = yield* validateDocumentSliced(stabilityFreezeSchema, doc, file, 'CONTRACT_INVALID', budget);
  yield* doc.prepare(['freezes', 0], budget);
  const out: Freeze[] = [];
  for (const [index, row] of parsed.freezes.entries()) {
    if (budget.due()) yield;
    out.push({
      kind: 'stability' as const,
      covers: row.test,
      owner: row.owner,
      reason: row.reason,
      expires: row.expires,
      action: row.action,
      source: { file, index, line: doc.locate(['freezes', index], false)?.line },
      ...(row.source === 'baseline' ? { origin: 'baseline' as const } : {}),
    });
  }
  return out;
}

export type StabilityFreezeRow = StabilityFreeze['freezes'][number];

/**
 * The file's text for these rows, the way every writer writes it: `$schema`
 * first when there is one, the fields of a row in a fixed order, two-space
 * indent, final newline.
 */
export function formatStabilityFreeze(f: {
  $schema?: string;
  freezes: readonly StabilityFreezeRow[];
}): string {
  const freezes = f.freezes.map((r) => ({
    test: r.test,
    owner: r.owner,
    reason: r.reason,
    expires: r.expires,
    action: r.action,
    ...(r.source !== undefined ? { source: r.source } : {}),
  }));
  return `${JSON.stringify({ ...(f.$schema !== undefined ? { $schema: f.$schema } : {}), freezes }, null, 2)}\n`;
}

/** {@link parseStabilityFreezeSliced} in one go. */
export function parseStabilityFreeze(text: string, file: string): Freeze[] {
  return runToEnd((budget) => parseStabilityFreezeSliced(text, file, budget));
}

/** A missing file is an empty freeze: nothing is frozen, so every pre-existing flake rejects. */
export async function readStabilityFreeze(
  root: ContractRoot,
  file: string,
  revision: string,
  options: ContractReadOptions,
): Promise<Freeze[]> {
  const text = await readContractTextIfExists(root, file, revision, options.maxBytes);
  if (text === undefined) return [];
  return runInSlices((budget) => parseStabilityFreezeSliced(text, file, budget), options.signal);
}

/** The unexpired row covering a test, if any. */
export function coveringFreeze(
  freezes: readonly Freeze[],
  testId: string,
  today: string,
): Freeze | undefined {
  return freezes.find((f) => f.covers === testId && !isExpired(f, today));
}
