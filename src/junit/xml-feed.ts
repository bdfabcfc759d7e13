import { TextDecoder } from 'node:util';
import type { SaxesParser, SaxesTagPlain } from 'saxes';
import { firstInvalidUtf8, incompleteTail, sniffEncoding } from './decode.js';
import { charRefReason, JUnitParseError } from './errors.js';
import { openSaxes, type SaxesWithInternals } from './saxes-internals.js';
import type { TextCollector } from './text.js';

/**
 * The XML side of reading a report: bytes in, element events out. It decodes
 * (sniffing the encoding, refusing invalid bytes where they are), feeds saxes
 * in slices, bounds saxes' buffers, refuses DOCTYPEs (XXE) and deep nesting,
 * and turns every well-formedness error into a JUnitParseError that names the
 * file, line and column and says what was expected. What the elements mean is
 * the handler's business (see builder.ts).
 */

export interface Position {
  line: number;
  column: number;
}

/** What the feed reports to; called synchronously from inside `push` and `end`. */
export interface XmlHandler {
  /** The root element's name, before its `open`; `at` is where its `<` is. */
  root(name: string, at: Position): void;
  open(tag: SaxesTagPlain, depth: number): void;
  close(depth: number): void;
  /**
   * Where the text (and CDATA) of the current element goes, or undefined when
   * it is not kept. Read after every `open` and `close`: saxes builds text
   * strings only while a text handler is set, so the megabytes of system-out
   * in a large report are never turned into strings.
   */
  readonly textTarget: TextCollector | undefined;
}

export interface XmlFeedOptions {
  /** Named in error messages. */
  file: string | undefined;
  /** The most UTF-16 units of text kept of any one construct saxes holds (the body cap plus one). */
  bufferCap: number;
  /** What the root element should be, for the messages about a missing one. */
  rootExpected: string;
}

// Measured in bench/junit: saxes runs fastest on slices that stay in cache,
// and each slice is also one step of the buffer guard.
const SLICE = 64 * 1024;
const MAX_DEPTH = 1000;
const MAX_NAME = 64 * 1024;
const MAX_ATTRIBUTES = 10_000;

const CDATA_OPEN = '<![CDATA[';
// Characters outside XML 1.0's Char production. Surrogates need no check: the
// text comes from a fatal UTF-8 decoder or a single-byte one.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const NOT_XML10_CHAR = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;
const SURROGATE = /[\ud800-\udfff]/;
const LOW_SURROGATES = /[\udc00-\udfff]/g;
const CR_LINE_END = /\r\n?/g;

const DOCTYPE_REFUSED = 'DOCTYPE declarations are not allowed in JUnit reports (XXE protection)';

export class XmlFeed {
  private readonly sax: SaxesParser<{ xmlns: false }>;
  private readonly internals: SaxesWithInternals;
  private readonly handler: XmlHandler;
  private readonly file: string | undefined;
  private readonly bufferCap: number;
  private readonly rootExpected: string;

  // Decoding.
  private sniffed: Uint8Array | undefined = new Uint8Array(0);
  private decoder: TextDecoder | undefined;
  private utf8 = false;
  /** Bytes the streaming decoder holds back: the start of a character split across chunks. */
  private pending: Uint8Array = new Uint8Array(0);

  // Document-level state.
  private started = false;
  private rootSeen = false;
  private doctypeAt: Position | undefined;
  /** Where the last `<` before the root element was: the root's start once it is seen. */
  private tagAt: Position | undefined;
  private atEnd = false;
  /** Whether CDATA content may bypass saxes (see writeBody). */
  private fastCdata = false;
  /** saxes holds back a trailing CR or high surrogate until the next write. */
  private carried = false;
  private depth = 0;
  private textTarget: TextCollector | undefined;

  constructor(opts: XmlFeedOptions, handler: XmlHandler) {
    this.file = opts.file;
    this.bufferCap = opts.bufferCap;
    this.rootExpected = opts.rootExpected;
    this.handler = handler;
    const internals = openSaxes();
    this.internals = internals;
    const sax = internals.sax;
    this.sax = sax;

    sax.on('error', (err) => {
      throw this.saxError(err.message);
    });
    sax.on('doctype', () => {
      throw this.error(DOCTYPE_REFUSED, this.doctypeAt ?? { line: sax.line, column: sax.column });
    });
    sax.on('opentagstart', (tag) => this.onRoot(tag.name));
    sax.on('opentag', (tag) => this.onOpen(tag));
    sax.on('closetag', () => this.onClose());
  }

  /** Feeds the next bytes of the report. */
  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.decoder === undefined) {
      this.sniffed = concat(this.sniffed!, bytes);
      this.trySniff(false);
      return;
    }
    this.decode(bytes);
  }

  /** Ends the input: checks the document is complete. */
  end(): void {
    if (this.decoder === undefined) this.trySniff(true);
    this.atEnd = true;
    let tail: string;
    try {
      tail = this.decoder!.decode();
    } catch {
      throw this.error('the report ends in the middle of a UTF-8 character (truncated?)', this.here(1));
    }
    this.feed(tail);
    this.sax.close();
  }

  /** An error at `at` in this report. */
  error(reason: string, at: Position): JUnitParseError {
    return new JUnitParseError(reason, { file: this.file, line: at.line, column: at.column });
  }

  // ------------------------------------------------------------------ decoding

  private trySniff(final: boolean): void {
    const bytes = this.sniffed!;
    const s = sniffEncoding(bytes, final);
    if (s.kind === 'wait') return;
    if (s.kind === 'refuse') throw this.error(s.reason, s);
    this.decoder = new TextDecoder(s.encoding, { fatal: true });
    this.utf8 = s.encoding === 'utf-8';
    this.sniffed = undefined;
    this.decode(bytes.subarray(s.skip));
  }

  private decode(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.decoder!.decode(bytes, { stream: true });
    } catch {
      this.invalidBytes(bytes);
    }
    if (this.utf8) {
      this.pending =
        bytes.length >= 3
          ? incompleteTail(bytes).slice()
          : incompleteTail(concat(this.pending, bytes)).slice();
    }
    this.feed(text);
  }

  /** Locates a decoding error: feed what decodes, then report at saxes' position. */
  private invalidBytes(bytes: Uint8Array): never {
    if (this.utf8) {
      const region = concat(this.pending, bytes);
      const bad = firstInvalidUtf8(region);
      this.feed(new TextDecoder('utf-8').decode(region.subarray(0, bad)));
      const shown = Array.from(region.subarray(bad, bad + 4), (b) => `0x${b.toString(16).padStart(2, '0')}`);
      throw this.error(
        `invalid UTF-8 (bytes ${shown.join(' ')}): the report is not UTF-8; if it uses another encoding, its XML declaration must say so`,
        this.here(1),
      );
    }
    throw this.error(
      `bytes that are not valid ${this.decoder!.encoding}, the report's declared encoding`,
      this.here(1),
    );
  }

  // ------------------------------------------------------------------ feeding saxes

  private feed(text: string): void {
    if (text.length === 0) return;
    if (!this.started) {
      const first = text.search(/[^ \t\r\n]/);
      if (first < 0) {
        this.write(text);
        return;
      }
      if (text.charCodeAt(first) !== 0x3c) {
        this.write(text.slice(0, first));
        const found = JSON.stringify(text.slice(first, first + 24));
        throw this.error(
          `not an XML document: found ${found} where a JUnit report starts with "<"`,
          this.here(1),
        );
      }
      this.started = true;
    }
    for (let i = 0; i < text.length; i += SLICE) {
      const piece = i === 0 && text.length <= SLICE ? text : text.slice(i, i + SLICE);
      if (this.rootSeen) this.writeBody(piece);
      else this.writeProlog(piece);
    }
  }

  /**
   * Before the root element, the text is written to saxes up to each `<`, so
   * that we know where the root element and any DOCTYPE start: saxes reports
   * a DOCTYPE only once it has read all of it, and the root's name only after
   * the character that follows it, possibly on the next line.
   */
  private writeProlog(piece: string): void {
    let from = 0;
    for (let at = piece.indexOf('<'); at >= 0; at = piece.indexOf('<', at + 1)) {
      this.write(piece.slice(from, at));
      from = at;
      if (this.rootSeen) break;
      this.tagAt = this.here(1);
      if (piece.startsWith('<!DOCTYPE', at)) this.doctypeAt = this.tagAt;
    }
    this.write(from === 0 ? piece : piece.slice(from));
  }

  /**
   * CDATA content goes past saxes: saxes reads it a character at a time in
   * JavaScript, and in large reports it is most of the bytes (system-out
   * logs, stack traces) and most of the parse time. Once saxes is inside a
   * CDATA section, we find its end with indexOf, check the characters with one
   * regular expression (the same XML 1.0 Char production saxes applies),
   * advance saxes' line and column as reading them would have, and hand the
   * text to the collector if we keep it. Content that fails the check is left
   * to saxes, which reports it at its exact position.
   */
  private writeBody(piece: string): void {
    if (!this.fastCdata) {
      this.write(piece);
      return;
    }
    let pos = 0;
    for (;;) {
      if (!this.carried && this.internals.inCdata()) pos = this.skipCdata(piece, pos);
      const open = piece.indexOf(CDATA_OPEN, pos);
      if (open < 0) {
        this.write(pos === 0 ? piece : piece.slice(pos));
        return;
      }
      const end = open + CDATA_OPEN.length;
      this.write(piece.slice(pos, end));
      pos = end;
    }
  }

  private skipCdata(piece: string, pos: number): number {
    const close = piece.indexOf(']]>', pos);
    // Without the terminator in this piece, the last two characters may be its
    // start: saxes reads those. Nor may the skip end in a CR (saxes reads CR LF
    // as one line break) or between the halves of a surrogate pair.
    let end = close >= 0 ? close : piece.length - 2;
    if (end > pos) {
      const last = piece.charCodeAt(end - 1);
      if (last === 0x0d || (last >= 0xd800 && last <= 0xdbff)) end--;
    }
    if (end <= pos) return pos;
    const content = piece.slice(pos, end);
    if (NOT_XML10_CHAR.test(content)) return pos;
    // What saxes read of this section so far comes before the skipped text.
    const held = this.internals.takeText();
    if (held.length > 0) this.textTarget?.add(held);
    this.advancePosition(content);
    // XML reads every CR LF and lone CR as LF, in CDATA too.
    this.textTarget?.add(content.includes('\r') ? content.replace(CR_LINE_END, '\n') : content);
    return end;
  }

  /** Moves saxes' line and column over `content` as its own reader would. */
  private advancePosition(content: string): void {
    let breaks = 0;
    let lastBreak = -1;
    for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) {
      breaks++;
      lastBreak = i;
    }
    for (let i = content.indexOf('\r'); i >= 0; i = content.indexOf('\r', i + 1)) {
      if (content.charCodeAt(i + 1) === 0x0a) continue;
      breaks++;
      if (i > lastBreak) lastBreak = i;
    }
    const tail = lastBreak < 0 ? content : content.slice(lastBreak + 1);
    // saxes counts a surrogate pair as one column.
    let columns = tail.length;
    if (SURROGATE.test(tail)) columns -= tail.match(LOW_SURROGATES)!.length;
    if (breaks > 0) {
      this.sax.line += breaks;
      this.sax.column = columns;
    } else {
      this.sax.column += columns;
    }
  }

  private write(piece: string): void {
    if (piece.length === 0) return;
    this.sax.write(piece);
    const last = piece.charCodeAt(piece.length - 1);
    this.carried = last === 0x0d || (last >= 0xd800 && last <= 0xdbff);
    const internals = this.internals;
    // Cutting copies what is kept, so let the buffer run a few slices past the
    // cap between cuts: inside a huge CDATA section that is one copy per
    // 256 KiB read instead of one per slice.
    internals.capText(this.bufferCap + 4 * SLICE, this.bufferCap);
    if (internals.nameLength() > MAX_NAME) {
      throw this.error('an element, attribute or entity name longer than 64 KiB', this.here(0));
    }
    if (internals.attributeCount() > MAX_ATTRIBUTES) {
      throw this.error(`an element with more than ${MAX_ATTRIBUTES} attributes`, this.here(0));
    }
  }

  // ------------------------------------------------------------------ events

  private onRoot(name: string): void {
    this.rootSeen = true;
    this.sax.off('opentagstart');
    // XML 1.1 has other line breaks and character rules; saxes handles those alone.
    this.fastCdata = this.internals.cdataKnown && this.sax.xmlDecl.version !== '1.1';
    this.handler.root(name, this.tagAt ?? this.here(0));
  }

  private onOpen(tag: SaxesTagPlain): void {
    const depth = ++this.depth;
    // saxes keeps a stack of open elements, ignored ones included.
    if (depth > MAX_DEPTH) throw this.error(`elements nested more than ${MAX_DEPTH} deep`, this.here(0));
    this.handler.open(tag, depth);
    this.retarget();
  }

  private onClose(): void {
    this.handler.close(this.depth--);
    this.retarget();
  }

  /** Text handlers are on exactly while the handler keeps the current element's text. */
  private retarget(): void {
    const want = this.handler.textTarget;
    if (want === this.textTarget) return;
    if (want === undefined) {
      this.sax.off('text');
      this.sax.off('cdata');
    } else if (this.textTarget === undefined) {
      this.sax.on('text', this.onText);
      this.sax.on('cdata', this.onText);
    }
    this.textTarget = want;
  }

  private readonly onText = (text: string): void => {
    this.textTarget!.add(text);
  };

  // ------------------------------------------------------------------ errors

  private here(offset: number): Position {
    return { line: this.sax.line, column: this.sax.column + offset };
  }

  /** Turns a saxes well-formedness error into one that says what was expected. */
  private saxError(raw: string): JUnitParseError {
    const message = raw.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    // saxes reports end-of-input problems at the position after the last character.
    const at = this.here(this.atEnd ? 1 : 0);
    const unclosed = /^unclosed tag: (.*)$/.exec(message);
    let reason: string;
    if (unclosed) {
      const where = this.internals.inCdata() ? 'a CDATA section in ' : '';
      reason = `unexpected end of file inside ${where}<${unclosed[1]}>: the report is truncated (was the runner killed before it finished writing?)`;
    } else if (message === 'document must contain a root element') {
      reason = this.started
        ? `no root element: ${this.rootExpected}`
        : `the report is empty: ${this.rootExpected}`;
    } else if (message === 'text data outside of root node') {
      reason = this.rootSeen
        ? 'text after the root element closed: expected the end of the file (were two reports concatenated?)'
        : `text before the root element: ${this.rootExpected}`;
    } else if (message === 'documents may contain only one root') {
      reason = 'a second root element: expected the end of the file (were two reports concatenated?)';
    } else if (message === 'malformed character entity') {
      const entity = this.internals.lastEntity();
      reason = charRefReason(entity, this.sax.xmlDecl.version ?? '1.0');
      // saxes stops after the `;`: point at the `&`.
      if (!entity.includes('\n')) at.column -= Array.from(entity).length + 1;
    } else if (message === 'undefined entity') {
      reason =
        'undefined entity: a JUnit report may only use &amp; &lt; &gt; &quot; &apos; and character references';
    } else if (message === 'inappropriately located doctype declaration') {
      reason = DOCTYPE_REFUSED;
    } else {
      reason = `not well-formed XML: ${message}`;
    }
    return this.error(reason, at);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
