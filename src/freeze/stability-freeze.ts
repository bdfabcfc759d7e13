import { z } from 'zod';
import { readContractTextIfExists } from '../config/contract-file.js';
import { parseJsonDocument, validateDocument } from '../config/documents.js';
import { freezeDate, nonBlank } from './fields.js';
import { type Freeze, isExpired } from './model.js';

/**
 * Freeze rows for tests that were flaky before the patch (seed 002's rule
 * one). Every row needs an owner, a reason and an expiry: a freeze without
 * an expiry is a permanent blind spot.
 */
export const stabilityFreezeSchema = z.strictObject({
  freezes: z.array(
    z.strictObject({
      test: nonBlank('a test id').describe('The test id as patchgate reports it (suite::classname::name).'),
      owner: nonBlank('the person or team who owns the freeze'),
      reason: nonBlank('why the test is frozen'),
      expires: freezeDate,
      action: nonBlank('the next step').describe('The next step; a freeze without one is a skip.'),
    }),
  ),
});

export type StabilityFreeze = z.output<typeof stabilityFreezeSchema>;

export function parseStabilityFreeze(text: string, file: string): Freeze[] {
  const doc = parseJsonDocument(text, file, 'CONTRACT_INVALID');
  const parsed = validateDocument(stabilityFreezeSchema, doc, file, 'CONTRACT_INVALID');
  return parsed.freezes.map((row, index) => ({
    kind: 'stability' as const,
    covers: row.test,
    owner: row.owner,
    reason: row.reason,
    expires: row.expires,
    action: row.action,
    source: { file, index, line: doc.locate(['freezes', index], false)?.line },
  }));
}

/** A missing file is an empty freeze: nothing is frozen, so every pre-existing flake rejects. */
export async function readStabilityFreeze(root: string, file: string, revision: string): Promise<Freeze[]> {
  const text = await readContractTextIfExists(root, file, revision);
  return text === undefined ? [] : parseStabilityFreeze(text, file);
}

/** The unexpired row covering a test, if any. */
export function coveringFreeze(
  freezes: readonly Freeze[],
  testId: string,
  today: string,
): Freeze | undefined {
  return freezes.find((f) => f.covers === testId && !isExpired(f, today));
}
