import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeTotal, type Invoice, validateInvoice } from '../src/invoice.js';

// Resolved from this file rather than the working directory, so the suite runs from any folder.
const testdata = new URL('../testdata/', import.meta.url);

function readInvoice(url: URL): Invoice {
  return JSON.parse(readFileSync(url, 'utf8')) as Invoice;
}

const golden = (name: string) => readInvoice(new URL(name, testdata));

const cases = readdirSync(new URL('invoices/', testdata))
  .filter((name) => name.endsWith('.json'))
  .sort();

describe('computeTotal', () => {
  it('adds qty * unit_cents over every line', () => {
    expect(computeTotal({ currency: 'USD', total_cents: 0, lines: [{ qty: 3, unit_cents: 250 }] })).toBe(750);
  });
});

describe('golden invoices', () => {
  it('invoice_v3 totals 1500 cents', () => {
    const invoice = golden('invoice_v3.json');
    expect(computeTotal(invoice)).toBe(1500);
    expect(validateInvoice(invoice)).toEqual([]);
  });

  it('finds the golden cases under testdata/invoices', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)('invoices/%s is valid and its total matches its lines', (name) => {
    const invoice = golden(`invoices/${name}`);
    expect(validateInvoice(invoice)).toEqual([]);
    expect(invoice.total_cents).toBe(computeTotal(invoice));
  });

  it('the canonical lock fixture is a valid invoice too', () => {
    const lock = readInvoice(new URL('../fixtures/lock.json', import.meta.url));
    expect(validateInvoice(lock)).toEqual([]);
  });
});

describe('validateInvoice', () => {
  it('rejects a currency outside USD and EUR', () => {
    const invoice = { ...golden('invoice_v3.json'), currency: 'GBP' };
    expect(validateInvoice(invoice)).toEqual(['currency must be one of USD, EUR, got "GBP"']);
  });

  it('rejects a total that does not match the lines', () => {
    const invoice = { ...golden('invoice_v3.json'), total_cents: 1600 };
    expect(validateInvoice(invoice)).toEqual(['total_cents is 1600, but the lines add up to 1500']);
  });
});
