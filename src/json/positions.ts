import { CH_LBRACE, CH_LBRACKET } from './lexer.js';
/**
 * Where each value of a parsed JSON text starts, kept as offsets in typed
 * arrays instead of a position object per node: a contract file of a million
 * entries has several million values, and one object each was most of the
 * cost of reading it. Line and column are worked out only when asked for,
 * from the line starts the parser recorded on its way.
 *
 * Values are numbered in document order (a container before its children),
 * so the children of slot `s` are `s + 1`, then `end[s + 1]`, and so on up to
 * `end[s]`. A container's children are indexed the first time a lookup goes
 * through it, once, so locating every entry of a large object is linear.
 */

/** A growable list of int32, the storage of the index. */
export class IntList {
  data: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }

  push(v: number): number {
    if (this.length === this.data.length) this.grow();
    this.data[this.length] = v;
    return this.length++;
  }

  grow(): void {
    const next = new Int32Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }
}

export interface LineColumn {
  line: number;
  column: number;
}

export class JsonPositions {
  private readonly objects = new Map<number, Map<string, number>>();
  private readonly arrays = new Map<number, Int32Array>();
  private indexedCount = 0;

  /**
   * @param starts offset of each value
   * @param keys offset of the key's opening quote for object members, -1 otherwise
   * @param ends the slot after each value's subtree
   * @param lineStarts offset of each line's first character; line 1 starts at 0
   * @param readKey decodes the JSON string whose opening quote is at an offset
   */
  constructor(
    private readonly text: string,
    private readonly starts: Int32Array,
    private readonly keys: Int32Array,
    private readonly ends: Int32Array,
    private readonly lineStarts: Int32Array,
    private readonly lineCount: number,
    private readonly readKey: (offset: number) => string,
  ) {}

  /** How many children lookups have indexed so far: a diagnostic that lets tests pin lookups as linear. */
  get indexed(): number {
    return this.indexedCount;
  }

  /** 1-based line and UTF-16 column of an offset (see `Loc` in parse.ts). */
  lineColumn(offset: number): LineColumn {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = this.lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  }

  /**
   * Position of the value at `path` (or, with `wantKey`, of its key when its
   * parent is an object). Object segments must be strings and array segments
   * numbers, as in the paths zod reports. Of duplicate keys the last wins, as
   * in the parsed value.
   */
  locate(path: readonly PropertyKey[], wantKey: boolean): LineColumn | undefined {
    const slot = drain(this.find(path, NEVER_DUE));
    if (slot < 0) return undefined;
    const key = this.keys[slot] as number;
    return this.lineColumn(wantKey && key >= 0 ? key : (this.starts[slot] as number));
  }

  /**
   * Indexes, in slices, the containers `path` goes through, so that
   * `locate(path)` afterwards only looks up: indexing an object of a million
   * keys is one long step otherwise.
   */
  *prepare(path: readonly PropertyKey[], budget: Budget): Generator<undefined, void, undefined> {
    yield* this.find(path, budget);
  }

  /** The slot at `path`, or -1. */
  private *find(path: readonly PropertyKey[], budget: Budget): Generator<undefined, number, undefined> {
    let slot = 0;
    for (const seg of path) {
      const c = this.text.charCodeAt(this.starts[slot] as number);
      let child: number | undefined;
      if (c === CH_LBRACE) {
        if (typeof seg === 'string') {
          const index = this.objects.get(slot) ?? (yield* this.indexObject(slot, budget));
          child = index.get(seg);
        }
      } else if (c === CH_LBRACKET && typeof seg === 'number') {
        const index = this.arrays.get(slot) ?? (yield* this.indexArray(slot, budget));
        child = index[seg];
      }
      if (child === undefined) return -1;
      slot = child;
    }
    return slot;
  }

  private *indexObject(slot: number, budget: Budget): Generator<undefined, Map<string, number>, undefined> {
    const index = new Map<string, number>();
    const end = this.ends[slot] as number;
    for (let s = slot + 1; s < end; s = this.ends[s] as number) {
      index.set(this.readKey(this.keys[s] as number), s);
      this.indexedCount++;
      if (budget.due()) yield;
    }
    this.objects.set(slot, index);
    return index;
  }

  private *indexArray(slot: number, budget: Budget): Generator<undefined, Int32Array, undefined> {
    const children = new IntList(16);
    const end = this.ends[slot] as number;
    for (let s = slot + 1; s < end; s = this.ends[s] as number) {
      children.push(s);
      this.indexedCount++;
      if (budget.due()) yield;
    }
    const index = children.data.subarray(0, children.length);
    this.arrays.set(slot, index);
    return index;
  }
}

/** What slicing asks of a budget (util/time-slice.ts's `SliceBudget`). */
interface Budget {
  due(): boolean;
}

const NEVER_DUE: Budget = { due: () => false };

function drain<T>(it: Generator<undefined, T, undefined>): T {
  for (;;) {
    const step = it.next();
    if (step.done) return step.value;
  }
}
