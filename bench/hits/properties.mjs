// 200 in-process properties for bench/hits: five kinds of realistic, cheap
// invoice invariants, each kind varied by a parameter so no two properties are
// the same function of the fixture. Most fail by returning false; the header
// kind throws like an assertion would, and mutants that null a line make the
// line-walking kinds fail with a TypeError.
import { defineProperty } from 'patchgate';

export const PROPERTY_COUNT = 200;
const COUNTRIES = new Set(['US', 'CA', 'MX', 'GB', 'DE', 'FR']);

function lineSum(fx, upTo) {
  const lines = fx.lines;
  const n = Math.min(lines.length, upTo);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += lines[i].qty * lines[i].unit_cents;
  return sum;
}

const KINDS = [
  // The seed's invariant: the total is the sum of the lines (up to a line cap).
  (k) => ({
    claims: ['currency', 'lines', 'total_cents'],
    check(fx) {
      return fx.currency === 'USD' && lineSum(fx, 12 + k) === fx.total_cents;
    },
  }),
  // Amount due from total, tax (within k cents of 8%) and discount.
  (k) => ({
    claims: ['total_cents', 'tax_cents', 'discount_cents', 'amount_due_cents'],
    check(fx) {
      const t = fx.total_cents;
      if (!Number.isInteger(t) || t < 0) return false;
      if (Math.abs(fx.tax_cents - Math.round(t * 0.08)) > k % 3) return false;
      if (fx.discount_cents < 0 || fx.discount_cents > t) return false;
      return fx.amount_due_cents === t + fx.tax_cents - fx.discount_cents && lineSum(fx, 4 + k) <= t;
    },
  }),
  // Every line well formed.
  (k) => ({
    claims: ['lines'],
    check(fx) {
      const lines = fx.lines;
      if (!Array.isArray(lines) || lines.length === 0 || lines.length > 12 + (k % 4)) return false;
      for (const l of lines) {
        if (!Number.isInteger(l.qty) || l.qty < 1 || l.qty > 50 + k) return false;
        if (!Number.isInteger(l.unit_cents) || l.unit_cents <= 0) return false;
        if (typeof l.sku !== 'string' || l.sku.length !== 8 || !l.sku.startsWith('SKU-')) return false;
        if (typeof l.description !== 'string' || l.description.length === 0) return false;
      }
      return true;
    },
  }),
  // Header: id, dates, customer; assertion style.
  (k) => ({
    claims: ['id', 'issued', 'due', 'customer', 'currency'],
    check(fx) {
      const fail = (why) => {
        throw new Error(`invoice header: ${why}`);
      };
      if (typeof fx.id !== 'string' || !fx.id.startsWith('INV-') || fx.id.length > 13 + (k % 5)) fail('id');
      if (typeof fx.issued !== 'string' || typeof fx.due !== 'string' || fx.due <= fx.issued) fail('dates');
      const c = fx.customer;
      if (c === null || typeof c !== 'object' || !COUNTRIES.has(c.country)) fail('country');
      if (typeof c.name !== 'string' || c.name.trim() === '' || !c.id.startsWith('C-')) fail('customer');
      if (fx.currency !== 'USD' && fx.currency !== 'CAD') fail('currency');
    },
  }),
  // No line alone is more than a share of the total; skus in ascending order.
  (k) => ({
    claims: ['lines', 'total_cents'],
    check(fx) {
      const cap = fx.total_cents * (0.5 + (k % 10) / 20);
      const lines = fx.lines;
      let last = '';
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i];
        if (l.qty * l.unit_cents > cap || !(l.sku > last)) return false;
        last = l.sku;
      }
      return lines.length > 0;
    },
  }),
];

export default Array.from({ length: PROPERTY_COUNT }, (_, i) => {
  const kind = i % KINDS.length;
  const k = Math.floor(i / KINDS.length);
  return defineProperty({
    name: `invoice_${kind}_${String(k).padStart(2, '0')}`,
    fixture: 'fixtures/invoice.json',
    ...KINDS[kind](k),
  });
});
