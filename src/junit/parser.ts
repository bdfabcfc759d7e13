import { TextDecoder } from 'node:util';
import { type SaxesOptions, SaxesParser, type SaxesTagPlain } from 'saxes';
import { InputError, InternalError } from '../errors.js';
import { firstInvalidUtf8, incompleteTail, sniffEncoding } from './decode.js';
import { expectedFailureStatus, skipAsResult, skipIsExpectedFailure } from './dialects.js';
import { charRefReason, JUnitParseError } from './errors.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  type FailureDetail,
  type JUnitReport,
  type OutcomeCounts,
  type ParseJUnitOptions,
  type RetryDetail,
  type SkipDetail,
  type TestOutcome,
  type TestStatus,
} from './model.js';
import {
  attributeVerdict,
  failureKind,
  idPrefix,
  messageFromBody,
  parseTime,
  SUITE_LEVEL_NAME,
  suiteKey,
} from './normalize.js';
import { detach, detachCompact, foldWhitespace, TextCollector, truncateUtf8 } from './text.js';

/**
 * saxes holds the text of the construct it is reading (a CDATA section, a
 * text run, an attribute value, a comment, a DOCTYPE) in one string until the
 * construct ends, so a single 500 MB CDATA section would become a 500 MB
 * string. These are the fields of saxes 6.0.0 (pinned exactly in
 * package.json) that we cap from outside after every slice we feed it; the
 * constructor checks they exist, so an upgrade that renames them fails loudly
 * instead of silently losing the bound. (The CDATA fast path also reads
 * saxes' `state`, and turns itself off if that cannot be read; see
 * `probeCdataState`.)
 */
interface SaxesBuffers {
  text: string;
  name: string;
  entity: string;
  piTarget: string;
  attribList: unknown[];
}

/** The saxes 6.0.0 method that resolves each entity and character reference. */
interface EntityResolver {
  parseEntity(entity: string): string;
}

const resolveEntity = (SaxesParser.prototype as unknown as Partial<EntityResolver>).parseEntity;

/**
 * saxes reports every character reference it refuses as "malformed character
 * entity" without saying which; this keeps the last entity it resolved so the
 * error can name it. A subclass rather than a patched instance: giving a
 * live saxes parser an own parseEntity made the 1.3 MB corpus report parse
 * about 2.5 times slower.
 */
class EntityNamingParser extends (SaxesParser as unknown as new (opts: SaxesOptions) => EntityResolver) {
  /** The text between `&` and `;` of the last entity or character reference. */
  lastEntity = '';

  override parseEntity(entity: string): string {
    this.lastEntity = entity;
    return resolveEntity!.call(this, entity);
  }
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

const SUITE_ELEMENTS = new Set(['testsuite', 'testsuites', 'testrun']);
const ROOT_EXPECTED = 'expected a <testsuites> or <testsuite> root element';

const FOREIGN_ROOTS: Record<string, string> = {
  TestRun: 'a Visual Studio TRX file',
  'test-run': 'an NUnit 3 result file',
  'test-results': 'an NUnit 2 result file',
  assemblies: 'an xUnit.net result file',
  assembly: 'an xUnit.net result file',
  'testng-results': "TestNG's own format; use the JUnit reports TestNG writes under junitreports/",
  Site: 'a CTest dashboard Test.xml; `ctest --output-junit` writes JUnit',
  checkstyle: 'a Checkstyle report',
  coverage: 'a coverage report',
  html: 'an HTML page',
};

type ResultElement =
  | 'failure'
  | 'error'
  | 'skipped'
  | 'rerunFailure'
  | 'rerunError'
  | 'flakyFailure'
  | 'flakyError';

const RESULT_ELEMENTS = new Map<string, ResultElement>([
  ['failure', 'failure'],
  ['error', 'error'],
  ['skipped', 'skipped'],
  ['rerunFailure', 'rerunFailure'],
  ['rerunError', 'rerunError'],
  ['flakyFailure', 'flakyFailure'],
  ['flakyError', 'flakyError'],
]);

interface SuiteFrame {
  depth: number;
  /** Innermost non-empty name, for display. */
  name: string;
  /** The same, as it goes into ids. */
  key: string;
  file: string | undefined;
  /** Playwright project (the suite's hostname), which Playwright itself puts in test names. */
  project: string | undefined;
  /** Result elements placed directly in the suite, outside any testcase. */
  level: CaseState | undefined;
}

interface CaseState {
  depth: number;
  suite: SuiteFrame;
  name: string;
  classname: string;
  file: string | undefined;
  time: string | undefined;
  statusAttr: string | undefined;
  resultAttr: string | undefined;
  /** Whether the testcase has a `failure` attribute (node:test's). */
  failureAttr: boolean;
  /** The result elements so far, one letter each (see `CaseShape.shape`). */
  shape: string;
  failures: FailureDetail[] | undefined;
  hasFailure: boolean;
  hasError: boolean;
  skipped: SkipDetail | undefined;
  xfail: boolean;
  retries: RetryDetail[] | undefined;
  hasRerun: boolean;
  hasFlaky: boolean;
  properties: Record<string, string> | undefined;
}

interface OpenResult {
  depth: number;
  owner: CaseState;
  element: ResultElement;
  type: string | undefined;
  message: string | undefined;
  text: TextCollector;
  /** Depth of an open `<stackTrace>` child (Surefire's reruns put the trace there), else -1. */
  stackDepth: number;
}

interface OpenProperty {
  depth: number;
  owner: CaseState;
  name: string;
  value: string | undefined;
  text: TextCollector | undefined;
}

const NO_FAILURES: readonly FailureDetail[] = Object.freeze([]);

// Skip types that mean "expected to fail, and did": pytest's xfail marker and
// unittest-xml-reporting's expectedFailure.
const XFAIL_TYPES = new Set(['pytest.xfail', 'xfail']);

/**
 * A push parser: bytes in through `push`, the report out of `end`. Memory
 * stays bounded by the size caps whatever the input: only the testcase being
 * read is held, plus the outcomes when no `onTest` callback takes them.
 */
export class JUnitStreamParser {
  private readonly sax: SaxesParser<{ xmlns: false }>;
  private readonly buffers: SaxesBuffers;
  private readonly file: string | undefined;
  private readonly cap: number;
  private readonly bufferCap: number;
  private readonly onTest: ((t: TestOutcome) => void) | undefined;
  private readonly tests: TestOutcome[] = [];
  private readonly counts: OutcomeCounts = {
    tests: 0,
    passed: 0,
    failed: 0,
    error: 0,
    skipped: 0,
    xfailed: 0,
    flaky: 0,
  };

  // Decoding.
  private sniffed: Uint8Array | undefined = new Uint8Array(0);
  private decoder: TextDecoder | undefined;
  private utf8 = false;
  /** Bytes the streaming decoder holds back: the start of a character split across chunks. */
  private pending: Uint8Array = new Uint8Array(0);

  // Document-level state.
  private started = false;
  private rootSeen = false;
  private playwright = false;
  private doctypeAt: { line: number; column: number } | undefined;
  /** Where the last `<` before the root element was: the root's start once it is seen. */
  private tagAt: { line: number; column: number } | undefined;
  private atEnd = false;
  /** Whether CDATA content may bypass saxes (see writeBody). */
  private fastCdata = false;
  private readonly cdataState: number;
  private readonly saxState: { state: number };
  /** The same parser, seen as what it adds to saxes. */
  private readonly named: EntityNamingParser;
  /** saxes holds back a trailing CR or high surrogate until the next write. */
  private carried = false;

  // Element state.
  private depth = 0;
  /** Depth of an element whose whole subtree we skip (system-out, unknown children of results), else 0. */
  private ignoreFrom = 0;
  private readonly suites: SuiteFrame[] = [];
  private tc: CaseState | undefined;
  private res: OpenResult | undefined;
  private prop: OpenProperty | undefined;
  private textTarget: TextCollector | undefined;
  private readonly caseState: CaseState = newCase(
    -1,
    { depth: 0, name: '', key: '', file: undefined, project: undefined, level: undefined },
    {},
  );
  private lastClassname = '';
  private lastClassnameFolded = '';
  private lastSuite: SuiteFrame | undefined;
  private lastIdPrefix = '';
  private lastFile = '';
  private lastFileDetached = '';

  constructor(opts: ParseJUnitOptions = {}) {
    this.file = opts.file;
    const cap = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!Number.isInteger(cap) || cap < 1) {
      throw new InputError(
        'USAGE',
        `maxBodyBytes must be a positive integer, got ${String(opts.maxBodyBytes)}`,
      );
    }
    this.cap = cap;
    // One over the cap, so a cut is still visible as "longer than the cap" downstream.
    this.bufferCap = cap + 1;
    this.onTest = opts.onTest;

    if (typeof resolveEntity !== 'function') {
      throw new InternalError('saxes internals changed: the JUnit parser can no longer name bad references');
    }
    const sax = new EntityNamingParser({ xmlns: false, position: true });
    this.named = sax;
    this.sax = sax as unknown as SaxesParser<{ xmlns: false }>;
    const buffers = this.sax as unknown as Partial<SaxesBuffers>;
    if (
      typeof buffers.text !== 'string' ||
      typeof buffers.name !== 'string' ||
      typeof buffers.entity !== 'string' ||
      typeof buffers.piTarget !== 'string' ||
      !Array.isArray(buffers.attribList)
    ) {
      throw new InternalError('saxes internals changed: the JUnit parser can no longer bound its memory');
    }
    this.buffers = buffers as SaxesBuffers;
    this.saxState = this.sax as unknown as { state: number };
    this.cdataState = probeCdataState();

    this.sax.on('error', (err) => {
      throw this.saxError(err.message);
    });
    this.sax.on('doctype', () => {
      const at = this.doctypeAt ?? { line: this.sax.line, column: this.sax.column };
      throw this.error('DOCTYPE declarations are not allowed in JUnit reports (XXE protection)', at);
    });
    this.sax.on('opentagstart', (tag) => this.onRoot(tag.name));
    this.sax.on('opentag', (tag) => this.onOpen(tag));
    this.sax.on('closetag', () => this.onClose());
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

  /** Ends the input: checks the document is complete and returns what it said. */
  end(): JUnitReport {
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
    return { tests: this.tests, counts: this.counts };
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
      if (!this.carried && this.saxState.state === this.cdataState) pos = this.skipCdata(piece, pos);
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
    const b = this.buffers;
    if (b.text.length > 0) {
      this.textTarget?.add(b.text);
      b.text = '';
    }
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
    const b = this.buffers;
    // Cutting copies what is kept, so let the buffer run a few slices past the
    // cap between cuts: inside a huge CDATA section that is one copy per
    // 256 KiB read instead of one per slice.
    if (b.text.length > this.bufferCap + 4 * SLICE) b.text = b.text.slice(0, this.bufferCap);
    if (b.name.length > MAX_NAME || b.entity.length > MAX_NAME || b.piTarget.length > MAX_NAME) {
      throw this.error('an element, attribute or entity name longer than 64 KiB', this.here(0));
    }
    if (b.attribList.length > MAX_ATTRIBUTES) {
      throw this.error(`an element with more than ${MAX_ATTRIBUTES} attributes`, this.here(0));
    }
  }

  // ------------------------------------------------------------------ errors

  private here(offset: number): { line: number; column: number } {
    return { line: this.sax.line, column: this.sax.column + offset };
  }

  private error(reason: string, at: { line: number; column: number }): JUnitParseError {
    return new JUnitParseError(reason, { file: this.file, line: at.line, column: at.column });
  }

  /** Turns a saxes well-formedness error into one that says what was expected. */
  private saxError(raw: string): JUnitParseError {
    const message = raw.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    // saxes reports end-of-input problems at the position after the last character.
    const at = this.here(this.atEnd ? 1 : 0);
    const unclosed = /^unclosed tag: (.*)$/.exec(message);
    let reason: string;
    if (unclosed) {
      const where = this.saxState.state === this.cdataState ? 'a CDATA section in ' : '';
      reason = `unexpected end of file inside ${where}<${unclosed[1]}>: the report is truncated (was the runner killed before it finished writing?)`;
    } else if (message === 'document must contain a root element') {
      reason = this.started ? `no root element: ${ROOT_EXPECTED}` : `the report is empty: ${ROOT_EXPECTED}`;
    } else if (message === 'text data outside of root node') {
      reason = this.rootSeen
        ? 'text after the root element closed: expected the end of the file (were two reports concatenated?)'
        : `text before the root element: ${ROOT_EXPECTED}`;
    } else if (message === 'documents may contain only one root') {
      reason = 'a second root element: expected the end of the file (were two reports concatenated?)';
    } else if (message === 'malformed character entity') {
      const entity = this.named.lastEntity;
      reason = charRefReason(entity, this.sax.xmlDecl.version ?? '1.0');
      // saxes stops after the `;`: point at the `&`.
      if (!entity.includes('\n')) at.column -= Array.from(entity).length + 1;
    } else if (message === 'undefined entity') {
      reason =
        'undefined entity: a JUnit report may only use &amp; &lt; &gt; &quot; &apos; and character references';
    } else if (message === 'inappropriately located doctype declaration') {
      reason = 'DOCTYPE declarations are not allowed in JUnit reports (XXE protection)';
    } else {
      reason = `not well-formed XML: ${message}`;
    }
    return this.error(reason, at);
  }

  // ------------------------------------------------------------------ elements

  private onRoot(name: string): void {
    this.rootSeen = true;
    this.sax.off('opentagstart');
    // XML 1.1 has other line breaks and character rules; saxes handles those alone.
    this.fastCdata = this.cdataState >= 0 && this.sax.xmlDecl.version !== '1.1';
    if (SUITE_ELEMENTS.has(name)) return;
    const at = this.tagAt ?? this.here(0);
    const hint = FOREIGN_ROOTS[name];
    throw this.error(`${ROOT_EXPECTED}, found <${name}>${hint ? ` (this looks like ${hint})` : ''}`, at);
  }

  private onOpen(tag: SaxesTagPlain): void {
    const depth = ++this.depth;
    // saxes keeps a stack of open elements, ignored ones included.
    if (depth > MAX_DEPTH) throw this.error(`elements nested more than ${MAX_DEPTH} deep`, this.here(0));
    if (this.ignoreFrom !== 0) return;
    const name = tag.name;
    const res = this.res;
    if (res !== undefined) {
      if (name === 'stackTrace' && depth === res.depth + 1) res.stackDepth = depth;
      else this.ignore(depth);
      return;
    }
    if (this.prop !== undefined) {
      this.ignore(depth);
      return;
    }
    const tc = this.tc;
    if (tc !== undefined) {
      const element = RESULT_ELEMENTS.get(name);
      if (element !== undefined) this.openResult(element, tag.attributes, depth, tc);
      else if (name === 'property') this.openProperty(tag.attributes, depth, tc);
      else if (name === 'system-out' || name === 'system-err') this.ignore(depth);
      // Anything else inside a testcase (<properties>, unknown wrappers) is
      // transparent: a failure wrapped in an unexpected element still counts.
      return;
    }
    if (name === 'testcase') {
      this.openCase(tag.attributes, depth);
      return;
    }
    if (SUITE_ELEMENTS.has(name)) {
      // Playwright's reporter writes <testsuites id="..."> (empty unless configured);
      // its suites' hostname is then the project name, not a machine.
      if (depth === 1 && name === 'testsuites' && tag.attributes.id !== undefined) this.playwright = true;
      this.openSuite(tag.attributes, depth);
      return;
    }
    if (name === 'system-out' || name === 'system-err' || name === 'properties') {
      this.ignore(depth);
      return;
    }
    const element = RESULT_ELEMENTS.get(name);
    if (element === 'failure' || element === 'error' || element === 'skipped') {
      const suite = this.suites[this.suites.length - 1]!;
      suite.level ??= newCase(-1, suite, {});
      this.openResult(element, tag.attributes, depth, suite.level);
    }
    // Other unknown elements between suites are transparent too.
  }

  private onClose(): void {
    const depth = this.depth--;
    if (this.ignoreFrom !== 0) {
      if (depth === this.ignoreFrom) {
        this.ignoreFrom = 0;
        this.retarget();
      }
      return;
    }
    const res = this.res;
    if (res !== undefined) {
      if (depth === res.depth) this.closeResult(res);
      else if (depth === res.stackDepth) res.stackDepth = -1;
      return;
    }
    const prop = this.prop;
    if (prop !== undefined) {
      if (depth === prop.depth) this.closeProperty(prop);
      return;
    }
    const tc = this.tc;
    if (tc !== undefined) {
      if (depth === tc.depth) {
        this.tc = undefined;
        this.emit(tc, false);
      }
      return;
    }
    const suite = this.suites[this.suites.length - 1];
    if (suite !== undefined && depth === suite.depth) {
      this.suites.pop();
      if (suite.level !== undefined) this.emit(suite.level, true);
    }
  }

  private ignore(depth: number): void {
    this.ignoreFrom = depth;
    this.retarget();
  }

  /**
   * saxes only builds text strings while a text handler is set, so handlers
   * are on exactly while we are inside an element whose text we keep: the
   * megabytes of system-out in a large report are never turned into strings.
   */
  private retarget(): void {
    const want = this.ignoreFrom !== 0 ? undefined : (this.res?.text ?? this.prop?.text);
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

  private openSuite(attrs: Record<string, string>, depth: number): void {
    const parent = this.suites[this.suites.length - 1];
    const raw = attrs.name;
    const folded = raw === undefined ? '' : foldWhitespace(raw);
    const name = folded === '' ? (parent?.name ?? '') : detach(folded);
    const key = folded === '' ? (parent?.key ?? '') : detach(suiteKey(name));
    const file = attrs.file !== undefined && attrs.file !== '' ? detach(attrs.file) : parent?.file;
    const host = attrs.hostname;
    const project =
      this.playwright && host !== undefined && host !== '' ? detach(foldWhitespace(host)) : parent?.project;
    this.suites.push({ depth, name, key, file, project, level: undefined });
  }

  private openCase(attrs: Record<string, string>, depth: number): void {
    // One testcase is open at a time, so its state object is reused: reports
    // have millions of testcases and this is a hot path.
    this.tc = resetCase(this.caseState, depth, this.suites[this.suites.length - 1]!, attrs);
  }

  private openResult(
    element: ResultElement,
    attrs: Record<string, string>,
    depth: number,
    owner: CaseState,
  ): void {
    this.res = {
      depth,
      owner,
      element,
      type: attrs.type,
      message: attrs.message,
      text: new TextCollector(this.cap),
      stackDepth: -1,
    };
    this.retarget();
  }

  private closeResult(res: OpenResult): void {
    this.res = undefined;
    this.retarget();
    const owner = res.owner;
    const body = res.text.take(this.cap).trim();
    let truncated = res.text.truncated;
    const attr = res.message;
    let message: string;
    if (attr !== undefined && attr !== '') {
      message = truncateUtf8(attr, this.cap);
      if (message.length !== attr.length) truncated = true;
    } else {
      message = res.element === 'skipped' ? body : messageFromBody(body);
    }
    switch (res.element) {
      case 'failure':
      case 'error': {
        const kind = failureKind(res.type ?? '', message, body, res.element);
        addFailure(owner, res.element, kind, message, body, truncated);
        owner.shape += res.element === 'error' ? 'e' : 'f';
        return;
      }
      case 'skipped': {
        const type = res.type === undefined ? '' : foldWhitespace(res.type);
        // Suite-level skips are never a runner's other result.
        const as = owner.depth < 0 ? undefined : skipAsResult(type, attr, owner.statusAttr);
        if (as !== undefined) {
          addFailure(owner, as.element, as.kind, message, body, truncated);
          owner.shape += 'x';
          return;
        }
        owner.shape += 's';
        if (owner.skipped !== undefined) return;
        owner.skipped =
          type === '' ? { message: detach(message) } : { type: detach(type), message: detach(message) };
        owner.xfail =
          XFAIL_TYPES.has(type.toLowerCase()) || (owner.depth >= 0 && skipIsExpectedFailure(type, attr));
        return;
      }
      default: {
        const isError = res.element === 'rerunError' || res.element === 'flakyError';
        const base = isError ? 'error' : 'failure';
        owner.retries ??= [];
        owner.retries.push({
          status: isError ? 'error' : 'failed',
          kind: detach(failureKind(res.type ?? '', message, body, base)),
          message: detach(message),
        });
        if (res.element.startsWith('rerun')) owner.hasRerun = true;
        else owner.hasFlaky = true;
        owner.shape += 'r';
      }
    }
  }

  private openProperty(attrs: Record<string, string>, depth: number, owner: CaseState): void {
    const name = attrs.name;
    if (name === undefined) {
      this.ignore(depth);
      return;
    }
    const value = attrs.value;
    this.prop = {
      depth,
      owner,
      name,
      value,
      text: value === undefined ? new TextCollector(this.cap) : undefined,
    };
    this.retarget();
  }

  private closeProperty(prop: OpenProperty): void {
    this.prop = undefined;
    this.retarget();
    const value =
      prop.value !== undefined ? truncateUtf8(prop.value, this.cap) : prop.text!.take(this.cap).trim();
    prop.owner.properties ??= {};
    prop.owner.properties[detach(prop.name)] = detach(value);
  }

  // ------------------------------------------------------------------ outcomes

  private emit(c: CaseState, suiteLevel: boolean): void {
    const suite = c.suite;
    let classname = '';
    let name = '';
    let id: string;
    if (suiteLevel) {
      id = suite.key === '' ? SUITE_LEVEL_NAME : `${suite.key}::${SUITE_LEVEL_NAME}`;
    } else {
      // Consecutive testcases almost always share a suite and classname, so
      // the id up to the name is built once per run of them.
      if (c.classname !== this.lastClassname || suite !== this.lastSuite) {
        this.lastClassname = c.classname;
        this.lastSuite = suite;
        this.lastClassnameFolded = detach(foldWhitespace(c.classname));
        this.lastIdPrefix = idPrefix(suite.key, this.lastClassnameFolded, suite.project);
      }
      classname = this.lastClassnameFolded;
      // One flat copy holds the id, and the name is a view on its end: neither
      // pins the decoded chunk the name attribute was cut from.
      const prefix = this.lastIdPrefix;
      id = detach(prefix + foldWhitespace(c.name));
      name = prefix.length === 0 ? id : id.slice(prefix.length);
    }

    let status: TestStatus;
    let skipped = c.skipped;
    const props = c.properties;
    const expected = suiteLevel ? undefined : expectedFailureStatus(c);
    if (expected !== undefined) status = expected;
    else if (c.hasError) status = 'error';
    else if (c.hasFailure) status = 'failed';
    else if (skipped !== undefined) {
      status = c.xfail ? 'xfailed' : 'skipped';
      if (skipped.message === '' && suite.project !== undefined && props !== undefined) {
        const reason = props.skip ?? props.fixme;
        if (reason !== undefined) skipped = { ...skipped, message: reason };
      }
    } else if (c.hasRerun) status = 'failed';
    else {
      const verdict = attributeVerdict(c.statusAttr, c.resultAttr);
      if (verdict !== undefined) {
        status = verdict.status;
        if (verdict.status === 'skipped') skipped = { type: verdict.type, message: '' };
      } else if (c.hasFlaky) status = 'flaky';
      else if (suite.project !== undefined && props?.fail !== undefined) {
        status = 'xfailed';
        skipped = { type: 'fail', message: props.fail };
      } else status = 'passed';
    }

    const outcome: TestOutcome = {
      id,
      suite: suite.name,
      classname,
      name,
      status,
      failures: c.failures ?? NO_FAILURES,
    };
    let file = suite.file;
    if (c.file !== undefined && c.file !== '') {
      // pytest and others repeat the same file on every testcase.
      if (c.file !== this.lastFile) {
        this.lastFile = c.file;
        this.lastFileDetached = detach(c.file);
      }
      file = this.lastFileDetached;
    }
    if (file !== undefined) outcome.file = file;
    if (skipped !== undefined) outcome.skipped = skipped;
    if (c.retries !== undefined) outcome.retries = c.retries;
    const time = parseTime(c.time);
    if (time !== undefined) outcome.time = time;
    if (props !== undefined) outcome.properties = props;

    const counts = this.counts;
    counts.tests++;
    switch (status) {
      case 'passed':
        counts.passed++;
        break;
      case 'failed':
        counts.failed++;
        break;
      case 'error':
        counts.error++;
        break;
      case 'skipped':
        counts.skipped++;
        break;
      case 'xfailed':
        counts.xfailed++;
        break;
      case 'flaky':
        counts.flaky++;
        break;
    }
    if (this.onTest !== undefined) this.onTest(outcome);
    else this.tests.push(outcome);
  }
}

let cdataStateProbed: number | undefined;

/**
 * The number saxes uses for "inside a CDATA section", read off a throwaway
 * parser rather than assumed, so a saxes that numbers its states differently
 * turns the CDATA fast path off instead of misreading documents.
 */
function probeCdataState(): number {
  if (cdataStateProbed !== undefined) return cdataStateProbed;
  const state = (p: SaxesParser) => (p as unknown as { state: unknown }).state;
  const text = new SaxesParser();
  text.write('<a>x');
  const cdata = new SaxesParser();
  cdata.write('<a><![CDATA[x');
  const inside = state(cdata);
  cdata.write(']]>');
  const valid = typeof inside === 'number' && inside !== state(text) && inside !== state(cdata);
  cdataStateProbed = valid ? inside : -1;
  return cdataStateProbed;
}

function addFailure(
  owner: CaseState,
  element: 'failure' | 'error',
  kind: string,
  message: string,
  body: string,
  truncated: boolean,
): void {
  const detail: FailureDetail = {
    kind: detach(kind),
    message: detachCompact(message),
    body: detachCompact(body),
  };
  if (truncated) detail.truncated = true;
  owner.failures ??= [];
  owner.failures.push(detail);
  if (element === 'error') owner.hasError = true;
  else owner.hasFailure = true;
}

function newCase(depth: number, suite: SuiteFrame, attrs: Record<string, string>): CaseState {
  return resetCase({} as CaseState, depth, suite, attrs);
}

function resetCase(c: CaseState, depth: number, suite: SuiteFrame, attrs: Record<string, string>): CaseState {
  c.depth = depth;
  c.suite = suite;
  c.name = attrs.name ?? '';
  c.classname = attrs.classname ?? '';
  c.file = attrs.file;
  c.time = attrs.time;
  c.statusAttr = attrs.status;
  c.resultAttr = attrs.result;
  c.failureAttr = attrs.failure !== undefined;
  c.shape = '';
  c.failures = undefined;
  c.hasFailure = false;
  c.hasError = false;
  c.skipped = undefined;
  c.xfail = false;
  c.retries = undefined;
  c.hasRerun = false;
  c.hasFlaky = false;
  c.properties = undefined;
  return c;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
