import { describe, expect, it } from 'vitest';
import {
  EMPTY_CONTRACT_ROLES,
  emptyContractText,
  emptyContractWhat,
  isEmptyContractRole,
} from '../../../src/contracts/scaffold.js';
import { InternalError } from '../../../src/errors.js';

describe('the empty contract files init scaffolds, from the registry', () => {
  it('scaffolds the freeze files, the ledgers and the tape, and not the lock, the digests or the matrix', () => {
    expect(EMPTY_CONTRACT_ROLES).toEqual([
      'hits.ledger',
      'seeds.tape',
      'signatures.freeze',
      'stability.freeze',
      'claims.ledger',
    ]);
    for (const role of ['fixtures.lock', 'fixtures.canonical[0].digest', 'claims.matrix', 'hits.nothing'])
      expect(isEmptyContractRole(role)).toBe(false);
    expect(emptyContractWhat('seeds.tape')).toBe('an empty seed tape, for the seeds layer');
    expect(emptyContractWhat('fixtures.lock')).toBeUndefined();
  });

  it('is an internal error to ask for the empty file of a format init does not scaffold', () => {
    expect(() => emptyContractText('fixtures.lock', 'FIXTURE_LOCK.json')).toThrow(InternalError);
    expect(() => emptyContractText('hits.nothing', 'x.json')).toThrow(
      /no empty contract file for role 'hits.nothing'/,
    );
  });
});
