/**
 * The mutants the mutation probe makes of a TypeScript function a patch
 * touched: which function each changed line belongs to, which edits are made
 * and which are suppressed, and that a mutant keeps its identity when the
 * code around it moves, so the base's and the head's mutants can be compared.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMutant, chooseMutants, type Mutant } from '../../../../src/layers/mutation/mutant.js';
import { mutantsOf, touchedFunctions } from '../../../../src/layers/mutation/ts-mutants.js';
import { requireTypescript } from '../../../../src/util/typescript.js';

const ts = requireTypescript();

const INVOICE = `import { round } from './money';

export class Invoice {
  constructor(private lines: number[]) {}

  total(): number {
    let sum = 0;
    for (const l of this.lines) sum = sum + l;
    console.log('total', sum * 2);
    return round(sum);
  }

  get empty(): boolean {
    return this.lines.length === 0;
  }
}

export function discount(total: number, vip: boolean): number {
  const apply = (t: number) => t * 0.9;
  if (vip && total > 100) return apply(total);
  return total;
}

export const label = (n: number) => 'n=' + n;
`;

const keys = (ms: readonly Mutant[]) => ms.map((m) => `${m.operator}: ${m.original} → ${m.mutated}`);

describe('touchedFunctions', () => {
  it('names the innermost function around each changed line, by class, name and place', () => {
    const r = touchedFunctions(ts, INVOICE, 'src/invoice.ts', [
      { start: 8, end: 8 },
      { start: 14, end: 14 },
      { start: 19, end: 19 },
      { start: 24, end: 24 },
    ]);
    expect(r.functions.map((f) => f.key)).toEqual([
      'Invoice.total',
      'Invoice.get empty',
      'discount.apply',
      'label',
    ]);
    expect(r.outside).toEqual([]);
  });

  it('a change only to comments, a JSDoc or blank lines touches no function and is no module code', () => {
    const text = `/** Totals. */
export function total(xs: number[]): number {
  // add them up

  /* one by one */
  return xs.reduce((a, b) => a + b, 0);
}
`;
    const onlyComments = [
      { start: 1, end: 1 },
      { start: 3, end: 5 },
    ];
    expect(touchedFunctions(ts, text, 'src/t.ts', onlyComments)).toEqual({
      functions: [],
      outside: [],
    });
    expect(
      touchedFunctions(ts, text, 'src/t.ts', [{ start: 3, end: 6 }]).functions.map((f) => f.key),
    ).toEqual(['total']);
  });

  it('sets apart the changed lines that lie in no function (imports, module code)', () => {
    const r = touchedFunctions(ts, INVOICE, 'src/invoice.ts', [{ start: 1, end: 2 }]);
    expect(r.functions).toEqual([]);
    // Line 2 is blank: no code changed there.
    expect(r.outside).toEqual([1]);
  });
});

describe('mutantsOf', () => {
  it('swaps arithmetic, replaces a return with a constant and with a throw, drops a statement', () => {
    const ms = keys(mutantsOf(ts, INVOICE, 'src/invoice.ts', 'Invoice.total'));
    expect(ms).toContain('swap-arithmetic: sum + l → sum - l');
    expect(ms).toContain('constant-return: return round(sum); → return undefined;');
    expect(ms).toContain("raise: return round(sum); → throw new Error('patchgate mutant');");
    expect(ms).toContain('drop-statement: sum = sum + l; → ;');
  });

  it('makes nothing of a logging call: neither dropping it nor editing its arguments', () => {
    const ms = mutantsOf(ts, INVOICE, 'src/invoice.ts', 'Invoice.total');
    expect(ms.filter((m) => m.original.includes('console') || m.original.includes('sum * 2'))).toEqual([]);
  });

  it('makes nothing of a variable only a logging call reads, and still mutates one that is also returned', () => {
    const text = `export function add(value: number, secret: boolean): number {
  let shown = secret ? 'REDACTED' : String(value);
  shown = shown + '!';
  logger.debug('adding %s', shown);
  const kept = value + 1;
  console.log({ kept });
  const id = table.add(value * 2);
  logger.info(id);
  return kept;
}
`;
    const ms = keys(mutantsOf(ts, text, 'src/add.ts', 'add'));
    expect(ms.filter((m) => m.includes('shown') || m.includes('secret'))).toEqual([]);
    expect(ms).toContain('swap-arithmetic: value + 1 → value - 1');
    // A value only the log reads, made by a call with effects: still behaviour.
    expect(ms).toContain('swap-arithmetic: value * 2 → value / 2');
  });

  it('negates a truth-valued return instead of replacing it with a constant, and flips its comparison', () => {
    const ms = keys(mutantsOf(ts, INVOICE, 'src/invoice.ts', 'Invoice.get empty'));
    expect(ms).toContain(
      'negate-return: return this.lines.length === 0; → return !(this.lines.length === 0);',
    );
    expect(ms).toContain('flip-comparison: this.lines.length === 0 → this.lines.length !== 0');
    expect(ms.some((m) => m.startsWith('constant-return'))).toBe(false);
  });

  it('flips a condition and a logical operator, and leaves the nested function to itself', () => {
    const ms = mutantsOf(ts, INVOICE, 'src/invoice.ts', 'discount');
    expect(keys(ms)).toContain('flip-comparison: total > 100 → total <= 100');
    expect(keys(ms)).toContain('flip-boolean: vip && total > 100 → vip || total > 100');
    expect(ms.some((m) => m.original.includes('0.9'))).toBe(false);
    expect(keys(mutantsOf(ts, INVOICE, 'src/invoice.ts', 'discount.apply'))).toContain(
      'swap-arithmetic: t * 0.9 → t / 0.9',
    );
  });

  it('mutates an anonymous callback as part of the function it is written in', () => {
    const src =
      'export function total(xs: number[]) {\n  return xs.map((x) => x * 2).reduce((a, b) => a + b, 0);\n}\n';
    expect(touchedFunctions(ts, src, 't.ts', [{ start: 2, end: 2 }]).functions.map((f) => f.key)).toEqual([
      'total',
    ]);
    const ms = keys(mutantsOf(ts, src, 't.ts', 'total'));
    expect(ms).toContain('swap-arithmetic: x * 2 → x / 2');
    expect(ms).toContain('swap-arithmetic: a + b → a - b');
  });

  it('does not swap the + that joins text, but returns another constant from an arrow body', () => {
    const ms = mutantsOf(ts, INVOICE, 'src/invoice.ts', 'label');
    expect(ms.some((m) => m.operator === 'swap-arithmetic')).toBe(false);
    expect(keys(ms)).toContain("constant-return: 'n=' + n → (undefined)");
  });

  it('never drops a super call, and never a directive', () => {
    const src = `class A extends B {\n  constructor() {\n    'use strict';\n    super();\n    this.x = 1;\n  }\n}\n`;
    const ms = mutantsOf(ts, src, 'a.ts', 'A.constructor');
    expect(keys(ms)).toEqual(['drop-statement: this.x = 1; → ;']);
  });

  it('makes no comparison flip that TypeScript would read as type arguments, and keeps the one that parses', () => {
    // `a < (b > (c))` parses as a call `a<(b>(c))…` with a type argument list, not as two comparisons.
    const src = 'function f(a: any, b: any, c: any) {\n  return a < (b <= (c));\n}\n';
    const flips = mutantsOf(ts, src, 'f.ts', 'f')
      .filter((m) => m.operator === 'flip-comparison')
      .map((m) => m.mutated);
    expect(flips).toEqual(['a >= (b <= (c))']);
  });

  it('still flips comparisons in a file that had syntax errors before the mutant', () => {
    const src = 'function f(a: number) {\n  return a > 1;\n}\nconst broken = ;\n';
    const flips = mutantsOf(ts, src, 'f.ts', 'f').filter((m) => m.operator === 'flip-comparison');
    expect(flips.map((m) => m.mutated)).toEqual(['a <= 1']);
  });

  it('gives no mutant of a function that is not there', () => {
    expect(mutantsOf(ts, INVOICE, 'src/invoice.ts', 'Invoice.missing')).toEqual([]);
  });

  it('applies each mutant as one edit that still parses and differs from the source', () => {
    for (const m of mutantsOf(ts, INVOICE, 'src/invoice.ts', 'discount')) {
      const out = applyMutant(INVOICE, m);
      expect(out).not.toBe(INVOICE);
      const sf = ts.createSourceFile('x.ts', out, ts.ScriptTarget.Latest, true);
      expect((sf as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics).toEqual([]);
      expect(out).toContain(m.mutated);
    }
  });

  it('keeps the ids of the code a patch left alone when lines move and statements are added around it', () => {
    const before = mutantsOf(ts, INVOICE, 'src/invoice.ts', 'discount').map((m) => m.id);
    const moved = INVOICE.replace(
      'export function discount',
      '// a comment\n\nexport function discount',
    ).replace('  return total;\n}', '  const unused = total - 1;\n  return total;\n}');
    const after = mutantsOf(ts, moved, 'src/invoice.ts', 'discount').map((m) => m.id);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.length).toBeGreaterThan(before.length);
  });

  it('numbers the same edit on the same line text apart, so two of them are two mutants', () => {
    const src = 'function f(a: number) {\n  if (a > 1) g();\n  if (a > 1) g();\n  return 3;\n}\n';
    const ids = mutantsOf(ts, src, 'f.ts', 'f')
      .filter((m) => m.operator === 'flip-comparison')
      .map((m) => m.id);
    expect(ids).toEqual([
      'f|flip-comparison|a > 1→a <= 1|if (a > 1) g();|1',
      'f|flip-comparison|a > 1→a <= 1|if (a > 1) g();|2',
    ]);
  });

  it('does not pair the old code with the same expression the patch added on a new line above it', () => {
    // hpack 273971b: `value if not sensitive else …` added for a log line above `… if not sensitive else …`.
    const before = 'function add(v: string, s: boolean) {\n  const bit = !s ? 1 : 2;\n  return bit;\n}\n';
    const after =
      'function add(v: string, s: boolean) {\n  const shown = !s ? v : "REDACTED";\n  log(shown);\n  const bit = !s ? 1 : 2;\n  return bit;\n}\n';
    const flip = (text: string) =>
      mutantsOf(ts, text, 'a.ts', 'add').filter((m) => m.operator === 'flip-boolean' && m.original === '!s');
    const [old] = flip(before);
    const onHead = flip(after);
    expect(onHead).toHaveLength(2);
    expect(onHead.find((m) => m.id === old?.id)?.line).toBe(4);
  });
});

describe('chooseMutants', () => {
  const m = (fn: string, op: Mutant['operator'], n: number) => ({
    id: `${fn}|${op}|${n}`,
    function: fn,
    operator: op,
  });
  const all = [
    m('a', 'flip-comparison', 1),
    m('a', 'flip-comparison', 2),
    m('a', 'raise', 1),
    m('b', 'drop-statement', 1),
    m('b', 'swap-arithmetic', 1),
  ];

  it('probes every function before a second mutant of any, and every operator before a second of one', () => {
    const r = chooseMutants(all, 3);
    expect(r.chosen.map((x) => x.id)).toEqual(['a|flip-comparison|1', 'b|swap-arithmetic|1', 'a|raise|1']);
    expect(r.skipped).toBe(2);
  });

  it('within an operator, takes the mutant nearest the changed lines first', () => {
    const near = (id: string, d: number) => ({ ...m('a', 'flip-boolean', 0), id, d });
    const ms = [near('a|far', 40), near('a|on', 0), near('a|close', 3)];
    expect(chooseMutants(ms, 2, (x) => x.d).chosen.map((x) => x.id)).toEqual(['a|on', 'a|close']);
    expect(chooseMutants(ms, 2).chosen.map((x) => x.id)).toEqual(['a|close', 'a|far']);
  });

  it('chooses the same whatever order it is given them in, and all of them under the budget', () => {
    expect(chooseMutants([...all].reverse(), 3)).toEqual(chooseMutants(all, 3));
    expect(chooseMutants(all, 99)).toMatchObject({ skipped: 0 });
    expect(chooseMutants(all, 99).chosen).toHaveLength(5);
    expect(chooseMutants(all, 0)).toEqual({ chosen: [], skipped: 5 });
  });
});

describe('mutants of generated functions (fast-check)', () => {
  const ident = fc.constantFrom('a', 'b', 'c');
  const atom = fc.oneof(ident, fc.integer({ min: 0, max: 9 }).map(String), fc.constantFrom('true', 'false'));
  const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      fc
        .tuple(
          tie('e'),
          fc.constantFrom('+', '-', '*', '/', '%', '<', '<=', '===', '!==', '&&', '||'),
          tie('e'),
        )
        .map(([l, op, r]) => `(${l} ${op} ${r})`),
      tie('e').map((x) => `!${x}`),
    ),
  })).e as fc.Arbitrary<string>;
  const statement = fc.oneof(
    fc.tuple(ident, expr).map(([v, e]) => `${v} = ${e};`),
    fc.tuple(expr, expr).map(([c, e]) => `if (${c}) return ${e};`),
    fc.tuple(ident, expr).map(([v, e]) => `console.log(${v}, ${e});`),
    expr.map((e) => `return ${e};`),
  );
  const body = fc.array(statement, { minLength: 1, maxLength: 6 });
  const source = (lines: readonly string[]) =>
    `export function f(a: any, b: any, c: any) {\n  ${lines.join('\n  ')}\n}\n`;

  it('every mutant is one edit that still parses, says what it changed, and has an id of its own', () => {
    fc.assert(
      fc.property(body, (lines) => {
        const text = source(lines);
        const ms = mutantsOf(ts, text, 'f.ts', 'f');
        expect(new Set(ms.map((m) => m.id)).size).toBe(ms.length);
        for (const m of ms) {
          const out = applyMutant(text, m);
          expect(out).not.toBe(text);
          expect(out).toContain(m.mutated);
          const sf = ts.createSourceFile('f.ts', out, ts.ScriptTarget.Latest, true);
          expect((sf as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics).toEqual([]);
          expect(m.original).not.toContain('console.log');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the same function after code moved in front of it has the same mutants, by id', () => {
    fc.assert(
      fc.property(body, fc.array(statement, { maxLength: 3 }), (lines, before) => {
        const text = source(lines);
        const moved = `// moved\nexport function g(a: any, b: any, c: any) {\n  ${before.join('\n  ')}\n}\n\n${text}`;
        const ids = (t: string) => mutantsOf(ts, t, 'f.ts', 'f').map((m) => m.id);
        expect(ids(moved)).toEqual(ids(text));
      }),
      { numRuns: 100 },
    );
  });
});
