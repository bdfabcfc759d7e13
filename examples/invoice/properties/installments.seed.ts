import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
import { splitInstallments } from '../src/installments.js';

/**
 * On the seed tape (property_seeds.json) as `installments_add_up`. The gate
 * replays its recorded seed and counterexample on every patch, and counts the
 * examples this definition runs (params.numRuns) against the tape's floor.
 */
export const installmentsAddUp = defineSeedProperty({
  id: 'installments_add_up',
  property: fc.property(fc.nat({ max: 1_000_000 }), fc.integer({ min: 1, max: 12 }), (total, count) => {
    const parts = splitInstallments(total, count);
    const sum = parts.reduce((a, b) => a + b, 0);
    return parts.length === count && sum === total && Math.max(...parts) - Math.min(...parts) <= 1;
  }),
  params: { numRuns: 200 },
});
