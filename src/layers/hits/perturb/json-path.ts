/**
 * JSON paths into a fixture, in the form property authors write claims in:
 * `currency`, `lines[0].qty`, `customer.address.zip`, and brackets with a JSON
 * string for keys that are not identifiers (`meta["a.b"]`, `["0"]`).
 *
 * A parsed path is a list of segments: a string is an object key, a number an
 * array index. `formatPath` is canonical (identifiers always use the dot form),
 * and `parsePath(formatPath(p))` gives `p` back for every non-empty path.
 */

export type JsonPath = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$]/;

export class PathSyntaxError extends Error {
  /** The text that failed to parse. */
  readonly input: string;
  /** 0-based UTF-16 offset into `input` where parsing stopped. */
  readonly position: number;
  /** What was expected there, without the input and position. */
  readonly reason: string;

  constructor(input: string, position: number, reason: string) {
    super(`invalid path ${JSON.stringify(input)}: ${reason} at position ${position}`);
    this.name = 'PathSyntaxError';
    this.input = input;
    this.position = position;
    this.reason = reason;
  }
}

function formatSegment(seg: string | number, first: boolean): string {
  if (typeof seg === 'number') {
    if (!Number.isSafeInteger(seg) || seg < 0) {
      throw new RangeError(`a path index must be a non-negative safe integer, got ${seg}`);
    }
    return `[${seg}]`;
  }
  if (IDENTIFIER.test(seg)) return first ? seg : `.${seg}`;
  return `[${JSON.stringify(seg)}]`;
}

/** The canonical text of a path. The empty path (the fixture root) has none and throws. */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) throw new RangeError('the empty path (the fixture root) cannot be formatted');
  let out = '';
  for (let i = 0; i < path.length; i++) out += formatSegment(path[i] as string | number, i === 0);
  return out;
}

/** `formatPath(parent)` extended by one segment, without re-formatting the parent. */
export function appendSegment(parentText: string, seg: string | number): string {
  return parentText + formatSegment(seg, parentText === '');
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const HEX = /^[0-9A-Fa-f]{4}$/;

/** Parses a path; throws `PathSyntaxError` for anything `formatPath` could not have produced a variant of. */
export function parsePath(text: string): JsonPath {
  const segs: (string | number)[] = [];
  const fail = (at: number, reason: string): never => {
    throw new PathSyntaxError(text, at, reason);
  };
  let i = 0;

  const identifier = (what: string): string => {
    const start = i;
    if (!IDENT_START.test(text[i] ?? '')) fail(i, what);
    i++;
    while (i < text.length && IDENT_PART.test(text[i] as string)) i++;
    return text.slice(start, i);
  };

  const bracket = (): string | number => {
    i++; // '['
    let seg: string | number;
    const c = text[i];
    if (isDigit(c)) {
      const start = i;
      while (isDigit(text[i])) i++;
      const digits = text.slice(start, i);
      if (digits.length > 1 && digits[0] === '0') fail(start, 'expected an index without leading zeros');
      const n = Number(digits);
      if (!Number.isSafeInteger(n)) fail(start, 'expected an index no larger than 9007199254740991');
      seg = n;
    } else if (c === '"') {
      const start = i;
      i++;
      for (;;) {
        if (i >= text.length) fail(i, "expected '\"' to close the key");
        const ch = text.charCodeAt(i);
        if (ch === 0x22) break;
        if (ch < 0x20) fail(i, 'expected an escape (\\n, \\u0001, …) instead of a control character');
        if (ch === 0x5c) {
          const e = text[i + 1];
          if (e === 'u') {
            if (!HEX.test(text.slice(i + 2, i + 6))) fail(i, 'expected \\u followed by four hex digits');
            i += 6;
            continue;
          }
          if (e === undefined || !'"\\/bfnrt'.includes(e)) {
            fail(i, 'expected one of the JSON escapes \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX');
          }
          i += 2;
          continue;
        }
        i++;
      }
      i++; // closing quote
      seg = JSON.parse(text.slice(start, i)) as string;
    } else {
      seg = fail(i, "expected an array index or a JSON string after '['");
    }
    if (text[i] !== ']') fail(i, "expected ']'");
    i++;
    return seg;
  };

  if (text[0] === '[') segs.push(bracket());
  else segs.push(identifier("expected a key (an identifier) or '['"));
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      i++;
      segs.push(identifier('expected an identifier after \'.\' (use ["…"] for other keys)'));
    } else if (c === '[') {
      segs.push(bracket());
    } else {
      fail(i, "expected '.', '[' or the end of the path");
    }
  }
  return segs;
}

function toPath(p: string | JsonPath): JsonPath {
  return typeof p === 'string' ? parsePath(p) : p;
}

/** Same segments, same kinds: `["0"]` (a key) is not `[0]` (an index). */
export function pathsEqual(a: string | JsonPath, b: string | JsonPath): boolean {
  const x = toPath(a);
  const y = toPath(b);
  return x.length === y.length && isUnder(x, y);
}

/**
 * True when `path` is `prefix` or lies inside it: `lines[0].qty` is under
 * `lines`, `linesX` is not. Accepts formatted or parsed paths; a formatted one
 * that does not parse throws `PathSyntaxError`. Every path is under the empty path.
 */
export function isUnder(path: string | JsonPath, prefix: string | JsonPath): boolean {
  const p = toPath(path);
  const q = toPath(prefix);
  if (q.length > p.length) return false;
  for (let i = 0; i < q.length; i++) if (p[i] !== q[i]) return false;
  return true;
}

export type Lookup = { found: true; value: unknown } | { found: false };

/**
 * The value at `path` in `root`. A number segment only enters an array (within
 * bounds), a string segment only an own key of a non-array object: `["0"]`
 * never indexes an array and `length` is not a key of one.
 */
export function lookupPath(root: unknown, path: string | JsonPath): Lookup {
  let v = root;
  for (const seg of toPath(path)) {
    if (typeof v !== 'object' || v === null) return { found: false };
    if (typeof seg === 'number') {
      if (!Array.isArray(v) || !Number.isInteger(seg) || seg < 0 || seg >= v.length) return { found: false };
      v = v[seg];
    } else {
      if (Array.isArray(v) || !Object.hasOwn(v, seg)) return { found: false };
      v = (v as Record<string, unknown>)[seg];
    }
  }
  return { found: true, value: v };
}
