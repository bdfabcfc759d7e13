import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_OPERATORS,
  countMutants,
  formatPath,
  generateMutants,
  isUnder,
  type JsonPath,
  lookupPath,
  type Mutant,
  type Operator,
  parsePath,
  resolveOperator,
  SKIP,
  scoreClaims,
} from '../../../../../src/layers/hits/perturb/index.js';

/*
 * The oracles here are deliberately naive and independent of the engine:
 * recursion, sorted-key JSON text for equality, and whole-tree rebuilds.
 */

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** JSON text with sorted keys: two values are the same JSON when their texts match. */
function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
const sameJson = (a: unknown, b: unknown): boolean => canon(a) === canon(b);

/** A rebuilt copy of `root` with the value at `path` replaced (test oracle, recursive). */
function replaceAt(root: unknown, path: JsonPath, value: unknown): unknown {
  const [seg, ...rest] = path;
  if (seg === undefined) return value;
  if (Array.isArray(root)) return root.map((x, i) => (i === seg ? replaceAt(x, rest, value) : x));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(root as object)) {
    const child = (root as Record<string, unknown>)[k];
    Object.defineProperty(out, k, {
      value: k === seg ? replaceAt(child, rest, value) : child,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function allFrozen(v: unknown): boolean {
  if (!isObj(v)) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.keys(v).every((k) => allFrozen(v[k]));
}

/** Every non-root path down to maxDepth, pre-order, keys by code point. */
function preorder(v: unknown, maxDepth: number, prefix: (string | number)[] = []): JsonPath[] {
  if (prefix.length >= maxDepth || !isObj(v)) return [];
  const keys: (string | number)[] = Array.isArray(v)
    ? v.map((_, i) => i)
    : Object.keys(v).sort((a, b) => {
        const x = [...a].map((c) => c.codePointAt(0) as number);
        const y = [...b].map((c) => c.codePointAt(0) as number);
        for (let i = 0; i < Math.min(x.length, y.length); i++)
          if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
        return x.length - y.length;
      });
  return keys.flatMap((k) => {
    const p = [...prefix, k];
    return [p, ...preorder((v as Record<string | number, unknown>)[k], maxDepth, p)];
  });
}

const valueAt = (root: unknown, path: JsonPath): unknown => {
  const r = lookupPath(root, path);
  if (!r.found) throw new Error(`no value at ${formatPath(path)}`);
  return r.value;
};

const fixtures = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }));
const depths = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(Number.POSITIVE_INFINITY));

const declarative: fc.Arbitrary<Operator> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => resolveOperator({ set: v })),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((n) => n !== 0)
    .map((n) => resolveOperator({ add: n })),
  fc.jsonValue({ maxDepth: 2 }).map((v) => resolveOperator({ append: v })),
);
const anyOperator = fc.oneof(fc.constantFrom(...BUILTIN_OPERATORS), declarative);

describe('operators (properties)', () => {
  it('never return a value equal to their input, never mutate it, and freeze what they return', () => {
    fc.assert(
      fc.property(anyOperator, fc.jsonValue({ maxDepth: 3 }), (op, input) => {
        const before = structuredClone(input);
        const out = op.apply(input);
        expect(input).toStrictEqual(before);
        if (out === SKIP) return;
        expect(sameJson(out, input)).toBe(false);
        if (isObj(out)) expect(Object.isFrozen(out)).toBe(true);
        // A result is always JSON again (no NaN, no Infinity, no undefined).
        expect(sameJson(JSON.parse(JSON.stringify(out)), out)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('skip every kind of value they do not declare', () => {
    fc.assert(
      fc.property(anyOperator, fc.jsonValue({ maxDepth: 2 }), (op, input) => {
        const kind = input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input;
        if (!(op.appliesTo as readonly string[]).includes(kind)) expect(op.apply(input)).toBe(SKIP);
      }),
      { numRuns: 500 },
    );
  });

  it('are deterministic', () => {
    fc.assert(
      fc.property(anyOperator, fc.jsonValue({ maxDepth: 3 }), (op, input) => {
        expect(op.apply(input)).toStrictEqual(op.apply(input));
      }),
    );
  });
});

describe('JSON paths (properties)', () => {
  const segment = fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.nat({ max: 1_000_000 }));
  const paths = fc.array(segment, { minLength: 1, maxLength: 6 });

  it('round-trip through formatPath and parsePath', () => {
    fc.assert(
      fc.property(paths, (p) => {
        const text = formatPath(p);
        expect(parsePath(text)).toEqual(p);
        expect(formatPath(parsePath(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('put a path under each of its prefixes and under no longer or different path', () => {
    fc.assert(
      fc.property(paths, segment, (p, extra) => {
        const text = formatPath(p);
        for (let n = 1; n <= p.length; n++) expect(isUnder(text, formatPath(p.slice(0, n)))).toBe(true);
        expect(isUnder(text, formatPath([...p, extra]))).toBe(false);
        const last = p[p.length - 1] as string | number;
        const other = typeof last === 'number' ? String(last) : `${last}X`;
        expect(isUnder(text, formatPath([...p.slice(0, -1), other]))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('never accept text with a broken bracket or dot', () => {
    fc.assert(
      fc.property(paths, fc.constantFrom('[', '.', '["', '[0', ']', '..'), (p, junk) => {
        expect(() => parsePath(formatPath(p) + junk)).toThrow();
      }),
    );
  });
});

describe('mutants (copy-on-write properties)', () => {
  it('leave the fixture unchanged and change each mutant exactly at its path', () => {
    fc.assert(
      fc.property(fixtures, depths, (fixture, maxDepth) => {
        const before = structuredClone(fixture);
        const mutants = [...generateMutants(fixture, { maxDepth })];
        expect(fixture).toStrictEqual(before);
        expect(countMutants(fixture, { maxDepth })).toBe(mutants.length);

        for (const m of mutants) {
          expect(m.paths).toHaveLength(1);
          expect(m.operators).toHaveLength(1);
          const path = parsePath(m.paths[0] as string);
          expect(path.length).toBeLessThanOrEqual(maxDepth);
          const original = valueAt(fixture, path);
          const changed = valueAt(m.value, path);
          expect(sameJson(changed, original)).toBe(false);
          // Put the original value back and the mutant is the fixture again.
          expect(canon(replaceAt(m.value, path, original))).toBe(canon(before));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('share every untouched subtree with the fixture and copy the containers on the path', () => {
    fc.assert(
      fc.property(fixtures, depths, (fixture, maxDepth) => {
        for (const m of generateMutants(fixture, { maxDepth })) {
          const path = parsePath(m.paths[0] as string);
          let orig: unknown = fixture;
          let mut: unknown = m.value;
          for (const seg of path) {
            expect(mut).not.toBe(orig);
            const o = orig as Record<string | number, unknown>;
            const n = mut as Record<string | number, unknown>;
            expect(Object.keys(n)).toEqual(Object.keys(o));
            for (const k of Object.keys(o)) {
              if (k !== String(seg)) expect(n[k]).toBe(o[k]);
            }
            orig = o[seg];
            mut = n[seg];
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('are deeply frozen, as is the fixture after generation', () => {
    fc.assert(
      fc.property(fixtures, depths, (fixture, maxDepth) => {
        for (const m of generateMutants(fixture, { maxDepth })) expect(allFrozen(m.value)).toBe(true);
        expect(allFrozen(fixture)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('come in a fixed order: pre-order paths, built-in operators in list order', () => {
    const order = BUILTIN_OPERATORS.map((o) => o.name);
    fc.assert(
      fc.property(fixtures, depths, (fixture, maxDepth) => {
        const ms = [...generateMutants(fixture, { maxDepth })];
        const label = (m: Mutant) => `${m.paths.join()}|${m.operators.join()}`;
        expect([...generateMutants(structuredClone(fixture), { maxDepth })].map(label)).toEqual(
          ms.map(label),
        );

        const expectedPaths = preorder(fixture, maxDepth)
          .map((p) => formatPath(p))
          .filter((text) => ms.some((m) => m.paths[0] === text));
        const seen = ms.map((m) => m.paths[0]).filter((t, i, all) => i === 0 || all[i - 1] !== t);
        expect(seen).toEqual(expectedPaths);
        for (const text of expectedPaths) {
          const ops = ms.filter((m) => m.paths[0] === text).map((m) => m.operators[0] as string);
          expect(ops).toEqual([...ops].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
          expect(new Set(ops).size).toBe(ops.length);
        }
        // Every path that has a changing operator is listed; none is left out.
        for (const p of preorder(fixture, maxDepth)) {
          const v = valueAt(fixture, p);
          const applicable = BUILTIN_OPERATORS.filter((op) => op.apply(v) !== SKIP).length;
          expect(ms.filter((m) => m.paths[0] === formatPath(p))).toHaveLength(applicable);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('interactions (properties)', () => {
  const objects = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { minKeys: 2, maxKeys: 5 });

  it('add exactly |ops A| × |ops B| two-path mutants with both changes and nothing else', () => {
    fc.assert(
      fc.property(objects, (fixture) => {
        const [ka, kb] = Object.keys(fixture) as [string, string];
        const a = formatPath([ka]);
        const b = formatPath([kb]);
        const single = [...generateMutants(fixture, { maxDepth: 1 })];
        const opsA = single.filter((m) => m.paths[0] === a);
        const opsB = single.filter((m) => m.paths[0] === b);
        const all = [...generateMutants(fixture, { maxDepth: 1, interactions: [[a, b]] })];
        const pairs = all.slice(single.length);
        expect(all.slice(0, single.length).map((m) => m.operators)).toEqual(single.map((m) => m.operators));
        expect(pairs).toHaveLength(opsA.length * opsB.length);
        expect(countMutants(fixture, { maxDepth: 1, interactions: [[a, b]] })).toBe(all.length);
        pairs.forEach((m, i) => {
          const x = opsA[Math.floor(i / opsB.length)] as Mutant;
          const y = opsB[i % opsB.length] as Mutant;
          expect(m.paths).toEqual([a, b]);
          expect(m.operators).toEqual([x.operators[0], y.operators[0]]);
          const v = m.value as Record<string, unknown>;
          // The same change as the single-path mutant (an equal value; containers are rebuilt per mutant).
          expect(v[ka]).toStrictEqual((x.value as Record<string, unknown>)[ka]);
          expect(v[kb]).toStrictEqual((y.value as Record<string, unknown>)[kb]);
          for (const k of Object.keys(fixture)) if (k !== ka && k !== kb) expect(v[k]).toBe(fixture[k]);
          expect(allFrozen(v)).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('claims (properties)', () => {
  const segs = fc.array(fc.oneof(fc.constantFrom('a', 'b', 'ab', 'a.b'), fc.nat({ max: 3 })), {
    minLength: 1,
    maxLength: 3,
  });
  const pathTexts = fc.array(segs.map(formatPath), { maxLength: 6 });

  it('agree with the definition: a claim is true iff some hit is under it', () => {
    fc.assert(
      fc.property(pathTexts, pathTexts, (claims, hits) => {
        const { false_claims, unclaimed_hits } = scoreClaims(claims, hits);
        const expectFalse = [...new Set(claims)].filter((c) => !hits.some((h) => isUnder(h, c)));
        const expectUnclaimed = [...new Set(hits)].filter((h) => !claims.some((c) => isUnder(h, c)));
        expect([...false_claims].sort()).toEqual(expectFalse.sort());
        expect([...unclaimed_hits].sort()).toEqual(expectUnclaimed.sort());
        // Every hit is claimed when the hits are claimed verbatim.
        expect(scoreClaims(hits, hits)).toEqual({ false_claims: [], unclaimed_hits: [] });
      }),
      { numRuns: 500 },
    );
  });
});
