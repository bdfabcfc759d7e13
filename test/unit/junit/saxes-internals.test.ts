import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../../src/errors.js';
import {
  checkInternals,
  openSaxes,
  probeCdataState,
  type SaxesWithInternals,
} from '../../../src/junit/saxes-internals.js';

// What the XML feed relies on in saxes' private state, pinned one field at a
// time: an upgrade of saxes that renames or repurposes any of them fails here
// rather than silently unbounding memory or misplacing CDATA text.

function fed(xml: string): { internals: SaxesWithInternals; errors: string[] } {
  const internals = openSaxes();
  const errors: string[] = [];
  internals.sax.on('error', (err) => errors.push(err.message));
  internals.sax.write(xml);
  return { internals, errors };
}

describe('saxes internals the XML feed reads', () => {
  it('knows saxes 6 numbers a CDATA state apart from text', () => {
    expect(fed('<a>x').internals.cdataKnown).toBe(true);
    expect(fed('<a>x').internals.inCdata()).toBe(false);
    expect(fed('<a><![CDATA[x').internals.inCdata()).toBe(true);
    expect(fed('<a><![CDATA[x]]>').internals.inCdata()).toBe(false);
    expect(fed('<a><!-- <![CDATA[ x').internals.inCdata()).toBe(false);
  });

  it('takes the CDATA text saxes has read so far, and saxes goes on from nothing', () => {
    const { internals } = fed('<a><![CDATA[held');
    let cdata = '';
    internals.sax.on('cdata', (t) => {
      cdata += t;
    });
    expect(internals.takeText()).toBe('held');
    expect(internals.takeText()).toBe('');
    internals.sax.write(' rest]]></a>');
    expect(cdata).toBe(' rest');
  });

  it('cuts the held text only once it passes the threshold', () => {
    const { internals } = fed(`<a><![CDATA[${'z'.repeat(100)}`);
    internals.capText(100, 10);
    expect(internals.takeText()).toHaveLength(100);
    internals.sax.write('z'.repeat(101));
    internals.capText(100, 10);
    expect(internals.takeText()).toBe('z'.repeat(10));
  });

  it('holds attribute values and comments in the same text field', () => {
    expect(fed('<a b="valu').internals.takeText()).toBe('valu');
    expect(fed('<a><!-- comm').internals.takeText()).toBe(' comm');
  });

  it('measures the element, attribute, entity and PI-target names being read', () => {
    expect(fed(`<${'n'.repeat(300)}`).internals.nameLength()).toBe(300);
    expect(fed(`<a ${'b'.repeat(300)}`).internals.nameLength()).toBe(300);
    expect(fed(`<a>&${'e'.repeat(300)}`).internals.nameLength()).toBe(300);
    expect(fed(`<?${'p'.repeat(300)}`).internals.nameLength()).toBe(300);
  });

  it("counts the open tag's attributes so far", () => {
    expect(fed('<a b="1" c="2" d').internals.attributeCount()).toBe(2);
    expect(fed('<a b="1"></a><c ').internals.attributeCount()).toBe(0);
  });

  it('names the reference saxes refused as malformed', () => {
    const { internals, errors } = fed('<a>&#27;');
    expect(errors.map((m) => m.replace(/^\d+:\d+: /, ''))).toEqual(['malformed character entity.']);
    expect(internals.lastEntity()).toBe('#27');
    expect(fed('<a>&amp;&#x1F600;').internals.lastEntity()).toBe('#x1F600');
  });

  it('refuses, as an internal error, a saxes without the entity resolver or the buffers', () => {
    const fields = { text: '', name: '', entity: '', piTarget: '', attribList: [] };
    const refusal = (parser: object, resolver: unknown) => {
      try {
        checkInternals(parser, resolver);
      } catch (err) {
        expect(err).toBeInstanceOf(InternalError);
        return [(err as InternalError).code, (err as Error).message];
      }
      return undefined;
    };
    expect(refusal(fields, () => '')).toBeUndefined();
    expect(refusal(fields, undefined)).toEqual([
      'INTERNAL_ERROR',
      'saxes internals changed: the JUnit parser can no longer name bad references',
    ]);
    const { attribList: _, ...noList } = fields;
    expect(refusal(noList, () => '')).toEqual([
      'INTERNAL_ERROR',
      'saxes internals changed: the JUnit parser can no longer bound its memory',
    ]);
    expect(refusal({ ...fields, text: undefined }, () => '')).toEqual([
      'INTERNAL_ERROR',
      'saxes internals changed: the JUnit parser can no longer bound its memory',
    ]);
  });

  it('turns the CDATA fast path off when the CDATA state cannot be told apart', () => {
    expect(probeCdataState(() => new SaxesParser())).toBeGreaterThanOrEqual(0);
    expect(probeCdataState(() => ({ write: () => undefined }))).toBe(-1);
    const oneState = () => ({ state: 7, write: () => undefined });
    expect(probeCdataState(oneState)).toBe(-1);
  });

  it('is the only JUnit module that reaches into saxes', () => {
    const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/junit');
    const reaching = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) =>
        /SaxesParser\b[^;]*as unknown|attribList|parseEntity|\.state\b/.test(
          fs.readFileSync(path.join(dir, f), 'utf8'),
        ),
      );
    expect(reaching).toEqual(['saxes-internals.ts']);
  });
});
