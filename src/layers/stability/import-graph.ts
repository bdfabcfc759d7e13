/**
 * The import graph of the head's tests, from committed text: each test file,
 * what it loads, what that loads, down to the last module of the tree. The
 * head's files are read from git's objects (never the checkout, which head
 * code has run in by now); JavaScript and TypeScript are read with the
 * TypeScript compiler, Python with Python's own `ast` in the sandbox, one
 * process per level of the graph.
 */
import path from 'node:path';
import type TS from 'typescript';
import type { TreeFiles } from '../../overlay/revision-files.js';
import { pushAll } from '../../util/arrays.js';
import { jsLoads } from './js-imports.js';
import { type JsResolver, PyResolver, type Resolution } from './resolve.js';
import { JS_MODULE } from './scope-rules.js';

/** One step of a chain: what `from` does that loads `to`. */
export interface GraphEdge {
  to: string;
  /** Its line in `from`, when it is written there. */
  line?: number;
  /** In words: `imports 'x'`, `names 'data.json'`, `conftest of its folder`. */
  how: string;
}

/** A load of a file the gate could not follow to a file. */
export interface Doubt {
  line: number;
  what: string;
  lang: 'js' | 'py';
}

export interface GraphNode {
  edges: GraphEdge[];
  doubts: Doubt[];
  /** String constants, for data files read by name. */
  strings: readonly string[];
  /** More strings than kept: the file may name any data file. */
  stringsCapped: boolean;
}

/** A whole package's production modules (a workspace package, a package importing itself by name). */
export const PACKAGE_NODE = '\u0000package:';
/** What every test loads: the runner's configuration and setup files. */
export const SETUP_NODE = '\u0000setup';

export type ParsePython = (texts: ReadonlyMap<string, string>) => Promise<Record<string, unknown>>;

interface PyAnswer {
  imports?: [number, number, string, string[]][];
  dynamic?: [number, string][];
  strings?: string[];
  strings_capped?: boolean;
  error?: string;
}

export interface GraphInput {
  files: TreeFiles;
  ts: () => typeof TS;
  js: JsResolver;
  parsePython: ParsePython;
  /** The project maps Python package names to other folders (`package_dir`). */
  packageDirMapped: boolean;
  /** Where to start: the test files. */
  tests: readonly string[];
  /** Files every test loads (setup files, the runner's configuration, `-p` plugins). */
  setup: readonly string[];
  /** Python files that are conftest files (of each test's folder and those above it). */
  signal?: AbortSignal;
}

const isPython = (p: string) => p.endsWith('.py');

/** The conftest.py of the test's folder and of each folder above it, then the `__init__.py` packages it is in. */
function pytestExtras(files: TreeFiles, test: string): GraphEdge[] {
  const out: GraphEdge[] = [];
  let dir = path.posix.dirname(test);
  for (;;) {
    const key = dir === '.' ? '' : dir;
    const conftest = key === '' ? 'conftest.py' : `${key}/conftest.py`;
    if (files.has(conftest)) out.push({ to: conftest, how: 'the conftest.py pytest loads for it' });
    if (key === '') break;
    dir = path.posix.dirname(dir);
  }
  dir = path.posix.dirname(test);
  while (dir !== '.' && files.has(`${dir}/__init__.py`)) {
    out.push({ to: `${dir}/__init__.py`, how: 'the package it is a module of' });
    dir = path.posix.dirname(dir);
  }
  return out;
}

export class ImportGraph {
  readonly nodes = new Map<string, GraphNode>();
  stdlib: ReadonlySet<string> = new Set();

  private constructor(private readonly input: GraphInput) {}

  static async build(input: GraphInput): Promise<ImportGraph> {
    const g = new ImportGraph(input);
    await g.walk();
    return g;
  }

  private node(file: string): GraphNode {
    let n = this.nodes.get(file);
    if (!n) {
      n = { edges: [], doubts: [], strings: [], stringsCapped: false };
      this.nodes.set(file, n);
    }
    return n;
  }

  private async walk(): Promise<void> {
    const { files, tests, setup } = this.input;
    const setupNode = this.node(SETUP_NODE);
    for (const s of setup) setupNode.edges.push({ to: s, how: 'loaded before every test' });
    let level: string[] = [...new Set([...tests, ...setup])];
    for (const t of tests) {
      const n = this.node(t);
      if (setup.length > 0)
        n.edges.push({ to: SETUP_NODE, how: "the runner's configuration and setup files" });
      if (isPython(t)) pushAll(n.edges, pytestExtras(files, t));
    }
    const seen = new Set<string>(level);
    let py: PyResolver | undefined;
    while (level.length > 0) {
      if (this.input.signal?.aborted) throw new Error('aborted');
      const texts = await files.readMany(level.filter((p) => JS_MODULE.test(p) || isPython(p)));
      const pyTexts = new Map<string, string>();
      for (const file of level) {
        const text = texts.get(file);
        if (text === undefined) continue;
        if (isPython(file)) pyTexts.set(file, text);
        else await this.readJs(file, text);
      }
      if (pyTexts.size > 0) {
        const answer = await this.input.parsePython(pyTexts);
        if (Array.isArray(answer.__stdlib__)) this.stdlib = new Set(answer.__stdlib__ as string[]);
        py ??= new PyResolver(files, this.stdlib, this.input.packageDirMapped);
        for (const file of pyTexts.keys()) this.readPython(py, file, answer[file] as PyAnswer | undefined);
      }
      const next: string[] = [];
      for (const file of level)
        for (const e of this.nodes.get(file)?.edges ?? [])
          if (!e.to.startsWith('\u0000') && !seen.has(e.to)) {
            seen.add(e.to);
            next.push(e.to);
          }
      level = next;
    }
  }

  private addResolution(file: string, r: Resolution, line: number, what: string, lang: 'js' | 'py'): void {
    const n = this.node(file);
    if ('unresolved' in r) n.doubts.push({ line, what: r.unresolved, lang });
    else if ('packageDir' in r && r.packageDir !== undefined) {
      this.node(`${PACKAGE_NODE}${r.packageDir}`);
      n.edges.push({
        to: `${PACKAGE_NODE}${r.packageDir}`,
        line,
        how: `${what} (a package of this repository, by name)`,
      });
    } else if ('files' in r && r.files) for (const to of r.files) n.edges.push({ to, line, how: what });
  }

  private async readJs(file: string, text: string): Promise<void> {
    const loads = jsLoads(this.input.ts(), file, text);
    const n = this.node(file);
    n.strings = loads.strings;
    for (const l of loads.loads) {
      if (l.computed) {
        n.doubts.push({
          line: l.line,
          what: `${l.spec} loads a module whose name the text does not say`,
          lang: 'js',
        });
        continue;
      }
      this.addResolution(
        file,
        await this.input.js.resolve(file, l.spec),
        l.line,
        `imports '${l.spec}'`,
        'js',
      );
    }
  }

  private readPython(py: PyResolver, file: string, a: PyAnswer | undefined): void {
    const n = this.node(file);
    if (!a || a.error !== undefined) {
      // A file Python cannot parse cannot say what it imports either.
      n.doubts.push({ line: 1, what: `it does not parse (${a?.error ?? 'no answer'})`, lang: 'py' });
      return;
    }
    n.strings = a.strings ?? [];
    n.stringsCapped = a.strings_capped === true;
    for (const [line, level, module, names] of a.imports ?? []) {
      const spelled = level > 0 ? `${'.'.repeat(level)}${module}` : module;
      const what = names.length > 0 ? `from ${spelled} import ${names.join(', ')}` : `import ${spelled}`;
      this.addResolution(file, py.resolve(file, level, module, names), line, what, 'py');
    }
    for (const [line, what] of a.dynamic ?? []) n.doubts.push({ line, what, lang: 'py' });
  }
}
