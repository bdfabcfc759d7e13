import { type GrammarFrame, JsonGrammar, NEVER_DUE } from './grammar.js';
import {
  CH_0,
  CH_9,
  CH_LOWER_F,
  CH_LOWER_N,
  CH_LOWER_T,
  CH_MINUS,
  CH_QUOTE,
  CH_UPPER_I,
  CH_UPPER_N,
  isDigit,
  nonFiniteNumber,
  type ParseJsonOptions,
  type StepBudget,
  VALUE_EXPECTATION,
  type ValueContext,
} from './lexer.js';
import { IntList, JsonPositions } from './positions.js';
import { pythonKeyIdentity } from './tree.js';

/**
 * The plain-values reader, what contract and config files use: the value
 * `JSON.parse` would give, with positions kept as offsets in typed arrays
 * (see positions.ts) instead of a node and a position object per value,
 * several times cheaper on large files (bench/README.md, "contracts"). The
 * grammar, errors and duplicate-key rules are the tree reader's (grammar.ts).
 */

/**
 * Objects with at least this many keys keep their key list (see
 * `ValueReader.keepKeyList`); below it `Object.keys` is cheap.
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

interface ValueFrame extends GrammarFrame {
  node: unknown[] | Record<string, unknown>;
  /** Where the member's key starts. */
  keyOffset: number;
  /**
   * Built only once two keys of the object are the same JS string (then
   * Python's identity decides), and kept up to date from then on.
   */
  seen: Map<string, number> | undefined;
  /** The container's slot in the position index. */
  slot: number;
  /**
   * Duplicate keys an error: the object's keys in source order, while they
   * are also the order `Object.keys` gives (see `keyList`).
   */
  keys: string[];
  keysExact: boolean;
}

class ValueReader extends JsonGrammar<ValueFrame> {
  /** Only one frame per depth is open at a time, so frames are reused: a million small objects would otherwise be a million short-lived frames for the garbage collector. */
  private readonly framePool: ValueFrame[] = [];
  private readonly keyLists = new WeakMap<object, readonly string[]>();
  // The position index (see positions.ts).
  private readonly starts: IntList;
  private readonly keyOffsets: IntList;
  private readonly ends: IntList;
  private readonly lineStarts: IntList;

  constructor(text: string, options: ParseJsonOptions) {
    super(text, options);
    // About one value per 40 characters in a typical contract file; the lists grow as needed.
    const guess = Math.max(16, Math.min(text.length >>> 5, 1 << 24));
    this.starts = new IntList(guess);
    this.keyOffsets = new IntList(guess);
    this.ends = new IntList(guess);
    this.lineStarts = new IntList(Math.max(16, guess >>> 1));
    this.lineStarts.push(0);
  }

  protected override newLine(start: number): void {
    super.newLine(start);
    this.lineStarts.push(start);
  }

  /** A slot for the value starting at `start`, a member of `parent` when given. */
  protected valueStart(start: number, parent: ValueFrame | undefined): number {
    this.keyOffsets.push(parent !== undefined && parent.kind === 'object' ? parent.keyOffset : -1);
    this.ends.push(0);
    return this.starts.push(start);
  }

  protected valueEnd(slot: number): void {
    const ends = this.ends;
    ends.data[slot] = ends.length;
  }

  protected container(kind: 'array' | 'object'): unknown[] | Record<string, unknown> {
    return kind === 'array' ? [] : {};
  }

  protected frame(depth: number, kind: 'array' | 'object', node: unknown, slot: number): ValueFrame {
    let frame = this.framePool[depth];
    if (frame === undefined) {
      frame = {
        kind,
        node: node as ValueFrame['node'],
        key: '',
        keyOffset: -1,
        seen: undefined,
        slot,
        keys: [],
        keysExact: true,
      };
      this.framePool[depth] = frame;
      return frame;
    }
    frame.kind = kind;
    frame.node = node as ValueFrame['node'];
    frame.key = '';
    frame.keyOffset = -1;
    frame.seen = undefined;
    frame.slot = slot;
    frame.keys.length = 0;
    frame.keysExact = true;
    return frame;
  }

  protected key(frame: ValueFrame, start: number): void {
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
  }

  protected addItem(frame: ValueFrame, value: unknown): void {
    (frame.node as unknown[]).push(value);
  }

  protected addMember(frame: ValueFrame, value: unknown): void {
    setMember(frame.node as Record<string, unknown>, frame.key, value);
  }

  protected closed(frame: ValueFrame): void {
    this.valueEnd(frame.slot);
    if (frame.kind === 'object') this.keepKeyList(frame);
  }

  /**
   * Keeps the key list of a large object that just closed. `Object.keys` on
   * an object of a million keys is one uninterruptible step of most of a
   * second (V8 sorts them); readers that walk such an object take the list.
   */
  private keepKeyList(frame: ValueFrame): void {
    if (frame.keysExact && frame.keys.length >= KEY_LIST_MIN) {
      this.keyLists.set(frame.node as object, frame.keys);
      frame.keys = [];
    }
  }

  plainResult(): PlainJson {
    const lines = this.lineStarts;
    const positions = new JsonPositions(
      this.text,
      this.starts.data,
      this.keyOffsets.data,
      this.ends.data,
      lines.data,
      lines.length,
      (offset) => this.stringAt(offset, undefined),
    );
    const keyLists = this.keyLists;
    return { value: this.root, positions, keysOf: (obj) => keyLists.get(obj) ?? Object.keys(obj) };
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

  /**
   * `duplicateKeys: 'error'`: the key at `start` is the same JS
   * string as an earlier key of the object, or the object's identities are
   * already tracked. Python tells keys apart that JavaScript would read as
   * one (see {@link JsonObjectEntry.keySurrogateSplits}), so the identities of
   * the object's keys are collected once, from the position index, and kept
   * from then on.
   */
  private checkPlainDuplicate(frame: ValueFrame, key: string, start: number): void {
    let seen = frame.seen;
    if (seen === undefined) {
      seen = new Map();
      const keys = this.keyOffsets.data;
      const ends = this.ends.data;
      const count = this.starts.length;
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

  /** Line and column of an offset already read. */
  private lineColumnOf(offset: number): { line: number; column: number } {
    const lines = this.lineStarts;
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((lines.data[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (lines.data[lo] as number) + 1 };
  }

  /** The tree reader's `scalar` (the same grammar and errors), the JS value instead of a node. */
  protected scalar(context: ValueContext): unknown {
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

  private readNonFiniteValue(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): number {
    this.checkNonFinite(value, context);
    this.pos += value.length;
    return nonFiniteNumber(value);
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
  const reader = new ValueReader(text, options);
  reader.step(NEVER_DUE);
  return reader.plainResult();
}

/** {@link parseJsonValue} in slices: yields whenever `budget` is due. */
export function* parseJsonValueSliced(
  text: string,
  options: ParseJsonOptions,
  budget: StepBudget,
): Generator<undefined, PlainJson, undefined> {
  const reader = new ValueReader(text, options);
  while (!reader.step(budget)) yield;
  return reader.plainResult();
}
