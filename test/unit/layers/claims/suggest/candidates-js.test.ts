import { describe, expect, it } from 'vitest';
import { jsCandidates } from '../../../../../src/layers/claims/suggest/candidates-js.js';
import { loadTypescript } from '../../../../../src/util/typescript.js';
import { hunksOf, lines } from '../../../../helpers/diff.js';

const ts = await loadTypescript();

function candidates(file: string, base: string | undefined, head: string) {
  return jsCandidates(ts, file, hunksOf(file, base ?? '', head), head, base).candidates;
}

/** [line, kind, detail?, symbol?] per candidate, in the order found. */
const brief = (cs: ReturnType<typeof candidates>) =>
  cs
    .map((c) => [c.line, c.kind, c.detail ?? null, c.symbol ?? null] as const)
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));

describe('jsCandidates: returns, throws and error types', () => {
  const base = lines(
    'export class Invoice {',
    '  total(items: number[]): number {',
    '    return items.reduce((a, b) => a + b, 0);',
    '  }',
    '}',
  );

  it('reports a new return and a throw of a class on added lines, inside Invoice.total', () => {
    const head = lines(
      'export class Invoice {',
      '  total(items: number[]): number {',
      "    if (items.length === 0) throw new InvoiceError('empty');",
      '    return items.reduce((a, b) => a + b, 0);',
      '  }',
      '  cap(n: number) {',
      '    return Math.min(n, 100);',
      '  }',
      '}',
    );
    expect(brief(candidates('src/invoice.ts', base, head))).toEqual([
      [3, 'comparison', 'new comparison items.length === 0', 'Invoice.total'],
      [3, 'throw', 'InvoiceError', 'Invoice.total'],
      [7, 'return', null, 'Invoice.cap'],
    ]);
  });

  it('reports nothing for a return the base already had on an unchanged line', () => {
    const head = base.replace('export class', 'export default class');
    expect(candidates('src/invoice.ts', base, head)).toEqual([]);
  });

  it('reports new X(...) of an error class that is returned or rejected, not thrown, as error-type', () => {
    const head = lines(
      'export function later(ms: number) {',
      '  if (ms > 10) return Promise.reject(new TimeoutError(ms));',
      '  const d = new Date();',
      '  throw new RangeError(String(d));',
      '}',
    );
    const found = brief(candidates('src/later.ts', undefined, head));
    expect(found).toContainEqual([2, 'error-type', 'TimeoutError', 'later']);
    expect(found).toContainEqual([4, 'throw', 'RangeError', 'later']);
    // A thrown error is one candidate (the throw), and a Date is no error.
    expect(found.filter((c) => c[1] === 'error-type')).toHaveLength(1);
  });

  it('gives the text of the line trimmed, at most 120 characters', () => {
    const long = `  return ${'x + '.repeat(60)}1;`;
    const [c] = candidates('src/long.js', undefined, lines('function f(x) {', long, '}'));
    expect(c?.text.startsWith('return x + x')).toBe(true);
    expect([...(c?.text ?? '')].length).toBeLessThanOrEqual(120);
  });
});

describe('jsCandidates: status codes', () => {
  it('reports 100-599 under status names, in status calls and returned by a status function', () => {
    const head = lines(
      'export function handler(res) {',
      '  res.status(504);',
      '  res.statusCode = 503;',
      '  return { status: 502, count: 200 };',
      '}',
      'export function statusForTimeout(ms) {',
      '  return 504;',
      '}',
      'export function retries() {',
      '  return 300;',
      '}',
      'const code = 700;',
    );
    const found = brief(candidates('src/http.ts', undefined, head)).filter((c) => c[1] === 'status');
    expect(found).toEqual([
      [2, 'status', 'status 504', 'handler'],
      [3, 'status', 'status 503', 'handler'],
      [4, 'status', 'status 502', 'handler'],
      [7, 'status', 'status 504', 'statusForTimeout'],
    ]);
  });
});

describe('jsCandidates: fields', () => {
  const base = lines('export function refund(c) {', '  return { captured: c.captured };', '}');

  it('reports a property the base never had, in a returned object, and not one it had', () => {
    const head = lines(
      'export function refund(c) {',
      '  return { captured: c.captured,',
      '    refunded_cents: Math.min(c.refund, c.captured) };',
      '}',
    );
    const fields = brief(candidates('src/refund.ts', base, head)).filter((c) => c[1] === 'field');
    expect(fields).toEqual([[3, 'field', 'new field refunded_cents', 'refund']]);
  });

  it('reports new keys of objects passed to a call or assigned, this.x and class properties', () => {
    const head = lines(
      'export class Store {',
      '  retries = 3;',
      '  save(db, row) {',
      '    this.savedAt = Date.now();',
      '    db.insert({ id: row.id, version: 2 });',
      '  }',
      '}',
    );
    const fields = brief(candidates('src/store.ts', undefined, head))
      .filter((c) => c[1] === 'field')
      .map((c) => c[2]);
    expect(fields).toEqual(['new field retries', 'new field savedAt', 'new field id', 'new field version']);
  });

  it('does not report destructuring, type literals or an object only read from', () => {
    const head = lines(
      'type Row = { ghost: number };',
      'export function f(row: Row) {',
      '  const { ghost } = row;',
      '  return ({ phantom: 1 }).phantom + ghost;',
      '}',
    );
    const fields = candidates('src/f.ts', undefined, head).filter((c) => c.kind === 'field');
    expect(fields).toEqual([]);
  });

  it('does not repeat a property holding a status as a field', () => {
    const head = lines('export const f = () => ({ status: 504, reason: "timeout" });');
    const found = brief(candidates('src/f.ts', undefined, head));
    expect(found).toEqual([
      [1, 'field', 'new field reason', 'f'],
      [1, 'status', 'status 504', 'f'],
    ]);
  });
});

describe('jsCandidates: comparisons', () => {
  const base = lines(
    'export function capped(refund, captured) {',
    '  if (refund <= captured) return refund;',
    '  if (refund > 0 && captured >= 0) log(refund);',
    '  return captured;',
    '}',
  );

  it('says which operator became which when the operands stayed', () => {
    const head = base.replace('refund <= captured', 'refund < captured');
    const found = candidates('src/cap.ts', base, head).filter((c) => c.kind === 'comparison');
    expect(found.map((c) => [c.line, c.detail])).toEqual([
      [2, 'refund <= captured became refund < captured'],
    ]);
  });

  it('ignores a comparison that stayed (mirrored counts as the same) on a line changed for something else', () => {
    const head = base.replace(
      'refund > 0 && captured >= 0) log(refund)',
      '0 < refund && captured >= 0) warn(refund)',
    );
    const found = candidates('src/cap.ts', base, head).filter((c) => c.kind === 'comparison');
    expect(found).toEqual([]);
  });

  it('calls a comparison with new operands a new comparison', () => {
    const head = base.replace('refund <= captured', 'refund <= limit');
    const found = candidates('src/cap.ts', base, head).filter((c) => c.kind === 'comparison');
    expect(found.map((c) => c.detail)).toEqual(['new comparison refund <= limit']);
  });

  it('does not take a return or status a rewritten line carried over for new, and does take a changed one', () => {
    const before = lines(
      'export function statusOf(ms) {',
      '  if (ms > 10) return 504;',
      '  return 200;',
      '}',
    );
    const rewritten = before.replace('ms > 10', 'ms >= 10');
    expect(brief(candidates('src/s.ts', before, rewritten))).toEqual([
      [2, 'comparison', 'ms > 10 became ms >= 10', 'statusOf'],
    ]);
    const changed = before.replace('return 504', 'return 503');
    expect(brief(candidates('src/s.ts', before, changed))).toEqual([
      [2, 'return', null, 'statusOf'],
      [2, 'status', 'status 503', 'statusOf'],
    ]);
  });

  it('parses TSX and JavaScript modules', () => {
    const tsx = lines('export const Badge = ({ n }) => {', '  return <b>{n >= 10 ? "many" : n}</b>;', '};');
    expect(brief(candidates('src/Badge.tsx', undefined, tsx))).toEqual([
      [2, 'comparison', 'new comparison n >= 10', 'Badge'],
      [2, 'return', null, 'Badge'],
    ]);
    const mjs = lines('export default function () {', '  return 1;', '}');
    expect(brief(candidates('lib/x.mjs', undefined, mjs))).toEqual([[2, 'return', null, 'default']]);
  });
});
