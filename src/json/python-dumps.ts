import { createHash } from 'node:crypto';
import { type JsonNode, type JsonObjectEntry, type Loc, parseJson, pythonKeyIdentity } from './parse.js';

/**
 * The canonical form of a locked fixture is defined by a Python one-liner in
 * the seed: `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))`,
 * hashed with SHA-256 over its UTF-8 bytes. Digests already committed next to
 * fixtures were made that way, so this module reproduces Python's output byte
 * for byte rather than inventing a nicer canonical form.
 */

/**
 * CPython 3.11+ refuses to convert decimal strings longer than this to `int`
 * (`sys.get_int_max_str_digits()`, CVE-2020-10735), so `json.loads` raises
 * ValueError on such a number and no Python digest exists for the document.
 */
export const PYTHON_INT_MAX_STR_DIGITS = 4300;

/** A well-formed document for which Python's `json.loads` would still fail, or bytes Python would not decode. */
export class CanonicalJsonError extends Error {
  readonly reason: 'int-max-str-digits' | 'invalid-utf8';
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly offset: number | undefined;

  constructor(reason: CanonicalJsonError['reason'], message: string, loc?: Loc) {
    super(loc === undefined ? message : `${message} (line ${loc.line}, column ${loc.column})`);
    this.name = 'CanonicalJsonError';
    this.reason = reason;
    this.line = loc?.line;
    this.column = loc?.column;
    this.offset = loc?.offset;
  }
}

function pythonInt(lexeme: string, loc: Loc): string {
  const negative = lexeme.charCodeAt(0) === 0x2d;
  const digits = negative ? lexeme.length - 1 : lexeme.length;
  if (digits > PYTHON_INT_MAX_STR_DIGITS) {
    throw new CanonicalJsonError(
      'int-max-str-digits',
      `integer with ${digits} digits: Python's json.loads refuses integers longer than ` +
        `${PYTHON_INT_MAX_STR_DIGITS} digits, so this document has no canonical digest`,
      loc,
    );
  }
  // The grammar forbids leading zeros, so the lexeme already is Python's
  // repr of the int, except that int('-0') is plain 0.
  return lexeme === '-0' ? '0' : lexeme;
}

/**
 * Python's `float.__repr__` (what `json.dumps` writes for floats). JS and
 * Python agree on the digits: both print the shortest string that reads back
 * as the same double, choosing the closest when several are shortest. They
 * only disagree on layout: Python switches to exponent notation when the
 * decimal exponent is below -4 or at least 16 (JS: below -6 or at least 21),
 * keeps `.0` on integral values, and pads the exponent to two digits.
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const { digits, exponent } = shortestDigits(Math.abs(x));
  if (exponent < -4 || exponent >= 16) {
    const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // value = 0.<digits> * 10^point
  const point = exponent + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Shortest round-trip digits of a positive finite double (no leading or
 * trailing zeros) and the decimal exponent of the first digit, taken from
 * `toExponential()`, whose digit choice is the same as `Number#toString`.
 */
function shortestDigits(x: number): { digits: string; exponent: number } {
  const s = x.toExponential();
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e);
  const exponent = Number(s.slice(e + 1));
  let digits = mantissa.length > 1 ? mantissa[0] + mantissa.slice(2) : mantissa;
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 0x30) end--;
  digits = digits.slice(0, end);
  return { digits, exponent };
}

function pythonNumber(node: Extract<JsonNode, { type: 'number' }>): string {
  return node.isInteger ? pythonInt(node.lexeme, node.loc) : pythonFloatRepr(Number(node.lexeme));
}

const HEX = '0123456789abcdef';

// Characters json.dumps(ensure_ascii=True) writes as themselves: printable ASCII except '"' and '\'.
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/**
 * The canonical form is pure ASCII, so it is written straight into bytes: a
 * multi-megabyte fixture then costs one growing buffer instead of millions of
 * short-lived string pieces, and the digest hashes the buffer as is.
 */
class AsciiWriter {
  private buf = Buffer.allocUnsafe(1 << 16);
  private len = 0;

  private reserve(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(c: number): void {
    this.reserve(1);
    this.buf[this.len++] = c;
  }

  /** `s` must be ASCII. */
  ascii(s: string): void {
    this.reserve(s.length);
    this.put(s);
  }

  /** Copies an ASCII string whose room is reserved; short ones in JS, where a native call costs more than the copy. */
  private put(s: string): void {
    if (s.length > 32) {
      this.len += this.buf.write(s, this.len, 'latin1');
      return;
    }
    const buf = this.buf;
    let n = this.len;
    for (let i = 0; i < s.length; i++) buf[n++] = s.charCodeAt(i);
    this.len = n;
  }

  /**
   * `json.dumps` string escaping with `ensure_ascii=True`. Python escapes per
   * code point and splits astral ones into a surrogate pair: exactly the
   * UTF-16 code units JS already holds, so escaping per code unit gives the
   * same bytes, lone surrogates included. DEL (0x7f) is escaped too.
   */
  quoted(s: string): void {
    if (!NEEDS_ESCAPE.test(s)) {
      this.reserve(s.length + 2);
      this.buf[this.len++] = 0x22;
      this.put(s);
      this.buf[this.len++] = 0x22;
      return;
    }
    this.reserve(s.length * 6 + 2);
    const buf = this.buf;
    let n = this.len;
    buf[n++] = 0x22;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) {
        buf[n++] = c;
        continue;
      }
      buf[n++] = 0x5c;
      switch (c) {
        case 0x22:
        case 0x5c:
          buf[n++] = c;
          break;
        case 0x0a:
          buf[n++] = 0x6e; // n
          break;
        case 0x0d:
          buf[n++] = 0x72; // r
          break;
        case 0x09:
          buf[n++] = 0x74; // t
          break;
        case 0x08:
          buf[n++] = 0x62; // b
          break;
        case 0x0c:
          buf[n++] = 0x66; // f
          break;
        default:
          buf[n++] = 0x75; // u
          buf[n++] = HEX.charCodeAt((c >> 12) & 15);
          buf[n++] = HEX.charCodeAt((c >> 8) & 15);
          buf[n++] = HEX.charCodeAt((c >> 4) & 15);
          buf[n++] = HEX.charCodeAt(c & 15);
      }
    }
    buf[n++] = 0x22;
    this.len = n;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** A string literal exactly as `json.dumps(s)` (ensure_ascii) writes it. */
export function pythonQuote(s: string): string {
  const w = new AsciiWriter();
  w.quoted(s);
  return w.bytes().toString('latin1');
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** A key as Python compares it: the string itself when code unit order equals code point order, else its code points. */
type SortKey = string | number[];

function codePoints(key: string, splits: readonly number[] | undefined): number[] {
  const out: number[] = [];
  let s = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < key.length) {
      const d = key.charCodeAt(i + 1);
      while (splits !== undefined && s < splits.length && splits[s]! < i) s++;
      const split = splits !== undefined && splits[s] === i;
      if (d >= 0xdc00 && d <= 0xdfff && !split) {
        out.push(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        i++;
        continue;
      }
    }
    out.push(c);
  }
  return out;
}

function sortKeyOf(entry: JsonObjectEntry): SortKey {
  return HAS_SURROGATE.test(entry.key) ? codePoints(entry.key, entry.keySurrogateSplits) : entry.key;
}

/**
 * Python orders `str` by code point. JS's `<` orders by UTF-16 code unit,
 * which disagrees once a surrogate meets U+E000..U+FFFF: '\u{1F600}' sorts
 * after '\uFFFF' in Python but before it in JS.
 */
function compareSortKeys(a: SortKey, b: SortKey): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = typeof a === 'string' ? codePoints(a, undefined) : a;
  const y = typeof b === 'string' ? codePoints(b, undefined) : b;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x[i]! - y[i]!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function sameKey(a: JsonObjectEntry, b: JsonObjectEntry): boolean {
  if (a.key !== b.key) return false;
  const x = a.keySurrogateSplits;
  const y = b.keySurrogateSplits;
  if (x === undefined || y === undefined) return x === y;
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Below this many entries a pairwise scan finds duplicates faster than a Map. */
const SMALL_OBJECT = 12;

/** What `dict` keeps: one entry per key, the last value, sorted the way `sort_keys=True` sorts. */
function pythonDictEntries(entries: readonly JsonObjectEntry[]): readonly JsonObjectEntry[] {
  let unique: readonly JsonObjectEntry[] = entries;
  if (entries.length <= SMALL_OBJECT) {
    for (let i = 1; i < entries.length && unique === entries; i++) {
      for (let j = 0; j < i; j++) {
        if (sameKey(entries[i]!, entries[j]!)) {
          unique = dedupe(entries);
          break;
        }
      }
    }
  } else {
    unique = dedupe(entries);
  }
  let plain = true;
  let sorted = true;
  for (let i = 0; i < unique.length; i++) {
    const key = unique[i]!.key;
    if (HAS_SURROGATE.test(key)) plain = false;
    if (i > 0 && !(unique[i - 1]!.key < key)) sorted = false;
  }
  // Without surrogates, code unit order is code point order; fixtures
  // written by a canonicalizer are often already in order.
  if (plain) {
    if (sorted) return unique;
    return unique.slice().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  const keyed = unique.map((entry) => ({ entry, sortKey: sortKeyOf(entry) }));
  keyed.sort((a, b) => compareSortKeys(a.sortKey, b.sortKey));
  return keyed.map((k) => k.entry);
}

/**
 * Python converts every integer while it scans, so an over-long one fails the
 * whole document even when a later duplicate key discards it. Canonical
 * writing only visits the surviving values; this pass visits them all.
 */
function assertPythonIntegers(root: JsonNode): void {
  const stack: JsonNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type === 'number') {
      if (node.isInteger) pythonInt(node.lexeme, node.loc);
    } else if (node.type === 'array') {
      for (const item of node.items) stack.push(item);
    } else if (node.type === 'object') {
      for (const entry of node.entries) stack.push(entry.value);
    }
  }
}

function dedupe(entries: readonly JsonObjectEntry[]): readonly JsonObjectEntry[] {
  const byKey = new Map<string, JsonObjectEntry>();
  for (const entry of entries) byKey.set(pythonKeyIdentity(entry.key, entry.keySurrogateSplits), entry);
  return byKey.size === entries.length ? entries : [...byKey.values()];
}

/** Writes a scalar and returns true, or returns false for a container. */
function writeScalar(w: AsciiWriter, node: JsonNode): boolean {
  switch (node.type) {
    case 'string':
      w.quoted(node.value);
      return true;
    case 'number':
      w.ascii(pythonNumber(node));
      return true;
    case 'nonfinite':
      w.ascii(node.value);
      return true;
    case 'boolean':
      w.ascii(node.value ? 'true' : 'false');
      return true;
    case 'null':
      w.ascii('null');
      return true;
    default:
      return false;
  }
}

interface DumpFrame {
  /** Entries of an object (deduplicated and sorted), or undefined for an array. */
  entries: readonly JsonObjectEntry[] | undefined;
  items: readonly JsonNode[] | undefined;
  next: number;
}

/** An explicit stack instead of recursion, so depth is bounded only by the parser's limit. */
function writeCanonical(w: AsciiWriter, node: JsonNode): void {
  if (writeScalar(w, node)) return;
  const stack: DumpFrame[] = [];
  // Writes the opening bracket and pushes a frame, or writes an empty container whole.
  const open = (container: JsonNode): void => {
    if (container.type === 'object') {
      const entries = pythonDictEntries(container.entries);
      if (entries.length === 0) {
        w.ascii('{}');
      } else {
        w.byte(0x7b);
        stack.push({ entries, items: undefined, next: 0 });
      }
    } else if (container.type === 'array') {
      if (container.items.length === 0) {
        w.ascii('[]');
      } else {
        w.byte(0x5b);
        stack.push({ entries: undefined, items: container.items, next: 0 });
      }
    }
  };
  open(node);
  for (let frame = stack[stack.length - 1]; frame !== undefined; frame = stack[stack.length - 1]) {
    const i = frame.next;
    let child: JsonNode;
    if (frame.entries !== undefined) {
      if (i === frame.entries.length) {
        w.byte(0x7d);
        stack.pop();
        continue;
      }
      const entry = frame.entries[i]!;
      if (i > 0) w.byte(0x2c);
      w.quoted(entry.key);
      w.byte(0x3a);
      child = entry.value;
    } else {
      const items = frame.items!;
      if (i === items.length) {
        w.byte(0x5d);
        stack.pop();
        continue;
      }
      if (i > 0) w.byte(0x2c);
      child = items[i]!;
    }
    frame.next = i + 1;
    if (!writeScalar(w, child)) open(child);
  }
}

/**
 * Exactly `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))`
 * for the document `node` was parsed from, with Python's defaults
 * `ensure_ascii=True` and `allow_nan=True`. Python itself fails with
 * RecursionError near 1000 levels of nesting; this does not.
 *
 * @throws CanonicalJsonError for an integer Python's json.loads would refuse.
 */
export function pythonCanonicalJson(node: JsonNode): string {
  assertPythonIntegers(node);
  const w = new AsciiWriter();
  writeCanonical(w, node);
  return w.bytes().toString('latin1');
}

/**
 * SHA-256 (hex) of the UTF-8 bytes of the canonical form: the digest the
 * seed's `digest_lock.py` computes and stores in `fixtures/lock.sha256`.
 * Accepts what Python accepts, including duplicate keys and NaN/Infinity.
 *
 * @throws JsonSyntaxError where Python's json.loads raises JSONDecodeError.
 * @throws CanonicalJsonError where it raises ValueError (over-long integers).
 */
export function canonicalDigest(text: string): string {
  const root = parseJson(text, { duplicateKeys: 'keep', allowNonFinite: true });
  assertPythonIntegers(root);
  const w = new AsciiWriter();
  writeCanonical(w, root);
  // The bytes are ASCII, hence already the UTF-8 that Python's .encode() hashes.
  return createHash('sha256').update(w.bytes()).digest('hex');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * {@link canonicalDigest} of a file's bytes, decoded the way Python's
 * `Path.read_text()` does under UTF-8: invalid UTF-8 is an error, not U+FFFD,
 * and a BOM is kept (so the parser rejects it, as json.loads does).
 * `TextDecoder` defaults would silently drop the BOM and repair bad bytes.
 */
export function canonicalDigestOfBytes(bytes: Uint8Array): string {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new CanonicalJsonError(
      'invalid-utf8',
      'the file is not valid UTF-8, so Python cannot read it as text',
    );
  }
  return canonicalDigest(text);
}
