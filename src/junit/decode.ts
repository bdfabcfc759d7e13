/**
 * Choosing how to decode a report from its first bytes (XML 1.0 appendix F):
 * a UTF-8 byte order mark is skipped; UTF-16 and UTF-32, with or without a
 * mark, are refused; otherwise the XML declaration's `encoding` is honoured
 * and UTF-8 is the default.
 */
import { TextDecoder } from 'node:util';

export type Sniffed =
  | { kind: 'wait' }
  | { kind: 'decode'; encoding: string; skip: number }
  | { kind: 'refuse'; reason: string; line: number; column: number };

/** Enough to hold any real XML declaration; past this we stop waiting for `?>`. */
export const SNIFF_LIMIT = 1024;

const XML_DECL_START = [0x3c, 0x3f, 0x78, 0x6d, 0x6c]; // <?xml
const ENCODING_ATTR = /\sencoding\s*=\s*(["'])([^"']*)\1/;

const UTF16_ADVICE = 'patchgate reads UTF-8 reports; re-encode it, e.g. `iconv -f UTF-16 -t UTF-8`';

export function sniffEncoding(b: Uint8Array, final: boolean): Sniffed {
  if (b.length < 4 && !final) return { kind: 'wait' };
  const b0 = b[0];
  const b1 = b[1];
  const b2 = b[2];
  const b3 = b[3];
  if (
    (b0 === 0x00 && b1 === 0x00 && b2 === 0xfe && b3 === 0xff) ||
    (b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0)
  ) {
    return refuse(`the report is UTF-32 encoded (byte order mark); ${UTF16_ADVICE}`);
  }
  if ((b0 === 0xfe && b1 === 0xff) || (b0 === 0xff && b1 === 0xfe)) {
    return refuse(`the report is UTF-16 encoded (byte order mark); ${UTF16_ADVICE}`);
  }
  if ((b0 === 0x00 && b1 === 0x3c) || (b0 === 0x3c && b1 === 0x00)) {
    return refuse(`the report looks UTF-16 encoded (NUL bytes around '<'); ${UTF16_ADVICE}`);
  }
  // A byte order mark outranks the declaration (XML 1.0 appendix F).
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { kind: 'decode', encoding: 'utf-8', skip: 3 };
  const utf8: Sniffed = { kind: 'decode', encoding: 'utf-8', skip: 0 };
  if (!startsWith(b, XML_DECL_START)) {
    const undecided = b.length < XML_DECL_START.length && !final && isPrefixOf(b, XML_DECL_START);
    return undecided ? { kind: 'wait' } : utf8;
  }
  const end = indexOfDeclEnd(b);
  if (end < 0) {
    if (!final && b.length < SNIFF_LIMIT) return { kind: 'wait' };
    // No end in sight: saxes reports the broken declaration with its position.
    return utf8;
  }
  const decl = Buffer.from(b.buffer, b.byteOffset, end).toString('latin1');
  const m = ENCODING_ATTR.exec(decl);
  if (!m) return utf8;
  const label = m[2]!.trim();
  const at = positionIn(decl, m.index + m[0].indexOf(m[1]!) + 1);
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    return {
      kind: 'refuse',
      reason: `unsupported encoding "${label}" in the XML declaration; patchgate reads UTF-8 reports, and others that Node's TextDecoder knows when the declaration names them`,
      ...at,
    };
  }
  if (encoding.startsWith('utf-16')) {
    return {
      kind: 'refuse',
      reason: `the XML declaration says encoding="${label}" but the bytes are not UTF-16; ${UTF16_ADVICE}`,
      ...at,
    };
  }
  return { kind: 'decode', encoding, skip: 0 };
}

function refuse(reason: string): Sniffed {
  return { kind: 'refuse', reason, line: 1, column: 1 };
}

function startsWith(b: Uint8Array, prefix: number[]): boolean {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix[i]) return false;
  return true;
}

function isPrefixOf(b: Uint8Array, prefix: number[]): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== prefix[i]) return false;
  return true;
}

function indexOfDeclEnd(b: Uint8Array): number {
  const limit = Math.min(b.length, SNIFF_LIMIT);
  for (let i = 1; i < limit; i++) if (b[i] === 0x3e && b[i - 1] === 0x3f) return i + 1;
  return -1;
}

function positionIn(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: index - lineStart + 1 };
}

/**
 * Offset of the first byte that cannot start or continue a well-formed UTF-8
 * sequence (overlong forms, surrogates and code points past U+10FFFF count as
 * malformed, as they do for TextDecoder), or `b.length` when every complete
 * sequence is well formed.
 */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= b.length) return b.length;
      const cc = b[i + k]!;
      if (cc < (k === 1 ? lo : 0x80) || cc > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return i;
}

/**
 * The bytes at the end of `b` that begin a UTF-8 sequence still waiting for
 * its continuation bytes: what a streaming decoder holds back between chunks.
 */
export function incompleteTail(b: Uint8Array): Uint8Array {
  const n = b.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const c = b[n - back]!;
    if (c < 0x80) return b.subarray(n);
    if (c >= 0xc0) {
      const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return len > back ? b.subarray(n - back) : b.subarray(n);
    }
  }
  return b.subarray(n);
}
