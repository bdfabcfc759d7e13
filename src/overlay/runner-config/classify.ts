/**
 * Which of the files a configuration loads are the runner's instruments and
 * which are code. A module a `vitest.config.ts` imports, or the one file a
 * test-only alias (`test.alias`, jest's `moduleNameMapper`) points at, is
 * an instrument only if it is the runner's alone: a file that production
 * code or a test imports by path, that the package names as an entry, that
 * a `tsconfig` path maps to, or that itself imports production code (an
 * alias that makes `src/index.ts` importable by name) is code, and code
 * stays the head's: taking it from the base would hide the head's change
 * from the base's tests.
 */
import path from 'node:path';
import type TS from 'typescript';
import { importCandidates } from '../../util/import-candidates.js';
import type { Candidate } from './collector.js';
import type { BaseFiles, SharedImport } from './types.js';

const JS_FILE = /\.[cm]?[jt]sx?$/;
const TEST_FILE = /(^|\/)(__tests__\/|[^/]*\.(test|spec)\.[cm]?[jt]sx?$)/;
const MAX_BYTES = 512 * 1024;

export interface Classified {
  instruments: Candidate[];
  shared: SharedImport[];
}

/** Package entry points and tsconfig path targets: files the program is built from by name. */
async function namedByTheProgram(ts: () => typeof TS, files: BaseFiles): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const add = (from: string, dir: string, value: unknown) => {
    if (typeof value === 'string' && !value.includes('*')) {
      const target = path.posix.normalize(path.posix.join(dir, value));
      for (const c of importCandidates(target, `./${path.posix.basename(target)}`))
        if (files.has(c) && !out.has(c)) out.set(c, from);
    } else if (Array.isArray(value)) for (const v of value) add(from, dir, v);
    else if (value !== null && typeof value === 'object')
      for (const v of Object.values(value)) add(from, dir, v);
  };
  for (const f of files.paths) {
    const name = path.posix.basename(f);
    const dir = path.posix.dirname(f);
    if (name === 'package.json') {
      const text = await files.read(f);
      try {
        const pkg = JSON.parse((text ?? '').replace(/^\uFEFF/, '')) as Record<string, unknown>;
        for (const key of ['main', 'module', 'browser', 'types', 'bin', 'exports', 'imports'])
          add(`${f} ${key}`, dir, pkg[key]);
      } catch {
        // Not JSON: names nothing.
      }
    } else if (/^[tj]sconfig.*\.json$/.test(name)) {
      const r = ts().parseConfigFileTextToJson(f, (await files.read(f)) ?? '');
      const opts = (r.config as { compilerOptions?: { baseUrl?: unknown; paths?: unknown } } | undefined)
        ?.compilerOptions;
      const base = typeof opts?.baseUrl === 'string' ? path.posix.join(dir, opts.baseUrl) : dir;
      add(`${f} compilerOptions.paths`, base, opts?.paths);
    }
  }
  return out;
}

/**
 * Splits the candidates into instruments and shared files. `configuration`
 * holds the files that are the runner's own (configs, the modules they
 * read, named instruments): their imports do not make a file code.
 */
export async function classify(
  ts: () => typeof TS,
  files: BaseFiles,
  candidates: readonly Candidate[],
  configuration: ReadonlySet<string>,
  isTestSide: (p: string) => boolean,
  readMany: (paths: string[]) => Promise<Map<string, string>>,
): Promise<Classified> {
  if (candidates.length === 0) return { instruments: [], shared: [] };
  const wanted = new Set(candidates.map((c) => c.path));
  const program = await namedByTheProgram(ts, files);
  // What each candidate imports itself: production code makes it code too.
  const importsCode = new Map<string, string>();
  for (const [file, text] of await readMany([...wanted])) {
    if (!JS_FILE.test(file) || text.length > MAX_BYTES) continue;
    for (const { fileName } of ts().preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = importCandidates(file, fileName).find((c) => files.has(c));
      if (target && !isTestSide(target) && !configuration.has(target) && !wanted.has(target)) {
        importsCode.set(file, target);
        break;
      }
    }
  }
  // Who else imports the rest: every JavaScript file is read only when some candidate is still open.
  const importers = new Map<string, string>();
  const open = new Set([...wanted].filter((p) => !program.has(p) && !importsCode.has(p)));
  if (open.size > 0) {
    const sources = files.paths.filter(
      (p) => JS_FILE.test(p) && !configuration.has(p) && !p.split('/').includes('node_modules'),
    );
    for (const [file, text] of await readMany(sources)) {
      if (text.length > MAX_BYTES) continue;
      // A test-side helper importing a config module does not make it code; a test file importing it does.
      if (isTestSide(file) && !TEST_FILE.test(file)) continue;
      for (const { fileName } of ts().preProcessFile(text, true, true).importedFiles) {
        if (!fileName.startsWith('.')) continue;
        for (const c of importCandidates(file, fileName))
          if (open.has(c) && !importers.has(c)) importers.set(c, file);
      }
    }
  }
  const instruments: Candidate[] = [];
  const shared: SharedImport[] = [];
  for (const c of candidates) {
    const imported = importsCode.get(c.path);
    const also =
      importers.get(c.path) ??
      program.get(c.path) ??
      (imported ? `${c.path} imports ${imported}` : undefined);
    if (also === undefined) instruments.push(c);
    else if (c.kind === 'import') shared.push({ path: c.path, from: c.from, line: c.line, alsoFrom: also });
  }
  return { instruments, shared };
}
