import fc from 'fast-check';

/**
 * JSON texts for differential tests of the parser: documents built from
 * lexemes (numbers around every limit, every escape, keys that collide and
 * join surrogates), fast-check's own values, and documents with one edit.
 */

const ws = fc
  .array(fc.constantFrom(' ', '\t', '\n', '\r', '\r\n', '  '), { maxLength: 3 })
  .map((parts) => parts.join(''));

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

const intPart = fc.oneof(
  { weight: 1, arbitrary: fc.constant('0') },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...'123456789'), digits(0, 25)).map(([a, b]) => a + b) },
);

/** Integer lexemes, mostly beyond 2^53, plus -0 and a few around Python's 4300-digit limit. */
const integerText = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom('', '-'), intPart).map(([s, i]) => s + i) },
  { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('-0', '9007199254740993', '-9007199254740993', '18446744073709551616'),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('', '-'), fc.integer({ min: 4298, max: 4302 }))
      .map(([s, n]) => `${s}${'9'.repeat(n)}`),
  },
);

/** Float lexemes by construction: any mantissa and an exponent reaching subnormal and overflow ranges. */
const composedFloatText = fc
  .tuple(
    fc.constantFrom('', '-'),
    intPart,
    fc.option(digits(1, 25), { nil: undefined }),
    fc.option(
      fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 420 })),
      {
        nil: undefined,
      },
    ),
  )
  .filter(([, , frac, exp]) => frac !== undefined || exp !== undefined)
  .map(
    ([sign, int, frac, exp]) =>
      `${sign}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `${exp[0]}${exp[1]}${exp[2]}`}`,
  );

/** Float lexemes from real doubles (subnormals and extremes included), written several ways. */
const doubleText = fc
  .tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('repr', 'exp', 'prec'))
  .map(([x, style]) => {
    const s = style === 'repr' ? String(x) : style === 'exp' ? x.toExponential(20) : x.toPrecision(17);
    // String(-0) is "0"; write a signed float zero instead, which JSON allows.
    return Object.is(x, -0) ? '-0.0' : /[.eE]/.test(s) ? s : `${s}.0`;
  });

const numberText = fc.oneof(
  integerText,
  composedFloatText,
  doubleText,
  fc.constantFrom('NaN', 'Infinity', '-Infinity'),
);

const hex4 = (min: number, max: number) =>
  fc.tuple(fc.integer({ min, max }), fc.boolean()).map(([v, upper]) => {
    const h = v.toString(16).padStart(4, '0');
    return `\\u${upper ? h.toUpperCase() : h}`;
  });

/** Drops what cannot appear raw between quotes: '"', '\\' and control characters. */
function rawStringContent(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch !== '"' && ch !== '\\' && ch.charCodeAt(0) >= 0x20) out += ch;
  }
  return out;
}

/** One piece of string content as it appears in source: raw text, a short escape, or a \u escape. */
const stringPiece = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.string({ unit: 'binary', maxLength: 4 }).map(rawStringContent),
  },
  {
    weight: 2,
    arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }).map(rawStringContent),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\\"',
      '\\\\',
      '\\/',
      '\\b',
      '\\f',
      '\\n',
      '\\r',
      '\\t',
      '/',
      '\x7f',
      '\u2028',
      '~',
      ' ',
    ),
  },
  { weight: 2, arbitrary: hex4(0, 0xffff) },
  { weight: 2, arbitrary: hex4(0xd800, 0xdfff) },
  { weight: 1, arbitrary: hex4(0, 0x1f) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('\u{1F600}', '\u{10000}', '\u{10FFFF}', '\ue000', '\uffff', '\ufffd', 'é'),
  },
);

const stringText = fc.array(stringPiece, { maxLength: 6 }).map((pieces) => `"${pieces.join('')}"`);

/** Keys drawn from a small pool collide often, and include every surrogate-joining case. */
const keyText = fc.oneof(
  { weight: 2, arbitrary: stringText },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '"a"',
      '"\\u0061"',
      '"b"',
      '""',
      '"😀"',
      '"\\ud83d\\ude00"',
      '"\\ud83d\ude00"',
      '"\ud83d\\ude00"',
      '"\ud83d"',
      '"\\ud83d"',
      '"\ufffd"',
      '"\ue000"',
      '"\uffff"',
      '"\u{10000}"',
    ),
  },
);

const { value: rawJsonText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'json' },
    numberText,
    stringText,
    fc.constantFrom('true', 'false', 'null'),
    tie('array'),
    tie('object'),
  ),
  array: fc
    .tuple(ws, fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 5 }))
    .map(([inner, items]) =>
      items.length === 0 ? `[${inner}]` : `[${items.map(([a, v, b]) => a + v + b).join(',')}]`,
    ),
  object: fc
    .tuple(ws, fc.array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 6 }))
    .map(([inner, members]) =>
      members.length === 0
        ? `{${inner}}`
        : `{${members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`,
    ),
}));

export const document = fc.tuple(ws, rawJsonText, ws).map(([a, v, b]) => a + v + b);

/** fast-check's own JSON values, serialised with various indentation. */
export const stringifiedValue = fc
  .tuple(
    fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }),
      fc.jsonValue({ stringUnit: 'grapheme' }),
    ),
    fc.constantFrom(undefined, 1, 2, '\t'),
  )
  .map(([v, indent]) => JSON.stringify(v, null, indent));

/** A document with one local edit, which may or may not leave it valid. */
export const mutatedDocument = fc
  .tuple(
    document,
    fc.nat(),
    fc.constantFrom('delete', 'insert', 'replace', 'truncate', 'append', 'bom'),
    fc.constantFrom(
      ...[
        ',',
        ':',
        '[',
        ']',
        '{',
        '}',
        '"',
        '\\',
        '0',
        '1',
        '-',
        '+',
        '.',
        'e',
        'E',
        'x',
        ' ',
        '\t',
        '\n',
        '\r',
      ],
      ...['\u0000', '\u001f', '\u000b', '\u00a0', '\ufeff', '\u2028', 'N', 'I', 'n', 't', 'u', "'", '/'],
    ),
  )
  .map(([doc, n, op, ch]) => {
    const at = doc.length === 0 ? 0 : n % doc.length;
    switch (op) {
      case 'delete':
        return doc.slice(0, at) + doc.slice(at + 1);
      case 'insert':
        return doc.slice(0, at) + ch + doc.slice(at);
      case 'replace':
        return doc.slice(0, at) + ch + doc.slice(at + 1);
      case 'truncate':
        return doc.slice(0, at);
      case 'append':
        return doc + ch;
      default:
        return `\ufeff${doc}`;
    }
  });
