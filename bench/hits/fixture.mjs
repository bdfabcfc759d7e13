// The benchmark's locked fixture: a deterministic invoice of 12 lines (4 leaf
// fields each) and 11 header leaves, 59 leaf paths in all. Its `total_cents`
// is the sum of the lines, so the seed's invoice_total_matches_lines passes on it.
export const LINE_COUNT = 12;

export function makeInvoice() {
  const lines = [];
  for (let i = 0; i < LINE_COUNT; i++) {
    lines.push({
      sku: `SKU-${1000 + i * 37}`,
      description: `Widget model ${String.fromCharCode(65 + i)}`,
      qty: 1 + ((i * 5) % 7),
      unit_cents: 250 + ((i * 397) % 2000),
    });
  }
  const total = lines.reduce((s, l) => s + l.qty * l.unit_cents, 0);
  const tax = Math.round(total * 0.08);
  const discount = 500;
  return {
    id: 'INV-2024-0042',
    currency: 'USD',
    issued: '2024-03-01',
    due: '2024-03-31',
    customer: { id: 'C-0107', name: 'Acme Corp', country: 'US' },
    lines,
    total_cents: total,
    tax_cents: tax,
    discount_cents: discount,
    amount_due_cents: total + tax - discount,
  };
}

/** Deep enough to reach `lines[0].qty` and `customer.name`. */
export const PERTURB = Object.freeze({ maxDepth: 3 });
