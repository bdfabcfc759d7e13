/**
 * From what a file's text loads to the files of the head's tree it may be.
 * Read only: no resolver of a runner runs, and nothing is evaluated. Where
 * the text does not decide (an alias of the runner's configuration, a bare
 * name no manifest declares, a relative path to no file), the answer is
 * "unresolved": the probe then treats the load as possibly any changed
 * module. Where it may be several files, it is all of them.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import type TS from 'typescript';
import type { TreeFiles } from '../../overlay/revision-files.js';
import { importCandidates } from '../../util/import-candidates.js';

/** A load's answer: files of the tree, a whole package's production modules, nothing to follow, or doubt. */
export type Resolution =
  | { files: string[]; packageDir?: undefined }
  | { packageDir: string; files?: undefined }
  | { external: true }
  | { unresolved: string };

const EXTRA_SUFFIXES = [
  '.jsx',
  '.json',
  '.node',
  '/index.tsx',
  '/index.jsx',
  '/index.mjs',
  '/index.cjs',
  '/index.mts',
  '/index.cts',
];
const BUILTINS = new Set(builtinModules);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The package name of a bare specifier (`@scope/name`, `name`), and the rest. */
function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
}

interface Manifest {
  dir: string;
  name?: string;
  imports?: Record<string, unknown>;
}

interface PathsConfig {
  dir: string;
  baseUrl: string;
  paths: [string, string[]][];
}

/** What the tree's package.json and tsconfig files say about module names. */
export class JsResolver {
  private readonly manifests: Manifest[] = [];
  private readonly declared = new Set<string>();
  private readonly workspace = new Map<string, string>();
  private readonly tsconfigs = new Map<string, PathsConfig | undefined>();
  private readonly aliasExact = new Set<string>();
  private readonly aliasPatterns: RegExp[] = [];

  private constructor(
    private readonly files: TreeFiles,
    private readonly ts: () => typeof TS,
  ) {}

  /**
   * `aliasWords`: the string literals, property names and regular expressions
   * of the runner's configuration files. A bare name among them may be an
   * alias the gate cannot follow, so it stays unresolved.
   */
  static async create(
    files: TreeFiles,
    ts: () => typeof TS,
    aliasWords: Iterable<string>,
  ): Promise<JsResolver> {
    const r = new JsResolver(files, ts);
    const manifests = files.paths.filter(
      (p) => path.posix.basename(p) === 'package.json' && !p.split('/').includes('node_modules'),
    );
    for (const [p, text] of await files.readMany(manifests)) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        continue;
      }
      if (!isObject(json)) continue;
      const dir = path.posix.dirname(p).replace(/^\.$/, '');
      const m: Manifest = { dir };
      if (typeof json.name === 'string') {
        m.name = json.name;
        r.workspace.set(json.name, dir);
      }
      if (isObject(json.imports)) m.imports = json.imports;
      for (const key of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'])
        if (isObject(json[key])) for (const name of Object.keys(json[key])) r.declared.add(name);
      r.manifests.push(m);
    }
    for (const w of aliasWords) {
      if (w === '') continue;
      if (/^\^|\(\.\*\)|\\|\$$/.test(w)) {
        try {
          r.aliasPatterns.push(new RegExp(w));
        } catch {
          // Not a pattern after all: a plain word.
        }
      }
      r.aliasExact.add(w.replace(/\/$/, ''));
    }
    return r;
  }

  private exists(p: string): boolean {
    return this.files.has(p);
  }

  /** Every file a path-like target may be, as a resolver would try it. */
  private candidates(from: string, spec: string): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
    for (const c of [...importCandidates(from, spec), ...EXTRA_SUFFIXES.map((s) => target + s)])
      if (!seen.has(c) && this.exists(c)) {
        seen.add(c);
        out.push(c);
      }
    // The first that exists is what a resolver takes; the rest are kept, since runners' orders differ.
    return out;
  }

  private aliased(spec: string): boolean {
    const name = packageName(spec);
    if (this.aliasExact.has(spec) || this.aliasExact.has(name)) return true;
    for (const w of this.aliasExact)
      if (w.length > 0 && !w.includes(' ') && spec.startsWith(`${w}/`)) return true;
    return this.aliasPatterns.some((re) => re.test(spec));
  }

  private nearestManifest(from: string): Manifest | undefined {
    let best: Manifest | undefined;
    for (const m of this.manifests)
      if ((m.dir === '' || from.startsWith(`${m.dir}/`)) && (!best || m.dir.length > best.dir.length))
        best = m;
    return best;
  }

  private async pathsFor(from: string): Promise<PathsConfig | undefined> {
    let dir = path.posix.dirname(from);
    for (;;) {
      const key = dir === '.' ? '' : dir;
      const file = key === '' ? 'tsconfig.json' : `${key}/tsconfig.json`;
      if (this.exists(file)) return this.readPaths(file, 0);
      if (key === '') return undefined;
      dir = path.posix.dirname(dir);
    }
  }

  private async readPaths(file: string, depth: number): Promise<PathsConfig | undefined> {
    if (this.tsconfigs.has(file)) return this.tsconfigs.get(file);
    this.tsconfigs.set(file, undefined);
    const text = await this.files.read(file);
    if (text === undefined || depth > 5) return undefined;
    const parsed = this.ts().parseConfigFileTextToJson(file, text).config as unknown;
    if (!isObject(parsed)) return undefined;
    const dir = path.posix.dirname(file).replace(/^\.$/, '');
    const opts = isObject(parsed.compilerOptions) ? parsed.compilerOptions : {};
    let result: PathsConfig | undefined;
    if (isObject(opts.paths)) {
      const baseUrl = typeof opts.baseUrl === 'string' ? path.posix.join(dir, opts.baseUrl) : dir;
      result = {
        dir,
        baseUrl: baseUrl === '.' ? '' : baseUrl,
        paths: Object.entries(opts.paths).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [],
        ]),
      };
    } else if (typeof parsed.extends === 'string' && parsed.extends.startsWith('.')) {
      let ext = path.posix.normalize(path.posix.join(dir, parsed.extends));
      if (!ext.endsWith('.json')) ext += '.json';
      result = await this.readPaths(ext, depth + 1);
    }
    this.tsconfigs.set(file, result);
    return result;
  }

  async resolve(from: string, rawSpec: string): Promise<Resolution> {
    // Vite's `?raw`, `?url` and friends, and a fragment, name the same file.
    const spec = rawSpec.startsWith('#') ? rawSpec : rawSpec.replace(/[?#].*$/, '');
    if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
      const found = this.candidates(from, spec);
      return found.length > 0
        ? { files: found }
        : { unresolved: `'${rawSpec}' names no file of the head's tree` };
    }
    if (spec.startsWith('/') || /^[a-z]+:/i.test(spec)) {
      if (spec.startsWith('node:') || BUILTINS.has(spec)) return { external: true };
      return { unresolved: `'${rawSpec}' is an absolute path or URL` };
    }
    if (BUILTINS.has(spec) || BUILTINS.has(packageName(spec))) return { external: true };
    if (spec.startsWith('#')) return this.subpathImport(from, spec);
    if (this.aliased(spec))
      return {
        unresolved: `'${rawSpec}' may be an alias of the runner's configuration, which the gate does not follow`,
      };
    const own = this.workspace.get(packageName(spec));
    if (own !== undefined) return { packageDir: own };
    const paths = await this.pathsFor(from);
    if (paths) {
      const hit = this.throughPaths(paths, spec);
      if (hit !== undefined) return hit;
    }
    if (this.declared.has(packageName(spec))) return { external: true };
    return {
      unresolved: `'${rawSpec}' is no file, no package of this repository and no dependency any package.json declares`,
    };
  }

  private throughPaths(paths: PathsConfig, spec: string): Resolution | undefined {
    for (const [pattern, targets] of paths.paths) {
      const star = pattern.indexOf('*');
      let rest: string | undefined;
      if (star < 0) rest = pattern === spec ? '' : undefined;
      else {
        const pre = pattern.slice(0, star);
        const post = pattern.slice(star + 1);
        if (spec.startsWith(pre) && spec.endsWith(post) && spec.length >= pre.length + post.length)
          rest = spec.slice(pre.length, spec.length - post.length);
      }
      if (rest === undefined) continue;
      const found: string[] = [];
      for (const t of targets) {
        const target = path.posix.join(paths.baseUrl, t.replace('*', rest));
        for (const c of this.candidates(`${target}/../x`, `./${path.posix.basename(target)}`))
          if (!found.includes(c)) found.push(c);
      }
      return found.length > 0
        ? { files: found }
        : {
            unresolved: `'${spec}' matches the tsconfig paths entry '${pattern}', which names no file of the head`,
          };
    }
    return undefined;
  }

  /** package.json `imports` (`#name`): every string the entry holds, under any condition. */
  private subpathImport(from: string, spec: string): Resolution {
    const m = this.nearestManifest(from);
    const table = m?.imports;
    if (!m || !table) return { unresolved: `'${spec}' is a subpath import no package.json defines` };
    const targets: string[] = [];
    const collect = (v: unknown, star: string | undefined) => {
      if (typeof v === 'string') targets.push(star === undefined ? v : v.replace('*', star));
      else if (Array.isArray(v)) for (const x of v) collect(x, star);
      else if (isObject(v)) for (const x of Object.values(v)) collect(x, star);
    };
    for (const [key, value] of Object.entries(table)) {
      const star = key.indexOf('*');
      if (star < 0 && key === spec) collect(value, undefined);
      else if (star >= 0 && spec.startsWith(key.slice(0, star)) && spec.endsWith(key.slice(star + 1)))
        collect(value, spec.slice(star, spec.length - (key.length - star - 1)));
    }
    const found: string[] = [];
    for (const t of targets) {
      if (!t.startsWith('./')) return { unresolved: `'${spec}' maps to the package '${t}'` };
      const p = path.posix.join(m.dir, t);
      if (this.exists(p)) found.push(p);
    }
    return found.length > 0
      ? { files: found }
      : { unresolved: `'${spec}' maps to no file of the head's tree` };
  }
}

/**
 * Python module names to files, as pytest's import modes and a `src/` layout
 * would find them: a module `a.b` is every `…/a/b.py` and `…/a/b/__init__.py`
 * of the tree, whatever folder its root is (the rootdir, `src/`,
 * `tests.env` `PYTHONPATH`, a conftest's folder): a name the tree has twice
 * is both. Importing `a.b` runs `a/__init__.py` too.
 */
export class PyResolver {
  /** Dotted suffix → files (modules and package `__init__.py`). */
  private readonly bySuffix = new Map<string, string[]>();
  private readonly dirs = new Set<string>();

  constructor(
    private readonly files: TreeFiles,
    private readonly stdlib: ReadonlySet<string>,
    /** The project maps package names to folders of other names (`package_dir`): an unknown name may be ours. */
    private readonly packageDirMapped: boolean,
  ) {
    for (const p of files.paths) {
      if (!p.endsWith('.py')) continue;
      const segs = p.split('/');
      if (segs.includes('node_modules') || segs.includes('site-packages')) continue;
      const last = segs.pop() as string;
      const mod = last === '__init__.py' ? segs : [...segs, last.slice(0, -3)];
      for (let k = 1; k <= mod.length; k++) {
        const key = mod.slice(mod.length - k).join('.');
        const list = this.bySuffix.get(key);
        if (list) list.push(p);
        else this.bySuffix.set(key, [p]);
      }
      for (let i = 1; i <= segs.length; i++) this.dirs.add(segs.slice(0, i).join('/'));
    }
  }

  /** The `__init__.py` of every package above `file` that a dotted name of `depth` parts passed through. */
  private parents(file: string, depth: number): string[] {
    const out: string[] = [];
    let dir = path.posix.dirname(file);
    if (file.endsWith('/__init__.py') || file === '__init__.py') dir = path.posix.dirname(dir);
    for (let i = 1; i < depth && dir !== '.' && dir !== ''; i++) {
      const init = `${dir}/__init__.py`;
      if (this.files.has(init)) out.push(init);
      dir = path.posix.dirname(dir);
    }
    return out;
  }

  private byName(module: string): string[] {
    const hits = this.bySuffix.get(module) ?? [];
    const out = new Set<string>();
    for (const h of hits) {
      out.add(h);
      for (const p of this.parents(h, module.split('.').length)) out.add(p);
    }
    return [...out];
  }

  private isNamespace(module: string): boolean {
    const tail = module.split('.').join('/');
    for (const d of this.dirs) if (d === tail || d.endsWith(`/${tail}`)) return true;
    return false;
  }

  /** `import module` (level 0) or `from <dots>module import names`, in `from`. */
  resolve(from: string, level: number, module: string, names: readonly string[]): Resolution {
    if (level > 0) return this.relative(from, level, module, names);
    // The gate's loader puts the checkout after the standard library: no file of the tree stands in for it.
    if (this.stdlib.has(module.split('.')[0] ?? module)) return { external: true };
    const found = new Set(this.byName(module));
    for (const n of names) if (n !== '*') for (const f of this.byName(`${module}.${n}`)) found.add(f);
    if (found.size > 0) return { files: [...found] };
    if (this.isNamespace(module)) return { files: [] };
    if (!this.packageDirMapped) return { external: true };
    return {
      unresolved: `'${module}' is no module of the tree, and the project maps package names to other folders (package_dir)`,
    };
  }

  private relative(from: string, level: number, module: string, names: readonly string[]): Resolution {
    let dir = path.posix.dirname(from);
    for (let i = 1; i < level; i++) {
      if (dir === '.' || dir === '')
        return { unresolved: `a relative import above the repository (${from})` };
      dir = path.posix.dirname(dir);
    }
    const join = (...parts: string[]) => parts.filter((x) => x !== '' && x !== '.').join('/');
    const modPath = join(dir, module.split('.').join('/'));
    const found: string[] = [];
    const add = (p: string) => {
      if (this.files.has(p) && !found.includes(p)) found.push(p);
    };
    add(join(modPath, '__init__.py'));
    if (module !== '') add(`${modPath}.py`);
    for (const n of names) {
      if (n === '*') continue;
      add(join(modPath, `${n}.py`));
      add(join(modPath, n, '__init__.py'));
    }
    // A folder without `__init__.py` is a namespace package: nothing of its own runs.
    const named = module === '' || found.length > 0 || this.dirs.has(modPath);
    if (!named || (found.length === 0 && names.length > 0 && !this.dirs.has(modPath)))
      return {
        unresolved: `the relative import ${'.'.repeat(level)}${module} in ${from} names no file of the head's tree`,
      };
    if (module === '' && found.length === 0)
      return {
        unresolved: `the relative import from ${'.'.repeat(level)} in ${from} names no file of the head's tree`,
      };
    return { files: found };
  }
}
