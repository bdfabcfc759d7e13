/**
 * The token side of the JSON reader: the cursor, line counting, strings,
 * numbers and literals, and the wording of every error, shared by the tree
 * reader (tree.ts) and the plain-values reader (values.ts) through the
 * grammar (grammar.ts). It accepts exactly what Python's `json.loads` accepts
 * (NaN and Infinity only on request).
 */
import type { Problem } from '../errors.js';

/**
 * `line` and `column` are 1-based. LF, CRLF and a lone CR each end a line (what
 * an editor shows). `column` counts UTF-16 code units from the start of the
 * line, so an astral character counts as two.
 */
export interface Loc {
  offset: number;
  line: number;
  column: number;
}

export class JsonSyntaxError extends Error {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
  /** The message without the position, for callers that format their own location. */
  readonly reason: string;

  constructor(reason: string, loc: Loc) {
    super(`${reason} (line ${loc.line}, column ${loc.column})`);
    this.name = 'JsonSyntaxError';
    this.reason = reason;
    this.line = loc.line;
    this.column = loc.column;
    this.offset = loc.offset;
  }

  /** The shape `ContractFileError` collects, so config and contract readers report parse errors like any other problem. */
  toProblem(file: string, path = ''): Problem {
    return { file, path, line: this.line, column: this.column, message: this.reason };
  }
}

/**
 * Nesting limit when the caller sets none. The reader itself has no limit (it
 * uses an explicit stack); the cap exists because every consumer of the tree
 * would otherwise need to be iterative too. Python's own `json.loads` gives up
 * with RecursionError at about 1000 levels.
 */
export const DEFAULT_MAX_DEPTH = 10_000;

export interface ParseJsonOptions {
  /** `'keep'` (default) keeps every entry in the tree; `'error'` throws at the second occurrence of a key. */
  duplicateKeys?: 'error' | 'keep';
  /** Accept Python's `NaN`, `Infinity` and `-Infinity` literals. Off by default: they are not JSON. */
  allowNonFinite?: boolean;
  /** Maximum number of nested arrays/objects; defaults to {@link DEFAULT_MAX_DEPTH}. */
  maxDepth?: number;
}

/** The part of `SliceBudget` the parser needs. */
export interface StepBudget {
  due(): boolean;
}

/** The UTF-16 code units the readers branch on, named once for the lexer, the grammar and both readers. */
export const CH_TAB = 0x09;
export const CH_LF = 0x0a;
export const CH_CR = 0x0d;
export const CH_SPACE = 0x20;
export const CH_QUOTE = 0x22;
export const CH_PLUS = 0x2b;
export const CH_COMMA = 0x2c;
export const CH_MINUS = 0x2d;
export const CH_DOT = 0x2e;
export const CH_SLASH = 0x2f;
export const CH_0 = 0x30;
export const CH_1 = 0x31;
export const CH_9 = 0x39;
export const CH_COLON = 0x3a;
export const CH_UPPER_E = 0x45;
export const CH_UPPER_I = 0x49;
export const CH_UPPER_N = 0x4e;
export const CH_LBRACKET = 0x5b;
export const CH_BACKSLASH = 0x5c;
export const CH_RBRACKET = 0x5d;
export const CH_LOWER_E = 0x65;
export const CH_LOWER_F = 0x66;
export const CH_LOWER_N = 0x6e;
export const CH_LOWER_T = 0x74;
export const CH_LOWER_U = 0x75;
export const CH_LBRACE = 0x7b;
export const CH_RBRACE = 0x7d;
export const CH_BOM = 0xfeff;

export function isDigit(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function hexValue(c: number): number {
  if (c >= CH_0 && c <= CH_9) return c - CH_0;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** How a character is shown inside an error message: printable ASCII as itself, the rest as U+XXXX. */
export function describeChar(text: string, offset: number): string {
  if (offset >= text.length) return 'end of input';
  const cp = text.codePointAt(offset)!;
  if (cp > 0x20 && cp < 0x7f) return `'${String.fromCharCode(cp)}'`;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Where a value is expected; decides the wording of "expected a value" errors. */
export type ValueContext = 'top' | 'array-start' | 'array-next' | 'member';

export const VALUE_EXPECTATION: Record<ValueContext, string> = {
  top: 'expected a JSON value',
  'array-start': "expected a JSON value or ']'",
  'array-next': "expected a JSON value after ','",
  member: "expected a JSON value after ':'",
};

/** Strings up to this length are shared through a small cache (see `JsonLexer.shortString`). */
const SHORT_STRING_MAX = 32;
/** A raw control character, which a JSON string may not hold (it must be escaped). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u001f]/;
/** A power of two: the cache's slot is a hash masked to this size. */
const SHORT_STRING_SLOTS = 512;

/**
 * The cursor over one JSON text and the readers of its tokens. Subclasses
 * add what a value becomes (see grammar.ts).
 */
export class JsonLexer {
  protected readonly text: string;
  protected readonly allowNonFinite: boolean;
  protected pos = 0;
  protected line = 1;
  protected lineStart = 0;
  /** Short strings read without escapes, shared (see `readString`). */
  private readonly shortStrings: (string | undefined)[] = new Array(SHORT_STRING_SLOTS);
  /** Where the next backslash is at or after the cursor (text.length when none): found once, not per string. */
  private nextBackslash = -1;
  private backslashFrom = 0;

  constructor(text: string, options: ParseJsonOptions) {
    this.text = text;
    this.allowNonFinite = options.allowNonFinite === true;
  }

  protected loc(offset: number): Loc {
    return { offset, line: this.line, column: offset - this.lineStart + 1 };
  }

  protected fail(reason: string, offset: number = this.pos): never {
    throw new JsonSyntaxError(reason, this.loc(offset));
  }

  /** Newlines can only occur here (raw ones inside strings are errors), so this is the only place lines are counted. */
  protected skipWhitespace(): void {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === CH_SPACE || c === CH_TAB) {
        i++;
      } else if (c === CH_LF) {
        i++;
        this.newLine(i);
      } else if (c === CH_CR) {
        i++;
        if (text.charCodeAt(i) === CH_LF) i++;
        this.newLine(i);
      } else {
        break;
      }
    }
    this.pos = i;
  }

  /** Called at each line start the cursor passes. */
  protected newLine(start: number): void {
    this.line++;
    this.lineStart = start;
  }

  protected here(): string {
    return describeChar(this.text, this.pos);
  }

  protected checkNonFinite(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): void {
    if (!this.allowNonFinite) {
      this.fail(`${VALUE_EXPECTATION[context]}, found ${value} (not JSON, although Python accepts it)`);
    }
  }

  /** Moves the cursor past a number; true when it is an integer (no fraction, no exponent). */
  protected scanNumber(): boolean {
    const text = this.text;
    let i = this.pos;
    if (text.charCodeAt(i) === CH_MINUS) i++;
    const first = text.charCodeAt(i);
    if (first === CH_0) {
      i++;
      if (isDigit(text.charCodeAt(i))) this.fail('leading zeros are not allowed in a number', i);
    } else if (first >= CH_1 && first <= CH_9) {
      i++;
      while (isDigit(text.charCodeAt(i))) i++;
    } else {
      this.fail(`expected a digit after '-', found ${describeChar(text, i)}`, i);
    }
    let isInteger = true;
    if (text.charCodeAt(i) === CH_DOT) {
      i++;
      if (!isDigit(text.charCodeAt(i)))
        this.fail(`expected a digit after the decimal point, found ${describeChar(text, i)}`, i);
      while (isDigit(text.charCodeAt(i))) i++;
      isInteger = false;
    }
    const e = text.charCodeAt(i);
    if (e === CH_LOWER_E || e === CH_UPPER_E) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === CH_PLUS || sign === CH_MINUS) i++;
      if (!isDigit(text.charCodeAt(i)))
        this.fail(`expected a digit in the exponent, found ${describeChar(text, i)}`, i);
      while (isDigit(text.charCodeAt(i))) i++;
      isInteger = false;
    }
    this.pos = i;
    return isInteger;
  }

  /**
   * Reads a string starting at its opening quote. Runs without escapes are
   * copied with one `slice`, which is what keeps big files fast. When `splits`
   * is given, records where Python would see two lone surrogates that JS
   * would read as one pair (see {@link JsonObjectEntry.keySurrogateSplits}).
   */
  protected readString(splits: number[] | undefined): string {
    const text = this.text;
    const contentStart = this.pos + 1;
    // Most strings have no escape: find the closing quote natively and check
    // the run at once, instead of a step of JavaScript per character.
    const quote = text.indexOf('"', contentStart);
    if (quote >= 0) {
      // Valid only from where it was looked for: `stringAt` reads behind the cursor.
      if (contentStart < this.backslashFrom || this.nextBackslash < contentStart) {
        const b = text.indexOf('\\', contentStart);
        this.nextBackslash = b < 0 ? text.length : b;
        this.backslashFrom = contentStart;
      }
      if (this.nextBackslash > quote) {
        if (quote - contentStart <= SHORT_STRING_MAX) {
          const cached = this.cachedShortString(contentStart, quote);
          if (cached !== undefined) {
            this.pos = quote + 1;
            return cached;
          }
        }
        const run = text.slice(contentStart, quote);
        // A raw control character is an error; the loop below reports it where it is.
        if (!RAW_CONTROL.test(run)) {
          if (quote - contentStart <= SHORT_STRING_MAX) this.rememberShortString(contentStart, quote, run);
          this.pos = quote + 1;
          return run;
        }
      }
    }
    let i = contentStart;
    let chunkStart = i;
    let out = '';
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === CH_QUOTE) {
        this.pos = i + 1;
        if (chunkStart === contentStart && i - contentStart <= SHORT_STRING_MAX)
          return this.shortString(contentStart, i);
        out += text.slice(chunkStart, i);
        return out;
      }
      if (c === CH_BACKSLASH) {
        out += text.slice(chunkStart, i);
        const escStart = i;
        const k = text.charCodeAt(i + 1);
        i += 2;
        switch (k) {
          case CH_QUOTE:
            out += '"';
            break;
          case CH_BACKSLASH:
            out += '\\';
            break;
          case CH_SLASH:
            out += '/';
            break;
          case 0x62:
            out += '\b';
            break;
          case CH_LOWER_F:
            out += '\f';
            break;
          case CH_LOWER_N:
            out += '\n';
            break;
          case 0x72:
            out += '\r';
            break;
          case CH_LOWER_T:
            out += '\t';
            break;
          case CH_LOWER_U: {
            const unit = this.readHex4(i);
            i += 4;
            if (isHighSurrogate(unit)) {
              // Python joins an escaped high surrogate only with an escaped low one right after it.
              const low =
                text.charCodeAt(i) === CH_BACKSLASH && text.charCodeAt(i + 1) === CH_LOWER_U
                  ? this.peekHex4(i + 2)
                  : -1;
              if (isLowSurrogate(low)) {
                out += String.fromCharCode(unit, low);
                i += 6;
              } else {
                out += String.fromCharCode(unit);
                if (splits !== undefined && isLowSurrogate(text.charCodeAt(i))) splits.push(out.length - 1);
              }
            } else {
              if (
                splits !== undefined &&
                isLowSurrogate(unit) &&
                escStart > contentStart &&
                isHighSurrogate(text.charCodeAt(escStart - 1))
              ) {
                splits.push(out.length - 1);
              }
              out += String.fromCharCode(unit);
            }
            break;
          }
          default:
            if (Number.isNaN(k)) this.fail('unterminated string', this.pos);
            this.fail(
              `invalid escape '\\${String.fromCodePoint(text.codePointAt(escStart + 1)!)}' in a string`,
              escStart,
            );
        }
        chunkStart = i;
        continue;
      }
      if (c < 0x20) {
        this.fail(
          `raw control character ${describeChar(text, i)} in a string (write it as an escape such as \\n or \\u00XX)`,
          i,
        );
      }
      if (Number.isNaN(c)) this.fail('unterminated string', this.pos);
      i++;
    }
  }

  /**
   * Short strings read without escapes are shared: keys such as "sha256" and
   * values such as an owner repeat on every entry of a contract file; as with
   * V8's own JSON.parse, one string each instead of a million copies keeps the
   * heap and the garbage collector's work small. The cache is a small table
   * indexed by a hash of the length and the end characters.
   */
  private shortSlot(start: number, end: number): number {
    const text = this.text;
    return (
      ((end - start) * 31 + text.charCodeAt(start) * 7 + text.charCodeAt(end - 1)) & (SHORT_STRING_SLOTS - 1)
    );
  }

  /** The shared string for the text between `start` and `end`, if the cache holds it. */
  private cachedShortString(start: number, end: number): string | undefined {
    if (end === start) return '';
    const cached = this.shortStrings[this.shortSlot(start, end)];
    if (cached !== undefined && cached.length === end - start && this.text.startsWith(cached, start))
      return cached;
    return undefined;
  }

  private rememberShortString(start: number, end: number, s: string): void {
    if (end > start) this.shortStrings[this.shortSlot(start, end)] = s;
  }

  /** `text.slice(start, end)` (no escapes in it), shared through the cache. */
  private shortString(start: number, end: number): string {
    const cached = this.cachedShortString(start, end);
    if (cached !== undefined) return cached;
    const s = this.text.slice(start, end);
    this.rememberShortString(start, end, s);
    return s;
  }

  private peekHex4(at: number): number {
    const text = this.text;
    let v = 0;
    for (let j = 0; j < 4; j++) {
      const h = hexValue(text.charCodeAt(at + j));
      if (h < 0) return -1;
      v = (v << 4) | h;
    }
    return v;
  }

  private readHex4(at: number): number {
    const v = this.peekHex4(at);
    if (v < 0) this.fail('invalid \\u escape: expected exactly 4 hex digits after \\u', at - 2);
    return v;
  }
}

export function nonFiniteNumber(value: 'NaN' | 'Infinity' | '-Infinity'): number {
  if (value === 'NaN') return Number.NaN;
  return value === 'Infinity' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
}
