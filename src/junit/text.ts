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

const NEEDS_FOLD = /\s\s|[^\S ]|^\s|\s$/;
const WHITESPACE_RUN = /\s+/g;

/** Runs of whitespace (newlines from `&#10;` included) become one space; ends are trimmed. */
export function foldWhitespace(s: string): string {
  return NEEDS_FOLD.test(s) ? s.replace(WHITESPACE_RUN, ' ').trim() : s;
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
