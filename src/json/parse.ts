import type { Problem } from '../errors.js';
import { IntList, JsonPositions } from './positions.js';

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

/**
 * One open array or object. In tree mode `node` is the `JsonNode` being
 * filled, in plain mode the JS array or object. One shape for both kinds and
 * modes keeps the parser's hot loop monomorphic.
 */
interface Frame {
  kind: 'array' | 'object';
  node: JsonArrayNode | JsonObjectNode | unknown[] | Record<string, unknown>;
  /** The member being read (objects only). */
  key: string;
  keyLoc: Loc | undefined;
  keyOffset: number;
  keySplits: number[] | undefined;
  /**
   * Tree mode, `duplicateKeys: 'error'`: every key's identity. Plain mode:
   * built only once two keys of the object are the same JS string (then
   * Python's identity decides), and kept up to date from then on.
   */
  seen: Map<string, number | Loc> | undefined;
  /** Plain mode: the container's slot in the position index. */
  slot: number;
  /**
   * Plain mode, duplicate keys an error: the object's keys in source order,
   * while they are also the order `Object.keys` gives (see `keyList`).
   */
  keys: string[];
  keysExact: boolean;
}

/** Where a value is expected; decides the wording of "expected a value" errors. */
type ValueContext = 'top' | 'array-start' | 'array-next' | 'member';

const VALUE_EXPECTATION: Record<ValueContext, string> = {
  top: 'expected a JSON value',
  'array-start': "expected a JSON value or ']'",
  'array-next': "expected a JSON value after ','",
  member: "expected a JSON value after ':'",
};

/** Strings up to this length are shared through a small cache (see `Parser.shortString`). */
const SHORT_STRING_MAX = 32;
/** A raw control character, which a JSON string may not hold (it must be escaped). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u001f]/;
/** A power of two: the cache's slot is a hash masked to this size. */
const SHORT_STRING_SLOTS = 512;

/**
 * Objects with at least this many keys keep their key list (see
 * `Parser.keepKeyList`); below it `Object.keys` is cheap.
 */
const KEY_LIST_MIN = 1024;

/**
 * A canonical array index ("0", "17", not "017" or "1.json"): V8 lists such
 * keys first, in numeric order, so a key list in source order would differ.
 */
function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  if (!(c >= CH_0 && c <= CH_9)) return false;
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/** What `step` is handed by the synchronous entry points. */
const NEVER_DUE = { due: () => false };

/** The part of `SliceBudget` the parser needs. */
export interface StepBudget {
  due(): boolean;
}

/**
 * The reader. It parses in steps (`step` returns false when its budget says
 * the slice is over, and picks up where it stopped on the next call), so a
 * caller can let the event loop run while a large file is read.
 *
 * Two outputs share one grammar, so both report the same errors:
 * - tree mode: a `JsonNode` per value with its `Loc` (the canonical digest
 *   needs number lexemes and every duplicate);
 * - plain mode: the value `JSON.parse` would give plus a {@link JsonPositions}
 *   index, several times cheaper on large files.
 */
class Parser {
  private readonly text: string;
  private readonly dupError: boolean;
  private readonly allowNonFinite: boolean;
  private readonly maxDepth: number;
  private readonly plain: boolean;
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  private readonly stack: Frame[] = [];
  private readonly framePool: Frame[] = [];
  private readonly keyLists = new WeakMap<object, readonly string[]>();
  /** Short strings read without escapes, shared (see `readString`). */
  private readonly shortStrings: (string | undefined)[] = new Array(SHORT_STRING_SLOTS);
  /** Where the next backslash is at or after the cursor (text.length when none): found once, not per string. */
  private nextBackslash = -1;
  private backslashFrom = 0;
  private context: ValueContext = 'top';
  private started = false;
  private finished = false;
  private root: unknown;

  // Plain mode's position index (see positions.ts).
  private starts: IntList | undefined;
  private keys: IntList | undefined;
  private ends: IntList | undefined;
  private lineStarts: IntList | undefined;

  constructor(text: string, options: ParseJsonOptions, plain: boolean) {
    this.text = text;
    this.dupError = options.duplicateKeys === 'error';
    this.allowNonFinite = options.allowNonFinite === true;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.plain = plain;
    if (plain) {
      // About one value per 40 characters in a typical contract file; the lists grow as needed.
      const guess = Math.max(16, Math.min(text.length >>> 5, 1 << 24));
      this.starts = new IntList(guess);
      this.keys = new IntList(guess);
      this.ends = new IntList(guess);
      this.lineStarts = new IntList(Math.max(16, guess >>> 1));
      this.lineStarts.push(0);
    }
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

  private newLine(start: number): void {
    this.line++;
    this.lineStart = start;
    this.lineStarts?.push(start);
  }

  /** Plain mode: a slot for the value starting at `start`, a member of `parent` when given. */
  private openSlot(start: number, parent: Frame | undefined): number {
    (this.keys as IntList).push(parent !== undefined && parent.kind === 'object' ? parent.keyOffset : -1);
    (this.ends as IntList).push(0);
    return (this.starts as IntList).push(start);
  }

  private closeSlot(slot: number): void {
    const ends = this.ends as IntList;
    ends.data[slot] = ends.length;
  }

  /**
   * The frame for a container opened at `depth`. Only one frame per depth is
   * open at a time, so frames are reused: a million small objects would
   * otherwise be a million short-lived frames for the garbage collector.
   */
  private frameAt(
    depth: number,
    kind: Frame['kind'],
    node: Frame['node'],
    keyLoc: Loc | undefined,
    seen: Frame['seen'],
    slot: number,
  ): Frame {
    let frame = this.framePool[depth];
    if (frame === undefined) {
      frame = {
        kind,
        node,
        key: '',
        keyLoc,
        keyOffset: -1,
        keySplits: undefined,
        seen,
        slot,
        keys: [],
        keysExact: true,
      };
      this.framePool[depth] = frame;
      return frame;
    }
    frame.kind = kind;
    frame.node = node;
    frame.key = '';
    frame.keyLoc = keyLoc;
    frame.keyOffset = -1;
    frame.keySplits = undefined;
    frame.seen = seen;
    frame.slot = slot;
    frame.keys.length = 0;
    frame.keysExact = true;
    return frame;
  }

  /**
   * Parses until the text is read (returns true) or `budget` is due (returns
   * false; call again to go on). Throws `JsonSyntaxError` at the first error.
   */
  step(budget: StepBudget): boolean {
    if (this.finished) return true;
    const text = this.text;
    const stack = this.stack;
    const plain = this.plain;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === CH_BOM) {
        this.fail(
          'the text starts with a UTF-8 byte order mark (U+FEFF); JSON must not have one ' +
            "(Python's json.loads rejects it too), so save the file without it",
          0,
        );
      }
    }

    // Each turn reads one value; a finished value is then handed up through
    // every container it completes, until one needs another value.
    // At least one value per call, so that a budget due at once still makes progress.
    for (let first = true; ; first = false) {
      if (!first && budget.due()) return false;
      this.skipWhitespace();
      const start = this.pos;
      const c = text.charCodeAt(start);
      const parent = stack[stack.length - 1];
      const slot = plain ? this.openSlot(start, parent) : -1;
      let done: unknown;

      if (c === CH_LBRACE || c === CH_LBRACKET) {
        if (stack.length >= this.maxDepth) {
          this.fail(`nesting is deeper than ${this.maxDepth} levels`, start);
        }
        const loc = plain ? undefined : this.loc(start);
        this.pos++;
        this.skipWhitespace();
        if (c === CH_LBRACKET) {
          const node: Frame['node'] = plain ? [] : { type: 'array', items: [], loc: loc as Loc };
          if (text.charCodeAt(this.pos) === CH_RBRACKET) {
            this.pos++;
            done = node;
          } else {
            stack.push(this.frameAt(stack.length, 'array', node, undefined, undefined, slot));
            this.context = 'array-start';
            continue;
          }
        } else {
          const node: Frame['node'] = plain ? {} : { type: 'object', entries: [], loc: loc as Loc };
          if (text.charCodeAt(this.pos) === CH_RBRACE) {
            this.pos++;
            done = node;
          } else {
            const seen = this.dupError && !plain ? new Map() : undefined;
            const frame = this.frameAt(stack.length, 'object', node, loc, seen, slot);
            this.readKey(frame, "expected a string key or '}'");
            stack.push(frame);
            this.context = 'member';
            continue;
          }
        }
      } else {
        done = plain ? this.readScalarValue(this.context) : this.readScalar(this.context);
      }
      if (plain) this.closeSlot(slot);

      // Hand the finished value to its container; close containers while the
      // next token says so.
      let value = done;
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          this.root = value;
          this.finish();
          return true;
        }
        this.skipWhitespace();
        const next = text.charCodeAt(this.pos);
        if (top.kind === 'array') {
          if (plain) (top.node as unknown[]).push(value);
          else (top.node as JsonArrayNode).items.push(value as JsonNode);
          if (next === CH_COMMA) {
            this.pos++;
            this.context = 'array-next';
            break;
          }
          if (next !== CH_RBRACKET)
            this.fail(`expected ',' or ']' after an array item, found ${this.here()}`);
        } else {
          if (plain) setMember(top.node as Record<string, unknown>, top.key, value);
          else {
            const entry: JsonObjectEntry = {
              key: top.key,
              keyLoc: top.keyLoc as Loc,
              value: value as JsonNode,
            };
            if (top.keySplits !== undefined) entry.keySurrogateSplits = top.keySplits;
            (top.node as JsonObjectNode).entries.push(entry);
          }
          if (next === CH_COMMA) {
            this.pos++;
            this.skipWhitespace();
            this.readKey(top, "expected a string key after ','");
            this.context = 'member';
            break;
          }
          if (next !== CH_RBRACE)
            this.fail(`expected ',' or '}' after an object member, found ${this.here()}`);
        }
        this.pos++;
        stack.pop();
        if (plain) {
          this.closeSlot(top.slot);
          if (top.kind === 'object') this.keepKeyList(top);
        }
        value = top.node;
      }
    }
  }

  private finish(): void {
    this.skipWhitespace();
    if (this.pos < this.text.length) {
      this.fail(`unexpected ${this.here()} after the JSON value (only whitespace may follow it)`);
    }
    this.finished = true;
  }

  tree(): JsonNode {
    return this.root as JsonNode;
  }

  /**
   * Keeps the key list of a large object that just closed. `Object.keys` on
   * an object of a million keys is one uninterruptible step of most of a
   * second (V8 sorts them); readers that walk such an object take the list.
   */
  private keepKeyList(frame: Frame): void {
    if (frame.keysExact && frame.keys.length >= KEY_LIST_MIN) {
      this.keyLists.set(frame.node as object, frame.keys);
      frame.keys = [];
    }
  }

  plainResult(): PlainJson {
    const lines = this.lineStarts as IntList;
    const positions = new JsonPositions(
      this.text,
      (this.starts as IntList).data,
      (this.keys as IntList).data,
      (this.ends as IntList).data,
      lines.data,
      lines.length,
      (offset) => this.stringAt(offset, undefined),
    );
    const keyLists = this.keyLists;
    return { value: this.root, positions, keysOf: (obj) => keyLists.get(obj) ?? Object.keys(obj) };
  }

  private here(): string {
    return describeChar(this.text, this.pos);
  }

  /** Decodes the string whose opening quote is at `offset`, leaving the cursor where it was. */
  private stringAt(offset: number, splits: number[] | undefined): string {
    const pos = this.pos;
    this.pos = offset;
    try {
      return this.readString(splits);
    } finally {
      this.pos = pos;
    }
  }

  /** Reads `"key" :` and leaves the cursor before the value. */
  private readKey(frame: Frame, expectation: string): void {
    const start = this.pos;
    if (this.text.charCodeAt(start) !== CH_QUOTE) this.fail(`${expectation}, found ${this.here()}`);
    if (this.plain) {
      frame.keyOffset = start;
      // Python's identity of a key only matters once two keys are the same JS string.
      const key = this.readString(undefined);
      if (this.dupError) {
        if (frame.seen !== undefined || Object.hasOwn(frame.node, key)) {
          // Two keys Python tells apart but JavaScript holds as one property (or a duplicate, which throws).
          this.checkPlainDuplicate(frame, key, start);
          frame.keysExact = false;
        }
        if (frame.keysExact) {
          if (isArrayIndex(key)) frame.keysExact = false;
          else frame.keys.push(key);
        }
      }
      frame.key = key;
    } else {
      const keyLoc = this.loc(start);
      const splits: number[] = [];
      const key = this.readString(splits);
      const keySplits = splits.length > 0 ? splits : undefined;
      if (frame.seen !== undefined) {
        const id = pythonKeyIdentity(key, keySplits);
        const first = frame.seen.get(id) as Loc | undefined;
        if (first !== undefined) this.failDuplicate(key, first, start);
        frame.seen.set(id, keyLoc);
      }
      frame.key = key;
      frame.keyLoc = keyLoc;
      frame.keySplits = keySplits;
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== CH_COLON) {
      this.fail(`expected ':' after the object key ${JSON.stringify(frame.key)}, found ${this.here()}`);
    }
    this.pos++;
  }

  /**
   * Plain mode, `duplicateKeys: 'error'`: the key at `start` is the same JS
   * string as an earlier key of the object, or the object's identities are
   * already tracked. Python tells keys apart that JavaScript would read as
   * one (see {@link JsonObjectEntry.keySurrogateSplits}), so the identities of
   * the object's keys are collected once, from the position index, and kept
   * from then on.
   */
  private checkPlainDuplicate(frame: Frame, key: string, start: number): void {
    let seen = frame.seen;
    if (seen === undefined) {
      seen = new Map();
      const keys = (this.keys as IntList).data;
      const ends = (this.ends as IntList).data;
      const count = (this.starts as IntList).length;
      for (let s = frame.slot + 1; s < count; s = ends[s] as number) {
        const offset = keys[s] as number;
        seen.set(this.identityAt(offset), offset);
      }
      frame.seen = seen;
    }
    const id = this.identityAt(start);
    const first = seen.get(id) as number | undefined;
    if (first !== undefined) this.failDuplicate(key, this.lineColumnOf(first), start);
    seen.set(id, start);
  }

  private identityAt(offset: number): string {
    const splits: number[] = [];
    const key = this.stringAt(offset, splits);
    return pythonKeyIdentity(key, splits.length > 0 ? splits : undefined);
  }

  /** Plain mode: line and column of an offset already read. */
  private lineColumnOf(offset: number): { line: number; column: number } {
    const lines = this.lineStarts as IntList;
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((lines.data[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (lines.data[lo] as number) + 1 };
  }

  private failDuplicate(key: string, first: { line: number; column: number }, start: number): never {
    this.fail(
      `duplicate key ${JSON.stringify(key)} (first defined at line ${first.line}, column ${first.column})`,
      start,
    );
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
      const loc = this.loc(start);
      const isInteger = this.scanNumber();
      return { type: 'number', lexeme: text.slice(start, this.pos), isInteger, loc };
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

  /** `readScalar` for plain mode: the same grammar and errors, the JS value instead of a node. */
  private readScalarValue(context: ValueContext): unknown {
    const text = this.text;
    const start = this.pos;
    const c = text.charCodeAt(start);
    if (c === CH_QUOTE) return this.readString(undefined);
    if (c === CH_MINUS || isDigit(c)) {
      if (c === CH_MINUS && text.startsWith('Infinity', start + 1))
        return this.readNonFiniteValue('-Infinity', context);
      this.scanNumber();
      return Number(text.slice(start, this.pos));
    }
    if (c === CH_LOWER_T && text.startsWith('true', start)) {
      this.pos += 4;
      return true;
    }
    if (c === CH_LOWER_F && text.startsWith('false', start)) {
      this.pos += 5;
      return false;
    }
    if (c === CH_LOWER_N && text.startsWith('null', start)) {
      this.pos += 4;
      return null;
    }
    if (c === CH_UPPER_N && text.startsWith('NaN', start)) return this.readNonFiniteValue('NaN', context);
    if (c === CH_UPPER_I && text.startsWith('Infinity', start))
      return this.readNonFiniteValue('Infinity', context);
    return this.fail(`${VALUE_EXPECTATION[context]}, found ${this.here()}`);
  }

  private readLiteral(length: number, node: JsonNode): JsonNode {
    this.pos += length;
    return node;
  }

  private checkNonFinite(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): void {
    if (!this.allowNonFinite) {
      this.fail(`${VALUE_EXPECTATION[context]}, found ${value} (not JSON, although Python accepts it)`);
    }
  }

  private readNonFinite(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): JsonNode {
    this.checkNonFinite(value, context);
    const loc = this.loc(this.pos);
    this.pos += value.length;
    return { type: 'nonfinite', value, loc };
  }

  private readNonFiniteValue(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): number {
    this.checkNonFinite(value, context);
    this.pos += value.length;
    return nonFiniteNumber(value);
  }

  /** Moves the cursor past a number; true when it is an integer (no fraction, no exponent). */
  private scanNumber(): boolean {
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
  private readString(splits: number[] | undefined): string {
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

/**
 * A member of a plain object, as `JSON.parse` sets it: a later duplicate
 * replaces the value in the first one's place. Assignment is several times
 * faster than `defineProperty`; only `"__proto__"` would mean something else
 * to it (a prototype change), so that key alone is defined.
 */
function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** The tree of a JSON text, every value with its position. */
export function parseJson(text: string, options: ParseJsonOptions = {}): JsonNode {
  const parser = new Parser(text, options, false);
  parser.step(NEVER_DUE);
  return parser.tree();
}

/** {@link parseJson} in slices: yields whenever `budget` is due (see util/time-slice.ts). */
export function* parseJsonSliced(
  text: string,
  options: ParseJsonOptions,
  budget: StepBudget,
): Generator<undefined, JsonNode, undefined> {
  const parser = new Parser(text, options, false);
  while (!parser.step(budget)) yield;
  return parser.tree();
}

/** A JSON text's value (as {@link toPlainValue} of its tree would be) and where each part of it is. */
export interface PlainJson {
  value: unknown;
  positions: JsonPositions;
  /**
   * `Object.keys(obj)` for an object of this value, without the cost of
   * listing a large one (kept from the parse). Stale once the object is
   * changed: meant for reading the value, as parsed.
   */
  keysOf(obj: object): readonly string[];
}

/**
 * The plain value of a JSON text without building the tree: the same
 * grammar, errors and duplicate-key rules as {@link parseJson}, with
 * positions kept in a compact index. What contract and config files use.
 */
export function parseJsonValue(text: string, options: ParseJsonOptions = {}): PlainJson {
  const parser = new Parser(text, options, true);
  parser.step(NEVER_DUE);
  return parser.plainResult();
}

/** {@link parseJsonValue} in slices: yields whenever `budget` is due. */
export function* parseJsonValueSliced(
  text: string,
  options: ParseJsonOptions,
  budget: StepBudget,
): Generator<undefined, PlainJson, undefined> {
  const parser = new Parser(text, options, true);
  while (!parser.step(budget)) yield;
  return parser.plainResult();
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
