/**
 * Failure-message normalizers. A failure signature must stay the same when
 * only the incidental parts of a message change between runs (addresses,
 * clocks, temp folders, ports, timings), and must change when the failure
 * itself changes.
 *
 * Two schemes exist side by side:
 *
 * - `patchgate`: ours. Each volatile kind of token gets its own placeholder,
 *   substituted from the most specific shape to the least, so a digit rule
 *   never destroys a timestamp or an address before it is recognised.
 * - `seed`: a transcription of the original proposal's `normalize_message`,
 *   kept only so rows hashed by its own script still match byte for byte. It
 *   replaces digits first, which makes its hex and timestamp rules dead; that
 *   is that script's behaviour and must not be fixed here.
 */

export const SIGNATURE_SCHEMES = ['patchgate', 'seed'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export function isSignatureScheme(s: string): s is SignatureScheme {
  return (SIGNATURE_SCHEMES as readonly string[]).includes(s);
}

/**
 * Python's `\d` on a str: every code point of Unicode category Nd in the
 * interpreter's Unicode database. Pinned to Unicode 14.0 (CPython 3.11, the
 * reference interpreter) instead of using `\p{Nd}`, because `\p{Nd}` follows
 * Node's ICU and a signature must not move when Node is upgraded. Python
 * 3.12+ knows a few more digit blocks (Kawi, Nag Mundari, ...); only messages
 * containing those could hash differently from such an interpreter.
 */
const DIGIT_RANGES: readonly (readonly [number, number])[] = [
  [0x30, 0x39],
  [0x660, 0x669],
  [0x6f0, 0x6f9],
  [0x7c0, 0x7c9],
  [0x966, 0x96f],
  [0x9e6, 0x9ef],
  [0xa66, 0xa6f],
  [0xae6, 0xaef],
  [0xb66, 0xb6f],
  [0xbe6, 0xbef],
  [0xc66, 0xc6f],
  [0xce6, 0xcef],
  [0xd66, 0xd6f],
  [0xde6, 0xdef],
  [0xe50, 0xe59],
  [0xed0, 0xed9],
  [0xf20, 0xf29],
  [0x1040, 0x1049],
  [0x1090, 0x1099],
  [0x17e0, 0x17e9],
  [0x1810, 0x1819],
  [0x1946, 0x194f],
  [0x19d0, 0x19d9],
  [0x1a80, 0x1a89],
  [0x1a90, 0x1a99],
  [0x1b50, 0x1b59],
  [0x1bb0, 0x1bb9],
  [0x1c40, 0x1c49],
  [0x1c50, 0x1c59],
  [0xa620, 0xa629],
  [0xa8d0, 0xa8d9],
  [0xa900, 0xa909],
  [0xa9d0, 0xa9d9],
  [0xa9f0, 0xa9f9],
  [0xaa50, 0xaa59],
  [0xabf0, 0xabf9],
  [0xff10, 0xff19],
  [0x104a0, 0x104a9],
  [0x10d30, 0x10d39],
  [0x11066, 0x1106f],
  [0x110f0, 0x110f9],
  [0x11136, 0x1113f],
  [0x111d0, 0x111d9],
  [0x112f0, 0x112f9],
  [0x11450, 0x11459],
  [0x114d0, 0x114d9],
  [0x11650, 0x11659],
  [0x116c0, 0x116c9],
  [0x11730, 0x11739],
  [0x118e0, 0x118e9],
  [0x11950, 0x11959],
  [0x11c50, 0x11c59],
  [0x11d50, 0x11d59],
  [0x11da0, 0x11da9],
  [0x16a60, 0x16a69],
  [0x16ac0, 0x16ac9],
  [0x16b50, 0x16b59],
  [0x1d7ce, 0x1d7ff],
  [0x1e140, 0x1e149],
  [0x1e2f0, 0x1e2f9],
  [0x1e950, 0x1e959],
  [0x1fbf0, 0x1fbf9],
];

/** The pinned decimal-digit table, for tests that check it against Python. */
export function decimalDigitRanges(): readonly (readonly [number, number])[] {
  return DIGIT_RANGES;
}

const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
const DIGIT_CLASS = DIGIT_RANGES.map(([a, b]) => `${hex(a)}-${hex(b)}`).join('');

/**
 * What Python's `str.split()` (no argument) splits on: `str.isspace()`. It
 * differs from JS `\s`: Python counts the ASCII separators U+001C..U+001F and
 * NEL U+0085, and does not count the BOM U+FEFF.
 */
const PY_SPACE_CLASS = String.raw`\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;

const SEED_DIGITS = new RegExp(`[${DIGIT_CLASS}]+`, 'gu');
const SEED_HEX = /0x[0-9a-fA-F]+/gu;
const SEED_TS = new RegExp(
  `[${DIGIT_CLASS}]{4}-[${DIGIT_CLASS}]{2}-[${DIGIT_CLASS}]{2}T[^${PY_SPACE_CLASS}]+`,
  'gu',
);
const SEED_SPACE = new RegExp(`[${PY_SPACE_CLASS}]+`, 'u');

/** The original proposal's `normalize_message`, line for line (see the module comment). */
function seedNormalize(msg: string): string {
  let out = msg.replace(SEED_DIGITS, 'N');
  // Never matches: every digit is already an N. Kept so this reads as the seed does.
  out = out.replace(SEED_HEX, 'HEX');
  out = out.replace(SEED_TS, 'TS');
  return out
    .split(SEED_SPACE)
    .filter((part) => part !== '')
    .join(' ');
}

// ---------------------------------------------------------------------------
// The patchgate scheme.

/**
 * Escape introducers. Besides a real ESC (and the 8-bit CSI), the textual forms
 * cover reports that could not carry a raw ESC: XML 1.0 forbids it, so pytest
 * writes `#x1B`, and other tools leave `\u001b`, `\x1b`, `\033` or `\e` in text.
 */
const ESC_TEXT = String.raw`(?:\x1b|#x1[bB]|\\u001[bB]|\\x1[bB]|\\033|\\e)`;
/** CSI (colours, cursor moves, erase) in any of the forms above. */
const ANSI_CSI = new RegExp(String.raw`(?:${ESC_TEXT}\[|\x9b)[0-?]*[ -/]*[@-~]`, 'g');
/**
 * OSC (terminal titles, hyperlinks), terminated by BEL or ST. Bounded so an
 * unterminated OSC cannot make the scan quadratic.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI_OSC = /(?:\x1b|#x1[bB])\][^\x07\x1b]{0,2048}?(?:\x07|#x07|\x1b\\)/g;
/** The remaining single escapes (charset selection, keypad modes, RIS, ...). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI_OTHER = /\x1b[ -/]*[0-~]/g;
/**
 * Controls left after the escapes are gone (a stray ESC, backspaces, C1). Tab,
 * line breaks, U+001C..U+001F and NEL are kept for the whitespace fold.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROLS = /[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]/g;

/**
 * ISO-8601 / RFC 3339: a date, optionally with a time (after `T` or a space),
 * seconds, a fraction (`.` or Python logging's `,`) and `Z` or an offset.
 * Month and day are range-checked so version triples and ranges such as
 * `1000-20-30` are left to the digit rule.
 */
const TIMESTAMP =
  /(?<![0-9A-Za-z])\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[Tt ](?:[01]\d|2[0-3]):[0-5]\d(?::(?:[0-5]\d|60)(?:[.,]\d+)?)?(?:[Zz]|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?(?!\d)/g;

const UUID =
  /(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])/g;

const HEX_PREFIXED = /(?<![0-9A-Za-z])0[xX][0-9a-fA-F]+/g;
/**
 * Bare hex (git SHAs, pointers printed without `0x`, object ids): a whole
 * token of 8 or more hex characters, one case throughout, holding at least
 * one digit and at least one letter. The digit requirement keeps words spelt
 * in a-f ("deadbeef", "effaced") intact and leaves plain numbers to `<N>`;
 * the single case keeps mixed-case words such as "Decade12" out. A token like
 * "facade12" is still taken: a cost accepted for stable SHAs. Abbreviated
 * 7-character SHAs are below the threshold and fall to the digit rule.
 */
const HEX_BARE =
  /(?<![0-9A-Za-z])(?:(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}|(?=[0-9A-F]*[0-9])(?=[0-9A-F]*[A-F])[0-9A-F]{8,})(?![0-9A-Za-z])/g;

/**
 * The rest of a path after a temp root. A whole temp path becomes one `<TMP>`,
 * not just its root: what follows the root is usually a random folder name
 * (`tmpa8f3k2`, `test_x0`), and letters in it would survive the digit rule.
 * Placeholders from earlier rules may sit inside. Colons end it, so a
 * `file.py:12` line number stays outside.
 */
const PATH_REST = String.raw`(?:<(?:TS|UUID|HEX)>|[^\s'"\x60()<>\[\]{},;:|*?])*`;
/**
 * A temp path glued to the end of a word or number is part of that token, not
 * a path. Placeholders count as such tokens too: `0/tmp/x` is not a temp path,
 * so `<N>/tmp/x` must not become one when a template is normalized again.
 */
const TMP_START = '(?<!<[A-Z]+>)';
/** `/tmp`, `/var/tmp`, macOS's `/private/tmp` and `/var/folders/...`, also as `file://` URLs. */
const TMP_POSIX = new RegExp(
  String.raw`${TMP_START}(?<![\w.~\/\\-])(?:file:\/\/)?(?:\/private)?\/(?:(?:var\/)?tmp(?![\w.~-])|var\/folders(?=\/))${PATH_REST}`,
  'g',
);
/**
 * Windows `%TEMP%`, with single, doubled (a Python repr) or forward slashes.
 * The user folder may hold spaces or a `~1` short name.
 */
const WIN_SEP = String.raw`(?:\\\\|\\|\/)`;
const TMP_WINDOWS = new RegExp(
  String.raw`${TMP_START}(?<![\w.])[A-Za-z]:${WIN_SEP}(?:(?:Users|Documents and Settings)${WIN_SEP}[^\\\/\r\n'"]+?${WIN_SEP}AppData${WIN_SEP}Local${WIN_SEP}Temp|Windows${WIN_SEP}Temp)(?![\w.~-])${PATH_REST}`,
  'gi',
);

/**
 * Durations: Go-style compounds (`2m3s`, `1h2m3.5s`), sub-second units
 * (`300ms`, `12 us`) and spelt-out units (`0.42 seconds`). A lone `5m` or `5 s`
 * is not taken: it is as likely to be metres, millions or a plural.
 */
const DURATION =
  /(?<![0-9A-Za-z_.])(?:(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?s|\d+h(?:\d+m)?|\d+(?:\.\d+)?[ \t]?(?:ns|us|µs|μs|ms|nanoseconds?|microseconds?|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?))(?![0-9A-Za-z_])/g;

/**
 * Ports, only where a port is certain: in a URL authority, after localhost, an
 * IPv4 address or a bracketed IPv6 address, and after the word "port". A bare
 * `name:1234` is not taken: it is far more often `file.py:1234`. The colon is
 * kept (`localhost:<PORT>`) so the template still reads as an address.
 */
// The scheme starts where a run of scheme characters starts, and is short:
// otherwise every letter of a long dotted word would restart a scan to its end.
const PORT_URL =
  /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/(?:[^\s/@]*@)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%-]+)):\d{1,5}(?!\d)/g;
const PORT_HOST = /(?<![\w.:-])(localhost|(?:\d{1,3}\.){3}\d{1,3}|\[[0-9A-Fa-f:.]+\]):\d{1,5}(?!\d)/gi;
const PORT_WORD = /\b(port[ \t]*[=:]?[ \t]*)\d{1,5}(?!\d)/gi;

const DIGITS = new RegExp(`[${DIGIT_CLASS}]+`, 'gu');
/** JS whitespace plus what Python also counts, so both schemes fold the same separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: Python counts U+001C..U+001F as whitespace
const SPACE = /[\s\x1c-\x1f\x85]+/g;

function patchgateNormalize(msg: string): string {
  let out = msg.replace(ANSI_OSC, '').replace(ANSI_CSI, '').replace(ANSI_OTHER, '').replace(CONTROLS, '');
  out = out.replace(TIMESTAMP, '<TS>');
  out = out.replace(UUID, '<UUID>');
  out = out.replace(HEX_PREFIXED, '<HEX>').replace(HEX_BARE, '<HEX>');
  out = out.replace(TMP_WINDOWS, '<TMP>').replace(TMP_POSIX, '<TMP>');
  out = out.replace(DURATION, '<DUR>');
  out = out.replace(PORT_URL, '$1:<PORT>').replace(PORT_HOST, '$1:<PORT>').replace(PORT_WORD, '$1<PORT>');
  out = out.replace(DIGITS, '<N>');
  return out.replace(SPACE, ' ').replace(/^ | $/g, '');
}

/**
 * Normalizes a failure message under a scheme. Line endings never matter:
 * every whitespace run, CRLF included, folds to one space in both schemes.
 */
export function normalizeMessage(msg: string, scheme: SignatureScheme): string {
  return scheme === 'seed' ? seedNormalize(msg) : patchgateNormalize(msg);
}
