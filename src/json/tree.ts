import { type GrammarFrame, JsonGrammar, NEVER_DUE } from './grammar.js';
import {
  CH_LOWER_F,
  CH_LOWER_N,
  CH_LOWER_T,
  CH_MINUS,
  CH_QUOTE,
  CH_UPPER_I,
  CH_UPPER_N,
  isDigit,
  type Loc,
  nonFiniteNumber,
  type ParseJsonOptions,
  type StepBudget,
  VALUE_EXPECTATION,
  type ValueContext,
} from './lexer.js';

/**
 * The tree reader: a `JsonNode` per value with its position, number lexemes
 * kept as written and every duplicate key kept. The canonical digest
 * (`python-dumps.ts`) and seed-tape edits are computed from this tree, which
 * is why numbers keep the source text: Python's integers are exact and `-0`
 * is an integer there.
 */

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

/**
 * Identity of an object key as Python's `str` equality sees it. The two
 * prefixes keep the split and unsplit spaces disjoint.
 */
export function pythonKeyIdentity(key: string, splits: readonly number[] | undefined): string {
  return splits === undefined ? `\u0000${key}` : `\u0001${splits.join(',')}\u0001${key}`;
}

interface TreeFrame extends GrammarFrame {
  node: JsonArrayNode | JsonObjectNode;
  keyLoc: Loc | undefined;
  keySplits: number[] | undefined;
  /** `duplicateKeys: 'error'`: every key's identity and where it was. */
  seen: Map<string, Loc> | undefined;
}

class TreeReader extends JsonGrammar<TreeFrame> {
  /** Only one frame per depth is open at a time, so frames are reused. */
  private readonly framePool: TreeFrame[] = [];

  tree(): JsonNode {
    return this.root as JsonNode;
  }

  protected valueStart(): number {
    return -1;
  }

  protected valueEnd(): void {}

  protected container(kind: 'array' | 'object', start: number): JsonArrayNode | JsonObjectNode {
    const loc = this.loc(start);
    return kind === 'array' ? { type: 'array', items: [], loc } : { type: 'object', entries: [], loc };
  }

  protected frame(depth: number, kind: 'array' | 'object', node: unknown): TreeFrame {
    const seen = kind === 'object' && this.dupError ? new Map<string, Loc>() : undefined;
    let frame = this.framePool[depth];
    if (frame === undefined) {
      frame = {
        kind,
        node: node as TreeFrame['node'],
        key: '',
        keyLoc: undefined,
        keySplits: undefined,
        seen,
      };
      this.framePool[depth] = frame;
      return frame;
    }
    frame.kind = kind;
    frame.node = node as TreeFrame['node'];
    frame.key = '';
    frame.keyLoc = undefined;
    frame.keySplits = undefined;
    frame.seen = seen;
    return frame;
  }

  protected key(frame: TreeFrame, start: number): void {
    const keyLoc = this.loc(start);
    const splits: number[] = [];
    const key = this.readString(splits);
    const keySplits = splits.length > 0 ? splits : undefined;
    if (frame.seen !== undefined) {
      const id = pythonKeyIdentity(key, keySplits);
      const first = frame.seen.get(id);
      if (first !== undefined) this.failDuplicate(key, first, start);
      frame.seen.set(id, keyLoc);
    }
    frame.key = key;
    frame.keyLoc = keyLoc;
    frame.keySplits = keySplits;
  }

  protected addItem(frame: TreeFrame, value: unknown): void {
    (frame.node as JsonArrayNode).items.push(value as JsonNode);
  }

  protected addMember(frame: TreeFrame, value: unknown): void {
    const entry: JsonObjectEntry = {
      key: frame.key,
      keyLoc: frame.keyLoc as Loc,
      value: value as JsonNode,
    };
    if (frame.keySplits !== undefined) entry.keySurrogateSplits = frame.keySplits;
    (frame.node as JsonObjectNode).entries.push(entry);
  }

  protected closed(): void {}

  protected scalar(context: ValueContext): JsonNode {
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

  private readLiteral(length: number, node: JsonNode): JsonNode {
    this.pos += length;
    return node;
  }

  private readNonFinite(value: 'NaN' | 'Infinity' | '-Infinity', context: ValueContext): JsonNode {
    this.checkNonFinite(value, context);
    const loc = this.loc(this.pos);
    this.pos += value.length;
    return { type: 'nonfinite', value, loc };
  }
}

/** The tree of a JSON text, every value with its position. */
export function parseJson(text: string, options: ParseJsonOptions = {}): JsonNode {
  const reader = new TreeReader(text, options);
  reader.step(NEVER_DUE);
  return reader.tree();
}

/** {@link parseJson} in slices: yields whenever `budget` is due (see util/time-slice.ts). */
export function* parseJsonSliced(
  text: string,
  options: ParseJsonOptions,
  budget: StepBudget,
): Generator<undefined, JsonNode, undefined> {
  const reader = new TreeReader(text, options);
  while (!reader.step(budget)) yield;
  return reader.tree();
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
