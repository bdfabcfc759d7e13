import { describe, expect, it } from 'vitest';
import type { Hunk } from '../../../../../src/git/hunks.js';
import {
  enclosingSymbol,
  languageOf,
  type Span,
  symbolSpans,
  uncoveredHunks,
} from '../../../../../src/layers/claims/suggest/symbols.js';
import { lines } from '../../../../helpers/diff.js';

describe('symbolSpans (TypeScript/JavaScript)', () => {
  it('names classes, methods, bound arrow functions, nested functions and object-literal methods', async () => {
    const text = lines(
      'export class Invoice {', // 1
      '  constructor(private n: number) {}', // 2
      '  total(): number {', // 3
      '    return this.n;', // 4
      '  }', // 5
      '  get size() { return 1; }', // 6
      '  onTick = () => this.n;', // 7
      '}', // 8
      'export const applyRefund = (a: number) => {', // 9
      '  function clamp(x: number) { return x; }', // 10
      '  return [1].map((v) => clamp(v + a));', // 11
      '};', // 12
      'const api = {', // 13
      '  get() { return 1; },', // 14
      '  put: function () {},', // 15
      '};', // 16
      'export default function () {}', // 17
      'namespace N { export function f() {} }', // 18
    );
    expect(await symbolSpans('src/x.ts', text)).toEqual([
      { name: 'Invoice', start: 1, end: 8 },
      { name: 'Invoice.constructor', start: 2, end: 2 },
      { name: 'Invoice.total', start: 3, end: 5 },
      { name: 'Invoice.size', start: 6, end: 6 },
      { name: 'Invoice.onTick', start: 7, end: 7 },
      { name: 'applyRefund', start: 9, end: 12 },
      { name: 'applyRefund.clamp', start: 10, end: 10 },
      { name: 'api.get', start: 14, end: 14 },
      { name: 'api.put', start: 15, end: 15 },
      { name: 'default', start: 17, end: 17 },
      { name: 'N', start: 18, end: 18 },
      { name: 'N.f', start: 18, end: 18 },
    ]);
  });

  it('does not name methods of an object literal that is returned from a function', async () => {
    const text = lines('function make() {', '  return { get() { return 1; } };', '}');
    expect(await symbolSpans('src/m.js', text)).toEqual([{ name: 'make', start: 1, end: 3 }]);
  });

  it('gives no spans for other languages (Python spans come from its adapter)', async () => {
    expect(await symbolSpans('src/x.py', 'def f():\n    return 1\n')).toEqual([]);
    expect(await symbolSpans('main.go', 'func f() {}\n')).toEqual([]);
  });
});

describe('enclosingSymbol', () => {
  const spans: Span[] = [
    { name: 'Invoice', start: 1, end: 20 },
    { name: 'Invoice.total', start: 3, end: 9 },
    { name: 'Invoice.total.inner', start: 5, end: 6 },
  ];
  it('picks the innermost span holding the line, and none outside every span', () => {
    expect(enclosingSymbol(spans, 5)).toBe('Invoice.total.inner');
    expect(enclosingSymbol(spans, 8)).toBe('Invoice.total');
    expect(enclosingSymbol(spans, 15)).toBe('Invoice');
    expect(enclosingSymbol(spans, 21)).toBeUndefined();
  });
});

describe('languageOf', () => {
  it('sorts files into the parser that reads them', () => {
    expect(['a.ts', 'a.tsx', 'a.mjs', 'a.cjs', 'a.mts', 'a.cts', 'a.jsx', 'a.js'].map(languageOf)).toEqual(
      Array(8).fill('js'),
    );
    expect(languageOf('src/x.py')).toBe('python');
    expect(languageOf('README.md')).toBe('prose');
    expect(languageOf('main.go')).toBe('other');
  });
});

function hunk(file: string, newStart: number, newLines: number): Hunk {
  const added = Array.from({ length: newLines }, (_, i) => ({ line: newStart + i, text: 'x' }));
  return {
    file,
    oldStart: newStart,
    oldLines: newLines === 0 ? 1 : 0,
    newStart,
    newLines,
    added,
    removed: newLines === 0 ? [{ line: newStart + 1, text: 'gone' }] : [],
  };
}

describe('uncoveredHunks', () => {
  const spans: Record<string, Span[]> = {
    'src/invoice.py': [
      { name: 'Invoice', start: 1, end: 30 },
      { name: 'Invoice.total', start: 10, end: 20 },
      { name: 'apply_refund', start: 40, end: 50 },
    ],
  };
  const spansOf = (f: string) => spans[f] ?? [];
  const inTotal = hunk('src/invoice.py', 12, 2);
  const inRefund = hunk('src/invoice.py', 45, 1);
  const straddling = hunk('src/invoice.py', 19, 4); // 19..22: the end of total
  const deletedInTotal = hunk('src/invoice.py', 20, 0); // removed after line 20, total's last line
  const deletedAfterTotal = hunk('src/invoice.py', 21, 0);
  const other = hunk('src/other.ts', 1, 1);
  const dotted = hunk('.github/workflows/ci.yml', 3, 1);
  const all = [inTotal, inRefund, straddling, deletedInTotal, deletedAfterTotal, other, dotted];

  it('leaves every hunk uncovered with no covers', () => {
    expect(uncoveredHunks(all, spansOf, [])).toEqual(all);
  });

  it('covers every hunk of files a plain glob matches, dot folders included', () => {
    expect(uncoveredHunks(all, spansOf, ['src/*.py', '**/*.yml'])).toEqual([other]);
  });

  it('covers with GLOB#SYMBOL only the hunks overlapping that span, a deletion at its position', () => {
    expect(uncoveredHunks(all, spansOf, ['src/invoice.py#Invoice.total'])).toEqual([
      inRefund,
      deletedAfterTotal,
      other,
      dotted,
    ]);
    expect(uncoveredHunks(all, spansOf, ['src/**#apply_refund'])).toEqual([
      inTotal,
      straddling,
      deletedInTotal,
      deletedAfterTotal,
      other,
      dotted,
    ]);
  });

  it('lets a class cover its methods, and matches symbol names exactly', () => {
    expect(uncoveredHunks([inTotal, inRefund], spansOf, ['src/invoice.py#Invoice'])).toEqual([inRefund]);
    expect(uncoveredHunks([inTotal], spansOf, ['src/invoice.py#total'])).toEqual([inTotal]);
  });

  it('covers nothing with an empty glob or symbol, and nothing by symbol in a file with no spans', () => {
    expect(uncoveredHunks([inTotal], spansOf, ['#Invoice.total', 'src/invoice.py#'])).toEqual([inTotal]);
    expect(uncoveredHunks([other], spansOf, ['src/other.ts#main'])).toEqual([other]);
  });
});
