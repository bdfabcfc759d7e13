import {
  CH_BOM,
  CH_COLON,
  CH_COMMA,
  CH_LBRACE,
  CH_LBRACKET,
  CH_QUOTE,
  CH_RBRACE,
  CH_RBRACKET,
  DEFAULT_MAX_DEPTH,
  JsonLexer,
  type ParseJsonOptions,
  type StepBudget,
  type ValueContext,
} from './lexer.js';

/**
 * The structure of a JSON text (values, arrays, objects, members, what may
 * follow what), shared by the tree reader (tree.ts) and the plain-values
 * reader (values.ts), so the two report the same errors at the same places.
 * What a value becomes is the subclass's: a hook per event. It never
 * recurses (an explicit stack), so a hostile file cannot exhaust the JS
 * stack, and it reads in steps so a caller can let the event loop run.
 */

/** What `step` is handed by the synchronous entry points. */
export const NEVER_DUE: StepBudget = { due: () => false };

/** What the grammar reads of an open array or object; each reader adds its own fields. */
export interface GrammarFrame {
  kind: 'array' | 'object';
  /** The container being filled, handed up as the value once it closes. */
  node: unknown;
  /** The member being read (objects only). */
  key: string;
}

export abstract class JsonGrammar<F extends GrammarFrame> extends JsonLexer {
  protected readonly dupError: boolean;
  private readonly maxDepth: number;
  private readonly stack: F[] = [];
  private context: ValueContext = 'top';
  private started = false;
  private finished = false;
  protected root: unknown;

  constructor(text: string, options: ParseJsonOptions) {
    super(text, options);
    this.dupError = options.duplicateKeys === 'error';
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  /** A value starts at `start` (after whitespace), inside `parent` when given; returns its slot, if the reader keeps one. */
  protected abstract valueStart(start: number, parent: F | undefined): number;
  /** A value that opened no frame (a scalar, `[]`, `{}`) has been read. */
  protected abstract valueEnd(slot: number): void;
  /** A container opens at `start` (the cursor still on its bracket); returns what it will be filled into. */
  protected abstract container(kind: 'array' | 'object', start: number): unknown;
  /** The frame for a non-empty container at `depth`. */
  protected abstract frame(depth: number, kind: 'array' | 'object', node: unknown, slot: number): F;
  /** Reads the key whose opening quote is under the cursor into `frame` (the cursor ends past it). */
  protected abstract key(frame: F, start: number): void;
  protected abstract scalar(context: ValueContext): unknown;
  protected abstract addItem(frame: F, value: unknown): void;
  protected abstract addMember(frame: F, value: unknown): void;
  /** `frame`'s container has closed. */
  protected abstract closed(frame: F): void;

  /**
   * Parses until the text is read (returns true) or `budget` is due (returns
   * false; call again to go on). Throws `JsonSyntaxError` at the first error.
   */
  step(budget: StepBudget): boolean {
    if (this.finished) return true;
    const text = this.text;
    const stack = this.stack;
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
      const slot = this.valueStart(start, stack[stack.length - 1]);
      let done: unknown;

      if (c === CH_LBRACE || c === CH_LBRACKET) {
        if (stack.length >= this.maxDepth) {
          this.fail(`nesting is deeper than ${this.maxDepth} levels`, start);
        }
        const kind = c === CH_LBRACKET ? 'array' : 'object';
        const node = this.container(kind, start);
        this.pos++;
        this.skipWhitespace();
        if (kind === 'array') {
          if (text.charCodeAt(this.pos) === CH_RBRACKET) {
            this.pos++;
            done = node;
          } else {
            stack.push(this.frame(stack.length, kind, node, slot));
            this.context = 'array-start';
            continue;
          }
        } else if (text.charCodeAt(this.pos) === CH_RBRACE) {
          this.pos++;
          done = node;
        } else {
          const frame = this.frame(stack.length, kind, node, slot);
          this.readKey(frame, "expected a string key or '}'");
          stack.push(frame);
          this.context = 'member';
          continue;
        }
      } else {
        done = this.scalar(this.context);
      }
      this.valueEnd(slot);

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
          this.addItem(top, value);
          if (next === CH_COMMA) {
            this.pos++;
            this.context = 'array-next';
            break;
          }
          if (next !== CH_RBRACKET)
            this.fail(`expected ',' or ']' after an array item, found ${this.here()}`);
        } else {
          this.addMember(top, value);
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
        this.closed(top);
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

  /** Reads `"key" :` and leaves the cursor before the value. */
  private readKey(frame: F, expectation: string): void {
    const start = this.pos;
    if (this.text.charCodeAt(start) !== CH_QUOTE) this.fail(`${expectation}, found ${this.here()}`);
    this.key(frame, start);
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== CH_COLON) {
      this.fail(`expected ':' after the object key ${JSON.stringify(frame.key)}, found ${this.here()}`);
    }
    this.pos++;
  }

  protected failDuplicate(key: string, first: { line: number; column: number }, start: number): never {
    this.fail(
      `duplicate key ${JSON.stringify(key)} (first defined at line ${first.line}, column ${first.column})`,
      start,
    );
  }
}
