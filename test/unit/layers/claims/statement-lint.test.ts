import { describe, expect, it } from 'vitest';
import { lintStatement } from '../../../../src/layers/claims/statement-lint.js';

const kinds = (s: string) => lintStatement(s).map((p) => p.kind);

describe('lintStatement', () => {
  it.each([
    'refund amount never exceeds captured amount',
    'upstream timeout maps to 504, never 200',
    'idempotency key is stable across retries',
    'the total is at most the sum of the lines',
    'invoice total >= 0',
    'apply_refund never refunds more than the captured amount',
  ])('accepts a sentence with a bound: %s', (s) => {
    expect(kinds(s)).toEqual([]);
  });

  it('reports a sentence that names no bound ("Refunds work")', () => {
    expect(kinds('Refunds work')).toEqual(['no-bound']);
    expect(lintStatement('Refunds work')[0]?.message).toMatch(/names no bound/);
  });

  it.each([
    ['apply_refund works', ['no-bound', 'restates-name']],
    ['computeTotal() computes the total', ['no-bound', 'restates-name']],
    ['Invoice.total handles the total correctly', ['no-bound', 'restates-name']],
  ])('reports a sentence that only restates a function name: %s', (s, want) => {
    expect(kinds(s)).toEqual(want);
  });

  it('does not call a sentence a restatement when it says more than the name', () => {
    expect(kinds('split_installments never bills a cent more than the total')).toEqual([]);
  });
});
