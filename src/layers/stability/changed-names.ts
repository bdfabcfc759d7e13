/**
 * Which names of a modified Python module the patch changed, and whether
 * the files a test loads mention any of them. A test that loads a changed
 * module runs the change only by reaching one of the changed definitions,
 * and Python code reaches a definition by its name: an import, an
 * attribute, a string handed to getattr. So a test whose import closure never
 * mentions a changed name cannot run it, and the probe need not rerun it.
 *
 * What counts as a definition judged by its name, and what makes the whole
 * module changed, is decided by `patchgate_changed_names.py` from both
 * copies' syntax trees (read with Python's own `ast` in the sandbox). Here
 * the mention test is by words of the raw text (names, attributes, strings,
 * comments alike: more mentions than there are, never fewer); a file that
 * reaches attributes by computed names (`getattr(x, name)`, `vars()`,
 * `import *` …) mentions every name.
 */
import type TS from 'typescript';
import { shippedPythonFile } from '../../util/package-root.js';

export const PYTHON_CHANGED_NAMES_PATH: string = shippedPythonFile('patchgate_changed_names.py');

/** Per modified module: the changed top-level names (none: only formatting changed), or why it changed whole. */
export type ModuleChange = { names: string[] } | { whole: string };

/** Sends the copies (keys `b\u241f<path>`, `h\u241f<path>`) and the module list to the sandboxed script. */
export type DiffPython = (
  texts: ReadonlyMap<string, string>,
  modules: readonly string[],
) => Promise<Record<string, unknown>>;

const SEP = '\u241f';

function asChange(v: unknown): ModuleChange {
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.names) && o.names.every((n) => typeof n === 'string'))
      return { names: o.names as string[] };
    if (typeof o.whole === 'string') return { whole: o.whole };
  }
  return { whole: 'the comparison of its copies gave no answer' };
}

/** The changes of `modules` (each present on both sides); a module the script could not judge is whole. */
export async function changedNames(
  modules: readonly { path: string; base: string; head: string }[],
  diff: DiffPython,
): Promise<Map<string, ModuleChange>> {
  const out = new Map<string, ModuleChange>();
  if (modules.length === 0) return out;
  const texts = new Map<string, string>();
  for (const m of modules) {
    texts.set(`b${SEP}${m.path}`, m.base);
    texts.set(`h${SEP}${m.path}`, m.head);
  }
  const answer = await diff(
    texts,
    modules.map((m) => m.path),
  );
  for (const m of modules) out.set(m.path, asChange(answer[m.path]));
  return out;
}

const WORD = /[\p{L}_][\p{L}\p{N}_]*/gu;
/** Ways Python code reaches an attribute or a global without writing its name. */
const COMPUTED = new Set([
  'getattr',
  'hasattr',
  '__getattribute__',
  '__dict__',
  'vars',
  'globals',
  'locals',
  'eval',
  'exec',
  'attrgetter',
  'methodcaller',
  'import_module',
  '__import__',
  'getmembers',
]);
const STAR_IMPORT = /\bimport\s*\*/;

/** What one file mentions: its words, or every word. */
export interface Mentions {
  any: boolean;
  words: ReadonlySet<string>;
}

/**
 * `from m import a, b` only binds names: code that runs a, b names them again,
 * so the statement itself is no use of them. One with `as` binds another
 * name, and is kept (its words count).
 */
const FROM_IMPORT = /^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|(?:[^\\\n]|\\[\s\S])*)/gm;

/** `__all__ = [...]` lists names for `import *` (which counts as computed anyway): no use of them. */
const ALL_LIST = /^__all__\s*(?::[^=\n]*)?[+]?=\s*[[(][^\])]*[\])]/gm;

export function mentionsOf(file: string, text: string): Mentions {
  const code = file.endsWith('.py')
    ? text.replace(FROM_IMPORT, (m) => (/\bas\b/.test(m) ? m : '')).replace(ALL_LIST, '')
    : text;
  const words = new Set(code.match(WORD) ?? []);
  const any = STAR_IMPORT.test(text) || [...COMPUTED].some((w) => words.has(w));
  return { any, words };
}

/** The first of `names` the file mentions; `computed`: it may reach any of them by a computed name. */
export function mentioned(
  m: Mentions,
  names: readonly string[],
): { name: string; computed: boolean } | undefined {
  const name = names.find((n) => m.words.has(n));
  if (name !== undefined) return { name, computed: false };
  const first = names[0];
  return m.any && first !== undefined ? { name: first, computed: true } : undefined;
}

/**
 * Whether a JavaScript or TypeScript module's two copies run the same code:
 * each is transpiled as the runners' transpilers do (types, type-only
 * imports and comments erased) and printed by the compiler's printer, which
 * lays code out its own way. Equal prints: the patch changed formatting,
 * comments or types only. Anything the transpiler or the printer cannot
 * handle counts as changed.
 */
export function sameRuntimeCode(ts: typeof TS, file: string, base: string, head: string): boolean {
  if (base === head) return true;
  try {
    const print = (text: string) => {
      const js = ts.transpileModule(text, {
        fileName: file,
        reportDiagnostics: false,
        compilerOptions: {
          target: ts.ScriptTarget.ESNext,
          module: ts.ModuleKind.ESNext,
          jsx: ts.JsxEmit.Preserve,
          removeComments: true,
          sourceMap: false,
        },
      }).outputText;
      const source = ts.createSourceFile('module.js', js, ts.ScriptTarget.ESNext, false, ts.ScriptKind.JS);
      return ts.createPrinter({ removeComments: true }).printFile(source);
    };
    return print(base) === print(head);
  } catch {
    return false;
  }
}
