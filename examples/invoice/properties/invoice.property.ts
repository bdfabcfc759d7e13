import { defineProperty } from 'patchgate';
import { CURRENCIES, computeTotal, type Invoice } from '../src/invoice';

/**
 * The seed's invariant, on the canonical fixture: the stated total is what
 * the lines add up to, in a currency we bill in. Every claimed field can make
 * it fail, which is what the hits layer proves on each patch.
 */
export const totalMatchesLines = defineProperty<Invoice>({
  name: 'invoice_total_matches_lines',
  fixture: 'fixtures/lock.json',
  claims: ['lines', 'total_cents', 'currency'],
  check(fx) {
    if (!CURRENCIES.includes(fx.currency)) throw new Error(`unsupported currency ${fx.currency}`);
    const total = computeTotal(fx);
    if (total !== fx.total_cents) throw new Error(`total ${fx.total_cents} != ${total}`);
  },
});

/** Every line bills a positive quantity of a non-negative price. */
export const linesArePositive = defineProperty<Invoice>({
  name: 'invoice_lines_are_positive',
  fixture: 'fixtures/lock.json',
  claims: ['lines'],
  check(fx) {
    if (!Array.isArray(fx.lines) || fx.lines.length === 0) return false;
    return fx.lines.every(
      (l) => Number.isInteger(l.qty) && l.qty > 0 && Number.isInteger(l.unit_cents) && l.unit_cents >= 0,
    );
  },
});
