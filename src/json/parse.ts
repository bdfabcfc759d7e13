import type { Problem } from '../errors.js';

/**
 * A strict JSON reader that accepts exactly what Python's `json.loads` accepts
 * (NaN and Infinity only on request), keeps positions and number lexemes, and
 * never recurses, so a hostile file cannot exhaust the JS stack. The canonical digest
 * (`python-dumps.ts`) is computed from this tree, which is why numbers keep the
 * source text: Python's integers are exact and `-0` is an integer there.
 */

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

export interface JsonObjectEntry {
  key: string;
  keyLoc: Loc;
  value: JsonNode;
  /**
   * UTF-16 indices `i` of `key` where `key[i]`/`key[i+1]` look like a surrogate
   * pair to JavaScript but are two lone surrogates to Python: one half came from
   * a `\uXXXX` escape and the other was a raw (ill-formed) code unit in the
   * source string. Python keeps them apart, which changes how the key sorts and
   * which keys count as duplicates. Absent in any text decoded from real UTF-8.
   */
  keySurrogateSplits?: readonly number[];
}

export type JsonNode =
  | { type: 'object'; entries: JsonObjectEntry[]; loc: Loc }
  | { type: 'array'; items: JsonNode[]; loc: Loc }
  | { type: 'string'; value: string; loc: Loc }
  | { type: 'number'; lexeme: string; isInteger: boolean; loc: Loc }
  | { type: 'nonfinite'; value: 'NaN' | 'Infinity' | '-Infinity'; loc: Loc }
  | { type: 'boolean'; value: boolean; loc: Loc }
  | { type: 'null'; loc: Loc };

export type JsonObjectNode = Extract<JsonNode, { type: 'object' }>;
export type JsonArrayNode = Extract<JsonNode, { type: 'array' }>;

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

/**
 * Identity of an object key as Python's `str` equality sees it. The two
 * prefixes keep the split and unsplit spaces disjoint.
 */
export function pythonKeyIdentity(key: string, splits: readonly number[] | undefined): string {
  return splits === undefined ? `\u0000${key}` : `\u0001${splits.join(',')}\u0001${key}`;
}

const CH_TAB = 0x09;
const CH_LF = 0x0a;
const CH_CR = 0x0d;
const CH_SPACE = 0x20;
const CH_QUOTE = 0x22;
const CH_COMMA = 0x2c;
const CH_MINUS = 0x2d;
const CH_DOT = 0x2e;
const CH_SLASH = 0x2f;
const CH_0 = 0x30;
const CH_1 = 0x31;
const CH_9 = 0x39;
const CH_COLON = 0x3a;
const CH_UPPER_E = 0x45;
const CH_UPPER_I = 0x49;
const CH_UPPER_N = 0x4e;
const CH_LBRACKET = 0x5b;
const CH_BACKSLASH = 0x5c;
const CH_RBRACKET = 0x5d;
const CH_LOWER_E = 0x65;
const CH_LOWER_F = 0x66;
const CH_LOWER_N = 0x6e;
const CH_LOWER_T = 0x74;
const CH_LOWER_U = 0x75;
const CH_LBRACE = 0x7b;
const CH_RBRACE = 0x7d;
const CH_PLUS = 0x2b;
const CH_BOM = 0xfeff;

function isDigit(c: number): boolean {
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
function describeChar(text: string, offset: number): string {
  if (offset >= text.length) return 'end of input';
  const cp = text.codePointAt(offset)!;
  if (cp > 0x20 && cp < 0x7f) return `'${String.fromCharCode(cp)}'`;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

interface ArrayFrame {
  kind: 'array';
  node: JsonArrayNode;
}

interface ObjectFrame {
  kind: 'object';
  node: JsonObjectNode;
  key: string;
  keyLoc: Loc;
  keySplits: number[] | undefined;
  /** Only filled in `duplicateKeys: 'error'` mode. */
  seen: Map<string, Loc> | undefined;
}

type Frame = ArrayFrame | ObjectFrame;

/** Where a value is expected; decides the wording of "expected a value" errors. */
type ValueContext = 'top' | 'array-start' | 'array-next' | 'member';

const VALUE_EXPECTATION: Record<ValueContext, string> = {
  top: 'expected a JSON value',
  'array-start': "expected a JSON value or ']'",
  'array-next': "expected a JSON value after ','",
  member: "expected a JSON value after ':'",
};

class Parser {
  private readonly text: string;
  private readonly dupError: boolean;
  private readonly allowNonFinite: boolean;
  private readonly maxDepth: number;
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  constructor(text: string, options: ParseJsonOptions) {
    this.text = text;
    this.dupError = options.duplicateKeys === 'error';
    this.allowNonFinite = options.allowNonFinite === true;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  private loc(offset: number): Loc {
    return { offset, line: this.line, column: offset - this.lineStart + 1 };
  }

  private fail(reason: string, offset: number = this.pos): never {
    throw new JsonSyntaxError(reason, this.loc(offset));
  }

  /** Newlines can only occur here (raw ones inside strings are errors), so this is the only place lines are counted. */
  private skipWhitespace(): void {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === CH_SPACE || c === CH_TAB) {
        i++;
      } else if (c === CH_LF) {
        i++;
        this.line++;
        this.lineStart = i;
      } else if (c === CH_CR) {
        i++;
        if (text.charCodeAt(i) === CH_LF) i++;
        this.line++;
        this.lineStart = i;
      } else {
        break;
      }
    }
    this.pos = i;
  }

  parse(): JsonNode {
    if (this.text.charCodeAt(0) === CH_BOM) {
      this.fail(
        'the text starts with a UTF-8 byte order mark (U+FEFF); JSON must not have one ' +
          "(Python's json.loads rejects it too), so save the file without it",
        0,
      );
    }
    const stack: Frame[] = [];
    let context: ValueContext = 'top';
    let root: JsonNode | undefined;

    // Each turn reads one value; a finished value is then handed up through
    // every container it completes, until one needs another value.
    while (root === undefined) {
      this.skipWhitespace();
      const start = this.pos;
      const c = this.text.charCodeAt(start);
      let done: JsonNode | undefined;

      if (c === CH_LBRACE || c === CH_LBRACKET) {
        if (stack.length >= this.maxDepth) {
          this.fail(`nesting is deeper than ${this.maxDepth} levels`, start);
        }
        const loc = this.loc(start);
        this.pos++;
        this.skipWhitespace();
        if (c === CH_LBRACKET) {
          const node: JsonArrayNode = { type: 'array', items: [], loc };
          if (this.text.charCodeAt(this.pos) === CH_RBRACKET) {
            this.pos++;
            done = node;
          } else {
            stack.push({ kind: 'array', node });
            context = 'array-start';
            continue;
          }
        } else {
          const node: JsonObjectNode = { type: 'object', entries: [], loc };
          if (this.text.charCodeAt(this.pos) === CH_RBRACE) {
            this.pos++;
            done = node;
          } else {
            const frame: ObjectFrame = {
              kind: 'object',
              node,
              key: '',
              keyLoc: loc,
              keySplits: undefined,
              seen: this.dupError ? new Map() : undefined,
            };
            this.readKey(frame, "expected a string key or '}'");
            stack.push(frame);
            context = 'member';
            continue;
          }
        }
      } else {
        done = this.readScalar(context);
      }

      // Hand the finished value to its container; close containers while the
      // next token says so.
      let value: JsonNode = done;
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          root = value;
          break;
        }
        this.skipWhitespace();
        const next = this.text.charCodeAt(this.pos);
        if (top.kind === 'array') {
          top.node.items.push(value);
          if (next === CH_COMMA) {
            this.pos++;
            context = 'array-next';
            break;
          }
          if (next !== CH_RBRACKET)
            this.fail(`expected ',' or ']' after an array item, found ${this.here()}`);
        } else {
          const entry: JsonObjectEntry = { key: top.key, keyLoc: top.keyLoc, value };
          if (top.keySplits !== undefined) entry.keySurrogateSplits = top.keySplits;
          top.node.entries.push(entry);
          if (next === CH_COMMA) {
            this.pos++;
            this.skipWhitespace();
            this.readKey(top, "expected a string key after ','");
            context = 'member';
            break;
          }
          if (next !== CH_RBRACE)
            this.fail(`expected ',' or '}' after an object member, found ${this.here()}`);
        }
        this.pos++;
        stack.pop();
        value = top.node;
      }
    }

    this.skipWhitespace();
    if (this.pos < this.text.length) {
      this.fail(`unexpected ${this.here()} after the JSON value (only whitespace may follow it)`);
    }
    return root;
  }

  private here(): string {
    return describeChar(this.text, this.pos);
  }

  /** Reads `"key" :` and leaves the cursor before the value. */
  private readKey(frame: ObjectFrame, expectation: string): void {
    const start = this.pos;
    if (this.text.charCodeAt(start) !== CH_QUOTE) this.fail(`${expectation}, found ${this.here()}`);
    const keyLoc = this.loc(start);
    const splits: number[] = [];
    const key = this.readString(splits);
    const keySplits = splits.length > 0 ? splits : undefined;
    if (frame.seen !== undefined) {
      const id = pythonKeyIdentity(key, keySplits);
      const first = frame.seen.get(id);
      if (first !== undefined) {
        this.fail(
          `duplicate key ${JSON.stringify(key)} (first defined at line ${first.line}, column ${first.column})`,
          start,
        );
      }
      frame.seen.set(id, keyLoc);
    }
    frame.key = key;
    frame.keyLoc = keyLoc;
    frame.keySplits = keySplits;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== CH_COLON) {
      this.fail(`expected ':' after the object key ${JSON.stringify(key)}, found ${this.here()}`);
    }
    this.pos++;
  }

  private readScalar(context: ValueContext): JsonNode {
    const text = this.text;
    const start = this.pos;
    const c = text.charCodeAt(start);
    if (c === CH_QUOTE) {
      const loc = this.loc(start);
      return { type: 'string', value: this.readString(undefined), loc };
    }
    if (c === CH_MINUS || isDigit(c)) {
      if (c === CH_MINUS && text.startsWith('Infinity', start + 1))
        return this.readNonFinite('-Infinity', context);
      return this.readNumber();
    }
    if (c === CH_LOWER_T && text.startsWith('true', start))
      return this.readLiteral(4, { type: 'boolean', value: true, loc: this.loc(start) });
    if (c === CH_LOWER_F && text.startsWith('false', start))
      return this.readLiteral(5, { type: 'boolean', value: false, loc: this.loc(start) });
    if (c === CH_LOWER_N && text.startsWith('null', start))
      return this.readLiteral(4, { type: 'null', loc: this.loc(start) });
    if (c === CH_UPPER_N && text.startsWith('NaN', start)) return this.readNonFinite('NaN', context);
    if (c === CH_UPPER_I && text.startsWith('Infinity', start))
      return this.readNonFinite('Infinity', context);
    return this.fail(`${VALUE_EXPECTATION[context]}, found ${this.here()}`);
  }

  private readLiteral(length: number, node: JsonNode): JsonNode {
    this.pos += length;
    return node;
  }

  private readNonFinite(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): JsonNode {
    if (!this.allowNonFinite) {
      this.fail(`${VALUE_EXPECTATION[context]}, found ${value} (not JSON, although Python accepts it)`);
    }
    const loc = this.loc(this.pos);
    this.pos += value.length;
    return { type: 'nonfinite', value, loc };
  }

  private readNumber(): JsonNode {
    const text = this.text;
    const start = this.pos;
    let i = start;
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
    const loc = this.loc(start);
    this.pos = i;
    return { type: 'number', lexeme: text.slice(start, i), isInteger, loc };
  }

  /**
   * Reads a string starting at its opening quote. Runs without escapes are
   * copied with one `slice`, which is what keeps big files fast. When `splits`
   * is given, records where Python would see two lone surrogates that JS
   * would read as one pair (see {@link JsonObjectEntry.keySurrogateSplits}).
   */
  private readString(splits: number[] | undefined): string {
    const text = this.text;
    const contentStart = this.pos + 1;
    let i = contentStart;
    let chunkStart = i;
    let out = '';
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === CH_QUOTE) {
        out += text.slice(chunkStart, i);
        this.pos = i + 1;
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

export function parseJson(text: string, options: ParseJsonOptions = {}): JsonNode {
  return new Parser(text, options).parse();
}

function nonFiniteNumber(value: 'NaN' | 'Infinity' | '-Infinity'): number {
  if (value === 'NaN') return Number.NaN;
  return value === 'Infinity' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
}

/**
 * Plain JS values as `JSON.parse` would give them: numbers through `Number()`,
 * the last duplicate wins (in the first one's position). Keys are defined as
 * own properties, so a `"__proto__"` key is data, never a prototype change.
 * Iterative, like the parser, so any tree the parser returns converts.
 */
export function toPlainValue(node: JsonNode): unknown {
  const scalar = (n: JsonNode): { value: unknown; children: boolean } => {
    switch (n.type) {
      case 'object':
        return { value: {}, children: true };
      case 'array':
        return { value: [], children: true };
      case 'string':
      case 'boolean':
        return { value: n.value, children: false };
      case 'number':
        return { value: Number(n.lexeme), children: false };
      case 'nonfinite':
        return { value: nonFiniteNumber(n.value), children: false };
      case 'null':
        return { value: null, children: false };
    }
  };
  const root = scalar(node);
  const pending: { node: JsonNode; target: unknown }[] = [];
  if (root.children) pending.push({ node, target: root.value });
  // Containers are created (and placed) while their parent is filled, so
  // properties land in source order no matter when children are filled.
  for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
    const { node: container, target } = job;
    if (container.type === 'array') {
      const arr = target as unknown[];
      for (const item of container.items) {
        const v = scalar(item);
        arr.push(v.value);
        if (v.children) pending.push({ node: item, target: v.value });
      }
    } else if (container.type === 'object') {
      const obj = target as Record<string, unknown>;
      for (const entry of container.entries) {
        const v = scalar(entry.value);
        Object.defineProperty(obj, entry.key, {
          value: v.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        if (v.children) pending.push({ node: entry.value, target: v.value });
      }
    }
  }
  return root.value;
}
