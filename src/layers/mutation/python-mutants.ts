/**
 * Mutants of the Python functions a patch touched: `patchgate_mutants.py`
 * reads each file with Python's own `ast` in the sandbox (the gate never
 * parses Python itself) and finds the sites by the TypeScript rules; the ids
 * are given here, as for TypeScript, so both languages name a mutant alike.
 * An answer that is not what the script writes is that file's error, never
 * an empty list of mutants.
 */
import { z } from 'zod';
import { shippedPythonFile } from '../../util/package-root.js';
import { type LineRange, MUTATION_OPERATORS, type Mutant, type MutationOperator, withIds } from './mutant.js';

export const PYTHON_MUTANTS_PATH: string = shippedPythonFile('patchgate_mutants.py');

/** Runs the script on `texts` (key → source) with `settings`; `parsePythonTexts` bound to a sandbox. */
export type RunPythonScript = (
  texts: ReadonlyMap<string, string>,
  settings: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

export interface PythonFileRequest {
  key: string;
  text: string;
  /** The lines the patch changed on this side: the functions around them are found and mutated. */
  changed?: readonly LineRange[];
  /** Or these functions' mutants, by key (the other side's touched functions). */
  functions?: readonly string[];
}

export type PythonFileMutants =
  | {
      ok: true;
      touched: string[];
      outside: number[];
      /** Per function asked for and found (touched, or named): its mutants, and its first and last line. */
      mutants: Map<string, Mutant[]>;
      spans: Map<string, LineRange>;
    }
  | { ok: false; error: string };

const raw = z.object({
  operator: z.enum(MUTATION_OPERATORS as [MutationOperator, ...MutationOperator[]]),
  line: z.number().int().min(1),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  replacement: z.string(),
  original: z.string(),
  mutated: z.string(),
});
const fileAnswer = z.union([
  z.object({
    touched: z.array(z.string()),
    outside: z.array(z.number().int()),
    mutants: z.record(z.string(), z.array(raw)),
    spans: z.record(z.string(), z.tuple([z.number().int().min(1), z.number().int().min(1)])),
  }),
  z.object({ error: z.string() }),
]);

export async function pythonMutants(
  files: readonly PythonFileRequest[],
  run: RunPythonScript,
): Promise<Map<string, PythonFileMutants>> {
  const out = new Map<string, PythonFileMutants>();
  if (files.length === 0) return out;
  const changed: Record<string, number[][]> = {};
  const functions: Record<string, string[]> = {};
  for (const f of files) {
    if (f.changed) changed[f.key] = f.changed.map((r) => [r.start, r.end]);
    if (f.functions) functions[f.key] = [...f.functions];
  }
  const answer = await run(new Map(files.map((f) => [f.key, f.text])), { changed, functions });
  for (const f of files) {
    const parsed = fileAnswer.safeParse(answer[f.key]);
    if (!parsed.success) {
      out.set(f.key, { ok: false, error: 'the mutant finder gave no readable answer for it' });
      continue;
    }
    const a = parsed.data;
    if ('error' in a) {
      out.set(f.key, { ok: false, error: a.error });
      continue;
    }
    const bad = Object.values(a.mutants)
      .flat()
      .find(
        (m) => m.end < m.start || m.end > f.text.length || f.text.slice(m.start, m.end) === m.replacement,
      );
    if (bad) {
      out.set(f.key, {
        ok: false,
        error: `the mutant finder gave an edit outside the file (${bad.start}..${bad.end})`,
      });
      continue;
    }
    const mutants = new Map(Object.entries(a.mutants).map(([fn, list]) => [fn, withIds(fn, list, f.text)]));
    const missing = [...mutants.keys()].find((k) => a.spans[k] === undefined);
    if (missing !== undefined) {
      out.set(f.key, { ok: false, error: `the mutant finder gave no lines for the function ${missing}` });
      continue;
    }
    const spans = new Map(Object.entries(a.spans).map(([fn, [start, end]]) => [fn, { start, end }]));
    out.set(f.key, { ok: true, touched: a.touched, outside: a.outside, mutants, spans });
  }
  return out;
}
