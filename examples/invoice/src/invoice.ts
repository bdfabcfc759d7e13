/** One billed line: a quantity of a unit price, both whole numbers. */
export interface InvoiceLine {
  qty: number;
  unit_cents: number;
}

export interface Invoice {
  currency: string;
  total_cents: number;
  lines: InvoiceLine[];
}

export const CURRENCIES: readonly string[] = ['USD', 'EUR'];

/**
 * Cents, not floating-point units, so that the total of a golden invoice is
 * exact and can be compared byte for byte.
 */
export function computeTotal(invoice: Invoice): number {
  return invoice.lines.map((line) => line.qty * line.unit_cents).reduce((sum, cents) => sum + cents);
}

/** Every problem at once, so a failing golden test names all of them rather than the first. */
export function validateInvoice(invoice: Invoice): string[] {
  const problems: string[] = [];
  if (!CURRENCIES.includes(invoice.currency)) {
    problems.push(
      `currency must be one of ${CURRENCIES.join(', ')}, got ${JSON.stringify(invoice.currency)}`,
    );
  }
  const expected = computeTotal(invoice);
  if (invoice.total_cents !== expected) {
    problems.push(`total_cents is ${invoice.total_cents}, but the lines add up to ${expected}`);
  }
  return problems;
}
