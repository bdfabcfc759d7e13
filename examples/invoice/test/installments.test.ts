import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { installmentsAddUp } from '../properties/installments.seed.js';
import { splitInstallments } from '../src/installments.js';

describe('splitInstallments', () => {
  it('puts the odd cents on the first installments', () => {
    expect(splitInstallments(1001, 3)).toEqual([334, 334, 333]);
  });

  it('adds back up to the total (the property on the seed tape, run as declared)', () => {
    fc.assert(installmentsAddUp.property, installmentsAddUp.params);
  });
});
