import { type SaxesOptions, SaxesParser } from 'saxes';
import { InternalError } from '../errors.js';

/**
 * The one place that reads saxes' private state. saxes' public API has no
 * size limits, no way to tell which character reference it refused, and no
 * "inside a CDATA section" signal; the XML feed needs all three:
 *
 * - memory bounds: saxes holds the construct it is reading (a CDATA
 *   section, a comment, an attribute value, a name, an entity, a PI target,
 *   an element's attributes) in a field until the construct ends, so a
 *   500 MB CDATA section would become a 500 MB string unless it is cut from
 *   outside between writes;
 * - the CDATA fast path (bench/junit): knowing saxes is inside a CDATA
 *   section, and taking what it has read of it so far;
 * - error wording: saxes says "malformed character entity" without saying
 *   which, and bats writes ESC as `&#27;`.
 *
 * These are fields and a method of saxes 6.0.0, pinned exactly in
 * package.json. `openSaxes` checks they are there and throws InternalError
 * when they are not, so an upgrade that renames them fails loudly rather
 * than silently losing a bound; test/unit/junit/saxes-internals.test.ts pins
 * what each one means. Line and column are public (and writable) in saxes'
 * typings, so moving them is not in here.
 */
export interface SaxesWithInternals {
  /** The parser, for everything its public API does. */
  readonly sax: SaxesParser<{ xmlns: false }>;
  /** The text between `&` and `;` of the last entity or character reference saxes resolved. */
  lastEntity(): string;
  /** Whether the CDATA fast path may run: false when saxes' state numbering could not be read. */
  readonly cdataKnown: boolean;
  /** Whether saxes is inside a CDATA section (false whenever `cdataKnown` is). */
  inCdata(): boolean;
  /** The text saxes holds of the construct it is reading, handed over and cleared. */
  takeText(): string;
  /** Cuts the text saxes holds to `keep` units once it is longer than `over`. */
  capText(over: number, keep: number): void;
  /** The length of the longest name saxes is holding (element, attribute, entity or PI target). */
  nameLength(): number;
  /** How many attributes of the open tag saxes has read so far. */
  attributeCount(): number;
}

/** saxes 6.0.0's private fields the feed bounds or reads. */
interface SaxesPrivate {
  text: string;
  name: string;
  entity: string;
  piTarget: string;
  attribList: unknown[];
  state: number;
  parseEntity(entity: string): string;
}

const saxesPrototype = SaxesParser.prototype as unknown as Partial<SaxesPrivate>;
const resolveEntity = saxesPrototype.parseEntity;

/**
 * A subclass rather than a patched instance: giving a live saxes parser an
 * own parseEntity made the 1.3 MB corpus report parse about 2.5 times slower.
 * The other accessors live here too so that every instance has one shape.
 */
class InternalsParser extends (SaxesParser as unknown as new (opts: SaxesOptions) => SaxesPrivate) {
  entityText = '';
  readonly cdataKnown: boolean;
  private readonly cdataState: number;

  constructor(cdataState: number) {
    super({ xmlns: false, position: true });
    this.cdataState = cdataState;
    this.cdataKnown = cdataState >= 0;
  }

  override parseEntity(entity: string): string {
    this.entityText = entity;
    return resolveEntity!.call(this, entity);
  }

  get sax(): SaxesParser<{ xmlns: false }> {
    return this as unknown as SaxesParser<{ xmlns: false }>;
  }

  lastEntity(): string {
    return this.entityText;
  }

  inCdata(): boolean {
    return this.state === this.cdataState;
  }

  takeText(): string {
    const text = this.text;
    if (text.length > 0) this.text = '';
    return text;
  }

  capText(over: number, keep: number): void {
    if (this.text.length > over) this.text = this.text.slice(0, keep);
  }

  nameLength(): number {
    return Math.max(this.name.length, this.entity.length, this.piTarget.length);
  }

  attributeCount(): number {
    return this.attribList.length;
  }
}

/** A saxes parser (no namespaces, positions on) with the accessors above; throws InternalError when saxes' internals are not what they were. */
export function openSaxes(): SaxesWithInternals {
  if (cdataStateProbed === undefined) cdataStateProbed = probeCdataState(() => new SaxesParser());
  const parser = new InternalsParser(cdataStateProbed);
  checkInternals(parser, resolveEntity);
  return parser as unknown as SaxesWithInternals;
}

/** Throws InternalError unless `parser` has the private fields above and saxes the entity resolver the subclass wraps. */
export function checkInternals(parser: object, entityResolver: unknown): void {
  if (typeof entityResolver !== 'function') {
    throw new InternalError('saxes internals changed: the JUnit parser can no longer name bad references');
  }
  const p = parser as Partial<SaxesPrivate>;
  if (
    typeof p.text !== 'string' ||
    typeof p.name !== 'string' ||
    typeof p.entity !== 'string' ||
    typeof p.piTarget !== 'string' ||
    !Array.isArray(p.attribList)
  ) {
    throw new InternalError('saxes internals changed: the JUnit parser can no longer bound its memory');
  }
}

let cdataStateProbed: number | undefined;

/**
 * The number saxes uses for "inside a CDATA section", read off throwaway
 * parsers rather than assumed, so a saxes that numbers its states differently
 * turns the CDATA fast path off (-1) instead of misreading documents.
 */
export function probeCdataState(make: () => { write(chunk: string): unknown }): number {
  const state = (p: object) => (p as { state?: unknown }).state;
  const text = make();
  text.write('<a>x');
  const cdata = make();
  cdata.write('<a><![CDATA[x');
  const inside = state(cdata);
  cdata.write(']]>');
  const valid = typeof inside === 'number' && inside !== state(text) && inside !== state(cdata);
  return valid ? inside : -1;
}
