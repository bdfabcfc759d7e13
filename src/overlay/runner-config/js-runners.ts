/**
 * The files the base's vitest, jest, mocha and Babel configurations name
 * under the keys that load code into the test process (setup files,
 * environments, reporters, serializers, transforms, resolvers, runners,
 * projects, required modules, Babel plugins), the test-file globs they
 * declare, the single files their module aliases point at, and the modules
 * the configurations themselves import. Read from the base's committed text
 * with js-value, never run.
 */

import path from 'node:path';
import picomatch from 'picomatch';
import type TS from 'typescript';
import { parse as parseYaml } from 'yaml';
import { pushAll } from '../../util/arrays.js';
import { importCandidates } from '../../util/import-candidates.js';
import type { Collector } from './collector.js';
import { JsConfigReader, type JsValue, mergeValues } from './js-value.js';
import { escapeGlob, isPathLike, repoGlobOf, repoPathOf } from './paths.js';

const CONFIG_EXT = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
export const VITEST_CONFIGS = ['vitest.config', 'vite.config'].flatMap((n) => CONFIG_EXT.map((e) => n + e));
export const JEST_CONFIGS = ['js', 'ts', 'mjs', 'cjs', 'cts', 'json'].map((e) => `jest.config.${e}`);
export const MOCHA_CONFIGS = [
  '.mocharc.cjs',
  '.mocharc.js',
  '.mocharc.yaml',
  '.mocharc.yml',
  '.mocharc.jsonc',
  '.mocharc.json',
];
export const BABEL_CONFIGS = [
  'babel.config.js',
  'babel.config.cjs',
  'babel.config.mjs',
  'babel.config.cts',
  'babel.config.ts',
  'babel.config.json',
  '.babelrc',
  '.babelrc.js',
  '.babelrc.cjs',
  '.babelrc.mjs',
  '.babelrc.cts',
  '.babelrc.json',
];

/** Keys whose strings are modules the runner loads; `bare`: a name without `./` may be a path from the root too. */
interface ModuleKey {
  key: string;
  bare: boolean;
}

const VITEST_MODULES: ModuleKey[] = [
  { key: 'test.setupFiles', bare: true },
  { key: 'test.globalSetup', bare: true },
  { key: 'test.snapshotSerializers', bare: true },
  { key: 'test.snapshotEnvironment', bare: true },
  { key: 'test.runner', bare: false },
  { key: 'test.diff', bare: true },
  { key: 'test.environment', bare: false },
  { key: 'test.reporters', bare: false },
  { key: 'test.pool', bare: false },
  { key: 'test.coverage.customProviderModule', bare: true },
  { key: 'test.typecheck.tsconfig', bare: true },
];
const VITEST_GLOBS = [
  { key: 'test.include', except: 'test.exclude' },
  { key: 'test.typecheck.include', except: 'test.typecheck.exclude' },
  { key: 'test.benchmark.include', except: 'test.benchmark.exclude' },
];
const JEST_MODULES: ModuleKey[] = [
  { key: 'setupFiles', bare: true },
  { key: 'setupFilesAfterEnv', bare: true },
  { key: 'globalSetup', bare: true },
  { key: 'globalTeardown', bare: true },
  { key: 'snapshotSerializers', bare: true },
  { key: 'snapshotResolver', bare: true },
  { key: 'dependencyExtractor', bare: true },
  { key: 'testEnvironment', bare: false },
  { key: 'reporters', bare: false },
  { key: 'testSequencer', bare: false },
  { key: 'resolver', bare: false },
  { key: 'runner', bare: false },
  { key: 'testRunner', bare: false },
  { key: 'testResultsProcessor', bare: false },
  { key: 'haste.hasteImplModulePath', bare: false },
];
const MOCHA_MODULES: ModuleKey[] = [
  { key: 'require', bare: true },
  { key: 'file', bare: true },
  { key: 'reporter', bare: false },
  { key: 'ui', bare: false },
];

/** The value under a dotted key: every option it may be, unknown spreads on the way included. */
export function getKey(v: JsValue, dotted: string): JsValue | undefined {
  let nodes: JsValue[] = [v];
  for (const part of dotted.split('.')) {
    const next: JsValue[] = [];
    const visit = (n: JsValue) => {
      if (n.kind === 'either') n.options.forEach(visit);
      else if (n.kind === 'object') {
        const p = n.props.get(part);
        if (p) next.push(p);
        pushAll(next, n.unknown);
      } else if (n.kind === 'unknown') next.push(n);
    };
    nodes.forEach(visit);
    nodes = next;
  }
  if (nodes.length === 0) return undefined;
  return nodes.length === 1 ? nodes[0] : { kind: 'either', line: nodes[0]?.line ?? 1, options: nodes };
}

/** Strings of a value with no report of what is unknown (for exclude lists: reading less excludes less). */
function quietStrings(v: JsValue | undefined): string[] {
  if (!v) return [];
  if (v.kind === 'string') return [v.value];
  if (v.kind === 'array') return v.items.flatMap(quietStrings);
  if (v.kind === 'either') return v.options.flatMap(quietStrings);
  return [];
}

const MAX_MODULES = 300;
const RUNNER_DEFAULTS =
  /^(vitest(\/config|\/node)?#(configDefaults|defaultInclude|defaultExclude|coverageConfigDefaults)|jest-config#defaults)\b/;

export class JsRunnerConfigs {
  private readonly readers = new Map<string, JsConfigReader | null>();
  private readonly done = new Set<string>();
  /** Modules the configuration reads, for the import walk: each with who imports it first. */
  private readonly configModules = new Set<string>();

  constructor(
    private readonly ts: () => typeof TS,
    private readonly out: Collector,
  ) {}

  private get files() {
    return this.out.files;
  }

  private async reader(file: string): Promise<JsConfigReader | undefined> {
    if (!this.readers.has(file)) {
      const text = await this.files.read(file);
      this.readers.set(file, text === undefined ? null : new JsConfigReader(this.ts(), file, text));
    }
    return this.readers.get(file) ?? undefined;
  }

  /** The existing base file a relative specifier from `file` names, as a resolver would pick it. */
  private resolveRelative(file: string, specifier: string): string | undefined {
    if (!specifier.startsWith('.')) return undefined;
    return importCandidates(file, specifier).find((c) => this.files.has(c));
  }

  /** A configuration module and, through its relative imports, every module it loads. */
  private async readConfigModule(file: string): Promise<JsConfigReader | undefined> {
    const r = await this.reader(file);
    if (!r || this.configModules.has(file)) return r;
    this.configModules.add(file);
    const pending: { file: string; reader: JsConfigReader }[] = [{ file, reader: r }];
    for (let item = pending.pop(); item; item = pending.pop()) {
      for (const imp of item.reader.imports()) {
        const target = this.resolveRelative(item.file, imp.specifier);
        if (target === undefined || this.configModules.has(target) || this.configModules.size > MAX_MODULES)
          continue;
        this.configModules.add(target);
        this.out.candidate({ path: target, from: item.file, line: imp.line, key: 'import', kind: 'import' });
        if (!/\.[cm]?[jt]sx?$/.test(target)) continue;
        const next = await this.reader(target);
        if (next) pending.push({ file: target, reader: next });
      }
    }
    return r;
  }

  /** A value with what relative modules export put in place of their imports. */
  private async deref(v: JsValue, file: string, depth = 0): Promise<JsValue> {
    if (depth > 8) return v;
    switch (v.kind) {
      case 'array':
        return { ...v, items: await Promise.all(v.items.map((x) => this.deref(x, file, depth))) };
      case 'either':
        return { ...v, options: await Promise.all(v.options.map((x) => this.deref(x, file, depth))) };
      case 'object': {
        const props = new Map<string, JsValue>();
        for (const [k, x] of v.props) props.set(k, await this.deref(x, file, depth));
        let out: JsValue = { ...v, props, unknown: [] };
        // A spread (or merge) that turns out to be an object adds its keys; either side may be what counts.
        for (const x of v.unknown) out = mergeValues(out, await this.deref(x, file, depth));
        return out;
      }
      case 'import': {
        // The runner's own defaults (`...configDefaults.include`): what the preset's globs already cover.
        if (RUNNER_DEFAULTS.test(`${v.specifier}#${v.name}`)) return { kind: 'literal', line: v.line };
        const target = this.resolveRelative(file, v.specifier);
        if (target === undefined)
          return {
            kind: 'unknown',
            line: v.line,
            file,
            text: `'${v.specifier}'`,
            why: v.specifier.startsWith('.')
              ? 'a module the base revision does not have'
              : 'a module from a package, which the repository does not hold',
          };
        const r = await this.readConfigModule(target);
        if (!r)
          return {
            kind: 'unknown',
            line: v.line,
            file,
            text: `'${v.specifier}'`,
            why: 'a module that cannot be read',
          };
        const [head, ...rest] = v.name.split('.');
        let value = head === 'default' || head === '*' ? r.exported() : r.named(head as string);
        for (const k of rest) value = getKey(value, k) ?? { kind: 'literal', line: value.line };
        return this.deref(value, target, depth + 1);
      }
      default:
        return v;
    }
  }

  private async config(file: string): Promise<JsValue | undefined> {
    if (/\.ya?ml$/.test(file)) {
      const text = await this.files.read(file);
      return text === undefined ? undefined : yamlValue(text, file);
    }
    const r = await this.readConfigModule(file);
    if (!r) return undefined;
    return this.deref(r.exported(), file);
  }

  /** Reports an unreadable configuration as a whole, and the unknown spreads that may carry any key. */
  private whole(cfg: JsValue, file: string, key: string): void {
    const visit = (v: JsValue) => {
      if (v.kind === 'either') v.options.forEach(visit);
      else if (v.kind === 'unknown') this.out.cannotRead(key, v);
      else if (v.kind === 'code')
        this.out.cannotRead(key, {
          kind: 'unknown',
          line: v.line,
          file,
          text: '(code)',
          why: 'the configuration is code the gate cannot read as data',
        });
      else if (v.kind === 'object') for (const u of v.unknown) visit(u);
    };
    visit(cfg);
  }

  private modules(cfg: JsValue, keys: ModuleKey[], file: string, root: string, prefix = ''): void {
    for (const { key, bare } of keys) {
      const v = getKey(cfg, key);
      if (v) this.out.modules(v, file, prefix + key, root, bare);
    }
  }

  private globs(cfg: JsValue, file: string, root: string, key: string, exceptKey?: string): void {
    const v = getKey(cfg, key);
    if (!v) return;
    const except = (exceptKey ? quietStrings(getKey(cfg, exceptKey)) : [])
      .map((g) => repoGlobOf(g.replace(/^!/, ''), root))
      .filter((g): g is string => g !== undefined);
    const positive: { glob: string; line: number }[] = [];
    this.out.strings(v, file, key, (s) => {
      if (s.value.startsWith('!')) {
        const g = repoGlobOf(s.value.slice(1), root);
        if (g !== undefined) except.push(g);
      } else {
        const p = s.resolved ? s.value : repoGlobOf(s.value, root);
        if (p !== undefined) positive.push({ glob: p, line: s.line });
      }
    });
    for (const { glob, line } of positive) {
      // A folder given as a spec means its files.
      const g = !/[*?[{]/.test(glob) && this.files.isDir(glob) ? `${escapeGlob(glob)}/**` : glob;
      this.out.name(g, file, line, key, except);
    }
  }

  /** Module aliases: only a target that is one existing file can be an instrument (a stub); folders never are. */
  private aliases(v: JsValue | undefined, file: string, key: string, root: string): void {
    if (!v) return;
    const targets: JsValue[] = [];
    const visit = (n: JsValue) => {
      if (n.kind === 'either') n.options.forEach(visit);
      else if (n.kind === 'object') {
        for (const x of n.props.values()) targets.push(x);
        pushAll(targets, n.unknown);
      } else if (n.kind === 'array') {
        for (const item of n.items) {
          if (item.kind === 'object') {
            const r = getKey(item, 'replacement');
            if (r) targets.push(r);
          } else targets.push(item);
        }
      } else targets.push(n);
    };
    visit(v);
    for (const t of targets)
      this.out.strings(t, file, key, (s) => {
        // A capture group maps a family of modules (a folder), never one stub.
        if (/\$(\d|<)/.test(s.value) || !isPathLike(s.value, s.resolved) || s.value.startsWith('.')) return;
        const p = repoPathOf(s.value, s.resolved, root);
        if (p === undefined || this.files.isDir(p)) return;
        for (const c of importCandidates(p, `./${path.posix.basename(p)}`))
          if (this.files.has(c))
            this.out.candidate({ path: c, from: file, line: s.line, key, kind: 'alias' });
      });
  }

  /** A vitest (or vite) configuration file, and every project configuration it names. */
  async vitest(file: string, root = path.posix.dirname(file).replace(/^\.$/, '')): Promise<void> {
    if (this.done.has(`vitest:${file}`)) return;
    this.done.add(`vitest:${file}`);
    const cfg = await this.config(file);
    if (cfg) await this.vitestConfig(cfg, file, root);
  }

  private async vitestConfig(cfg: JsValue, file: string, parentRoot: string): Promise<void> {
    this.whole(cfg, file, '(configuration)');
    let root = parentRoot;
    for (const s of quietStrings(getKey(cfg, 'test.root') ?? getKey(cfg, 'root')))
      root = repoPathOf(s, false, parentRoot) ?? root;
    this.modules(cfg, VITEST_MODULES, file, root);
    for (const g of VITEST_GLOBS) this.globs(cfg, file, root, g.key, g.except);
    this.aliases(getKey(cfg, 'test.alias'), file, 'test.alias', root);
    // vite's resolve.alias builds the app too, unless the file is vitest's alone.
    if (path.posix.basename(file).startsWith('vitest.'))
      this.aliases(getKey(cfg, 'resolve.alias'), file, 'resolve.alias', root);
    for (const key of ['test.projects', 'test.workspace']) {
      const v = getKey(cfg, key);
      if (v) await this.projects(v, file, root, key, 'vitest');
    }
    const ext = getKey(cfg, 'extends');
    for (const s of quietStrings(ext)) {
      const p = repoPathOf(s, false, root);
      if (p && this.files.has(p)) {
        this.out.module(p, file, ext?.line ?? 1, 'extends');
        await this.vitest(p, root);
      }
    }
  }

  /** vitest `projects` / jest `projects`: globs of folders or of configuration files, or inline configurations. */
  private async projects(
    v: JsValue,
    file: string,
    root: string,
    key: string,
    runner: 'vitest' | 'jest',
  ): Promise<void> {
    const items: JsValue[] = [];
    const flat = (n: JsValue) => {
      if (n.kind === 'array') n.items.forEach(flat);
      else if (n.kind === 'either') n.options.forEach(flat);
      else items.push(n);
    };
    flat(v);
    for (const item of items) {
      if (item.kind === 'object') {
        if (runner === 'vitest') await this.vitestConfig(item, file, root);
        else await this.jestConfig(item, file, root);
        continue;
      }
      if (item.kind === 'unknown') {
        this.out.cannotRead(key, item);
        continue;
      }
      if (item.kind !== 'string' || item.value.startsWith('!')) continue;
      const glob = item.resolved ? escapeGlob(item.value) : repoGlobOf(item.value, root);
      if (glob === undefined) continue;
      const match = picomatch(glob, { dot: true });
      const names = runner === 'vitest' ? VITEST_CONFIGS : [...JEST_CONFIGS, 'package.json'];
      for (const f of this.files.paths) {
        const dir = path.posix.dirname(f);
        const isConfig = match(f) && /\.(c|m)?[jt]s$|\.json$/.test(f);
        const inProject = match(dir) && names.includes(path.posix.basename(f));
        if (!isConfig && !inProject) continue;
        // Only the first configuration a project folder has is the one the runner reads.
        if (inProject && names.find((n) => this.files.has(`${dir}/${n}`)) !== path.posix.basename(f))
          continue;
        this.out.module(f, file, item.line, key);
        if (runner === 'vitest') await this.vitest(f, dir);
        else if (path.posix.basename(f) === 'package.json') await this.packageJson(f, ['jest']);
        else await this.jest(f);
      }
    }
  }

  /** A jest configuration file; a preset's `<rootDir>` is the project's that uses it. */
  async jest(file: string, rootDir?: string): Promise<void> {
    if (this.done.has(`jest:${file}`)) return;
    this.done.add(`jest:${file}`);
    const cfg = await this.config(file);
    if (cfg) await this.jestConfig(cfg, file, rootDir ?? path.posix.dirname(file).replace(/^\.$/, ''));
  }

  private async jestConfig(cfg: JsValue, file: string, dir: string): Promise<void> {
    this.whole(cfg, file, '(configuration)');
    let root = dir;
    for (const s of quietStrings(getKey(cfg, 'rootDir'))) root = repoPathOf(s, false, dir) ?? root;
    this.modules(cfg, JEST_MODULES, file, root);
    const transform = getKey(cfg, 'transform');
    if (transform) this.aliasValues(transform, file, 'transform', root);
    this.globs(cfg, file, root, 'testMatch');
    this.regexTests(getKey(cfg, 'testRegex'), file, root);
    this.aliases(getKey(cfg, 'moduleNameMapper'), file, 'moduleNameMapper', root);
    const preset = getKey(cfg, 'preset');
    if (preset)
      for (const s of quietStrings(preset)) {
        if (!isPathLike(s, false)) continue;
        const p = repoPathOf(s, false, root);
        if (p === undefined) continue;
        const candidates = ['json', 'js', 'cjs', 'mjs'].map((e) => `${p}/jest-preset.${e}`);
        for (const c of candidates) this.out.name(escapeGlob(c), file, preset.line, 'preset');
        const found = candidates.find((c) => this.files.has(c)) ?? (this.files.has(p) ? p : undefined);
        if (found) await this.jest(found, root);
      }
    const projects = getKey(cfg, 'projects');
    if (projects) await this.projects(projects, file, root, 'projects', 'jest');
  }

  /** jest `transform`: the values of a map, each a module or a [module, options] pair. */
  private aliasValues(v: JsValue, file: string, key: string, root: string): void {
    const visit = (n: JsValue) => {
      if (n.kind === 'either') n.options.forEach(visit);
      else if (n.kind === 'object') {
        for (const x of n.props.values()) this.out.modules(x, file, key, root, false);
        for (const u of n.unknown) this.out.modules(u, file, key, root, false);
      } else this.out.modules(n, file, key, root, false);
    };
    visit(v);
  }

  /** jest `testRegex`: a pattern over the absolute path, so the base's files it matches are tests. */
  private regexTests(v: JsValue | undefined, file: string, root: string): void {
    if (!v) return;
    this.out.strings(v, file, 'testRegex', (s) => {
      let re: RegExp;
      try {
        re = new RegExp(s.value);
      } catch {
        return;
      }
      const prefix = root === '' ? '' : `${root}/`;
      for (const p of this.files.paths)
        if (p.startsWith(prefix) && re.test(`/${p}`)) this.out.name(escapeGlob(p), file, s.line, 'testRegex');
    });
  }

  /** The runner keys of a package.json (`jest`, `mocha`, `babel`). */
  async packageJson(file: string, keys: readonly ('jest' | 'mocha' | 'babel')[]): Promise<void> {
    const r = await this.reader(file);
    if (!r) return;
    const pkg = r.exported();
    const dir = path.posix.dirname(file).replace(/^\.$/, '');
    for (const key of keys) {
      const v = getKey(pkg, key);
      if (!v || v.kind === 'literal') continue;
      if (key === 'jest') await this.jestConfig(v, file, dir);
      else if (key === 'mocha') this.mochaConfig(v, file);
      else await this.babelConfig(v, file, dir);
    }
  }

  /** A mocha configuration file (JavaScript, YAML or JSON). */
  async mocha(file: string): Promise<void> {
    if (this.done.has(`mocha:${file}`)) return;
    this.done.add(`mocha:${file}`);
    const cfg = await this.config(file);
    if (cfg) this.mochaConfig(cfg, file);
  }

  private mochaConfig(cfg: JsValue, file: string): void {
    this.whole(cfg, file, '(configuration)');
    // mocha resolves its paths from the working directory, the checkout's root.
    this.modules(cfg, MOCHA_MODULES, file, '');
    this.globs(cfg, file, '', 'spec', 'ignore');
    for (const key of ['node-option', 'n']) {
      const v = getKey(cfg, key);
      if (!v) continue;
      this.out.strings(v, file, key, (s) => {
        const m = /^(?:import|require|r|loader|experimental-loader)=(.+)$/.exec(s.value);
        if (m?.[1]) this.out.modules({ ...s, value: m[1] }, file, key, '', false);
      });
    }
  }

  /** A Babel configuration file: its plugins and presets given as paths, and what it extends. */
  async babel(file: string): Promise<void> {
    if (this.done.has(`babel:${file}`)) return;
    this.done.add(`babel:${file}`);
    const cfg = await this.config(file);
    if (cfg) await this.babelConfig(cfg, file, path.posix.dirname(file).replace(/^\.$/, ''));
  }

  private async babelConfig(cfg: JsValue, file: string, dir: string): Promise<void> {
    this.whole(cfg, file, '(configuration)');
    const sections: JsValue[] = [cfg];
    for (const o of [getKey(cfg, 'overrides'), getKey(cfg, 'env')])
      if (o?.kind === 'array') pushAll(sections, o.items);
      else if (o?.kind === 'object') pushAll(sections, o.props.values());
    for (const s of sections)
      for (const key of ['presets', 'plugins']) {
        const v = getKey(s, key);
        if (v) this.out.modules(v, file, key, dir, false);
      }
    for (const s of quietStrings(getKey(cfg, 'extends'))) {
      const p = repoPathOf(s, false, dir);
      if (p && this.files.has(p)) {
        this.out.module(p, file, 1, 'extends');
        await this.babel(p);
      }
    }
  }

  /** Every module the configurations read: the files a `vitest.config.ts` imports are configuration too. */
  get modulesRead(): ReadonlySet<string> {
    return this.configModules;
  }
}

/** A YAML document (`.mocharc.yml`) as a value; its lines are not tracked. */
function yamlValue(text: string | undefined, file: string): JsValue {
  let data: unknown;
  try {
    data = parseYaml(text ?? '');
  } catch (err) {
    return {
      kind: 'unknown',
      line: 1,
      file,
      text: file,
      why: `not valid YAML: ${(err as Error).message.split('\n')[0]}`,
    };
  }
  const convert = (d: unknown): JsValue => {
    if (typeof d === 'string') return { kind: 'string', value: d, line: 1 };
    if (Array.isArray(d)) return { kind: 'array', items: d.map(convert), line: 1 };
    if (d !== null && typeof d === 'object')
      return {
        kind: 'object',
        props: new Map(Object.entries(d as Record<string, unknown>).map(([k, v]) => [k, convert(v)])),
        unknown: [],
        line: 1,
      };
    return { kind: 'literal', line: 1 };
  };
  return convert(data);
}
