import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_DEPTH,
  type JsonNode,
  JsonSyntaxError,
  parseJson,
  toPlainValue,
} from '../../../src/json/parse.js';
import { pythonCanonicalJson } from '../../../src/json/python-dumps.js';

function syntaxError(text: string, options?: Parameters<typeof parseJson>[1]): JsonSyntaxError {
  try {
    parseJson(text, options);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseJson: the tree', () => {
  it('keeps number lexemes exactly as written and flags integers', () => {
    const node = parseJson('[12345678901234567890123, -0, 1.50, 1E+2, 0e-0]');
    expect(node.type).toBe('array');
    const items = (node as Extract<JsonNode, { type: 'array' }>).items;
    expect(items.map((n) => (n.type === 'number' ? [n.lexeme, n.isInteger] : null))).toEqual([
      ['12345678901234567890123', true],
      ['-0', true],
      ['1.50', false],
      ['1E+2', false],
      ['0e-0', false],
    ]);
  });

  it('records 1-based line and column of every value and key, counting LF, CRLF and CR as line ends', () => {
    const node = parseJson('{\r\n  "a": [1,\r    true],\n\t"b": null}');
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.loc).toEqual({ offset: 0, line: 1, column: 1 });
    const [a, b] = node.entries;
    expect(a?.keyLoc).toEqual({ offset: 5, line: 2, column: 3 });
    expect(a?.value.loc).toEqual({ offset: 10, line: 2, column: 8 });
    const arr = a?.value;
    if (arr?.type !== 'array') throw new Error('array expected');
    expect(arr.items[0]?.loc).toEqual({ offset: 11, line: 2, column: 9 });
    expect(arr.items[1]?.loc).toEqual({ offset: 18, line: 3, column: 5 });
    expect(b?.keyLoc).toEqual({ offset: 26, line: 4, column: 2 });
    expect(b?.value.loc).toEqual({ offset: 31, line: 4, column: 7 });
  });

  it('decodes every escape, joins escaped surrogate pairs and keeps lone surrogates', () => {
    const node = parseJson('"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00 \\ud800 \\udc00x"');
    expect(node).toMatchObject({ type: 'string', value: '" \\ / \b \f \n \r \t é 😀 \ud800 \udc00x' });
  });

  it('accepts DEL, U+2028 and astral characters raw inside strings', () => {
    expect(toPlainValue(parseJson('"\x7f\u2028😀"'))).toBe('\x7f\u2028😀');
  });

  it('accepts only space, tab, LF and CR as whitespace around values', () => {
    expect(toPlainValue(parseJson(' \t\r\n[ 1 ,\t2\r\n] \n'))).toEqual([1, 2]);
    expect(syntaxError('\u00a01').reason).toBe('expected a JSON value, found U+00A0');
    expect(syntaxError('[1,\u20282]').reason).toBe("expected a JSON value after ',', found U+2028");
    expect(syntaxError('1\u000b').reason).toMatch(/^unexpected U\+000B after the JSON value/);
  });
});

describe('parseJson: syntax errors say what was expected, and where', () => {
  const cases: { name: string; text: string; line: number; column: number; reason: string | RegExp }[] = [
    { name: 'empty text', text: '', line: 1, column: 1, reason: 'expected a JSON value, found end of input' },
    {
      name: 'only whitespace',
      text: ' \n  ',
      line: 2,
      column: 3,
      reason: 'expected a JSON value, found end of input',
    },
    {
      name: 'missing comma in object',
      text: '{"a": 1\n "b": 2}',
      line: 2,
      column: 2,
      reason: "expected ',' or '}' after an object member, found '\"'",
    },
    {
      name: 'missing comma in array',
      text: '[1 2]',
      line: 1,
      column: 4,
      reason: "expected ',' or ']' after an array item, found '2'",
    },
    {
      name: 'trailing comma in object',
      text: '{"a": 1,\n}',
      line: 2,
      column: 1,
      reason: "expected a string key after ',', found '}'",
    },
    {
      name: 'trailing comma in array',
      text: '[1,\n  ]',
      line: 2,
      column: 3,
      reason: "expected a JSON value after ',', found ']'",
    },
    {
      name: 'unquoted key',
      text: '{a: 1}',
      line: 1,
      column: 2,
      reason: "expected a string key or '}', found 'a'",
    },
    {
      name: 'single-quoted string',
      text: "['x']",
      line: 1,
      column: 2,
      reason: "expected a JSON value or ']', found '''",
    },
    {
      name: 'missing colon',
      text: '{"a" 1}',
      line: 1,
      column: 6,
      reason: "expected ':' after the object key \"a\", found '1'",
    },
    {
      name: 'missing member value',
      text: '{"a": }',
      line: 1,
      column: 7,
      reason: "expected a JSON value after ':', found '}'",
    },
    {
      name: 'unclosed array',
      text: '[1, [2]',
      line: 1,
      column: 8,
      reason: "expected ',' or ']' after an array item, found end of input",
    },
    {
      name: 'unclosed object',
      text: '{"a": {}',
      line: 1,
      column: 9,
      reason: "expected ',' or '}' after an object member, found end of input",
    },
    {
      name: 'leading zero',
      text: '[01]',
      line: 1,
      column: 3,
      reason: 'leading zeros are not allowed in a number',
    },
    {
      name: 'negative leading zero',
      text: '-00',
      line: 1,
      column: 3,
      reason: 'leading zeros are not allowed in a number',
    },
    { name: 'bare minus', text: '[-]', line: 1, column: 3, reason: "expected a digit after '-', found ']'" },
    { name: 'plus sign', text: '+1', line: 1, column: 1, reason: "expected a JSON value, found '+'" },
    {
      name: 'missing fraction digits',
      text: '1.',
      line: 1,
      column: 3,
      reason: 'expected a digit after the decimal point, found end of input',
    },
    {
      name: 'fraction without integer part',
      text: '.5',
      line: 1,
      column: 1,
      reason: "expected a JSON value, found '.'",
    },
    {
      name: 'missing exponent digits',
      text: '1e+',
      line: 1,
      column: 4,
      reason: 'expected a digit in the exponent, found end of input',
    },
    { name: 'hex number', text: '0x10', line: 1, column: 2, reason: /^unexpected 'x' after the JSON value/ },
    {
      name: 'misspelt literal',
      text: '[tru]',
      line: 1,
      column: 2,
      reason: "expected a JSON value or ']', found 't'",
    },
    {
      name: 'capitalised literal',
      text: 'True',
      line: 1,
      column: 1,
      reason: "expected a JSON value, found 'T'",
    },
    {
      name: 'literal run-on',
      text: 'nullx',
      line: 1,
      column: 5,
      reason: /^unexpected 'x' after the JSON value/,
    },
    {
      name: 'trailing data',
      text: '{}\n {}',
      line: 2,
      column: 2,
      reason: "unexpected '{' after the JSON value (only whitespace may follow it)",
    },
    {
      name: 'second top-level value',
      text: '1 2',
      line: 1,
      column: 3,
      reason: /^unexpected '2' after the JSON value/,
    },
    { name: 'unterminated string', text: '\n "abc', line: 2, column: 2, reason: 'unterminated string' },
    { name: 'unterminated escape', text: '"abc\\', line: 1, column: 1, reason: 'unterminated string' },
    {
      name: 'invalid escape',
      text: '"a\\x41"',
      line: 1,
      column: 3,
      reason: "invalid escape '\\x' in a string",
    },
    {
      name: 'upper-case U escape',
      text: '"\\U0041"',
      line: 1,
      column: 2,
      reason: "invalid escape '\\U' in a string",
    },
    {
      name: 'short \\u escape',
      text: '"\\u12"',
      line: 1,
      column: 2,
      reason: 'invalid \\u escape: expected exactly 4 hex digits after \\u',
    },
    {
      name: 'non-hex \\u escape',
      text: '"\\u12g4"',
      line: 1,
      column: 2,
      reason: 'invalid \\u escape: expected exactly 4 hex digits after \\u',
    },
    {
      name: 'bad second half of an escaped pair',
      text: '"\\ud83d\\uZZZZ"',
      line: 1,
      column: 8,
      reason: 'invalid \\u escape: expected exactly 4 hex digits after \\u',
    },
    {
      name: 'NaN by default',
      text: '[NaN]',
      line: 1,
      column: 2,
      reason: "expected a JSON value or ']', found NaN (not JSON, although Python accepts it)",
    },
    {
      name: '-Infinity by default',
      text: '{"a":-Infinity}',
      line: 1,
      column: 6,
      reason: "expected a JSON value after ':', found -Infinity (not JSON, although Python accepts it)",
    },
    { name: 'comment', text: '// c\n1', line: 1, column: 1, reason: "expected a JSON value, found '/'" },
  ];

  for (const c of cases) {
    it(`${c.name}: ${JSON.stringify(c.text)} at ${c.line}:${c.column}`, () => {
      const err = syntaxError(c.text);
      if (typeof c.reason === 'string') expect(err.reason).toBe(c.reason);
      else expect(err.reason).toMatch(c.reason);
      expect({ line: err.line, column: err.column }).toEqual({ line: c.line, column: c.column });
      expect(err.message).toBe(`${err.reason} (line ${c.line}, column ${c.column})`);
      expect(err).toBeInstanceOf(Error);
    });
  }

  it('gives the offset alongside line and column, and converts to a Problem for contract errors', () => {
    const err = syntaxError('{\n  "a": 1,\n  "b" 2\n}');
    expect({ offset: err.offset, line: err.line, column: err.column }).toEqual({
      offset: 18,
      line: 3,
      column: 7,
    });
    expect(err.toProblem('patchgate.json', 'fixtures')).toEqual({
      file: 'patchgate.json',
      path: 'fixtures',
      line: 3,
      column: 7,
      message: "expected ':' after the object key \"b\", found '2'",
    });
  });
});

describe('parseJson: byte order mark', () => {
  it('rejects a leading U+FEFF with a message naming the BOM', () => {
    const err = syntaxError('\ufeff{"a": 1}');
    expect(err.message).toMatch(/starts with a UTF-8 byte order mark/);
    expect({ line: err.line, column: err.column, offset: err.offset }).toEqual({
      line: 1,
      column: 1,
      offset: 0,
    });
  });

  it('treats U+FEFF after leading whitespace as an unexpected character, not a BOM', () => {
    expect(syntaxError(' \ufeff1').reason).toBe('expected a JSON value, found U+FEFF');
  });

  it('allows U+FEFF inside strings', () => {
    expect(toPlainValue(parseJson('"\ufeff"'))).toBe('\ufeff');
  });
});

describe('parseJson: raw control characters in strings', () => {
  for (let c = 0; c < 0x20; c++) {
    const hex = c.toString(16).toUpperCase().padStart(4, '0');
    it(`rejects raw U+${hex} and points at it`, () => {
      const err = syntaxError(`["ab${String.fromCharCode(c)}"]`);
      expect(err.reason).toMatch(new RegExp(`^raw control character U\\+${hex} in a string`));
      expect({ line: err.line, column: err.column }).toEqual({ line: 1, column: 5 });
    });
  }

  it('accepts the same characters escaped', () => {
    expect(toPlainValue(parseJson('"\\u0000\\u001f\\n"'))).toBe('\u0000\u001f\n');
  });
});

describe('parseJson: duplicate keys', () => {
  const text = '{"a": 1, "b": 2,\n "a": 3}';

  it("'keep' (the default) keeps every entry in source order", () => {
    const node = parseJson(text);
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.entries.map((e) => [e.key, toPlainValue(e.value)])).toEqual([
      ['a', 1],
      ['b', 2],
      ['a', 3],
    ]);
    expect(parseJson(text, { duplicateKeys: 'keep' })).toEqual(node);
  });

  it("'error' throws at the second occurrence, naming the key and the first one", () => {
    const err = syntaxError(text, { duplicateKeys: 'error' });
    expect(err.reason).toBe('duplicate key "a" (first defined at line 1, column 2)');
    expect({ line: err.line, column: err.column }).toEqual({ line: 2, column: 2 });
  });

  it("'error' compares decoded keys, so escapes do not hide a duplicate", () => {
    expect(syntaxError('{"é": 1, "\\u00e9": 2}', { duplicateKeys: 'error' }).reason).toMatch(
      /^duplicate key "é"/,
    );
  });

  it("'error' checks each object separately", () => {
    expect(toPlainValue(parseJson('{"a": {"a": 1}, "b": {"a": 2}}', { duplicateKeys: 'error' }))).toEqual({
      a: { a: 1 },
      b: { a: 2 },
    });
  });

  it('records where a JS surrogate pair is two lone surrogates to Python', () => {
    // "\ud83d" escaped followed by a raw low surrogate: joined in JS, not in Python.
    const node = parseJson(
      `{"\\ud83d\udc00": 1, "x\ud83d\\udc00": 2, "\\ud83d\\udc00": 3, "\ud83d\udc00": 4}`,
    );
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.entries.map((e) => e.keySurrogateSplits)).toEqual([[0], [1], undefined, undefined]);
  });

  it("'error' follows Python's key identity for split surrogates", () => {
    const text2 = `{"\\ud83d\udc00": 1, "\ud83d\udc00": 2}`;
    expect(() => parseJson(text2, { duplicateKeys: 'error' })).not.toThrow();
    expect(
      syntaxError(`{"\\ud83d\\udc00": 1, "\ud83d\udc00": 2}`, { duplicateKeys: 'error' }).reason,
    ).toMatch(/^duplicate key/);
  });
});

describe('parseJson: non-finite numbers', () => {
  it('reads NaN, Infinity and -Infinity only when allowNonFinite is set', () => {
    const node = parseJson('[NaN, Infinity, -Infinity]', { allowNonFinite: true });
    if (node.type !== 'array') throw new Error('array expected');
    expect(node.items.map((n) => (n.type === 'nonfinite' ? n.value : n.type))).toEqual([
      'NaN',
      'Infinity',
      '-Infinity',
    ]);
    expect(toPlainValue(node)).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  });

  it('still rejects spellings Python rejects', () => {
    for (const text of ['nan', 'inf', '-Inf', '+Infinity', '-NaN', 'Infinite']) {
      expect(() => parseJson(text, { allowNonFinite: true }), text).toThrow(JsonSyntaxError);
    }
  });
});

describe('parseJson: deep nesting', () => {
  it(`parses ${DEFAULT_MAX_DEPTH} nested arrays and objects without recursion`, () => {
    const n = DEFAULT_MAX_DEPTH;
    const arrays = parseJson('['.repeat(n) + ']'.repeat(n));
    let depth = 0;
    for (let node: JsonNode | undefined = arrays; node?.type === 'array'; node = node.items[0]) depth++;
    expect(depth).toBe(n);
    const objects = parseJson('{"k":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1));
    expect(objects.type).toBe('object');
  });

  it('fails clearly one level past the limit, at the bracket that crosses it', () => {
    const err = syntaxError('['.repeat(DEFAULT_MAX_DEPTH + 1) + ']'.repeat(DEFAULT_MAX_DEPTH + 1));
    expect(err.reason).toBe(`nesting is deeper than ${DEFAULT_MAX_DEPTH} levels`);
    expect(err.column).toBe(DEFAULT_MAX_DEPTH + 1);
  });

  it('takes a higher limit on request, and converts such trees to plain values', () => {
    const n = 200_000;
    const node = parseJson('['.repeat(n) + '1' + ']'.repeat(n), { maxDepth: n });
    let value = toPlainValue(node);
    let depth = 0;
    while (Array.isArray(value)) {
      value = value[0];
      depth++;
    }
    expect([depth, value]).toEqual([n, 1]);
    expect(() => parseJson('[[[]]]', { maxDepth: 2 })).toThrow(/nesting is deeper than 2 levels/);
  });
});

describe('toPlainValue', () => {
  it('matches JSON.parse, including -0, big numbers and last-duplicate-wins in first position', () => {
    const text = '{"b": [1.5, -0, 12345678901234567890, "x", null, true, {}], "a": {"k": 1}, "b": false}';
    const plain = toPlainValue(parseJson(text));
    expect(plain).toEqual(JSON.parse(text));
    expect(Object.keys(plain as object)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(
      Object.is((JSON.parse('[-0]') as number[])[0], (toPlainValue(parseJson('[-0]')) as number[])[0]),
    ).toBe(true);
  });

  it('makes "__proto__" an own data property, never a prototype', () => {
    const plain = toPlainValue(parseJson('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.hasOwn(plain, '__proto__')).toBe(true);
    expect((plain as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('parseJson: size', () => {
  it('reads and canonicalises a 4 MB document', () => {
    const row =
      '{"id": 123456, "name": "fixture \\u00e9 row", "tags": ["a", "b", "c"], "ratio": 0.125, "ok": true}';
    const text = `[${Array.from({ length: 40_000 }, () => row).join(',\n')}]`;
    expect(text.length).toBeGreaterThan(3_900_000);
    const node = parseJson(text);
    const canonical = pythonCanonicalJson(node);
    expect(node.type === 'array' && node.items.length).toBe(40_000);
    expect(
      canonical.startsWith(
        '[{"id":123456,"name":"fixture \\u00e9 row","ok":true,"ratio":0.125,"tags":["a","b","c"]},',
      ),
    ).toBe(true);
  });
});
