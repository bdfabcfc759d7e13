/**
 * What the mutation probe mutates: for each production file the patch
 * changed, the functions around its changed lines on either revision, and
 * the mutants of each function on both (the same id where the function kept
 * the code). Pure but for the Python parser, which runs in the sandbox.
 */
import type TS from 'typescript';
import type { Change } from '../../git/changes.js';
import type { Hunk } from '../../git/hunks.js';
import { pushAll } from '../../util/arrays.js';
import { byCodePoint } from '../../util/compare.js';
import { chooseMutants, type LineRange, type Mutant } from './mutant.js';
import { type PythonFileMutants, pythonMutants, type RunPythonScript } from './python-mutants.js';
import { functionKeys, mutantsOf, touchedFunctions } from './ts-mutants.js';

const TS_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const PY_FILE = /\.py$/;

export type ProbeLanguage = 'ts' | 'py';

export function probeLanguage(file: string): ProbeLanguage | undefined {
  if (file.endsWith('.d.ts') || file.split('/').includes('node_modules')) return undefined;
  if (TS_FILE.test(file)) return 'ts';
  if (PY_FILE.test(file)) return 'py';
  return undefined;
}

/** A production file of the patch, with both copies and the lines the patch changed in each. */
export interface ProbeFile {
  file: string;
  /** The base's path (a rename's old one); absent for a new file. */
  baseFile?: string;
  lang: ProbeLanguage;
  head: string;
  base?: string;
  headLines: LineRange[];
  baseLines: LineRange[];
}

/** A changed function: its mutants on the head and, where it exists there, on the base. */
export interface ProbeFunction {
  file: string;
  baseFile?: string;
  key: string;
  lang: ProbeLanguage;
  /** Lines of the head the patch changed in it. */
  changed: number[];
  onBase: boolean;
  head: Mutant[];
  /** The base's mutants by id. */
  base: ReadonlyMap<string, Mutant>;
}

/**
 * The lines each side of `file`'s hunks changed: added lines on the head,
 * removed ones on the base. A function that only lost lines is found on the
 * base's side, and probed where the head still has it.
 */
export function changedLines(hunks: readonly Hunk[], file: string): { head: LineRange[]; base: LineRange[] } {
  const head: LineRange[] = [];
  const base: LineRange[] = [];
  for (const h of hunks) {
    if (h.file !== file) continue;
    if (h.newLines > 0) head.push({ start: h.newStart, end: h.newStart + h.newLines - 1 });
    if (h.oldLines > 0) base.push({ start: h.oldStart, end: h.oldStart + h.oldLines - 1 });
  }
  return { head, base };
}

/** The production files of the patch the probe can parse, with the changes that touch them. */
export function probeTargets(
  changes: readonly Change[],
  isTestPath: (p: string) => boolean,
): { file: string; baseFile?: string; lang: ProbeLanguage }[] {
  const out: { file: string; baseFile?: string; lang: ProbeLanguage }[] = [];
  for (const c of changes) {
    if (c.kind === 'deleted' || isTestPath(c.path)) continue;
    const lang = probeLanguage(c.path);
    if (!lang) continue;
    const baseFile = c.kind === 'added' ? undefined : (c.from ?? c.path);
    out.push({ file: c.path, ...(baseFile !== undefined ? { baseFile } : {}), lang });
  }
  return out.sort((a, b) => byCodePoint(a.file, b.file));
}

/** A file whose copy the parser could not read. */
export interface ProbeFileError {
  file: string;
  side: 'base' | 'head';
  error: string;
}

function tsFunctions(ts: typeof TS, f: ProbeFile): ProbeFunction[] {
  const onHead = touchedFunctions(ts, f.head, f.file, f.headLines);
  const onBase =
    f.base !== undefined ? touchedFunctions(ts, f.base, f.baseFile ?? f.file, f.baseLines) : undefined;
  const headKeys = new Set(functionKeys(ts, f.head, f.file));
  const baseKeys = new Set(f.base !== undefined ? functionKeys(ts, f.base, f.baseFile ?? f.file) : []);
  const keys = new Set([
    ...onHead.functions.map((s) => s.key),
    ...(onBase?.functions ?? []).map((s) => s.key),
  ]);
  const out: ProbeFunction[] = [];
  for (const key of keys) {
    if (!headKeys.has(key)) continue; // gone from the head: nothing of it is left to see
    const site = onHead.functions.find((s) => s.key === key);
    const inSite = (l: number) => site !== undefined && site.startLine <= l && l <= site.endLine;
    const base =
      baseKeys.has(key) && f.base !== undefined ? mutantsOf(ts, f.base, f.baseFile ?? f.file, key) : [];
    out.push({
      file: f.file,
      ...(f.baseFile !== undefined ? { baseFile: f.baseFile } : {}),
      key,
      lang: 'ts',
      changed: f.headLines.flatMap((r) => range(r)).filter(inSite),
      onBase: baseKeys.has(key),
      head: mutantsOf(ts, f.head, f.file, key),
      base: new Map(base.map((m) => [m.id, m])),
    });
  }
  return out;
}

const range = (r: LineRange): number[] => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i);

async function pyFunctions(
  files: readonly ProbeFile[],
  run: RunPythonScript,
  errors: ProbeFileError[],
): Promise<ProbeFunction[]> {
  if (files.length === 0) return [];
  const keyOf = (side: 'head' | 'base', i: number) => `${side}:${i}`;
  const first = await pythonMutants(
    files.flatMap((f, i) => [
      { key: keyOf('head', i), text: f.head, changed: f.headLines },
      ...(f.base !== undefined ? [{ key: keyOf('base', i), text: f.base, changed: f.baseLines }] : []),
    ]),
    run,
  );
  const ok = (a: PythonFileMutants | undefined) => (a?.ok ? a : undefined);
  // Functions touched on one side only: their mutants on the other, asked for by name.
  const second = await pythonMutants(
    files.flatMap((f, i) => {
      const h = ok(first.get(keyOf('head', i)));
      const b = ok(first.get(keyOf('base', i)));
      if (!h || f.base === undefined || !b) return [];
      const wantHead = b.touched.filter((k) => !h.mutants.has(k));
      const wantBase = h.touched.filter((k) => !b.mutants.has(k));
      return [
        ...(wantHead.length > 0 ? [{ key: keyOf('head', i), text: f.head, functions: wantHead }] : []),
        ...(wantBase.length > 0 ? [{ key: keyOf('base', i), text: f.base, functions: wantBase }] : []),
      ];
    }),
    run,
  );
  const out: ProbeFunction[] = [];
  files.forEach((f, i) => {
    const h = first.get(keyOf('head', i));
    if (!h?.ok) {
      errors.push({ file: f.file, side: 'head', error: h?.ok === false ? h.error : 'no answer' });
      return;
    }
    const b = f.base !== undefined ? first.get(keyOf('base', i)) : undefined;
    if (b && !b.ok) errors.push({ file: f.baseFile ?? f.file, side: 'base', error: b.error });
    const more = (side: 'head' | 'base') => {
      const a = second.get(keyOf(side, i));
      return a?.ok ? a : undefined;
    };
    const headMutants = new Map([...h.mutants, ...(more('head')?.mutants ?? [])]);
    const headSpans = new Map([...h.spans, ...(more('head')?.spans ?? [])]);
    const baseMutants = b?.ok
      ? new Map([...b.mutants, ...(more('base')?.mutants ?? [])])
      : new Map<string, Mutant[]>();
    const keys = new Set([...h.touched, ...(b?.ok ? b.touched : [])]);
    for (const key of [...keys].sort(byCodePoint)) {
      const head = headMutants.get(key);
      const span = headSpans.get(key);
      if (head === undefined || span === undefined) continue;
      const base = baseMutants.get(key);
      out.push({
        file: f.file,
        ...(f.baseFile !== undefined ? { baseFile: f.baseFile } : {}),
        key,
        lang: 'py',
        changed: f.headLines.flatMap(range).filter((l) => span.start <= l && l <= span.end),
        onBase: base !== undefined,
        head,
        base: new Map((base ?? []).map((m) => [m.id, m])),
      });
    }
  });
  return out;
}

/** Every changed function of `files`, in file then key order, and the copies that could not be parsed. */
export async function planFunctions(
  files: readonly ProbeFile[],
  deps: { ts: () => typeof TS; runPython: RunPythonScript },
): Promise<{ functions: ProbeFunction[]; errors: ProbeFileError[] }> {
  const errors: ProbeFileError[] = [];
  const functions: ProbeFunction[] = [];
  for (const f of files) if (f.lang === 'ts') pushAll(functions, tsFunctions(deps.ts(), f));
  pushAll(
    functions,
    await pyFunctions(
      files.filter((f) => f.lang === 'py'),
      deps.runPython,
      errors,
    ),
  );
  functions.sort((a, b) => byCodePoint(a.file, b.file) || byCodePoint(a.key, b.key));
  return { functions, errors };
}

/** The head's mutants to run, within the budget, and how many were left out. */
export function chooseProbe(
  functions: readonly ProbeFunction[],
  max: number,
): { chosen: Set<string>; skipped: number } {
  const all = functions.flatMap((f) =>
    f.head.map((m) => ({
      ...m,
      function: `${f.file}\u0000${f.key}`,
      // Lines away from the nearest line the patch changed in the function (none: a function that only lost lines).
      distance: f.changed.reduce(
        (d, l) => Math.min(d, Math.abs(l - m.line)),
        f.changed.length === 0 ? 0 : Infinity,
      ),
    })),
  );
  const { chosen, skipped } = chooseMutants(all, max, (m) => m.distance);
  return { chosen: new Set(chosen.map((m) => `${m.function}\u0000${m.id}`)), skipped };
}

/** The key `chooseProbe` gives a mutant of `f`. */
export const probeKey = (f: Pick<ProbeFunction, 'file' | 'key'>, m: Pick<Mutant, 'id'>): string =>
  `${f.file}\u0000${f.key}\u0000${m.id}`;
