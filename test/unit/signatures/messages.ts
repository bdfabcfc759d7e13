import fc from 'fast-check';

/**
 * Failure messages built from the pieces the normalizers care about, glued
 * together without separators so rules meet at awkward boundaries, plus any
 * Unicode code point (astral and unusual digits and spaces included).
 */

const hexDigits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: min, maxLength: max });

const pad = (n: number, width: number) => String(n).padStart(width, '0');

const timestamp = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.constantFrom('', 'T', 't', ' '),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 60 }),
    fc.constantFrom('', '.123', ',5', '.999999'),
    fc.constantFrom('', 'Z', '+05:30', '-0800', '+01'),
  )
  .map(([y, mo, d, sep, h, mi, frac, tz]) => {
    const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
    return sep === '' ? date : `${date}${sep}${pad(h, 2)}:${pad(mi, 2)}:${pad(mi, 2)}${frac}${tz}`;
  });

const uuid = fc.uuid();

const fragment: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 10 }),
  fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff'),
  fc.constantFrom('\x1c', '\x1f', '\x85', '\u180e', '\u200b', '\u2007', '\u202f'),
  fc.nat().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  hexDigits(1, 16).map((h) => `0x${h}`),
  hexDigits(6, 40),
  timestamp,
  uuid,
  fc.constantFrom('٣', '۴', '५', '３', '𝟘', '𝟿', '᠑', '𑁦', '\u{11f50}', '\u{1e4f0}', '²', '½', 'Ⅻ'),
  fc.constantFrom(
    '/tmp/pytest-of-ci/pytest-4/test_a0/f.txt',
    '/var/folders/x1/y_2/T/tmpab12',
    '/private/tmp/q',
    'C:\\Users\\ci\\AppData\\Local\\Temp\\t1',
    "C:\\\\Users\\\\ci\\\\AppData\\\\Local\\\\Temp\\\\t2'",
    'file:///tmp/z',
    '/home/u/tmp/1',
  ),
  fc.constantFrom('\x1b[31m', '\x1b[0m', '#x1B[1m', '\\x1b[2K', '\x1b]0;t\x07', '\x9b1m', '\x1b', '\x1b(B'),
  fc.constantFrom('123ms', '1.5s', '2m3s', '1h2m', ' in 0.42 seconds', '12 ms', '250µs', '5m', '3 minutes'),
  fc.constantFrom(
    'localhost:8080',
    '127.0.0.1:5432',
    'http://h:1/',
    '[::1]:99',
    'port 5432',
    'Port=80',
    'file.py:12',
  ),
  fc.constantFrom(
    'AssertionError: ',
    'expected ',
    ' got ',
    'N',
    'HEX',
    'TS',
    '<N>',
    '<TMP>',
    '|',
    'T',
    'x',
    '-',
  ),
);

export const messageArb: fc.Arbitrary<string> = fc
  .array(fragment, { maxLength: 14 })
  .map((parts) => parts.join(''));

export const kindArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'AssertionError',
    'Error',
    'failure',
    'error',
    'skipped',
    'xfailed',
    'java.lang.AssertionError',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
