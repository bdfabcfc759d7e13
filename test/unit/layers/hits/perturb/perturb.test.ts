import { describe, expect, it } from 'vitest';
import {
  BUILTIN_OPERATOR_NAMES,
  BUILTIN_OPERATORS,
  countMutants,
  deepFreeze,
  formatPath,
  generateMutants,
  isUnder,
  jsonEqual,
  lookupPath,
  type Mutant,
  type Operator,
  OperatorSpecError,
  PathSyntaxError,
  PerturbConfigError,
  type PerturbOptions,
  parsePath,
  pathsEqual,
  resolveOperator,
  SKIP,
  scoreClaims,
  validateClaims,
} from '../../../../../src/layers/hits/perturb/index.js';

/** The seed's locked invoice fixture. */
const invoice = () => ({
  currency: 'USD',
  total_cents: 1500,
  lines: [
    { qty: 2, unit_cents: 500 },
    { qty: 1, unit_cents: 500 },
  ],
});

const builtin = (name: string): Operator => {
  const op = BUILTIN_OPERATORS.find((o) => o.name === name);
  if (op === undefined) throw new Error(`no operator ${name}`);
  return op;
};

const labels = (ms: Iterable<Mutant>): string[] =>
  [...ms].map((m) => `${m.paths.join(' + ')} ${m.operators.join(' + ')}`);

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('JSON paths', () => {
  it('formats identifiers with dots, indices and other keys with brackets', () => {
    expect(formatPath(['currency'])).toBe('currency');
    expect(formatPath(['lines', 0, 'qty'])).toBe('lines[0].qty');
    expect(formatPath(['customer', 'address', 'zip'])).toBe('customer.address.zip');
    expect(formatPath(['meta', 'a.b'])).toBe('meta["a.b"]');
    expect(formatPath(['$x', '_y', 'a1'])).toBe('$x._y.a1');
    expect(formatPath(['a b', 'c'])).toBe('["a b"].c');
    expect(formatPath(['', 'x'])).toBe('[""].x');
    expect(formatPath(['1a'])).toBe('["1a"]');
    expect(formatPath(['q"\\\n'])).toBe('["q\\"\\\\\\n"]');
  });

  it('keeps a top-level key "0" apart from index 0', () => {
    expect(formatPath(['0'])).toBe('["0"]');
    expect(formatPath([0])).toBe('[0]');
    expect(parsePath('["0"]')).toEqual(['0']);
    expect(parsePath('[0]')).toEqual([0]);
    expect(pathsEqual('["0"]', '[0]')).toBe(false);
  });

  it('parses what it formats, and accepts bracketed identifiers as the same path', () => {
    for (const p of [
      ['currency'],
      ['lines', 0, 'qty'],
      ['meta', 'a.b'],
      ['0'],
      [0, 1],
      ['é', '\u2028', 12],
    ]) {
      expect(parsePath(formatPath(p))).toEqual(p);
    }
    expect(parsePath('meta["a"]')).toEqual(['meta', 'a']);
    expect(parsePath('m["\\u0041\\n"]')).toEqual(['m', 'A\n']);
    expect(pathsEqual('meta["a"]', 'meta.a')).toBe(true);
  });

  it('refuses to format the root or a bad index', () => {
    expect(() => formatPath([])).toThrow(RangeError);
    expect(() => formatPath(['a', -1])).toThrow(RangeError);
    expect(() => formatPath(['a', 1.5])).toThrow(RangeError);
  });

  it.each([
    ['', 0, 'expected a key'],
    ['lines[0', 7, "expected ']'"],
    ['lines.', 6, "expected an identifier after '.'"],
    ['lines..qty', 6, "expected an identifier after '.'"],
    ['lines.0', 6, "expected an identifier after '.'"],
    ['a[01]', 2, 'without leading zeros'],
    ['a[99999999999999999999]', 2, 'no larger than'],
    ['a[-1]', 2, 'expected an array index or a JSON string'],
    ['a[x]', 2, 'expected an array index or a JSON string'],
    ['a["x]', 5, 'to close the key'],
    ['a["\\q"]', 3, 'JSON escapes'],
    ['a["\\u12"]', 3, 'four hex digits'],
    ['a["\n"]', 3, 'control character'],
    ['a b', 1, "expected '.', '[' or the end"],
    ['a[0]x', 4, "expected '.', '[' or the end"],
    ['0abc', 0, 'expected a key'],
    ['.a', 0, 'expected a key'],
  ])('rejects %j at position %i (%s)', (text, position, reason) => {
    const err = thrown(() => parsePath(text));
    expect(err).toBeInstanceOf(PathSyntaxError);
    const e = err as PathSyntaxError;
    expect(e.position).toBe(position);
    expect(e.input).toBe(text);
    expect(e.message).toContain(reason);
    expect(e.message).toContain(`position ${position}`);
  });

  it('says a path is under its prefix only on a segment boundary', () => {
    expect(isUnder('lines[0].qty', 'lines')).toBe(true);
    expect(isUnder('lines[0].qty', 'lines[0]')).toBe(true);
    expect(isUnder('lines', 'lines')).toBe(true);
    expect(isUnder('linesX', 'lines')).toBe(false);
    expect(isUnder('lines', 'lines[0]')).toBe(false);
    expect(isUnder('["0"].a', '[0]')).toBe(false);
    expect(isUnder(['lines', 1, 'qty'], 'lines[1]')).toBe(true);
    expect(isUnder('a.b', [])).toBe(true);
    expect(() => isUnder('lines[', 'lines')).toThrow(PathSyntaxError);
  });

  it('looks up only real keys and in-range indices', () => {
    const fx = invoice();
    expect(lookupPath(fx, 'lines[1].qty')).toEqual({ found: true, value: 1 });
    expect(lookupPath(fx, 'lines[2]').found).toBe(false);
    expect(lookupPath(fx, 'lines["0"]').found).toBe(false);
    expect(lookupPath(fx, 'lines.length').found).toBe(false);
    expect(lookupPath(fx, 'currency.length').found).toBe(false);
    expect(lookupPath(fx, 'constructor').found).toBe(false);
    expect(lookupPath({ '0': 'k' }, '[0]').found).toBe(false);
    expect(lookupPath({ '0': 'k' }, '["0"]')).toEqual({ found: true, value: 'k' });
  });
});

describe('built-in operators', () => {
  it('have stable names in a fixed order', () => {
    expect(BUILTIN_OPERATOR_NAMES).toEqual([
      'num.inc',
      'num.dec',
      'num.zero',
      'num.negate',
      'num.large',
      'str.char',
      'str.empty',
      'str.case',
      'bool.flip',
      'arr.append',
      'arr.drop_last',
      'arr.reverse',
      'arr.empty',
      'obj.drop_key',
      'obj.add_key',
      'to_null',
      'null.to_zero',
      'null.to_string',
    ]);
  });

  it.each<[string, unknown, unknown]>([
    ['num.inc', 1500, 1501],
    ['num.inc', 1e20, SKIP],
    ['num.inc', 'USD', SKIP],
    ['num.dec', 1, 0],
    ['num.dec', 0.5, -0.5],
    ['num.zero', 5, 0],
    ['num.zero', 0, SKIP],
    ['num.zero', -0, SKIP],
    ['num.negate', 5, -5],
    ['num.negate', 0, SKIP],
    ['num.negate', -0, SKIP],
    ['num.large', 3, Number.MAX_SAFE_INTEGER],
    ['num.large', -3, Number.MAX_SAFE_INTEGER],
    ['num.large', 2.5, 1e308],
    ['num.large', Number.MAX_SAFE_INTEGER, SKIP],
    ['num.large', true, SKIP],
    ['str.char', 'USD', 'xSD'],
    ['str.char', 'xyz', 'yyz'],
    ['str.char', '', 'x'],
    ['str.char', '😀a', 'xa'],
    ['str.char', 7, SKIP],
    ['str.empty', 'a', ''],
    ['str.empty', '', SKIP],
    ['str.case', 'UsD', 'uSd'],
    ['str.case', '123', SKIP],
    ['str.case', '', SKIP],
    ['bool.flip', true, false],
    ['bool.flip', false, true],
    ['bool.flip', null, SKIP],
    ['arr.append', [1, 2], [1, 2, 2]],
    ['arr.append', [], SKIP],
    ['arr.drop_last', [1, 2], [1]],
    ['arr.drop_last', [], SKIP],
    ['arr.reverse', [1, 2], [2, 1]],
    ['arr.reverse', [1], SKIP],
    ['arr.reverse', [], SKIP],
    ['arr.reverse', [1, 2, 1], SKIP],
    [
      'arr.reverse',
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      SKIP,
    ],
    ['arr.empty', [1], []],
    ['arr.empty', [], SKIP],
    ['arr.empty', {}, SKIP],
    ['obj.drop_key', { b: 1, a: 2 }, { a: 2 }],
    ['obj.drop_key', { '\uffff': 1, '😀': 2 }, { '\uffff': 1 }],
    ['obj.drop_key', {}, SKIP],
    ['obj.drop_key', [1], SKIP],
    ['obj.add_key', {}, { __patchgate_extra__: null }],
    ['obj.add_key', { a: 1 }, { a: 1, __patchgate_extra__: null }],
    ['obj.add_key', { __patchgate_extra__: 1 }, { __patchgate_extra__: 1, __patchgate_extra_2__: null }],
    ['to_null', 1, null],
    ['to_null', '', null],
    ['to_null', false, null],
    ['to_null', [], null],
    ['to_null', {}, null],
    ['to_null', null, SKIP],
    ['null.to_zero', null, 0],
    ['null.to_zero', 0, SKIP],
    ['null.to_string', null, ''],
    ['null.to_string', '', SKIP],
  ])('%s turns %j into %j', (name, input, expected) => {
    const out = builtin(name).apply(input);
    if (expected === SKIP) expect(out).toBe(SKIP);
    else expect(out).toStrictEqual(expected);
  });

  it('return frozen containers that share children with the input and leave the input alone', () => {
    const last = { qty: 1 };
    const input = [{ qty: 2 }, last];
    const appended = builtin('arr.append').apply(input) as unknown[];
    expect(Object.isFrozen(appended)).toBe(true);
    expect(appended[2]).toBe(last);
    expect(input).toEqual([{ qty: 2 }, { qty: 1 }]);
    expect(Object.isFrozen(input)).toBe(false);

    const obj = { b: [1], a: 2 };
    const dropped = builtin('obj.drop_key').apply(obj) as Record<string, unknown>;
    expect(Object.isFrozen(dropped)).toBe(true);
    expect(Object.keys(dropped)).toEqual(['a']);
    expect(obj).toEqual({ b: [1], a: 2 });
  });

  it('keep a "__proto__" key as data', () => {
    const o = JSON.parse('{"__proto__": {"polluted": true}, "z": 1}') as object;
    const out = builtin('obj.drop_key').apply(o) as object;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    const added = builtin('obj.add_key').apply(o) as object;
    expect(Object.keys(added)).toEqual(['__proto__', 'z', '__patchgate_extra__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('declarative operators', () => {
  it('resolve built-in names to the built-in operator', () => {
    expect(resolveOperator('num.inc')).toBe(builtin('num.inc'));
  });

  it('set: names the canonical JSON and replaces any value', () => {
    const eur = resolveOperator({ set: 'EUR' });
    expect(eur.name).toBe('set:"EUR"');
    expect(eur.apply('USD')).toBe('EUR');
    expect(eur.apply(5)).toBe('EUR');
    expect(eur.apply('EUR')).toBe(SKIP);

    const spec = { set: { b: 1, a: [1, { c: null }] } };
    const op = resolveOperator(spec);
    expect(op.name).toBe('set:{"a":[1,{"c":null}],"b":1}');
    const out = op.apply(null) as { a: unknown[] };
    expect(Object.isFrozen(out) && Object.isFrozen(out.a) && Object.isFrozen(out.a[1])).toBe(true);
    spec.set.b = 2; // the operator took a copy
    expect(op.apply(null)).toEqual({ b: 1, a: [1, { c: null }] });
  });

  it('add: numbers only, and never leaves the finite range', () => {
    const add = resolveOperator({ add: 1 });
    expect(add.name).toBe('add:1');
    expect(add.apply(1500)).toBe(1501);
    expect(add.apply('1500')).toBe(SKIP);
    expect(resolveOperator({ add: -0.5 }).name).toBe('add:-0.5');
    expect(resolveOperator({ add: 1e308 }).apply(1e308)).toBe(SKIP);
    expect(resolveOperator({ add: 1 }).apply(1e20)).toBe(SKIP);
  });

  it('append: arrays only', () => {
    const op = resolveOperator({ append: { qty: 1, unit_cents: 1 } });
    expect(op.name).toBe('append:{"qty":1,"unit_cents":1}');
    expect(op.apply([])).toEqual([{ qty: 1, unit_cents: 1 }]);
    expect(op.apply({})).toBe(SKIP);
  });

  it('reject an unknown name, listing the valid ones', () => {
    const err = thrown(() => resolveOperator('num.plus')) as OperatorSpecError;
    expect(err).toBeInstanceOf(OperatorSpecError);
    expect(err.message).toContain('"num.plus"');
    for (const name of BUILTIN_OPERATOR_NAMES) expect(err.message).toContain(name);
  });

  it.each<[unknown, string]>([
    [{ add: '1' }, 'finite, non-zero number'],
    [{ add: 0 }, 'finite, non-zero number'],
    [{ add: Number.POSITIVE_INFINITY }, 'finite, non-zero number'],
    [{ set: undefined }, '"set" expects a JSON value'],
    [{ set: Number.NaN }, 'not a finite number'],
    [{ append: [() => 1] }, 'not JSON'],
    [{ set: new Date(0) }, 'not a plain object'],
    [{ set: 1, add: 2 }, 'exactly one key'],
    [{ replace: 1 }, 'exactly one key'],
    [{}, 'exactly one key'],
    [42, 'built-in operator name'],
    [null, 'built-in operator name'],
    [['num.inc'], 'built-in operator name'],
  ])('reject %j', (spec, expected) => {
    const err = thrown(() => resolveOperator(spec as never)) as OperatorSpecError;
    expect(err).toBeInstanceOf(OperatorSpecError);
    expect(err.message).toContain(expected);
    expect(err.message).toContain('invalid perturbation operator');
  });

  it('reject a circular value but not a shared one', () => {
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(() => resolveOperator({ set: cyc })).toThrow(/circular/);
    const shared = { x: 1 };
    expect(resolveOperator({ set: [shared, shared] }).name).toBe('set:[{"x":1},{"x":1}]');
  });
});

describe('mutant generation on the seed invoice', () => {
  it('lists every (path, operator) at maxDepth 1 in a fixed order', () => {
    expect(labels(generateMutants(invoice(), { maxDepth: 1 }))).toEqual([
      'currency str.char',
      'currency str.empty',
      'currency str.case',
      'currency to_null',
      'lines arr.append',
      'lines arr.drop_last',
      'lines arr.reverse',
      'lines arr.empty',
      'lines to_null',
      'total_cents num.inc',
      'total_cents num.dec',
      'total_cents num.zero',
      'total_cents num.negate',
      'total_cents num.large',
      'total_cents to_null',
    ]);
    expect(countMutants(invoice(), { maxDepth: 1 })).toBe(15);
  });

  it('visits nested paths depth-first, a container before its children, at maxDepth 3', () => {
    const paths = [...generateMutants(invoice(), { maxDepth: 3 })].map((m) => m.paths[0]);
    expect([...new Set(paths)]).toEqual([
      'currency',
      'lines',
      'lines[0]',
      'lines[0].qty',
      'lines[0].unit_cents',
      'lines[1]',
      'lines[1].qty',
      'lines[1].unit_cents',
      'total_cents',
    ]);
    expect(
      labels(generateMutants(invoice(), { maxDepth: 3 })).filter((l) => l.startsWith('lines[1] ')),
    ).toEqual(['lines[1] obj.drop_key', 'lines[1] obj.add_key', 'lines[1] to_null']);
    // maxDepth 2 stops at the line objects; 0 perturbs nothing.
    const two = new Set([...generateMutants(invoice(), { maxDepth: 2 })].map((m) => m.paths[0]));
    expect([...two]).toEqual(['currency', 'lines', 'lines[0]', 'lines[1]', 'total_cents']);
    expect([...generateMutants(invoice(), { maxDepth: 0 })]).toEqual([]);
    expect(countMutants(invoice(), { maxDepth: 3 })).toBe(
      [...generateMutants(invoice(), { maxDepth: 3 })].length,
    );
  });

  it('orders keys by code point, not by UTF-16 unit or insertion', () => {
    const fx = { '😀': true, b: true, '\uffff': true, a: true, '10': true, '9': true };
    const paths = [...generateMutants(fx, { maxDepth: 1 })].map((m) => m.paths[0]);
    expect([...new Set(paths)]).toEqual(['["10"]', '["9"]', 'a', 'b', '["\uffff"]', '["😀"]']);
  });

  it('builds values that change only the named field', () => {
    const fx = invoice();
    const ms = [...generateMutants(fx, { maxDepth: 3 })];
    const qty = ms.find((m) => m.paths[0] === 'lines[1].qty' && m.operators[0] === 'num.inc');
    expect(qty?.value).toEqual({
      currency: 'USD',
      total_cents: 1500,
      lines: [
        { qty: 2, unit_cents: 500 },
        { qty: 2, unit_cents: 500 },
      ],
    });
    const v = qty?.value as ReturnType<typeof invoice>;
    expect(v.lines[0]).toBe(fx.lines[0]);
    expect(v.lines).not.toBe(fx.lines);
    // Key order of the copies is the fixture's, so a serialized mutant reads like the fixture.
    expect(Object.keys(v)).toEqual(['currency', 'total_cents', 'lines']);
  });

  it('reproduces the seed PERTURB table with replacing overrides', () => {
    const opts: PerturbOptions = {
      maxDepth: 1,
      overrides: [
        { path: 'currency', replace: true, use: [{ set: 'EUR' }] },
        { path: 'total_cents', replace: true, use: [{ add: 1 }] },
        { path: 'lines', replace: true, use: [{ append: { qty: 1, unit_cents: 1 } }] },
      ],
    };
    const ms = [...generateMutants(invoice(), opts)];
    expect(ms.map((m) => [m.paths, m.operators])).toEqual([
      [['currency'], ['set:"EUR"']],
      [['lines'], ['append:{"qty":1,"unit_cents":1}']],
      [['total_cents'], ['add:1']],
    ]);
    expect(ms.map((m) => m.value)).toEqual([
      { ...invoice(), currency: 'EUR' },
      { ...invoice(), lines: [...invoice().lines, { qty: 1, unit_cents: 1 }] },
      { ...invoice(), total_cents: 1501 },
    ]);
    expect(countMutants(invoice(), opts)).toBe(3);
  });

  it('runs non-replacing overrides after the built-ins, and an empty replace turns a path off', () => {
    const ms = labels(
      generateMutants(invoice(), {
        maxDepth: 1,
        overrides: [
          { path: 'currency', replace: false, use: [{ set: 'EUR' }] },
          { path: 'lines', replace: true, use: [] },
        ],
      }),
    );
    expect(ms.filter((l) => l.startsWith('currency '))).toEqual([
      'currency str.char',
      'currency str.empty',
      'currency str.case',
      'currency to_null',
      'currency set:"EUR"',
    ]);
    expect(ms.some((l) => l.startsWith('lines '))).toBe(false);
  });

  it('deep-freezes the fixture and leaves its contents unchanged', () => {
    const fx = invoice();
    const before = structuredClone(fx);
    for (const _ of generateMutants(fx, { maxDepth: 3 })) {
      // drain
    }
    expect(fx).toStrictEqual(before);
    expect(Object.isFrozen(fx) && Object.isFrozen(fx.lines) && Object.isFrozen(fx.lines[1])).toBe(true);
  });
});

describe('interactions', () => {
  it('produce |ops A| × |ops B| mutants for each declared pair and nothing else', () => {
    const fx = invoice();
    const single = labels(generateMutants(invoice(), { maxDepth: 1 }));
    const all = [...generateMutants(fx, { maxDepth: 1, interactions: [['currency', 'total_cents']] })];
    expect(all).toHaveLength(15 + 4 * 6);
    expect(labels(all.slice(0, 15))).toEqual(single);
    const pairs = all.slice(15);
    expect(pairs.every((m) => m.paths.join() === 'currency,total_cents')).toBe(true);
    expect(pairs.slice(0, 7).map((m) => m.operators.join(' + '))).toEqual([
      'str.char + num.inc',
      'str.char + num.dec',
      'str.char + num.zero',
      'str.char + num.negate',
      'str.char + num.large',
      'str.char + to_null',
      'str.empty + num.inc',
    ]);
    const first = pairs[0]?.value as ReturnType<typeof invoice>;
    expect(first).toEqual({ ...invoice(), currency: 'xSD', total_cents: 1501 });
    expect(first.lines).toBe(fx.lines);
    expect(countMutants(invoice(), { maxDepth: 1, interactions: [['currency', 'total_cents']] })).toBe(39);
  });

  it('use the overridden operators, also on paths deeper than maxDepth', () => {
    const ms = [
      ...generateMutants(invoice(), {
        maxDepth: 0,
        overrides: [{ path: 'currency', replace: true, use: [{ set: 'EUR' }] }],
        interactions: [['currency', 'lines[1].qty']],
      }),
    ];
    expect(labels(ms)).toEqual([
      'currency + lines[1].qty set:"EUR" + num.inc',
      'currency + lines[1].qty set:"EUR" + num.dec',
      'currency + lines[1].qty set:"EUR" + num.zero',
      'currency + lines[1].qty set:"EUR" + num.negate',
      'currency + lines[1].qty set:"EUR" + num.large',
      'currency + lines[1].qty set:"EUR" + to_null',
    ]);
  });

  it('report paths in canonical form', () => {
    const ms = [
      ...generateMutants(invoice(), { maxDepth: 0, interactions: [['["currency"]', 'lines[0]["qty"]']] }),
    ];
    expect(ms[0]?.paths).toEqual(['currency', 'lines[0].qty']);
  });
});

describe('perturbation options that cannot apply to the fixture', () => {
  const fails = (opts: PerturbOptions, where: string, text: string): PerturbConfigError => {
    const err = thrown(() => generateMutants(invoice(), opts)) as PerturbConfigError;
    expect(err).toBeInstanceOf(PerturbConfigError);
    expect(err.where).toBe(where);
    expect(err.message).toContain(text);
    expect(() => countMutants(invoice(), opts)).toThrow(PerturbConfigError);
    return err;
  };

  it('name an override path that does not exist, when called, not on the first next()', () => {
    const err = fails(
      { maxDepth: 1, overrides: [{ path: 'currencyX', replace: true, use: [] }] },
      'overrides[0]',
      '"currencyX" does not exist in the fixture',
    );
    expect(err.path).toBe('currencyX');
  });

  it('carry the syntax error of a malformed override path', () => {
    const err = fails(
      { maxDepth: 1, overrides: [{ path: 'lines[0', replace: true, use: [] }] },
      'overrides[0]',
      "']'",
    );
    expect(err.cause).toBeInstanceOf(PathSyntaxError);
    expect((err.cause as PathSyntaxError).position).toBe(7);
  });

  it('reject overrides deeper than maxDepth, duplicated, or of the wrong kind', () => {
    fails(
      { maxDepth: 1, overrides: [{ path: 'lines[0].qty', replace: true, use: ['num.inc'] }] },
      'overrides[0]',
      'deeper than maxDepth 1',
    );
    fails(
      {
        maxDepth: 1,
        overrides: [
          { path: 'currency', replace: true, use: [] },
          { path: '["currency"]', replace: true, use: [] },
        ],
      },
      'overrides[1]',
      'already has an override at overrides[0]',
    );
    fails(
      { maxDepth: 1, overrides: [{ path: 'currency', replace: true, use: [{ add: 1 }] }] },
      'overrides[0].use[0]',
      '"add:1" changes number values, but "currency" is string',
    );
    fails(
      { maxDepth: 1, overrides: [{ path: 'currency', replace: false, use: ['str.empty'] }] },
      'overrides[0].use[0]',
      'already a built-in',
    );
    fails(
      { maxDepth: 1, overrides: [{ path: 'currency', replace: true, use: ['str.empty', 'str.empty'] }] },
      'overrides[0].use[1]',
      'listed twice',
    );
    const err = fails(
      { maxDepth: 1, overrides: [{ path: 'currency', replace: true, use: ['str.nope'] }] },
      'overrides[0].use[0]',
      'str.case',
    );
    expect(err.cause).toBeInstanceOf(OperatorSpecError);
  });

  it('reject interactions on missing, overlapping or repeated pairs', () => {
    fails(
      { maxDepth: 1, interactions: [['currency', 'lines[5]']] },
      'interactions[0]',
      '"lines[5]" does not exist',
    );
    fails({ maxDepth: 1, interactions: [['lines', 'lines[0].qty']] }, 'interactions[0]', 'overlap');
    fails({ maxDepth: 1, interactions: [['currency', 'currency']] }, 'interactions[0]', 'overlap');
    fails(
      {
        maxDepth: 1,
        interactions: [
          ['currency', 'total_cents'],
          ['total_cents', 'currency'],
        ],
      },
      'interactions[1]',
      'already declared at interactions[0]',
    );
  });

  it('reject a maxDepth that is not a non-negative integer', () => {
    for (const maxDepth of [-1, 1.5, Number.NaN]) fails({ maxDepth }, 'maxDepth', 'non-negative integer');
    expect(countMutants(invoice(), { maxDepth: Number.POSITIVE_INFINITY })).toBe(
      countMutants(invoice(), { maxDepth: 3 }),
    );
  });
});

describe('large fixtures', () => {
  const chain = (depth: number): unknown => {
    let v: unknown = 0;
    for (let i = 0; i < depth; i++) v = { k: v };
    return v;
  };

  it('deep-freeze, compare and walk without recursion', () => {
    const deep = chain(200_000);
    expect(deepFreeze(deep)).toBe(deep);
    let inner = deep as { k: unknown };
    for (let i = 0; i < 199_999; i++) inner = inner.k as { k: unknown };
    expect(Object.isFrozen(inner)).toBe(true);
    expect(jsonEqual(deep, chain(200_000))).toBe(true);
    expect(countMutants(deep, { maxDepth: 10 })).toBe(10 * 3);
  });

  it('copy only the path, not the siblings, of a wide fixture', () => {
    const wide = { items: Array.from({ length: 5000 }, (_, i) => ({ i })), other: { big: true } };
    const ms = generateMutants(wide, { maxDepth: 3 });
    const first = ms.next().value as Mutant;
    expect(first.paths).toEqual(['items']);
    expect((first.value as typeof wide).other).toBe(wide.other);
  });
});

describe('claims against hits', () => {
  it('finds false claims and unclaimed hits (seed example)', () => {
    expect(scoreClaims(['lines', 'total_cents', 'currency'], ['lines', 'total_cents'])).toEqual({
      false_claims: ['currency'],
      unclaimed_hits: [],
    });
    expect(scoreClaims(['lines'], ['currency', 'lines'])).toEqual({
      false_claims: [],
      unclaimed_hits: ['currency'],
    });
  });

  it('counts a claim as hit by any path under it', () => {
    expect(scoreClaims(['lines'], ['lines[1].qty'])).toEqual({ false_claims: [], unclaimed_hits: [] });
  });

  it('does not treat a string prefix as a path prefix', () => {
    expect(scoreClaims(['lines'], ['linesX'])).toEqual({
      false_claims: ['lines'],
      unclaimed_hits: ['linesX'],
    });
    expect(scoreClaims(['lines[1]'], ['lines[10].qty'])).toEqual({
      false_claims: ['lines[1]'],
      unclaimed_hits: ['lines[10].qty'],
    });
  });

  it('scores nested claims separately', () => {
    expect(scoreClaims(['lines', 'lines[0].qty'], ['lines[1].unit_cents'])).toEqual({
      false_claims: ['lines[0].qty'],
      unclaimed_hits: [],
    });
    // A hit on a container is not a hit on a field inside it.
    expect(scoreClaims(['lines[0].qty'], ['lines'])).toEqual({
      false_claims: ['lines[0].qty'],
      unclaimed_hits: ['lines'],
    });
  });

  it('compares parsed paths, keeps the text as given, dedupes and sorts by code point', () => {
    expect(scoreClaims(['meta["a"]', 'meta["a"]'], ['meta.a'])).toEqual({
      false_claims: [],
      unclaimed_hits: [],
    });
    expect(scoreClaims(['b', 'a', '["\uffff"]', '["😀"]', 'a'], [])).toEqual({
      false_claims: ['["\uffff"]', '["😀"]', 'a', 'b'],
      unclaimed_hits: [],
    });
    expect(() => scoreClaims(['lines['], [])).toThrow(PathSyntaxError);
  });

  it('validates claims against the fixture', () => {
    expect(
      validateClaims(
        ['lines[0].qty', 'lines[2]', 'lines["0"]', 'currency.x', 'total', 'lines[0', 'lines', 'total'],
        invoice(),
      ),
    ).toEqual(['lines[2]', 'lines["0"]', 'currency.x', 'total', 'lines[0']);
  });
});
