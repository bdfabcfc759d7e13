import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeMessage } from '../../../src/signatures/normalize.js';
import { failureSignature } from '../../../src/signatures/signature.js';
import { messageArb } from './messages.js';

const ours = (m: string) => normalizeMessage(m, 'patchgate');
const seed = (m: string) => normalizeMessage(m, 'seed');

describe('patchgate normalizer: one rule at a time', () => {
  it.each([
    // Timestamps.
    [
      'a date-time with fraction and Z',
      'started 2024-03-05T10:20:30.123Z, then died',
      'started <TS>, then died',
    ],
    ['an offset', 'at 2024-03-05T10:20:30+05:30 ok', 'at <TS> ok'],
    ['a compact offset, lowercase t', 'at 2024-03-05t10:20:30-0800', 'at <TS>'],
    ["Python logging's space and comma", '2024-03-05 10:20:30,123 ERROR boom', '<TS> ERROR boom'],
    ['minutes only', 'due 2024-03-05 10:20 sharp', 'due <TS> sharp'],
    ['a date alone', 'expired on 2024-12-31.', 'expired on <TS>.'],
    ['not a real month or day', 'range 1000-20-30', 'range <N>-<N>-<N>'],
    ['a timestamp glued to a word stays digits', 'v2024-03-05', 'v<N>-<N>-<N>'],
    // UUIDs.
    ['a UUID', 'request 550e8400-e29b-41d4-a716-446655440000 failed', 'request <UUID> failed'],
    ['an upper-case UUID after an underscore', 'req_550E8400-E29B-41D4-A716-446655440000', 'req_<UUID>'],
    // Hex.
    ['a pointer', '<Foo object at 0x7f3a2b1c9d00>', '<Foo object at <HEX>>'],
    ['an upper-case 0X', 'addr 0XDEADBEEF', 'addr <HEX>'],
    ['a git SHA', 'commit 3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b is bad', 'commit <HEX> is bad'],
    ['an 8-char id', 'object a1b2c3d4 missing', 'object <HEX> missing'],
    ['a Windows pointer, upper case', 'at 00007FFE12AB34CD', 'at <HEX>'],
    ['a hex word without digits stays', 'magic deadbeef mismatch', 'magic deadbeef mismatch'],
    ['a long number is a number, not hex', 'id 1234567890', 'id <N>'],
    ['mixed case is a word with a number', 'Decade12 and FaceB00K1', 'Decade<N> and FaceB<N>K<N>'],
    ['seven chars is below the threshold', 'at abc1234', 'at abc<N>'],
    ['hex inside a longer word is not taken', 'zzab12cd34ef', 'zzab<N>cd<N>ef'],
    // Temp paths.
    [
      "pytest's tmp_path",
      'FileNotFoundError: /tmp/pytest-of-runner/pytest-12/test_upload0/data.json',
      'FileNotFoundError: <TMP>',
    ],
    [
      'a tmp_path inside a PosixPath repr',
      "assert PosixPath('/tmp/pytest-of-bob/pytest-3/test_x0/out.txt').exists()",
      "assert PosixPath('<TMP>').exists()",
    ],
    ['mkdtemp', 'cannot open /tmp/tmpa8f3k2zq/config.yaml', 'cannot open <TMP>'],
    [
      'macOS $TMPDIR',
      'wrote /var/folders/xy/b4c_8x2n7d5g0000gn/T/pytest-of-bob/pytest-7/test_a0/f.txt',
      'wrote <TMP>',
    ],
    ['macOS /private prefix', 'in /private/var/folders/xy/zz/T/tmpq1 ok', 'in <TMP> ok'],
    ['macOS /private/tmp', 'in /private/tmp/abc ok', 'in <TMP> ok'],
    ['/var/tmp', 'in /var/tmp/cache-91/x ok', 'in <TMP> ok'],
    ['a file URL', 'load file:///tmp/x1/y.html failed', 'load <TMP> failed'],
    ['a line number after the path stays outside', '/tmp/t9/test_a.py:42: in f', '<TMP>:<N>: in f'],
    ['a UUID-named temp folder', 'at /tmp/run-550e8400-e29b-41d4-a716-446655440000/out', 'at <TMP>'],
    [
      'Windows %TEMP%',
      'C:\\Users\\RUNNER~1\\AppData\\Local\\Temp\\pytest-of-runneradmin\\pytest-0\\test_x0\\out.txt not found',
      '<TMP> not found',
    ],
    [
      'Windows %TEMP% in a Python repr (doubled backslashes), user with a space',
      "WindowsPath('C:\\\\Users\\\\John Smith\\\\AppData\\\\Local\\\\Temp\\\\tmpk2_9x')",
      "WindowsPath('<TMP>')",
    ],
    ['Windows with forward slashes', 'd:/users/ci/appdata/local/temp/x7/y', '<TMP>'],
    ['C:\\Windows\\Temp', 'C:\\Windows\\Temp\\abc123.log', '<TMP>'],
    ['tmp as an ordinary folder name is not a temp path', 'see /home/me/tmp/x1', 'see /home/me/tmp/x<N>'],
    ['a word starting with tmp is not /tmp', 'in /tmpfoo/x', 'in /tmpfoo/x'],
    // Durations.
    ['milliseconds', 'took 123ms', 'took <DUR>'],
    ['fractional seconds', 'timed out after 1.5s', 'timed out after <DUR>'],
    ['a Go compound', 'deadline 2m3s exceeded', 'deadline <DUR> exceeded'],
    ['a long Go compound', 'after 1h2m3.5s', 'after <DUR>'],
    ["pytest's spelt-out seconds", '1 failed in 0.42 seconds', '<N> failed in <DUR>'],
    ['a spaced unit', 'latency 12 ms over budget', 'latency <DUR> over budget'],
    ['microseconds', 'took 250µs', 'took <DUR>'],
    ['minutes', 'waited 3 minutes', 'waited <DUR>'],
    ['a lone m is not a duration', 'allocated 5m rows', 'allocated <N>m rows'],
    ['a spaced lone s is not a duration', 'found 5 s', 'found <N> s'],
    ['a unit glued to a word is not a duration', 'got 5msg', 'got <N>msg'],
    // Ports.
    [
      'after an IPv4 address',
      'connect ECONNREFUSED 127.0.0.1:54321',
      'connect ECONNREFUSED <N>.<N>.<N>.<N>:<PORT>',
    ],
    ['after localhost', 'GET localhost:8080/health', 'GET localhost:<PORT>/health'],
    ['in a URL', 'GET http://api.internal:31337/v1 -> 500', 'GET http://api.internal:<PORT>/v<N> -> <N>'],
    ['in a URL with user info', 'postgres://u:pw@db:5432/app', 'postgres://u:pw@db:<PORT>/app'],
    ['after bracketed IPv6', 'bind [::1]:9000 failed.', 'bind [::<N>]:<PORT> failed.'],
    ['the word port', 'could not bind port 5432', 'could not bind port <PORT>'],
    ['port=', 'Port=0, retrying', 'Port=<PORT>, retrying'],
    ['a file line number is not a port', 'test_x.py:42: AssertionError', 'test_x.py:<N>: AssertionError'],
    ['report is not port', 'report 5 rows', 'report <N> rows'],
    // Digits and whitespace.
    ['digit runs', 'expected 3 == 42', 'expected <N> == <N>'],
    ['non-ASCII decimal digits', 'got ٣٤ and ３', 'got <N> and <N>'],
    ['whitespace runs fold and trim', '  a \t\n b\u00a0 c\u2003 ', 'a b c'],
  ])('%s', (_name, input, expected) => {
    expect(ours(input)).toBe(expected);
  });
});

describe('patchgate normalizer: ANSI and control characters', () => {
  it.each([
    ['SGR colours', '\x1b[31mAssertionError\x1b[0m: \x1b[1;32mboom\x1b[m', 'AssertionError: boom'],
    ['256-colour and cursor codes', '\x1b[38;5;196mred\x1b[2K\x1b[1A done', 'red done'],
    ["pytest's #x1B for an ESC XML cannot hold", '#x1B[31mE   assert 1 == 2#x1B[0m', 'E assert <N> == <N>'],
    ['escaped in text', '\\u001b[31mred\\x1b[0m \\033[1mbold\\e[0m', 'red bold'],
    ['an OSC hyperlink', 'see \x1b]8;;https://x.test/a\x1b\\docs\x1b]8;;\x1b\\ now', 'see docs now'],
    ['an OSC title ended by BEL', '\x1b]0;title\x07text', 'text'],
    ['8-bit CSI', '\x9b31mred', 'red'],
    ['a stray ESC and backspaces', 'a\x1bb\x08c\x00d', 'acd'],
    ['ASCII separators fold like whitespace', 'a\x1cb\x1fc\x85d', 'a b c d'],
  ])('%s', (_name, input, expected) => {
    expect(ours(input)).toBe(expected);
  });

  it('gives the same template with and without colour', () => {
    const plain = failureSignature('AssertionError', 'expected 1 to equal 2', 'patchgate');
    const coloured = failureSignature(
      'AssertionError',
      '\x1b[32mexpected\x1b[39m \x1b[1m1\x1b[22m to equal \x1b[31m2\x1b[39m',
      'patchgate',
    );
    expect(coloured).toEqual(plain);
  });
});

describe('the order of the rules', () => {
  it('gives two pointers the same template in ours and different ones in seed mode (the seed bug)', () => {
    const a = 'Segmentation fault at 0x7ffe12';
    const b = 'Segmentation fault at 0x7fab34';
    expect(ours(a)).toBe('Segmentation fault at <HEX>');
    expect(ours(b)).toBe(ours(a));
    expect(failureSignature('Error', a, 'patchgate').sha256).toBe(
      failureSignature('Error', b, 'patchgate').sha256,
    );
    expect(seed(a)).toBe('Segmentation fault at NxNffeN');
    expect(seed(b)).toBe('Segmentation fault at NxNfabN');
    expect(failureSignature('Error', a, 'seed').sha256).not.toBe(failureSignature('Error', b, 'seed').sha256);
  });

  it('recognises a timestamp before its digits are taken, unlike the seed', () => {
    const m = 'deadline 2024-03-05T10:20:30Z passed';
    expect(ours(m)).toBe('deadline <TS> passed');
    expect(seed(m)).toBe('deadline N-N-NTN:N:NZ passed');
    expect(ours('deadline 2025-11-30T23:59:59.999+01:00 passed')).toBe(ours(m));
  });

  it('takes a UUID whole before its groups can look like hex or digits', () => {
    expect(ours('id 01234567-89ab-cdef-0123-456789abcdef')).toBe('id <UUID>');
  });

  it('takes a temp path whole even after hex and UUIDs were substituted inside it', () => {
    expect(ours('/tmp/a1b2c3d4e5/550e8400-e29b-41d4-a716-446655440000/x 0x1f')).toBe('<TMP> <HEX>');
  });

  it('keeps a duration from being read as a port and a port from being read as digits', () => {
    expect(ours('GET http://127.0.0.1:43121/ took 15ms')).toBe(
      'GET http://<N>.<N>.<N>.<N>:<PORT>/ took <DUR>',
    );
  });
});

describe('line endings and stability', () => {
  const crlf = (s: string) => s.replace(/\n/g, '\r\n');

  it.each(['patchgate', 'seed'] as const)('CRLF never changes a %s signature', (scheme) => {
    const msg = 'AssertionError: expected\n  1\n  2\n\nat test_a.py:12\n';
    expect(failureSignature('AssertionError', crlf(msg), scheme)).toEqual(
      failureSignature('AssertionError', msg, scheme),
    );
    fc.assert(
      fc.property(messageArb, (m) => {
        expect(normalizeMessage(crlf(m), scheme)).toBe(normalizeMessage(m, scheme));
      }),
      { numRuns: 300 },
    );
  });

  it.each(['patchgate', 'seed'] as const)('%s normalization is idempotent', (scheme) => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const once = normalizeMessage(m, scheme);
        expect(normalizeMessage(once, scheme)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves no digit, no ESC and no whitespace run in a patchgate template', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const t = ours(m);
        expect(t).not.toMatch(/[0-9]|\s\s|^\s|\s$/);
        expect(t.includes('\x1b')).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('large and hostile messages', () => {
  // Each input makes a careless pattern restart a scan at every character, so
  // a quadratic rule would take tens of seconds here; linear ones take well
  // under a tenth of the bound.
  it.each([
    ['a long dotted word (URL schemes)', 'a.'.repeat(150_000)],
    ['a long hex-and-letter run', 'a1'.repeat(150_000)],
    ['unterminated OSC escapes', `${'\x1b]'.repeat(50_000)}${'x'.repeat(100_000)}`],
    ['repeated temp roots', '/tmp/'.repeat(60_000)],
    ['Windows user folders without a Temp', 'C:\\Users\\a b c '.repeat(20_000)],
    ['duration-like digit runs', '1h2m'.repeat(75_000)],
    ['IPv4-like runs', '1.'.repeat(150_000)],
  ])('normalizes %s in linear time', (_name, msg) => {
    for (const scheme of ['patchgate', 'seed'] as const) {
      const start = performance.now();
      normalizeMessage(msg, scheme);
      expect(performance.now() - start).toBeLessThan(3000);
    }
  });
});
