import { describe, expect, it } from 'vitest';
import {
  parseJsonDocument,
  parseJsonDocumentSliced,
  parseYamlDocument,
  validateDocument,
  validateDocumentSliced,
} from '../../../src/config/documents.js';
import { fixtureLockSchema } from '../../../src/contracts/fixture-lock.js';
import type { SliceBudget } from '../../../src/util/time-slice.js';
import { problemLines } from '../../helpers/problems.js';

const ALWAYS_DUE = { due: () => true } as unknown as SliceBudget;

function drain<T>(it: Generator<undefined, T, undefined>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const step = it.next();
    if (step.done) return { value: step.value, yields };
    yields++;
  }
}

const SHA = 'e3b0c44298fc1c149afbf4c8996fb924'.repeat(2);
const N = 3000;

/** A lock as `patchgate lock` writes it: entry i's key is on line 4 + 4i. */
function lockText(sha: (i: number) => string = () => SHA): string {
  const files: Record<string, { sha256: string; owner: string }> = {};
  for (let i = 0; i < N; i++) files[`testdata/f${i}.json`] = { sha256: sha(i), owner: 'o' };
  return `${JSON.stringify({ override_token_env: 'FIXTURE_OVERRIDE', files }, null, 2)}\n`;
}

describe('locating fields is linear in the size of the document', () => {
  it('JSON: each container is indexed once, however many lookups go through it', () => {
    const doc = parseJsonDocument(lockText(), 'FIXTURE_LOCK.json', 'CONTRACT_INVALID');
    for (let i = 0; i < N; i++) {
      expect(doc.locate(['files', `testdata/f${i}.json`], true)).toEqual({ line: 4 + 4 * i, column: 5 });
      expect(doc.locate(['files', `testdata/f${i}.json`, 'owner'], false)?.line).toBe(6 + 4 * i);
    }
    // The root's 2 members, the N files, each file's 2 fields: nothing read twice.
    expect(doc.indexed()).toBe(2 + N + 2 * N);
  });

  it('YAML: each map is indexed once, however many lookups go through it', () => {
    const lines = ['hits:', '  operators:'];
    for (let i = 0; i < N; i++) lines.push(`    f${i}: {ops: [num.inc]}`);
    const doc = parseYamlDocument(`${lines.join('\n')}\n`, 'patchgate.config.yaml', 'CONFIG_INVALID');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < N; i++) {
        expect(doc.locate(['hits', 'operators', `f${i}`], true)).toEqual({ line: 3 + i, column: 5 });
      }
    }
    expect(doc.indexed()).toBe(1 + 1 + N);
  });
});

describe('a document read in slices', () => {
  it('is the same document, and the same problems, as one read in one go', () => {
    const bad = lockText((i) => (i % 500 === 7 ? SHA.toUpperCase() : SHA));
    const slicedDoc = drain(
      parseJsonDocumentSliced(bad, 'FIXTURE_LOCK.json', 'CONTRACT_INVALID', ALWAYS_DUE),
    );
    expect(slicedDoc.yields).toBeGreaterThan(N);
    const oneGo = parseJsonDocument(bad, 'FIXTURE_LOCK.json', 'CONTRACT_INVALID');
    expect(slicedDoc.value.value).toStrictEqual(oneGo.value);

    let expected: unknown;
    try {
      validateDocument(fixtureLockSchema, oneGo, 'FIXTURE_LOCK.json', 'CONTRACT_INVALID');
    } catch (err) {
      expected = err;
    }
    const lines = problemLines(expected, 'CONTRACT_INVALID');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(
      'FIXTURE_LOCK.json:33:17: files.testdata/f7.json.sha256: expected a SHA-256 digest (64 lowercase hex characters), but it has uppercase letters.',
    );
    const validating = validateDocumentSliced(
      fixtureLockSchema,
      slicedDoc.value,
      'FIXTURE_LOCK.json',
      'CONTRACT_INVALID',
      ALWAYS_DUE,
    );
    expect(() => drain(validating)).toThrow(expected as Error);
    try {
      drain(
        validateDocumentSliced(
          fixtureLockSchema,
          slicedDoc.value,
          'FIXTURE_LOCK.json',
          'CONTRACT_INVALID',
          ALWAYS_DUE,
        ),
      );
    } catch (err) {
      expect(problemLines(err)).toEqual(lines);
    }
  });

  it('reports a syntax error as one located problem', () => {
    const it = parseJsonDocumentSliced('{\n  "a": [1,\n}', 'x.json', 'CONTRACT_INVALID', ALWAYS_DUE);
    expect(() => drain(it)).toThrow(/x\.json:3:1: is not valid JSON: expected a JSON value after ','/);
  });
});

describe('YAML aliases toJS will not expand', () => {
  const problemsOf = (text: string) => {
    try {
      parseYamlDocument(text, 'patchgate.config.yaml', 'CONFIG_INVALID');
    } catch (err) {
      return problemLines(err, 'CONFIG_INVALID');
    }
    throw new Error('expected the YAML to be rejected');
  };

  it('an alias bomb is one located problem, not an internal error', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [prev, name] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
    ]) {
      levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    expect(problemsOf(`${levels.join('\n')}\n`)).toEqual([
      'patchgate.config.yaml:2:8: is not valid YAML for patchgate: its aliases expand to more than 100 copies of anchored values, the shape of an alias bomb, so write the values out instead.',
    ]);
  });

  it('an alias used before its anchor is one located problem', () => {
    expect(problemsOf('a: *later\nb: &later 1\n')).toEqual([
      'patchgate.config.yaml:1:4: is not valid YAML: the alias *later comes before its anchor &later is set.',
    ]);
  });

  it('a few aliases are fine', () => {
    const doc = parseYamlDocument('a: &x [1, 2]\nb: *x\nc: *x\n', 'patchgate.config.yaml', 'CONFIG_INVALID');
    expect(doc.value).toEqual({ a: [1, 2], b: [1, 2], c: [1, 2] });
  });
});
