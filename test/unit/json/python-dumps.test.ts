import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJson } from '../../../src/json/parse.js';
import {
  CanonicalJsonError,
  canonicalDigest,
  canonicalDigestOfBytes,
  PYTHON_INT_MAX_STR_DIGITS,
  pythonCanonicalJson,
  pythonFloatRepr,
  pythonQuote,
} from '../../../src/json/python-dumps.js';
import { sharedFile } from '../../helpers/shared.js';

/** Ours for `text`, read the way canonicalDigest reads it. */
function canon(text: string): string {
  return pythonCanonicalJson(parseJson(text, { duplicateKeys: 'keep', allowNonFinite: true }));
}

// Every expected string below was produced by CPython 3.11.7:
//   json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
type Case = [text: string, python: string];

function table(cases: Case[]): void {
  for (const [text, python] of cases) {
    it(`${JSON.stringify(text)} -> ${python}`, () => {
      expect(canon(text)).toBe(python);
    });
  }
}

describe('pythonCanonicalJson: integers are exact, as Python ints', () => {
  table([
    ['0', '0'],
    ['-0', '0'],
    ['123', '123'],
    ['-123', '-123'],
    ['9007199254740993', '9007199254740993'],
    ['18446744073709551617', '18446744073709551617'],
    ['-123456789012345678901234567890', '-123456789012345678901234567890'],
    ['[-0, 0]', '[0,0]'],
  ]);

  it(`keeps an integer of exactly ${PYTHON_INT_MAX_STR_DIGITS} digits, with or without a sign`, () => {
    const digits = '7'.repeat(PYTHON_INT_MAX_STR_DIGITS);
    expect(canon(digits)).toBe(digits);
    expect(canon(`-${digits}`)).toBe(`-${digits}`);
  });

  it(`refuses ${PYTHON_INT_MAX_STR_DIGITS + 1} digits, as Python 3.11's json.loads raises ValueError`, () => {
    const text = `{"n":\n  ${'1'.repeat(PYTHON_INT_MAX_STR_DIGITS + 1)}}`;
    let caught: unknown;
    try {
      canonicalDigest(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CanonicalJsonError);
    const err = caught as CanonicalJsonError;
    expect(err.reason).toBe('int-max-str-digits');
    expect(err.message).toMatch(
      /integer with 4301 digits: Python's json\.loads refuses integers longer than 4300 digits/,
    );
    expect({ line: err.line, column: err.column }).toEqual({ line: 2, column: 3 });
    expect(() => canon(`-${'1'.repeat(PYTHON_INT_MAX_STR_DIGITS + 1)}`)).toThrow(CanonicalJsonError);
  });

  it('refuses an over-long integer even when a later duplicate key discards it, as Python converts while scanning', () => {
    const long = '9'.repeat(PYTHON_INT_MAX_STR_DIGITS + 1);
    expect(() => canonicalDigest(`{"k": ${long}, "k": []}`)).toThrow(CanonicalJsonError);
    expect(() => canonicalDigest(`{"k": {"deep": [${long}]}, "k": 1}`)).toThrow(CanonicalJsonError);
  });

  it('does not apply the digit limit to floats, which Python reads with float()', () => {
    expect(canon(`${'1'.repeat(PYTHON_INT_MAX_STR_DIGITS + 1)}.0`)).toBe('Infinity');
    expect(canon(`0.${'1'.repeat(5000)}`)).toBe('0.1111111111111111');
  });
});

describe('pythonCanonicalJson: floats are written as float.__repr__', () => {
  describe('fixed notation for decimal exponents -4..15, always with a fraction', () => {
    table([
      ['1.0', '1.0'],
      ['100.0', '100.0'],
      ['1E+2', '100.0'],
      ['10.0e-1', '1.0'],
      ['2.5', '2.5'],
      ['0.1', '0.1'],
      ['123.456e5', '12345600.0'],
      ['-2.5E-3', '-0.0025'],
      ['0.0001', '0.0001'],
      ['0.00012345', '0.00012345'],
      ['1e15', '1000000000000000.0'],
      ['9999999999999998.0', '9999999999999998.0'],
      ['9007199254740993.0', '9007199254740992.0'],
    ]);
  });

  describe('exponent notation below 1e-4 and from 1e16, with a signed two-digit exponent', () => {
    table([
      ['0.00001', '1e-05'],
      ['0.000012345', '1.2345e-05'],
      ['1.23e-5', '1.23e-05'],
      ['1e-7', '1e-07'],
      ['1e16', '1e+16'],
      ['-1e16', '-1e+16'],
      ['12345678901234567.0', '1.2345678901234568e+16'],
      ['123456789012345678.0', '1.2345678901234568e+17'],
      ['1e21', '1e+21'],
      ['1e22', '1e+22'],
      ['1.5e300', '1.5e+300'],
      ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ]);
  });

  describe('zero, subnormals, rounding and overflow', () => {
    table([
      ['-0.0', '-0.0'],
      ['0e5', '0.0'],
      ['-0e0', '-0.0'],
      ['0.0e-0', '0.0'],
      ['5e-324', '5e-324'],
      ['4.9e-324', '5e-324'],
      ['3e-324', '5e-324'],
      ['2e-324', '0.0'],
      ['1e-400', '0.0'],
      ['-1e-400', '-0.0'],
      ['0.1000000000000000055511151231257827', '0.1'],
      ['1.7976931348623158e308', '1.7976931348623157e+308'],
      ['1.7976931348623159e308', 'Infinity'],
      ['1e400', 'Infinity'],
      ['-1e400', '-Infinity'],
    ]);
  });

  it('formats doubles directly, NaN and infinities as json.dumps writes them', () => {
    expect(pythonFloatRepr(Number.NaN)).toBe('NaN');
    expect(pythonFloatRepr(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(pythonFloatRepr(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
    expect(pythonFloatRepr(2 ** 53)).toBe('9007199254740992.0');
    expect(pythonFloatRepr(2 ** 63)).toBe('9.223372036854776e+18');
    expect(pythonFloatRepr(Number.MIN_VALUE)).toBe('5e-324');
  });
});

describe('pythonCanonicalJson: NaN and Infinity literals pass through (allow_nan=True)', () => {
  table([
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['-Infinity', '-Infinity'],
    ['[NaN,Infinity,-Infinity,1e999]', '[NaN,Infinity,-Infinity,Infinity]'],
  ]);
});

describe('pythonCanonicalJson: strings are escaped with ensure_ascii', () => {
  table([
    ['"\\" \\\\ \\/ / \\b \\f \\n \\r \\t"', '"\\" \\\\ / / \\b \\f \\n \\r \\t"'],
    ['"\\u0000\\u0001\\u001f\\u0020"', '"\\u0000\\u0001\\u001f "'],
    ['"~"', '"~"'],
    ['"\x7f"', '"\\u007f"'],
    ['"\\u007F"', '"\\u007f"'],
    ['"é"', '"\\u00e9"'],
    ['"\\u00e9"', '"\\u00e9"'],
    ['"\u0080\u00ff\u0100\uffff"', '"\\u0080\\u00ff\\u0100\\uffff"'],
    ['"\u2028\u2029"', '"\\u2028\\u2029"'],
    ['"\ufeff"', '"\\ufeff"'],
    ['"😀"', '"\\ud83d\\ude00"'],
    ['"\\uD83D\\uDE00"', '"\\ud83d\\ude00"'],
    ['"\\ud800"', '"\\ud800"'],
    ['"\\udc00\\ud800"', '"\\udc00\\ud800"'],
  ]);

  it('quotes a lone surrogate held in a JS string the same way', () => {
    expect(pythonQuote('a\ud800b\udfff')).toBe('"a\\ud800b\\udfff"');
  });
});

describe('pythonCanonicalJson: objects', () => {
  describe('sort keys by code point, not by UTF-16 code unit', () => {
    table([
      [
        '{"b":1,"a":2,"B":3,"A":4,"é":5,"\ue000":6,"😀":7,"":8,"aa":9,"\uffff":10,"\u{10000}":11}',
        '{"":8,"A":4,"B":3,"a":2,"aa":9,"b":1,"\\u00e9":5,"\\ue000":6,"\\uffff":10,"\\ud800\\udc00":11,"\\ud83d\\ude00":7}',
      ],
      ['{"\\ud83d\\ude00":1,"\ufffd":2}', '{"\\ufffd":2,"\\ud83d\\ude00":1}'],
    ]);

    it('differs from the default JS sort on exactly those keys', () => {
      const keys = ['\u{1F600}', '\ufffd'];
      expect([...keys].sort()).toEqual(['\u{1F600}', '\ufffd']);
      expect(canon(JSON.stringify({ [keys[0]!]: 1, [keys[1]!]: 2 }))).toBe(
        '{"\\ufffd":2,"\\ud83d\\ude00":1}',
      );
    });
  });

  describe('duplicate keys: the last value wins, as in a dict', () => {
    table([
      ['{"a":1,"a":{"x":1},"a":[2]}', '{"a":[2]}'],
      ['{"k":{"z":1,"y":2,"z":3}}', '{"k":{"y":2,"z":3}}'],
      ['{"a":1,"\\u0061":2}', '{"a":2}'],
    ]);

    it('resolves duplicates in objects past the pairwise-scan size too', () => {
      const members = Array.from({ length: 40 }, (_, i) => `"k${i % 13}":${i}`).join(',');
      const expected = Array.from({ length: 13 }, (_, k) => `k${k}`)
        .sort()
        .map((k) => `"${k}":${[...Array(40).keys()].filter((i) => `k${i % 13}` === k).at(-1)}`)
        .join(',');
      expect(canon(`{${members}}`)).toBe(`{${expected}}`);
    });
  });

  describe('a surrogate pair formed from one escaped and one raw half is two code points to Python', () => {
    // JS text can hold raw lone surrogates; Python's json.loads on the same
    // str joins only two *escaped* halves, so these keys sort (and collide) differently.
    table([
      ['{"\\ud83d\ude00":1,"\ufffd":2}', '{"\\ud83d\\ude00":1,"\\ufffd":2}'],
      ['{"\ud83d\\ude00":1,"\ufffd":2}', '{"\\ud83d\\ude00":1,"\\ufffd":2}'],
      ['{"\\ud83d\ude00":1,"😀":2,"\ufffd":3}', '{"\\ud83d\\ude00":1,"\\ufffd":3,"\\ud83d\\ude00":2}'],
      [
        '{"x\ud83d\\ude00":1,"x😀":2,"x\ufffd":3,"x\\ud83d\ude00":4}',
        '{"x\\ud83d\\ude00":4,"x\\ufffd":3,"x\\ud83d\\ude00":2}',
      ],
    ]);
  });

  table([
    ['{}', '{}'],
    ['[]', '[]'],
    ['[[],{},[{}]]', '[[],{},[{}]]'],
    ['{"a":{"c":[3,{"e":5,"d":4}],"b":2}}', '{"a":{"b":2,"c":[3,{"d":4,"e":5}]}}'],
    ['true', 'true'],
    ['false', 'false'],
    ['null', 'null'],
    ['  {\n  "currency" : "USD" ,\r\n\t"total_cents":1500 } \n', '{"currency":"USD","total_cents":1500}'],
  ]);
});

describe('pythonCanonicalJson: depth', () => {
  it('writes 10,000 levels without recursion (Python itself stops near 1000)', () => {
    const n = 10_000;
    expect(canon('['.repeat(n) + ']'.repeat(n))).toBe('['.repeat(n) + ']'.repeat(n));
    expect(canon('{"b":0,"a":'.repeat(n - 1) + '1' + '}'.repeat(n - 1))).toBe(
      '{"a":'.repeat(n - 1) + '1' + ',"b":0}'.repeat(n - 1),
    );
  });
});

describe('canonicalDigest', () => {
  it("reproduces the seed's committed digest of its invoice fixture", () => {
    const fixture = readFileSync(sharedFile('reference', 'seed000', 'fixtures', 'lock.json'), 'utf8');
    const committed = readFileSync(
      sharedFile('reference', 'seed000', 'fixtures', 'lock.sha256'),
      'utf8',
    ).trim();
    expect(canonicalDigest(fixture)).toBe(committed);
  });

  it('is the sha256 of the canonical string, independent of layout, key order and escapes', () => {
    const canonical = '{"currency":"USD","lines":[{"qty":2,"unit_cents":500}],"note":"\\u00e9"}';
    const sha = createHash('sha256').update(canonical).digest('hex');
    expect(canonicalDigest(canonical)).toBe(sha);
    expect(
      canonicalDigest(
        '{ "note": "é",\n  "lines": [ {"unit_cents": 500, "qty": 2} ],\n  "currency": "\\u0055SD" }',
      ),
    ).toBe(sha);
  });

  it('is unlike a digest of JSON.stringify for floats, keys and non-ASCII', () => {
    const text = '{"é":1.0,"a":1e16}';
    expect(pythonCanonicalJson(parseJson(text))).toBe('{"a":1e+16,"\\u00e9":1.0}');
    expect(JSON.stringify(JSON.parse(text))).toBe('{"é":1,"a":10000000000000000}');
  });

  it('rejects what json.loads rejects', () => {
    expect(() => canonicalDigest('\ufeff{}')).toThrow(/starts with a UTF-8 byte order mark/);
    expect(() => canonicalDigest('{"a":1,}')).toThrow(JsonSyntaxError);
    expect(() => canonicalDigest('[1] [2]')).toThrow(JsonSyntaxError);
    expect(() => canonicalDigest('"\t"')).toThrow(JsonSyntaxError);
  });
});

describe('canonicalDigestOfBytes: decode as Path.read_text() under UTF-8', () => {
  it('digests valid UTF-8 like the decoded text', () => {
    const text = '{"name": "Zoë 😀"}';
    expect(canonicalDigestOfBytes(Buffer.from(text, 'utf8'))).toBe(canonicalDigest(text));
  });

  it('keeps a BOM instead of stripping it, so it is rejected as json.loads rejects it', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]);
    expect(() => canonicalDigestOfBytes(bytes)).toThrow(/starts with a UTF-8 byte order mark/);
  });

  it('rejects invalid UTF-8 instead of replacing it with U+FFFD', () => {
    for (const bad of [
      [0x22, 0xff, 0x22],
      [0x22, 0xc3, 0x22],
      [0x22, 0xed, 0xa0, 0x80, 0x22],
    ]) {
      expect(() => canonicalDigestOfBytes(Uint8Array.from(bad))).toThrow(CanonicalJsonError);
    }
  });
});
