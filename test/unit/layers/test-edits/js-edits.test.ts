/**
 * The test-edit analysis on JavaScript and TypeScript: small base/head pairs
 * of real vitest / jest / fast-check test files, read by the TypeScript
 * compiler and compared. Each pins one kind of edit, its test, its lines
 * and its description; the pairs that must give nothing pin the noise.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compareFile } from '../../../../src/layers/test-edits/compare.js';
import { jsFacts } from '../../../../src/layers/test-edits/js-facts.js';
import type { FileFacts, TestEdit } from '../../../../src/layers/test-edits/model.js';
import { rankOf } from '../../../../src/layers/test-edits/ranking.js';

const FILE = 'test/price.test.ts';

function facts(text: string, file = FILE): FileFacts {
  const r = jsFacts(ts, file, text);
  if (!r.ok) throw new Error(`does not parse: ${r.error}`);
  return r.facts;
}

function edits(base: string, head: string, file = FILE): TestEdit[] {
  return compareFile({
    file,
    baseFile: file,
    base: facts(base, file),
    head: facts(head, file),
    term: 'arbitrary',
    holdsTests: true,
  }).edits;
}

const spec = (body: string, pre = '') =>
  `import { describe, expect, it, test, vi, beforeEach } from 'vitest';\nimport fc from 'fast-check';\n${pre}describe('price', () => {\n${body}\n});\n`;

describe('assertions', () => {
  it('a matcher replaced by a weaker one is assertion-weakened, with both texts and ranks', () => {
    const found = edits(
      spec("  it('takes a fifth off', () => {\n    expect(price(100)).toEqual(80);\n  });"),
      spec("  it('takes a fifth off', () => {\n    expect(price(100)).toBeDefined();\n  });"),
    );
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'assertion-weakened',
        test: 'price > takes a fifth off',
        baseLine: 5,
        headLine: 5,
        before: 'expect(price(100)).toEqual(80)',
        after: 'expect(price(100)).toBeDefined()',
      }),
    ]);
    expect(found[0]?.description).toBe(
      'weakened `expect(price(100)).toEqual(80)` to `expect(price(100)).toBeDefined()` (it checks the value; now it checks only that there is a value)',
    );
  });

  it.each([
    ['toEqual', 'toMatchObject'],
    ['toStrictEqual', 'toBeTruthy'],
    ['toBe', 'not.toBe'],
    ['toMatchObject', 'toBeDefined'],
  ])('%s → %s is weakened', (from, to) => {
    const found = edits(
      spec(`  it('t', () => { expect(f()).${from}({ a: 1 }); });`),
      spec(`  it('t', () => { expect(f()).${to}({ a: 1 }); });`),
    );
    expect(found.map((e) => e.kind)).toEqual(['assertion-weakened']);
  });

  it('a stronger matcher is no edit', () => {
    expect(
      edits(
        spec("  it('t', () => { expect(f()).toBeDefined(); });"),
        spec("  it('t', () => { expect(f()).toEqual({ a: 1 }); });"),
      ),
    ).toEqual([]);
  });

  it('an assertion on a literal checks nothing: expect(true).toBe(true) in place of a real one is weakened', () => {
    const found = edits(
      spec("  it('t', () => { expect(total([1, 2])).toBe(3); });"),
      spec("  it('t', () => { expect(true).toBe(true); });"),
    );
    expect(found.map((e) => e.kind)).toEqual(['assertion-weakened']);
    expect(found[0]?.description).toContain('now it checks nothing');
  });

  it('a removed assertion is assertion-removed at its base line', () => {
    const found = edits(
      spec("  it('t', () => {\n    expect(a()).toBe(1);\n    expect(b()).toBe(2);\n  });"),
      spec("  it('t', () => {\n    expect(a()).toBe(1);\n  });"),
    );
    expect(found).toEqual([
      expect.objectContaining({ kind: 'assertion-removed', baseLine: 6, before: 'expect(b()).toBe(2)' }),
    ]);
  });

  it('statements after an early return are dead: their assertions are removed', () => {
    const found = edits(
      spec("  it('t', () => {\n    const x = f();\n    expect(x).toBe(1);\n  });"),
      spec("  it('t', () => {\n    const x = f();\n    return;\n    expect(x).toBe(1);\n  });"),
    );
    expect(found.map((e) => e.kind)).toEqual(['assertion-removed']);
  });

  it('a literal expected value changed to agree with new output is expected-changed', () => {
    const found = edits(
      spec("  it('t', () => { expect(price(100)).toBe(80); });"),
      spec("  it('t', () => { expect(price(100)).toBe(81); });"),
    );
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'expected-changed',
        before: '80',
        after: '81',
        description: 'changed the expected value of `price(100)` from `80` to `81`',
      }),
    ]);
  });

  it('an assertion wrapped in try/catch that does not rethrow is exception-swallowed; one that rethrows is not', () => {
    const base = spec("  it('t', () => {\n    expect(f()).toBe(1);\n  });");
    expect(
      edits(
        base,
        spec("  it('t', () => {\n    try {\n      expect(f()).toBe(1);\n    } catch (e) {}\n  });"),
      ).map((e) => e.kind),
    ).toEqual(['exception-swallowed']);
    expect(
      edits(
        base,
        spec(
          "  it('t', () => {\n    try {\n      expect(f()).toBe(1);\n    } catch (e) {\n      throw e;\n    }\n  });",
        ),
      ),
    ).toEqual([]);
  });

  it('toThrow with a message widened to toThrow() is weakened ("widened")', () => {
    const found = edits(
      spec("  it('t', () => { expect(() => f(-1)).toThrow(/negative/); });"),
      spec("  it('t', () => { expect(() => f(-1)).toThrow(); });"),
    );
    expect(found[0]).toMatchObject({ kind: 'assertion-weakened' });
    expect(found[0]?.description).toMatch(
      /^widened .*checks the error's message; now it checks only that something is thrown/,
    );
  });

  it('node:assert and chai matchers are ranked too', () => {
    expect(
      edits(
        spec("  it('t', () => { assert.strictEqual(f(), 3); });"),
        spec("  it('t', () => { assert.ok(f()); });"),
      ).map((e) => e.kind),
    ).toEqual(['assertion-weakened']);
    expect(
      edits(
        spec("  it('t', () => { expect(f()).to.equal(3); });"),
        spec("  it('t', () => { expect(f()).to.be.ok; });"),
      ).map((e) => e.kind),
    ).toEqual(['assertion-weakened']);
  });

  it('renaming a variable in the subject while keeping the literal pairs by the literal: no edit', () => {
    expect(
      edits(
        spec("  it('t', () => { const r = f(); expect(r).toBe(3); });"),
        spec("  it('t', () => { const result = f(); expect(result).toBe(3); });"),
      ),
    ).toEqual([]);
  });
});

describe('marks', () => {
  it.each([
    ['it.skip', 'skip-added'],
    ['it.todo', 'todo-added'],
    ['it.fails', 'xfail-added'],
    ['it.only', 'focus-added'],
    ['xit', 'skip-added'],
    ['it.skipIf(process.env.CI)', 'skip-added'],
  ])('%s added is %s', (call, kind) => {
    const found = edits(
      spec("  it('t', () => { expect(f()).toBe(1); });"),
      spec(`  ${call}('t', () => { expect(f()).toBe(1); });`),
    );
    expect(found).toEqual([expect.objectContaining({ kind, test: 'price > t', headLine: 4 })]);
  });

  it('a skip on the describe is inherited by its tests', () => {
    const base =
      "describe('price', () => {\n  it('a', () => { expect(f()).toBe(1); });\n  it('b', () => { expect(g()).toBe(2); });\n});\n";
    const found = edits(base, base.replace("describe('price'", "describe.skip('price'"));
    expect(found.map((e) => [e.kind, e.test])).toEqual([
      ['skip-added', 'price > a'],
      ['skip-added', 'price > b'],
    ]);
  });

  it('ctx.skip() inside the body is a skip', () => {
    expect(
      edits(
        spec("  it('t', () => { expect(f()).toBe(1); });"),
        spec("  it('t', (ctx) => { ctx.skip(); expect(f()).toBe(1); });"),
      ).map((e) => e.kind),
    ).toEqual(['skip-added']);
  });

  it('a mark that was already there is no edit', () => {
    const s = spec("  it.skip('t', () => { expect(f()).toBe(1); });");
    expect(edits(s, s)).toEqual([]);
  });
});

describe('fast-check', () => {
  const prop = (arbs: string, params = '{ numRuns: 500 }') =>
    spec(
      `  it('never negative', () => {\n    fc.assert(\n      fc.property(${arbs}, (x) => {\n        expect(price(x)).toBeGreaterThanOrEqual(0);\n      }),\n      ${params},\n    );\n  });`,
    );

  it('numRuns lowered is examples-lowered, with both counts', () => {
    expect(edits(prop('fc.integer()'), prop('fc.integer()', '{ numRuns: 5 }'))).toEqual([
      expect.objectContaining({
        kind: 'examples-lowered',
        before: '500',
        after: '5',
        description: 'lowered numRuns from 500 to 5',
      }),
    ]);
  });

  it('numRuns removed where the base asked for more than the default is lowered to 100', () => {
    expect(edits(prop('fc.integer()'), prop('fc.integer()', '{}'))[0]?.description).toBe(
      "removed numRuns = 500, so the runner's default of 100 applies",
    );
  });

  it('bounds tightened are generator-narrowed; bounds loosened are no edit', () => {
    const found = edits(prop('fc.integer({ min: 0 })'), prop('fc.integer({ min: 0, max: 9 })'));
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'generator-narrowed',
        description:
          'narrowed the arbitrary of argument 1 from `fc.integer({ min: 0 })` to `fc.integer({ min: 0, max: 9 })`',
      }),
    ]);
    expect(edits(prop('fc.integer({ min: 0, max: 9 })'), prop('fc.integer({ min: 0 })'))).toEqual([]);
    expect(edits(prop('fc.nat(1000)'), prop('fc.nat(10)')).map((e) => e.kind)).toEqual([
      'generator-narrowed',
    ]);
  });

  it('fc.constant in place of a generator is narrowed; .filter added is filter-added; fc.pre added is filter-added', () => {
    expect(edits(prop('fc.integer()'), prop('fc.constant(3)'))[0]?.description).toContain(
      'a fixed value or set',
    );
    expect(
      edits(prop('fc.integer()'), prop('fc.integer().filter((n) => n % 2 === 0)')).map((e) => e.kind),
    ).toEqual(['filter-added']);
    const pre = spec(
      "  it('t', () => { fc.assert(fc.property(fc.integer(), (x) => { fc.pre(x > 0); expect(f(x)).toBe(x); })); });",
    );
    expect(
      edits(
        spec("  it('t', () => { fc.assert(fc.property(fc.integer(), (x) => { expect(f(x)).toBe(x); })); });"),
        pre,
      ).map((e) => e.kind),
    ).toEqual(['filter-added']);
  });

  it('an array arbitrary whose elements are narrowed is narrowed', () => {
    expect(
      edits(prop('fc.array(fc.integer())'), prop('fc.array(fc.integer({ max: 3 }))')).map((e) => e.kind),
    ).toEqual(['generator-narrowed']);
  });

  it('a predicate that returns true instead of checking is weakened', () => {
    const p = (ret: string) => spec(`  it('t', () => { fc.assert(fc.property(fc.nat(), (x) => ${ret})); });`);
    expect(edits(p('f(x) === 2 * x'), p('true')).map((e) => e.kind)).toEqual(['assertion-weakened']);
    expect(edits(p('f(x) === 2 * x'), p('f(x) === 2 * x || true')).map((e) => e.kind)).toEqual([
      'assertion-weakened',
    ]);
  });

  it('an explicit example removed is example-removed', () => {
    expect(
      edits(
        prop('fc.integer()', '{ numRuns: 500, examples: [[0], [-1]] }'),
        prop('fc.integer()', '{ numRuns: 500, examples: [[0]] }'),
      ),
    ).toEqual([expect.objectContaining({ kind: 'example-removed', before: '[-1]' })]);
  });

  it('test.prop (@fast-check/vitest) arbitraries and numRuns are read', () => {
    const p = (arb: string, n: number) =>
      `import { test, fc } from '@fast-check/vitest';\ntest.prop([${arb}], { numRuns: ${n} })('adds', (x) => { expect(f(x)).toBe(x); });\n`;
    expect(edits(p('fc.integer()', 200), p('fc.integer({ min: 1, max: 2 })', 20)).map((e) => e.kind)).toEqual(
      ['generator-narrowed', 'examples-lowered'],
    );
  });

  it('defineSeedProperty: a property of the seed tape, named by its id, with its params', () => {
    const seed = (arb: string, runs: number) =>
      `import fc from 'fast-check';\nimport { defineSeedProperty } from 'patchgate';\nexport const p = defineSeedProperty({\n  id: 'installments_add_up',\n  property: fc.property(${arb}, fc.integer({ min: 1, max: 12 }), (total, count) => split(total, count).length === count),\n  params: { numRuns: ${runs} },\n});\n`;
    const found = edits(
      seed('fc.nat({ max: 1_000_000 })', 200),
      seed('fc.nat({ max: 1_000_000 }).filter((t) => t % 20 === 0)', 20),
      'properties/x.seed.ts',
    );
    expect(found.map((e) => [e.kind, e.test])).toEqual([
      ['filter-added', 'installments_add_up'],
      ['examples-lowered', 'installments_add_up'],
    ]);
  });

  it('defineProperty: a hits property whose throw is gone is assertion-removed', () => {
    const hits = (check: string) =>
      `import { defineProperty } from 'patchgate';\nexport default defineProperty({\n  name: 'total_matches_lines',\n  fixture: 'fixtures/lock.json',\n  claims: ['total_cents'],\n  check(fx) {\n${check}\n  },\n});\n`;
    const found = edits(
      hits("    if (sum(fx.lines) !== fx.total_cents) throw new Error('total');"),
      hits('    sum(fx.lines);'),
      'properties/invoice.property.ts',
    );
    expect(found.map((e) => [e.kind, e.test])).toEqual([['assertion-removed', 'total_matches_lines']]);
  });
});

describe('the file around the tests', () => {
  it('vi.mock added outside any test is setup-mocks, for the whole file', () => {
    const found = edits(
      spec("  it('t', () => { expect(f()).toBe(1); });"),
      spec(
        "  it('t', () => { expect(f()).toBe(1); });",
        "vi.mock('../src/price.js', () => ({ price: () => 80 }));\n",
      ),
    );
    expect(found).toEqual([expect.objectContaining({ kind: 'setup-mocks', headLine: 3 })]);
    expect(found[0]?.test).toBeUndefined();
  });

  it('a beforeEach added is hook-added; one changed is hook-changed; globals written in it are setup-mocks', () => {
    const base = spec("  beforeEach(() => { reset(); });\n  it('t', () => { expect(f()).toBe(1); });");
    const head = spec(
      "  beforeEach(() => { reset(); globalThis.fetch = fake; });\n  afterEach(() => {});\n  it('t', () => { expect(f()).toBe(1); });",
    );
    expect(
      edits(base, head)
        .map((e) => e.kind)
        .sort(),
    ).toEqual(['hook-added', 'hook-changed', 'setup-mocks']);
  });

  it('an `only` on one test is focus-added on it (it leaves the others out)', () => {
    const base = spec(
      "  it('a', () => { expect(f()).toBe(1); });\n  it('b', () => { expect(g()).toBe(2); });",
    );
    const found = edits(base, base.replace("it('a'", "it.only('a'"));
    expect(found).toEqual([expect.objectContaining({ kind: 'focus-added', test: 'price > a' })]);
    expect(found[0]?.description).toContain('every other test of the file is left out');
  });

  it('a deleted test is left to the analysis (gone), a renamed one is followed by its code', () => {
    const base = spec(
      "  it('adds', () => {\n    const x = add(1, 2);\n    expect(x).toBe(3);\n    expect(add(0, 0)).toBe(0);\n  });",
    );
    const renamed = base.replace("it('adds'", "it.skip('adds two numbers'");
    const r = compareFile({
      file: FILE,
      baseFile: FILE,
      base: facts(base),
      head: facts(renamed),
      term: 'arbitrary',
      holdsTests: true,
    });
    expect(r.edits).toEqual([
      expect.objectContaining({
        kind: 'skip-added',
        test: 'price > adds',
        headTest: 'price > adds two numbers',
      }),
    ]);
    const gone = compareFile({
      file: FILE,
      baseFile: FILE,
      base: facts(base),
      head: facts(spec('')),
      term: 'arbitrary',
      holdsTests: true,
    });
    expect(gone.gone.map((u) => u.name)).toEqual(['price > adds']);
  });

  it('a deleted file is file-deleted, naming its tests', () => {
    const r = compareFile({
      file: FILE,
      baseFile: FILE,
      base: facts(spec("  it('a', () => {});\n  it('b', () => {});")),
      term: 'arbitrary',
      holdsTests: true,
    });
    expect(r.edits).toEqual([expect.objectContaining({ kind: 'file-deleted', file: FILE, baseLine: 1 })]);
    expect(r.edits[0]?.description).toBe('deleted test/price.test.ts (2 test(s): `price > a`, `price > b`)');
  });

  it('a snapshot rewritten to agree with new output is expected-changed, named after its test', () => {
    const snap = (v: string) => `// Vitest Snapshot v1\n\nexports[\`price > renders 1\`] = \`"${v}"\`;\n`;
    const found = edits(snap('<b>80</b>'), snap('<b>81</b>'), 'test/__snapshots__/price.test.ts.snap');
    expect(found).toEqual([
      expect.objectContaining({ kind: 'expected-changed', test: 'price > renders', headLine: 3 }),
    ]);
  });

  it('a file the compiler cannot parse is not read as facts', () => {
    const r = jsFacts(ts, FILE, "it('t', () => { expect(1).toBe(");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.line).toBeGreaterThan(0);
  });

  it('a formatting-only edit is no edit', () => {
    const base = spec("  it('t', () => { expect(price(100)).toBe(80); });");
    const head = spec("  it('t', () => {\n    expect(price(100))\n      .toBe(80);\n  });");
    expect(edits(base, head)).toEqual([]);
  });
});

describe('the ranking', () => {
  const a = (matcher: string, extra: object = {}) =>
    rankOf({ line: 1, matcher, subject: 'x', text: '', ...extra });
  it('is toBe/toEqual/toStrictEqual > toMatchObject > toBeDefined/toBeTruthy > none', () => {
    expect([a('toBe'), a('toEqual'), a('toStrictEqual')]).toEqual([3, 3, 3]);
    expect(a('toMatchObject')).toBe(2);
    expect([a('toBeDefined'), a('toBeTruthy')]).toEqual([1, 1]);
    expect([a(''), a('const')]).toEqual([0, 0]);
  });
  it('is == > in > assert x > assert True for Python', () => {
    expect([a('=='), a('in'), a('truthy'), a('const')]).toEqual([3, 2, 1, 0]);
  });
  it('ranks raises by what it names: a message, a class, a broad class', () => {
    expect([
      a('raises', { arg: 'literal' }),
      a('raises', { arg: 'name' }),
      a('raises', { arg: 'broad' }),
    ]).toEqual([3, 2, 1]);
  });
  it('ranks any negated matcher as presence', () => {
    expect(a('toBe', { negated: true })).toBe(1);
  });
});
