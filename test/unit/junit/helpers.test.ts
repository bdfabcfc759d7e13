import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, incompleteTail, sniffEncoding } from '../../../src/junit/decode.js';
import { failureKind, idPrefix, messageFromBody, parseTime, suiteKey } from '../../../src/junit/normalize.js';
import {
  detach,
  detachCompact,
  foldWhitespace,
  TextCollector,
  truncateUtf8,
} from '../../../src/junit/text.js';

function decodes(b: Uint8Array, stream = false): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b, { stream });
    return true;
  } catch {
    return false;
  }
}

describe('parseTime', () => {
  it('matches Number() on plain decimals, which take the fast path', () => {
    const decimal = fc
      .tuple(fc.stringMatching(/^\d{1,9}$/), fc.option(fc.stringMatching(/^\d{1,6}$/)))
      .map(([i, f]) => (f === null ? i : `${i}.${f}`));
    fc.assert(
      fc.property(decimal, (s) => {
        const n = Number(s);
        const expected = n > 1e6 && !s.includes('.') ? n / 1e9 : n;
        expect(parseTime(s)).toBe(expected);
      }),
    );
  });

  it('reads what runners write and drops what cannot be a duration', () => {
    expect(parseTime(undefined)).toBeUndefined();
    expect(parseTime('')).toBeUndefined();
    expect(parseTime('  ')).toBeUndefined();
    expect(parseTime(' 0.5 ')).toBe(0.5);
    expect(parseTime('2,503.1')).toBe(2503.1);
    expect(parseTime('1,5')).toBe(1.5);
    expect(parseTime('1.7e-05')).toBe(1.7e-5);
    expect(parseTime('-0.1')).toBeUndefined();
    expect(parseTime('NaN')).toBeUndefined();
    expect(parseTime('Infinity')).toBeUndefined();
    expect(parseTime('999638317')).toBe(0.999638317);
    expect(parseTime('1000000')).toBe(1e6);
    expect(parseTime('1234567.5')).toBe(1234567.5);
    expect(parseTime('45.984125999999996')).toBe(45.984125999999996);
  });

  it('reads a decimal comma as a comma locale writes it, and thousands separators only where unambiguous', () => {
    // xUnit.net and TestNG on a comma-decimal locale.
    expect(parseTime('0,014')).toBe(0.014);
    expect(parseTime('1,234')).toBe(1.234);
    expect(parseTime('0,0140000')).toBe(0.014);
    expect(parseTime('12,5')).toBe(12.5);
    // English grouping needs a dot or a second group; German grouping uses dots.
    expect(parseTime('1,244.415')).toBe(1244.415);
    expect(parseTime('1,234,567')).toBe(1234567);
    expect(parseTime('1.234,5')).toBe(1234.5);
    // Not a number in any locale.
    expect(parseTime('0,014.5')).toBeUndefined();
    expect(parseTime('1,2,3')).toBeUndefined();
    expect(parseTime(',5')).toBeUndefined();
    expect(parseTime('5,')).toBeUndefined();
    expect(parseTime('1.234,')).toBeUndefined();
    expect(parseTime('-0,5')).toBeUndefined();
    expect(parseTime('1,5e3')).toBeUndefined();
  });
});

describe('UTF-8 helpers', () => {
  it('firstInvalidUtf8 stops exactly where TextDecoder gives up', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (b) => {
        const at = firstInvalidUtf8(b);
        expect(decodes(b.subarray(0, at), true)).toBe(true);
        if (at < b.length) {
          // The bad sequence starts at `at`, whatever follows it.
          expect(decodes(b, true)).toBe(false);
          expect(decodes(b.subarray(at, at + 4), true)).toBe(false);
        } else {
          expect(decodes(b, true)).toBe(true);
        }
      }),
    );
  });

  it('incompleteTail is what a streaming decoder holds back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.nat(), (s, cut) => {
        const bytes = Buffer.from(s, 'utf8');
        const prefix = bytes.subarray(0, cut % (bytes.length + 1));
        const tail = incompleteTail(prefix);
        expect(decodes(prefix.subarray(0, prefix.length - tail.length))).toBe(true);
        expect(tail.length).toBeLessThanOrEqual(3);
        if (tail.length > 0) expect(decodes(prefix)).toBe(false);
      }),
    );
  });

  it('truncateUtf8 keeps the longest whole-character prefix that fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.nat({ max: 80 }), (s, max) => {
        const cut = truncateUtf8(s, max);
        expect(s.startsWith(cut)).toBe(true);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max);
        const next = s.codePointAt(cut.length);
        if (next !== undefined) {
          expect(Buffer.byteLength(cut + String.fromCodePoint(next))).toBeGreaterThan(max);
        }
      }),
    );
  });

  it('refuses UTF-16 and reads the declared encoding', () => {
    const at = (s: string) => sniffEncoding(Buffer.from(s, 'latin1'), true);
    expect(at('<?xml version="1.0"?><a/>')).toEqual({ kind: 'decode', encoding: 'utf-8', skip: 0 });
    expect(at("<?xml version='1.0' encoding='iso-8859-1'?>")).toMatchObject({ encoding: 'windows-1252' });
    expect(at('\xef\xbb\xbf<?xml version="1.0" encoding="ISO-8859-1"?>')).toEqual({
      kind: 'decode',
      encoding: 'utf-8',
      skip: 3,
    });
    expect(at('\xfe\xff\x00<')).toMatchObject({ kind: 'refuse', line: 1, column: 1 });
    expect(sniffEncoding(Buffer.from('<?x'), false)).toEqual({ kind: 'wait' });
    expect(sniffEncoding(Buffer.from('<?xml version="1.0"'), false)).toEqual({ kind: 'wait' });
    expect(sniffEncoding(Buffer.from('<testsuite'), false)).toMatchObject({ kind: 'decode' });
  });
});

describe('text helpers', () => {
  it('foldWhitespace agrees with a regular expression', () => {
    const unit = fc.constantFrom(
      'a',
      'b',
      ' ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      '\u2003',
      '\ufeff',
      'é',
      '\u0085',
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (s) => {
        expect(foldWhitespace(s)).toBe(s.replace(/\s+/g, ' ').trim());
      }),
    );
  });

  it('collects text across pieces up to its cap', () => {
    const c = new TextCollector(5);
    c.add('ab');
    c.add('cd');
    expect(c.truncated).toBe(false);
    c.add('efg');
    expect(c.take(100)).toBe('abcde');
    expect(c.truncated).toBe(true);
  });

  it('detached copies keep their content', () => {
    const chunk = `${'x'.repeat(1000)}name-of-a-test-case${'é🎉'.repeat(100)}`;
    expect(detach(chunk.slice(1000, 1019))).toBe('name-of-a-test-case');
    expect(detachCompact(chunk.slice(0, 1019))).toBe(chunk.slice(0, 1019));
    expect(detachCompact(chunk.slice(900))).toBe(chunk.slice(900));
  });
});

describe('ids and kinds', () => {
  it('builds id prefixes without repeating the suite', () => {
    expect(idPrefix('com.x.FooTest', 'com.x.FooTest')).toBe('com.x.FooTest::');
    expect(idPrefix('pytest', 'tests.test_a.TestB')).toBe('pytest::tests.test_a.TestB::');
    expect(idPrefix('', 'a.B')).toBe('a.B::');
    expect(idPrefix('file.test.ts', '')).toBe('file.test.ts::');
    expect(idPrefix('', '')).toBe('');
    expect(idPrefix('a.spec.ts', 'a.spec.ts', 'webkit')).toBe('[webkit] a.spec.ts::');
  });

  it('drops the suffixes runners add to suite names per run', () => {
    expect(suiteKey('crate::mod@stress-12')).toBe('crate::mod');
    expect(suiteKey('TestAcme-20251114214921')).toBe('TestAcme');
    expect(suiteKey('Test-2025')).toBe('Test-2025');
    expect(suiteKey('  a \n b ')).toBe('a b');
  });

  it('derives a kind when the runner wrote no type', () => {
    expect(failureKind(' java.lang.AssertionError ', '', '', 'failure')).toBe('java.lang.AssertionError');
    expect(failureKind('', 'AssertionError: expected 1', '', 'failure')).toBe('AssertionError');
    expect(failureKind('', '', 'E   ValueError: bad\nmore', 'failure')).toBe('ValueError');
    expect(
      failureKind(
        '',
        'assert 1 == 2',
        'def test():\n>  assert 1 == 2\n\ntests/t.py:3: AssertionError',
        'failure',
      ),
    ).toBe('AssertionError');
    expect(failureKind('', '', "thread 'x' panicked at src/lib.rs:1:2:\nboom", 'failure')).toBe('panic');
    expect(failureKind('', 'Failed', 'fail_test.go:7: Longer', 'failure')).toBe('failure');
    expect(failureKind('', '', '', 'error')).toBe('error');
  });

  it('takes a Rust panic message from the line after its location', () => {
    expect(messageFromBody("\nthread 't' panicked at tests/a.rs:19:5:\nassertion failed\nnote: x")).toBe(
      'assertion failed',
    );
    expect(messageFromBody("thread 't' panicked at 'old style', src/a.rs:1:1")).toBe(
      "thread 't' panicked at 'old style', src/a.rs:1:1",
    );
  });
});
