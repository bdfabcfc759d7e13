import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type JsonNode,
  JsonSyntaxError,
  type ParseJsonOptions,
  parseJson,
  parseJsonValue,
  parseJsonValueSliced,
  toPlainValue,
} from '../../../src/json/parse.js';
import { document, mutatedDocument, stringifiedValue } from '../../helpers/json-arbitraries.js';

/**
 * The plain-value reader must be the tree reader plus `toPlainValue`, with
 * the same errors at the same places: one grammar, two outputs.
 */

type Outcome = { value: unknown } | { error: string; line: number; column: number; offset: number };

function outcome(read: () => unknown): Outcome {
  try {
    return { value: read() };
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    return { error: err.message, line: err.line, column: err.column, offset: err.offset };
  }
}

const MODES: ParseJsonOptions[] = [
  { duplicateKeys: 'error' },
  { duplicateKeys: 'keep' },
  { duplicateKeys: 'keep', allowNonFinite: true },
];

function sameAsTree(doc: string, options: ParseJsonOptions): void {
  const tree = outcome(() => toPlainValue(parseJson(doc, options)));
  const plain = outcome(() => parseJsonValue(doc, options).value);
  expect(plain, JSON.stringify(doc)).toStrictEqual(tree);
}

/** An always-due budget: the parser stops after every value and must resume exactly where it was. */
const EVERY_STEP = { due: () => true };

function sliced(doc: string, options: ParseJsonOptions): { value: unknown; yields: number } {
  const it = parseJsonValueSliced(doc, options, EVERY_STEP as never);
  let yields = 0;
  for (;;) {
    const step = it.next();
    if (step.done) return { value: step.value.value, yields };
    yields++;
  }
}

describe('parseJsonValue: the same value and errors as the tree', () => {
  for (const options of MODES) {
    const mode = JSON.stringify(options);
    it(`on built documents (${mode})`, () => {
      fc.assert(
        fc.property(document, (doc) => sameAsTree(doc, options)),
        { numRuns: 400 },
      );
    });
    it(`on documents with a random edit (${mode})`, () => {
      fc.assert(
        fc.property(mutatedDocument, (doc) => sameAsTree(doc, options)),
        { numRuns: 600 },
      );
    });
    it(`on fast-check's JSON values (${mode})`, () => {
      fc.assert(
        fc.property(stringifiedValue, (doc) => sameAsTree(doc, options)),
        { numRuns: 200 },
      );
    });
  }

  it('resumes where it stopped when its budget is due after every value', () => {
    fc.assert(
      fc.property(fc.oneof(document, mutatedDocument), (doc) => {
        const options: ParseJsonOptions = { duplicateKeys: 'error' };
        expect(outcome(() => sliced(doc, options).value)).toStrictEqual(
          outcome(() => parseJsonValue(doc, options).value),
        );
      }),
      { numRuns: 400 },
    );
    expect(sliced('[1, [2, 3], {"a": 4}]', {}).yields).toBeGreaterThan(3);
  });

  it('keeps "__proto__" as data, last duplicate in the first one\'s place', () => {
    const { value } = parseJsonValue('{"__proto__": {"polluted": 1}, "b": 1, "b": 2, "a": 3}');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(['__proto__', 'b', 'a']);
    expect(value).toStrictEqual(
      toPlainValue(parseJson('{"__proto__": {"polluted": 1}, "b": 1, "b": 2, "a": 3}')),
    );
  });

  it('finds a duplicate written with an escape, also behind a later raw one', () => {
    // "a\u0062" and "ab" are one key; the first key is read again from behind the cursor.
    const err = outcome(() => parseJsonValue('{"a\\u0062": 1, "ab": 2}', { duplicateKeys: 'error' }));
    expect(err).toMatchObject({
      error: 'duplicate key "ab" (first defined at line 1, column 2) (line 1, column 16)',
    });
  });

  it('tells apart keys Python tells apart though JavaScript reads them as one', () => {
    // An escaped high surrogate joins an escaped low one; before a raw low one Python keeps two lone surrogates.
    const joined = '"\\ud800\\udc00"';
    const split = '"\\ud800\udc00"';
    const doc = `{${joined}: 1, ${split}: 2}`;
    expect(parseJsonValue(doc, { duplicateKeys: 'error' }).value).toStrictEqual({ '\ud800\udc00': 2 });
    // Once the object's identities are tracked, a real duplicate is still found, with the first one's place.
    expect(
      outcome(() => parseJsonValue(`{${joined}: 1, ${split}: 2, ${joined}: 3}`, { duplicateKeys: 'error' })),
    ).toStrictEqual(
      outcome(() => parseJson(`{${joined}: 1, ${split}: 2, ${joined}: 3}`, { duplicateKeys: 'error' })),
    );
  });
});

/** Every path of a tree with the position of its value and, for members, of its key. Last duplicate wins. */
function treePositions(root: JsonNode): Map<string, { path: PropertyKey[]; value: string; key?: string }> {
  const out = new Map<string, { path: PropertyKey[]; value: string; key?: string }>();
  const at = (l: { line: number; column: number }) => `${l.line}:${l.column}`;
  const walk = (node: JsonNode, path: PropertyKey[], key?: string) => {
    out.set(JSON.stringify(path), { path, value: at(node.loc), ...(key ? { key } : {}) });
    if (node.type === 'array') for (const [i, item] of node.items.entries()) walk(item, [...path, i]);
    if (node.type === 'object') {
      const last = new Map(node.entries.map((e) => [e.key, e]));
      for (const e of last.values()) walk(e.value, [...path, e.key], at(e.keyLoc));
    }
  };
  walk(root, []);
  return out;
}

describe('JsonPositions', () => {
  it('locates every value and key where the tree has them', () => {
    fc.assert(
      fc.property(fc.oneof(document, stringifiedValue), (doc) => {
        let root: JsonNode;
        try {
          root = parseJson(doc, { duplicateKeys: 'keep' });
        } catch {
          return;
        }
        const { positions } = parseJsonValue(doc, { duplicateKeys: 'keep' });
        for (const { path, value, key } of treePositions(root).values()) {
          const v = positions.locate(path, false);
          expect(`${v?.line}:${v?.column}`, JSON.stringify({ doc, path })).toBe(value);
          const k = positions.locate(path, true);
          expect(`${k?.line}:${k?.column}`, JSON.stringify({ doc, path })).toBe(key ?? value);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers nothing for paths that are not in the document', () => {
    const { positions } = parseJsonValue('{"a": [1, {"b": 2}], "1": 0}');
    expect(positions.locate(['a', 5], false)).toBeUndefined();
    expect(positions.locate(['a', '0'], false)).toBeUndefined();
    expect(positions.locate([1], false)).toBeUndefined();
    expect(positions.locate(['a', 0, 'x'], false)).toBeUndefined();
    expect(positions.locate(['missing'], true)).toBeUndefined();
    expect(positions.locate(['a', 1, 'b'], true)).toEqual({ line: 1, column: 12 });
  });

  it('indexes each container once, however many lookups go through it', () => {
    // The old locator copied and searched an object's entries on every lookup: quadratic over a lock's keys.
    const n = 5000;
    const files: Record<string, { sha256: string }> = {};
    for (let i = 0; i < n; i++) files[`testdata/f${i}.bin`] = { sha256: `${i}` };
    const { positions } = parseJsonValue(
      JSON.stringify({ files, rows: Array.from({ length: n }, (_, i) => i) }, null, 1),
    );
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < n; i++) {
        expect(positions.locate(['files', `testdata/f${i}.bin`, 'sha256'], false)?.line).toBe(3 + 3 * i + 1);
        expect(positions.locate(['rows', i], false)).toBeDefined();
      }
    }
    // The root's 2 members, the lock's n keys, each entry's 1, the list's n items.
    expect(positions.indexed).toBe(2 + n + n + n);
  });

  it('indexes in slices when asked to prepare a lookup', () => {
    const text = JSON.stringify({ rows: Array.from({ length: 3000 }, (_, i) => i) });
    const { positions } = parseJsonValue(text);
    const prepared = positions.prepare(['rows', 2999], EVERY_STEP);
    let yields = 0;
    while (!prepared.next().done) yields++;
    expect(yields).toBeGreaterThan(2000);
    const before = positions.indexed;
    expect(positions.locate(['rows', 2999], false)).toEqual({
      line: 1,
      column: text.lastIndexOf('2999') + 1,
    });
    expect(positions.indexed).toBe(before);
  });
});

describe('keysOf', () => {
  const big = (keys: string[]) => `{${keys.map((k, i) => `${JSON.stringify(k)}: ${i}`).join(', ')}}`;
  const many = Array.from({ length: 1500 }, (_, i) => `k${i}`);

  it("is the object's own keys, kept from the parse for a large object", () => {
    const { value, keysOf } = parseJsonValue(big(many), { duplicateKeys: 'error' });
    expect(keysOf(value as object)).toEqual(Object.keys(value as object));
    expect(keysOf(value as object)).toBe(keysOf(value as object));
  });

  it('is Object.keys whenever the kept list would differ from it', () => {
    // Index-like keys are listed first by JavaScript, in numeric order.
    const withIndexes = [...many, '7', '0'];
    const a = parseJsonValue(big(withIndexes), { duplicateKeys: 'error' });
    expect(a.keysOf(a.value as object)).toEqual(Object.keys(a.value as object));
    expect(a.keysOf(a.value as object).slice(0, 2)).toEqual(['0', '7']);
    // Duplicates (kept in 'keep' mode) are one property.
    const b = parseJsonValue(big([...many, 'k3']), { duplicateKeys: 'keep' });
    expect(b.keysOf(b.value as object)).toEqual(Object.keys(b.value as object));
    // Keys Python tells apart but JavaScript does not.
    const c = parseJsonValue(`{"\\ud800\\udc00": 0, "\\ud800\udc00": 1, ${big(many).slice(1)}`, {
      duplicateKeys: 'error',
    });
    expect(c.keysOf(c.value as object)).toEqual(Object.keys(c.value as object));
  });
});
