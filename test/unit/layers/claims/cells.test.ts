import { describe, expect, it } from 'vitest';
import { parseFreezeRef, parsePropertyRef } from '../../../../src/layers/claims/cells.js';

describe('parseFreezeRef', () => {
  const ledger = 'freeze/ledger.json';
  it.each([
    ['refund_cap', 'refund_cap'],
    ['freeze:refund_cap', 'refund_cap'],
    ['freeze/ledger.json#refund_cap', 'refund_cap'],
    ['./freeze/ledger.json#refund_cap', 'refund_cap'],
  ])('reads %s as id %s', (cell, id) => {
    expect(parseFreezeRef(cell, ledger)).toEqual({ ok: true, id });
  });

  it("refuses a cell naming another ledger file (the seed's scorer would look the id up in the wrong file)", () => {
    expect(parseFreezeRef('other/ledger.json#refund_cap', ledger)).toEqual({
      ok: false,
      ledger: 'other/ledger.json',
      id: 'refund_cap',
    });
  });
});

describe('parsePropertyRef', () => {
  it.each([
    ['tests/test_x.py::test_prop', { kind: 'test', id: 'tests/test_x.py::test_prop' }],
    ['test:pytest::tests.test_x::test_prop', { kind: 'test', id: 'pytest::tests.test_x::test_prop' }],
    ['hits:total_matches_lines', { kind: 'hits', name: 'total_matches_lines' }],
    ['seed:installments_add_up', { kind: 'seed', id: 'installments_add_up' }],
    ['prop_refund_cap', { kind: 'name', name: 'prop_refund_cap' }],
  ])('reads %s', (cell, want) => {
    expect(parsePropertyRef(cell)).toEqual(want);
  });
});
