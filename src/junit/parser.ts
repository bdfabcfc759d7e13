import { InputError } from '../errors.js';
import { JUnitBuilder, ROOT_EXPECTED } from './builder.js';
import { DEFAULT_MAX_BODY_BYTES, type JUnitReport, type ParseJUnitOptions } from './model.js';
import { XmlFeed } from './xml-feed.js';

/**
 * A push parser: bytes in through `push`, the report out of `end`. The XML
 * feed (xml-feed.ts) reads the bytes and the JUnit builder (builder.ts) makes
 * outcomes of its elements. Memory stays bounded by the size caps whatever
 * the input: only the testcase being read is held, plus the outcomes when no
 * `onTest` callback takes them.
 */
export class JUnitStreamParser {
  private readonly feed: XmlFeed;
  private readonly builder: JUnitBuilder;

  constructor(opts: ParseJUnitOptions = {}) {
    const cap = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!Number.isInteger(cap) || cap < 1) {
      throw new InputError(
        'USAGE',
        `maxBodyBytes must be a positive integer, got ${String(opts.maxBodyBytes)}`,
      );
    }
    this.builder = new JUnitBuilder(opts.file, cap, opts.onTest);
    // One over the cap, so a cut is still visible as "longer than the cap" downstream.
    this.feed = new XmlFeed(
      { file: opts.file, bufferCap: cap + 1, rootExpected: ROOT_EXPECTED },
      this.builder,
    );
  }

  /** Feeds the next bytes of the report. */
  push(bytes: Uint8Array): void {
    this.feed.push(bytes);
  }

  /** Ends the input: checks the document is complete and returns what it said. */
  end(): JUnitReport {
    this.feed.end();
    return this.builder.report();
  }
}
