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
 * `json.dumps` with `ensure_ascii=True`. Python escapes per code point and
 * splits astral ones into a surrogate pair, which is exactly the UTF-16 code
 * units JS already holds, so escaping per code unit gives the same bytes, lone
 * surrogates included. DEL (0x7f) is escaped too.
 */
export function pythonQuote(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  let chunkStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(chunkStart, i);
    chunkStart = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x0c:
        out += '\\f';
        break;
      default:
        out += `\\u${HEX[(c >> 12) & 15]}${HEX[(c >> 8) & 15]}${HEX[(c >> 4) & 15]}${HEX[c & 15]}`;
    }
  }
  return `${out}${s.slice(chunkStart)}"`;
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

function dedupe(entries: readonly JsonObjectEntry[]): readonly JsonObjectEntry[] {
  const byKey = new Map<string, JsonObjectEntry>();
  for (const entry of entries) byKey.set(pythonKeyIdentity(entry.key, entry.keySurrogateSplits), entry);
  return byKey.size === entries.length ? entries : [...byKey.values()];
}

function scalarText(node: JsonNode): string | undefined {
  switch (node.type) {
    case 'string':
      return pythonQuote(node.value);
    case 'number':
      return pythonNumber(node);
    case 'nonfinite':
      return node.value;
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
    default:
      return undefined;
  }
}

interface DumpFrame {
  /** Entries of an object (already deduplicated and sorted) or items of an array. */
  entries: readonly JsonObjectEntry[] | undefined;
  items: readonly JsonNode[] | undefined;
  next: number;
}

/**
 * Exactly `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))`
 * for the document `node` was parsed from (Python defaults: ensure_ascii and
 * allow_nan on). Walks with an explicit stack, so depth is only bounded by the
 * parser's limit; Python itself fails with RecursionError near 1000 levels.
 *
 * @throws CanonicalJsonError for an integer Python's json.loads would refuse.
 */
export function pythonCanonicalJson(node: JsonNode): string {
  const top = scalarText(node);
  if (top !== undefined) return top;
  let out = '';
  const stack: DumpFrame[] = [];
  // Opens a container: writes its bracket and returns its frame, or writes
  // the whole thing when it is empty.
  const open = (container: JsonNode): void => {
    if (container.type === 'object') {
      const entries = pythonDictEntries(container.entries);
      if (entries.length === 0) out += '{}';
      else {
        out += '{';
        stack.push({ entries, items: undefined, next: 0 });
      }
    } else if (container.type === 'array') {
      if (container.items.length === 0) out += '[]';
      else {
        out += '[';
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
        out += '}';
        stack.pop();
        continue;
      }
      const entry = frame.entries[i]!;
      out += `${i === 0 ? '' : ','}${pythonQuote(entry.key)}:`;
      child = entry.value;
    } else {
      const items = frame.items!;
      if (i === items.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (i > 0) out += ',';
      child = items[i]!;
    }
    frame.next = i + 1;
    const text = scalarText(child);
    if (text !== undefined) out += text;
    else open(child);
  }
  return out;
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
  const canonical = pythonCanonicalJson(parseJson(text, { duplicateKeys: 'keep', allowNonFinite: true }));
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
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
    throw new CanonicalJsonError('invalid-utf8', 'the file is not valid UTF-8, so Python cannot read it as text');
  }
  return canonicalDigest(text);
}
