/**
 * Golden-file candidates outside the folders init recognizes by name: the
 * files a repository's tests read. Expected outputs often sit beside the
 * tests (`test/render/*.svg.txt`) or in a folder with a name of the
 * project's own choosing, where a by-name search never looks, and a patch
 * could rewrite them unnoticed. Two kinds of evidence:
 *
 * - what test code names: string literals of test files (`open('x')`,
 *   `readFileSync(…)`, `path.join(__dirname, 'x')`, `Path(__file__).parent /
 *   'x'`, a glob such as `'*.svg.txt'`, a suffix such as `'.expected'`) that
 *   name an existing data file or folder, from the test's folder or the
 *   repository's root;
 * - data files (by extension, never source code) under test folders.
 *
 * Nothing here is locked: init lists the candidates grouped by folder, with
 * the `fixtures.roots` entry that would lock each group, for a human to
 * confirm.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type TS from 'typescript';
import { byCodePoint } from '../util/compare.js';
import { loadTypescript } from '../util/typescript.js';
import { FIXTURE_SEARCH_SKIP } from './detect.js';
import { lineAt, scanPython } from './python-scan.js';

/** Folders never searched: those the fixture-folder search skips, and coverage output. */
const SKIP = new Set<string>([...FIXTURE_SEARCH_SKIP, 'coverage']);

/** Folders whose files are the tests' own. */
const TEST_DIR = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'testing', 'e2e']);

/** Extensions of files tests compare against or read as input; never code. */
const DATA_EXT = new Set([
  'json',
  'jsonl',
  'ndjson',
  'txt',
  'text',
  'svg',
  'snap',
  'golden',
  'gold',
  'expected',
  'exp',
  'out',
  'output',
  'ans',
  'csv',
  'tsv',
  'yaml',
  'yml',
  'xml',
  'html',
  'htm',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'bmp',
  'ico',
  'pdf',
  'bin',
  'dat',
  'toml',
  'diff',
  'patch',
  'wav',
  'mp3',
  'gz',
  'zip',
  'tar',
  'sqlite',
  'db',
  'proto',
  'pb',
]);

/** Source code (never a candidate: a test file or a helper, which the overlay already takes from the base). */
const SOURCE_EXT = new Set([
  'js',
  'mjs',
  'cjs',
  'jsx',
  'ts',
  'tsx',
  'mts',
  'cts',
  'py',
  'pyi',
  'go',
  'rs',
  'java',
  'kt',
  'kts',
  'scala',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'rb',
  'php',
  'swift',
  'sh',
  'bash',
  'zsh',
  'ps1',
  'vue',
  'svelte',
  'lua',
  'pl',
  'r',
  'jl',
  'dart',
  'ex',
  'exs',
  'erl',
  'hs',
  'ml',
  'clj',
]);

/** Configuration that lives in test folders and is no expected output. */
const CONFIG_NAME =
  /^(?:tsconfig.*\.json|jsconfig\.json|package(?:-lock)?\.json|\.?eslintrc.*|\.?prettierrc.*|biome\.jsonc?|babel\.config\.json|\.babelrc|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|requirements.*\.txt|Cargo\.toml|go\.(?:mod|sum)|CODEOWNERS|(?:README|LICENSE|CHANGELOG)(?:\..*)?)$/i;

const JS_EXT = /\.[cm]?[jt]sx?$/;
const JS_TEST = /\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)__tests__\//;
const PY_TEST = /(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$/;
const GO_TEST = /_test\.go$/;

/** Caps that keep init quick on a large repository; reaching one is said, not hidden. */
const MAX_FILES = 200_000;
const MAX_TEST_FILES = 3000;
const MAX_TEST_BYTES = 1 << 20;

export interface CandidateGroup {
  /** The `fixtures.roots` entries that would lock this group: its folder, or its files when the folder holds others. */
  roots: string[];
  /** The candidate files, repo-relative, sorted. */
  files: string[];
  /** The files' kinds, e.g. `*.svg.txt`, most common first (at most three). */
  kinds: string[];
  /** Why they are candidates, from the first file: `read by test/a.test.ts:12` or `data files under a test folder`. */
  evidence: string;
  /** Files under a suggested folder root that are not candidates (test code beside the data), which the root would lock too. */
  alsoLocks: string[];
}

export interface FixtureCandidates {
  groups: CandidateGroup[];
  /** A cap was reached: the list may be incomplete. */
  truncated: boolean;
}

function ext(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

function isData(file: string): boolean {
  const base = file.slice(file.lastIndexOf('/') + 1);
  if (base.startsWith('.') || CONFIG_NAME.test(base) || base.endsWith('.d.ts')) return false;
  const e = ext(file);
  return e === '' ? false : !SOURCE_EXT.has(e);
}

/** `circle.svg.txt` → `*.svg.txt`; a name without a dot is itself. */
function kindOf(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  const dot = base.indexOf('.', 1);
  return dot < 0 ? base : `*${base.slice(dot)}`;
}

function dirOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

function inTestDir(file: string): boolean {
  return dirOf(file)
    .split('/')
    .some((p) => TEST_DIR.has(p));
}

function isTestFile(file: string): boolean {
  if (JS_EXT.test(file)) return JS_TEST.test(file) || inTestDir(file);
  if (file.endsWith('.py')) return PY_TEST.test(file) || inTestDir(file);
  return GO_TEST.test(file);
}

interface Literal {
  value: string;
  line: number;
}

/** The string literals of a JavaScript or TypeScript file, template pieces included, never a module specifier. */
function jsLiterals(ts: typeof TS, file: string, text: string): Literal[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out: Literal[] = [];
  const at = (n: TS.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (n: TS.Node): void => {
    // Modules a test imports are code, not data it reads.
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return;
    if (
      ts.isCallExpression(n) &&
      (n.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(n.expression) && n.expression.text === 'require'))
    )
      return;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))
      out.push({ value: n.text, line: at(n) });
    else if (ts.isTemplateExpression(n)) {
      out.push({ value: n.head.text, line: at(n) });
      for (const s of n.templateSpans) out.push({ value: s.literal.text, line: at(n) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The string literals of a Go file: "…" and `…`, outside comments. */
function goLiterals(text: string): Literal[] {
  const out: Literal[] = [];
  for (const m of text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\\n]|\\.)*)"|`([^`]*)`/g)) {
    const value = m[1] ?? m[2];
    if (value !== undefined) out.push({ value, line: lineAt(text, m.index ?? 0) });
  }
  return out;
}

function pyLiterals(text: string): Literal[] {
  return scanPython(text).strings.map((s) => ({ value: s.value, line: lineAt(text, s.start) }));
}

/** Every file of the repository outside hidden and skipped folders, and every folder. */
async function listTree(repoRoot: string): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  let truncated = false;
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(rel === '' ? repoRoot : path.join(repoRoot, rel), {
      withFileTypes: true,
    }).catch(() => []);
    for (const e of entries.sort((a, b) => byCodePoint(a.name, b.name))) {
      if (files.length >= MAX_FILES) {
        truncated = true;
        return;
      }
      if (e.name.startsWith('.')) continue;
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) await walk(child);
      } else if (e.isFile()) files.push(child);
    }
  };
  await walk('');
  return { files, truncated };
}

/**
 * The candidates of a repository, outside `locked` (the fixture roots init
 * already locks) and `exclude` (files init writes).
 */
export async function findFixtureCandidates(
  repoRoot: string,
  locked: readonly string[],
  exclude: readonly string[] = [],
): Promise<FixtureCandidates> {
  const tree = await listTree(repoRoot);
  let truncated = tree.truncated;
  const isLocked = (f: string) => locked.some((r) => r === '.' || f === r || f.startsWith(`${r}/`));
  const eligible = (f: string) => isData(f) && !isLocked(f) && !exclude.includes(f);
  const fileSet = new Set(tree.files);
  const dirFiles = new Map<string, string[]>();
  for (const f of tree.files) {
    for (let d = dirOf(f); ; d = dirOf(d)) {
      const list = dirFiles.get(d) ?? [];
      list.push(f);
      dirFiles.set(d, list);
      if (d === '') break;
    }
  }

  const evidence = new Map<string, string>();
  const add = (f: string, why: string) => {
    if (eligible(f) && !evidence.has(f)) evidence.set(f, why);
  };

  const tests = tree.files.filter(isTestFile);
  if (tests.length > MAX_TEST_FILES) truncated = true;
  let ts: typeof TS | undefined;
  for (const test of tests.slice(0, MAX_TEST_FILES)) {
    const text = await readFile(path.join(repoRoot, test), 'utf8').catch(() => undefined);
    if (text === undefined || text.length > MAX_TEST_BYTES) continue;
    let literals: Literal[];
    if (JS_EXT.test(test)) {
      ts ??= await loadTypescript();
      literals = jsLiterals(ts, test, text);
    } else if (test.endsWith('.py')) literals = pyLiterals(text);
    else literals = goLiterals(text);
    const here = dirOf(test);
    for (const lit of literals) {
      const why = `read by ${test}:${lit.line}`;
      for (const f of resolveLiteral(lit.value, here, fileSet, dirFiles)) add(f, why);
    }
  }
  for (const f of tree.files)
    if (inTestDir(f) && DATA_EXT.has(ext(f))) add(f, 'data files under a test folder');

  return { groups: group(evidence, dirFiles), truncated };
}

/** The files a literal names from a test in folder `here`: a file, a folder's files, a glob's or a suffix's matches. */
function resolveLiteral(
  raw: string,
  here: string,
  files: ReadonlySet<string>,
  dirFiles: ReadonlyMap<string, string[]>,
): string[] {
  const value = raw.trim();
  if (value === '' || value.length > 260 || /[\n\r\0]|:\/\/|\s/.test(value)) return [];
  const out: string[] = [];
  const bases = here === '' ? [''] : [here, ''];
  const join = (base: string, rel: string) => path.posix.normalize(base === '' ? rel : `${base}/${rel}`);
  const rel = value.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  if (/[*?[\]{}]/.test(value)) {
    const pattern = value.replace(/^\.\//, '');
    const slash = pattern.includes('/');
    for (const base of bases) {
      const match = picomatch(slash ? join(base, pattern.replace(/^\/+/, '')) : pattern, { dot: false });
      for (const f of dirFiles.get(base) ?? [])
        if (slash ? match(f) : match(f.slice(f.lastIndexOf('/') + 1))) out.push(f);
      // A name-only glob reads from the test's own folder (and below), not the whole repository.
      if (!slash) break;
    }
    return out;
  }
  // A suffix (`'.svg.txt'`, `'.expected'`) names the files ending so beside the test.
  if (/^\.[A-Za-z0-9][\w.-]*$/.test(value) && !SOURCE_EXT.has(value.slice(1).toLowerCase())) {
    for (const f of dirFiles.get(here) ?? []) if (f.endsWith(value) && f.length > value.length) out.push(f);
    return out;
  }
  if (rel === '' || rel.split('/').includes('..')) return [];
  for (const base of bases) {
    const p = join(base, rel);
    if (files.has(p)) out.push(p);
    else if (p !== '' && p !== '.' && dirFiles.has(p) && here !== p && !here.startsWith(`${p}/`)) {
      // A folder of data the tests read from; never the test's own folder, one above it, or one holding code.
      const inside = dirFiles.get(p) ?? [];
      if (!inside.some((f) => SOURCE_EXT.has(ext(f)))) for (const f of inside) out.push(f);
    }
  }
  return out;
}

/** The candidates grouped by the folder that would lock them, each group's suggested roots and what else they lock. */
function group(
  evidence: ReadonlyMap<string, string>,
  dirFiles: ReadonlyMap<string, string[]>,
): CandidateGroup[] {
  const byDir = new Map<string, string[]>();
  for (const f of [...evidence.keys()].sort(byCodePoint)) {
    const d = dirOf(f);
    const list = byDir.get(d) ?? [];
    list.push(f);
    byDir.set(d, list);
  }
  const pure = (d: string) => d !== '' && (dirFiles.get(d) ?? []).every((f) => evidence.has(f));
  const groups = new Map<string, { files: string[]; mixed: boolean }>();
  for (const [d, files] of byDir) {
    // The highest folder all of whose files are candidates locks them whole; groups under it merge.
    let key = d;
    if (pure(d)) while (dirOf(key) !== '' && pure(dirOf(key))) key = dirOf(key);
    const g = groups.get(key) ?? { files: [], mixed: !pure(d) };
    for (const f of files) g.files.push(f);
    groups.set(key, g);
  }
  const out: CandidateGroup[] = [];
  for (const [folder, g] of [...groups].sort((a, b) => byCodePoint(a[0], b[0]))) {
    const files = g.files.sort(byCodePoint);
    const counts = new Map<string, number>();
    for (const f of files) counts.set(kindOf(f), (counts.get(kindOf(f)) ?? 0) + 1);
    const kinds = [...counts]
      .sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]))
      .slice(0, 3)
      .map(([k]) => k);
    const read = files.map((f) => evidence.get(f) as string).find((w) => w.startsWith('read by'));
    // A folder that also holds other files (the tests beside their expected outputs): a few candidates are
    // named one by one; more are locked with the folder, and what else that locks is said.
    const byFile = g.mixed && (files.length <= 3 || folder === '');
    out.push({
      roots: byFile ? files : [folder],
      files,
      kinds,
      evidence: read ?? (evidence.get(files[0] as string) as string),
      alsoLocks: g.mixed && !byFile ? (dirFiles.get(folder) ?? []).filter((f) => !evidence.has(f)) : [],
    });
  }
  return out;
}
