import { describe, expect, it } from 'vitest';
import type { Hunk } from '../../../../src/git/hunks.js';
import {
  changedLines,
  chooseProbe,
  planFunctions,
  probeKey,
  probeLanguage,
  probeTargets,
} from '../../../../src/layers/mutation/plan.js';
import { requireTypescript } from '../../../../src/util/typescript.js';

const hunk = (
  file: string,
  oldStart: number,
  oldLines: number,
  newStart: number,
  newLines: number,
): Hunk => ({
  file,
  oldStart,
  oldLines,
  newStart,
  newLines,
  added: [],
  removed: [],
});

const noPython = async () => {
  throw new Error('no Python file here');
};

describe('the mutation probe’s plan', () => {
  it('takes added lines on the head and removed lines on the base, never the neighbours of an insertion', () => {
    expect(
      changedLines([hunk('a.ts', 3, 0, 4, 2), hunk('a.ts', 9, 2, 10, 0), hunk('b.ts', 1, 1, 1, 1)], 'a.ts'),
    ).toEqual({
      head: [{ start: 4, end: 5 }],
      base: [{ start: 9, end: 10 }],
    });
  });

  it('probes production files it can parse, by their head path, with the base path of a rename', () => {
    const isTest = (p: string) => p.startsWith('tests/');
    expect(
      probeTargets(
        [
          { kind: 'modified', path: 'src/b.py' },
          { kind: 'renamed', path: 'src/new.ts', from: 'src/old.ts' },
          { kind: 'added', path: 'src/c.js' },
          { kind: 'deleted', path: 'src/gone.ts' },
          { kind: 'modified', path: 'tests/test_b.py' },
          { kind: 'modified', path: 'README.md' },
          { kind: 'modified', path: 'types/x.d.ts' },
        ],
        isTest,
      ),
    ).toEqual([
      { file: 'src/b.py', baseFile: 'src/b.py', lang: 'py' },
      { file: 'src/c.js', lang: 'ts' },
      { file: 'src/new.ts', baseFile: 'src/old.ts', lang: 'ts' },
    ]);
    expect(probeLanguage('node_modules/x/index.js')).toBeUndefined();
  });

  it('pairs the same mutant on both revisions where the function kept the code, and only there', async () => {
    const base =
      'export function total(xs: number[]) {\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}\n';
    const head =
      'export function total(xs: number[]) {\n  let t = 0;\n  for (const x of xs) t += x;\n  return Math.max(t, 3);\n}\n';
    const { functions, errors } = await planFunctions(
      [
        {
          file: 'src/t.ts',
          baseFile: 'src/t.ts',
          lang: 'ts',
          head,
          base,
          headLines: [{ start: 4, end: 4 }],
          baseLines: [{ start: 4, end: 4 }],
        },
      ],
      { ts: requireTypescript, runPython: noPython },
    );
    expect(errors).toEqual([]);
    expect(functions).toHaveLength(1);
    const f = functions[0];
    expect(f?.changed).toEqual([4]);
    const dropped = f?.head.find((m) => m.operator === 'drop-statement');
    expect(dropped && f?.base.has(dropped.id)).toBe(true);
    const headReturn = f?.head.find((m) => m.operator === 'constant-return');
    expect(headReturn && f?.base.has(headReturn.id)).toBe(false);
  });

  it('a function the patch added is not on the base; one it deleted is not probed at all', async () => {
    const base = 'export function gone() {\n  return 1;\n}\n';
    const head = 'export function fresh() {\n  return 2;\n}\n';
    const { functions } = await planFunctions(
      [
        {
          file: 'src/t.ts',
          baseFile: 'src/t.ts',
          lang: 'ts',
          head,
          base,
          headLines: [{ start: 1, end: 3 }],
          baseLines: [{ start: 1, end: 3 }],
        },
      ],
      { ts: requireTypescript, runPython: noPython },
    );
    expect(functions.map((f) => [f.key, f.onBase, f.base.size])).toEqual([['fresh', false, 0]]);
  });

  it('keeps to the budget, one function in turn, and counts the rest', async () => {
    const head = Array.from(
      { length: 3 },
      (_, i) => `export function f${i}(a: number) {\n  return a > ${i} && a < 9;\n}\n`,
    ).join('');
    const { functions } = await planFunctions(
      [{ file: 'src/t.ts', lang: 'ts', head, headLines: [{ start: 1, end: 9 }], baseLines: [] }],
      { ts: requireTypescript, runPython: noPython },
    );
    const all = functions.reduce((n, f) => n + f.head.length, 0);
    const { chosen, skipped } = chooseProbe(functions, 4);
    expect(chosen.size).toBe(4);
    expect(skipped).toBe(all - 4);
    // Every function has one before any has a second.
    for (const f of functions) expect(f.head.some((m) => chosen.has(probeKey(f, m)))).toBe(true);
    expect(chooseProbe(functions, 4).chosen).toEqual(chosen);
  });
});
