/**
 * Gathers the text of one element across any number of text and CDATA events
 * (a body split into several CDATA sections reads as one string), keeping at
 * most `cap` UTF-16 units. Since no UTF-16 unit encodes to fewer than one
 * UTF-8 byte, that is always enough to fill a cap of `cap` bytes.
 */
export class TextCollector {
  private parts: string[] = [];
  private length = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  add(text: string): void {
    const room = this.cap - this.length;
    if (room <= 0) {
      if (text.length > 0) this.truncated = true;
      return;
    }
    if (text.length > room) {
      this.parts.push(text.slice(0, room));
      this.length = this.cap;
      this.truncated = true;
      return;
    }
    this.parts.push(text);
    this.length += text.length;
  }

  /** The text so far, cut to `maxBytes` UTF-8 bytes; marks `truncated` when it had to cut. */
  take(maxBytes: number): string {
    const joined = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [];
    this.length = 0;
    const cut = truncateUtf8(joined, maxBytes);
    if (cut.length !== joined.length) this.truncated = true;
    return cut;
  }
}

/**
 * Cuts `s` to at most `maxBytes` UTF-8 bytes without splitting a character,
 * and drops a lone high surrogate left at the end by an earlier cut.
 */
export function truncateUtf8(s: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no measuring.
  if (s.length * 3 <= maxBytes) return dropLoneHighSurrogate(s);
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return dropLoneHighSurrogate(s);
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let width: number;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 4;
        units = 2;
      } else width = 3;
    } else width = 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    i += units;
  }
  return dropLoneHighSurrogate(s.slice(0, i));
}

function dropLoneHighSurrogate(s: string): string {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? s.slice(0, -1) : s;
}

const WHITESPACE_RUN = /\s+/g;

/** Runs of whitespace (newlines from `&#10;` included) become one space; ends are trimmed. */
export function foldWhitespace(s: string): string {
  return needsFold(s) ? s.replace(WHITESPACE_RUN, ' ').trim() : s;
}

/**
 * Whether `foldWhitespace` would change `s`: a character loop, because this
 * runs for every testcase name and a regular expression doing the same test
 * showed up in profiles of large reports.
 */
function needsFold(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  if (s.charCodeAt(0) <= 0x20 || s.charCodeAt(n - 1) <= 0x20) return true;
  let prevSpace = false;
  for (let i = 1; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x20) {
      if (c >= 0xa0 && isOtherSpace(c)) return true;
      prevSpace = false;
    } else {
      if (c !== 0x20 || prevSpace) return true;
      prevSpace = true;
    }
  }
  return isOtherSpace(s.charCodeAt(0)) || isOtherSpace(s.charCodeAt(n - 1));
}

/** The characters besides ASCII whitespace that `\s` matches. */
function isOtherSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The first line of `s` that is not blank, trimmed. */
export function firstLine(s: string): string {
  let start = 0;
  while (start < s.length) {
    let end = s.indexOf('\n', start);
    if (end < 0) end = s.length;
    const line = s.slice(start, end).trim();
    if (line.length > 0) return line;
    start = end + 1;
  }
  return '';
}

/**
 * A copy of `s` that does not share memory with the chunk it was cut from.
 * V8 represents a substring as a view on its parent, so an attribute value kept
 * in an outcome would otherwise pin the whole decoded chunk it came from, and a
 * report's retained outcomes would hold most of the report's text.
 */
export function detach(s: string): string {
  // Short strings are always copied by V8; longer ones are flattened into a new
  // string by the concatenation, and the slice then views that small string.
  return s.length < 13 ? s : ` ${s}`.slice(1);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of Latin-1, controls included
const BEYOND_LATIN1 = /[^\x00-\xff]/;

/**
 * `detach`, and for text that fits in Latin-1, a one-byte string: V8 keeps a
 * substring of a chunk that holds any character past U+00FF at two bytes per
 * character, so a stack trace cut from a chunk with one emoji in it would
 * take twice the memory for as long as the outcome is kept.
 */
export function detachCompact(s: string): string {
  if (s.length < 64 || BEYOND_LATIN1.test(s)) return detach(s);
  return Buffer.from(s, 'latin1').toString('latin1');
}
