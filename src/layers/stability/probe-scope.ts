/**
 * Which of the head's test files the stability probe reruns: those the patch
 * can affect. A test file is probed when the patch changed it, when its
 * import closure (its imports, theirs, its conftest files and packages, the
 * runner's setup files) holds a changed file, or when something in that
 * closure loads a module the gate cannot name and some module changed.
 * Every test file is probed when the patch changed what every test runs with
 * (the runner's configuration, a conftest or setup file, a mixed file, the
 * toolchain, a manifest or lockfile), changed code no import graph follows,
 * or when the runner cannot run a chosen set of files.
 *
 * Everything is read from committed text with real parsers (never by
 * running head code), and the rules that decide what counts as test side,
 * what the runner loads, and how it runs are the base's.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import type TS from 'typescript';
import type { Change } from '../../git/changes.js';
import type { TreeFiles } from '../../overlay/revision-files.js';
import type { NamedPath } from '../../overlay/runner-config/types.js';
import { mergeSections, sectionRuleFor } from '../../overlay/sections.js';
import { byCodePoint } from '../../util/compare.js';
import { namedMatcher, SELECTING_KEY } from '../../util/named-glob.js';
import {
  changedNames,
  type DiffPython,
  type Mentions,
  type ModuleChange,
  mentioned,
  mentionsOf,
  sameRuntimeCode,
} from './changed-names.js';
import { type GraphEdge, ImportGraph, PACKAGE_NODE, type ParsePython, SETUP_NODE } from './import-graph.js';
import { jsLoads } from './js-imports.js';
import { JsResolver } from './resolve.js';
import { JS_MODULE, type PathKind, pathKind } from './scope-rules.js';

/** One hop of a chain from a test file to what it reaches. */
export interface ChainStep {
  file: string;
  /** How the previous file loads this one; absent on the test file itself. */
  by?: string;
  line?: number;
}

/** Why one test file is probed. */
export interface ProbeReason {
  /** The changed path it reaches, or what it loads that the gate cannot follow. */
  change: string;
  /** From the test file to the change. */
  via: ChainStep[];
  /** For a load the gate cannot follow: where, and what. */
  unresolved?: { file: string; line: number; what: string };
  /**
   * For a module whose change is of named definitions only: the file of the
   * test's closure that mentions one (`computed`: reaches attributes by
   * computed names, so may reach any).
   */
  uses?: { name: string; file: string; computed?: true };
}

export interface ProbedFile {
  file: string;
  why: ProbeReason[];
  /** How many reasons there were (only the shortest few are kept). */
  reasons: number;
}

export interface ProbeScope {
  /** `all`: every test file, for `reasons`; `affected`: only the files the patch can affect. */
  mode: 'all' | 'affected';
  /** For `all`: what made the gate probe every test. */
  reasons: string[];
  probed: ProbedFile[];
  notProbed: string[];
  /**
   * The changes the graph followed, each with its kind; for a modified
   * module, the definitions that changed (`names`, none when only
   * formatting, comments or types did) or why the whole module counts
   * (`whole`); for a dependency file that decides nothing here, why (`inert`).
   */
  changes: { path: string; kind: PathKind['kind']; names?: string[]; whole?: string; inert?: string }[];
}

export interface ScopeInput {
  /** The head's tree, from git's objects. */
  files: TreeFiles;
  changes: readonly Change[];
  /**
   * Every test file of the head's first run; `undefined` when some test's
   * id does not say its file (the scope then cannot be told).
   */
  testFiles: readonly string[] | undefined;
  /** Tests the first run reported without a file, for the reason. */
  unmapped?: string;
  /** Whether the runner can run the tests of chosen files (a preset with file arguments, `{tests}` in the command). */
  canSelectFiles: boolean;
  preset: string;
  /** The base's split of test side and production side. */
  isTestPath(p: string): boolean;
  /** What the base's runner configuration names (setup files, plugins, test globs). */
  named: readonly NamedPath[];
  /** The paths TOOLCHAIN_CHANGED's rules flag in this patch. */
  toolchain: readonly string[];
  /** `tests.setup` and the base package.json's scripts, which run files by name. */
  commands: readonly { text: string; where: string }[];
  lockfiles: ReadonlySet<string>;
  packageDirMapped: boolean;
  /** The TypeScript compiler, asked for only when a JavaScript or TypeScript file is read. */
  ts: () => typeof TS;
  parsePython: ParsePython;
  /**
   * The base's committed copy of a path. With it, a modified Python module
   * counts by the definitions the patch changed, and a mixed manifest by its
   * test sections; without, every changed module counts whole.
   */
  readBase?(p: string): Promise<string | undefined>;
  /** Compares modules' copies (patchgate_changed_names.py in the sandbox). */
  diffPython?: DiffPython;
  /**
   * Whether the head's checkout runs with installed dependencies (a
   * `tests.setup` step, or dependency folders lent from the working tree):
   * without, a lockfile or a manifest's metadata decides nothing the tests
   * run with.
   */
  installs?: boolean;
  signal?: AbortSignal;
}

const MAX_REASONS = 5;

const kindOrder = (p: ChainStep[]) => p.length;

function segmentsOf(s: string): string[] {
  return s.split(/[\\/]/).filter((x) => x !== '');
}

/** Whether a file's strings name a changed data file (its name, a folder it is in) or a changed module (its name). */
function names(
  strings: readonly string[],
  capped: boolean,
  from: string,
  target: string,
  data: boolean,
): string | undefined {
  const base = path.posix.basename(target);
  const folders = path.posix.dirname(target) === '.' ? [] : path.posix.dirname(target).split('/');
  if (capped && data) return '(more strings than the gate keeps: it may name any file)';
  for (const s of strings) {
    const segs = segmentsOf(s);
    const last = segs[segs.length - 1];
    if (last === undefined) continue;
    if (last === base || s === target) return s;
    if (!data) continue;
    if (segs.some((x) => folders.includes(x))) return s;
    // A glob names what it matches, from the repository's root or from the file's own folder; `**` or `*`
    // alone is no name of anything.
    if (segs.some((x) => /[*?[{]/.test(x))) {
      const pattern = s.replace(/^(?:\.\/)+/, '');
      const near = path.posix.relative(path.posix.dirname(from), target);
      const opts = { dot: true };
      if (
        picomatch.isMatch(target, pattern, opts) ||
        picomatch.isMatch(near, pattern, opts) ||
        // A name pattern alone (`*.json`) may be matched anywhere, if it says something: `*` alone does not.
        (segs.length === 1 && /[^*?]/.test(pattern) && picomatch.isMatch(base, pattern, opts))
      )
        return s;
    }
    // `..` walks up from the file's own folder: it names every folder above.
    if (segs.every((x) => x === '..' || x === '.') && segs.includes('..')) {
      const up = path.posix.normalize(path.posix.join(path.posix.dirname(from), s));
      if (up === '.' || up.startsWith('..') || target.startsWith(`${up}/`)) return s;
    }
  }
  return undefined;
}

function everything(input: ScopeInput, reasons: string[], changes: ProbeScope['changes']): ProbeScope {
  const all = [...new Set(input.testFiles ?? [])].sort(byCodePoint);
  return {
    mode: 'all',
    reasons,
    probed: all.map((file) => ({ file, why: [], reasons: 0 })),
    notProbed: [],
    changes,
  };
}

export async function probeScope(input: ScopeInput): Promise<ProbeScope> {
  const live = input.changes.filter((c) => c.kind !== 'deleted');
  const paths = [...new Set(input.changes.flatMap((c) => (c.from ? [c.from, c.path] : [c.path])))].sort(
    byCodePoint,
  );
  const testFiles = new Set(input.testFiles ?? []);
  const kinds = new Map<string, PathKind>();
  for (const p of paths) kinds.set(p, pathKind(p, input.lockfiles));
  const inert = await inertDependencyFiles(input, live, kinds);
  for (const p of inert.keys()) kinds.set(p, { kind: 'data' });
  const changes: ProbeScope['changes'] = paths.map((p) => ({
    path: p,
    kind: kinds.get(p)?.kind ?? 'data',
    ...(inert.has(p) ? { inert: inert.get(p) } : {}),
  }));
  if (paths.length === 0)
    return {
      mode: 'affected',
      reasons: [],
      probed: [],
      notProbed: [...testFiles].sort(byCodePoint),
      changes,
    };

  const reasons: string[] = [];
  if (!input.canSelectFiles)
    reasons.push(`the ${input.preset} runner, as configured, cannot run the tests of chosen files`);
  if (input.testFiles === undefined)
    reasons.push(
      `the first run reported tests whose file the gate cannot tell (${input.unmapped ?? 'no file'})`,
    );
  else
    for (const f of [...testFiles].sort(byCodePoint))
      if (!input.files.has(f)) {
        reasons.push(`the first run reported tests of ${f}, which is no file of the head's tree`);
        break;
      }
  for (const p of paths) {
    const k = kinds.get(p);
    if (k?.kind === 'all' && !testFiles.has(p)) reasons.push(k.why);
  }
  for (const t of input.toolchain)
    reasons.push(`${t} changes the test toolchain (TOOLCHAIN_CHANGED's rules)`);
  const named = input.named.map((n) => ({ n, match: namedMatcher(n.path, n.except) }));
  for (const p of paths) {
    if (testFiles.has(p)) continue;
    const hit = named.find(({ n, match }) => !SELECTING_KEY.test(n.key) && match(p));
    if (hit)
      reasons.push(
        `${p} is named by the base's runner configuration (${hit.n.key} in ${hit.n.from}:${hit.n.line}): it loads into every test`,
      );
  }
  for (const p of paths) {
    const cmd = input.commands.find((c) =>
      c.text.split(/[\s'"=;&|()]+/).some((w) => w === p || w === `./${p}` || w.endsWith(`/${p}`)),
    );
    if (cmd) reasons.push(`${p} is run by ${cmd.where} before the tests`);
  }
  if (reasons.length > 0) return everything(input, [...new Set(reasons)], changes);

  // The files every test loads: what the base's runner configuration names (but the test globs), and the
  // runner's own configuration files the head has.
  const setup = new Set<string>();
  for (const { n } of named) {
    if (SELECTING_KEY.test(n.key)) continue;
    const p = n.path.replace(/\\(.)/g, '$1');
    if (
      input.files.has(p) &&
      (JS_MODULE.test(p) || p.endsWith('.py')) &&
      !p.endsWith('/conftest.py') &&
      p !== 'conftest.py'
    )
      setup.add(p);
  }
  const aliasWords: string[] = [];
  const configFiles = input.files.paths.filter(
    (p) =>
      JS_MODULE.test(p) &&
      !p.split('/').includes('node_modules') &&
      pathKind(p, input.lockfiles).kind === 'all',
  );
  for (const [p, text] of await input.files.readMany(configFiles)) {
    setup.add(p);
    for (const w of jsLoads(input.ts(), p, text).words) aliasWords.push(w);
  }
  const js = await JsResolver.create(input.files, input.ts, aliasWords);
  const graph = await ImportGraph.build({
    files: input.files,
    ts: input.ts,
    js,
    parsePython: input.parsePython,
    packageDirMapped: input.packageDirMapped,
    tests: [...testFiles].sort(byCodePoint),
    setup: [...setup].sort(byCodePoint),
    ...(input.signal ? { signal: input.signal } : {}),
  });

  // The targets: changed files of the head a test can reach, and which kind of loader can reach each.
  const reachable = live
    .map((c) => c.path)
    .filter((p) => {
      const k = kinds.get(p)?.kind;
      return k === 'module' || k === 'data';
    });
  // A modified Python module counts by the definitions the patch changed; one whose syntax tree is the
  // base's (formatting, comments) changed nothing that runs.
  const moduleChanges = await pythonModuleChanges(input, live);
  for (const [p, m] of await jsModuleChanges(input, live)) moduleChanges.set(p, m);
  for (const c of changes) {
    const m = moduleChanges.get(c.path);
    if (m) Object.assign(c, 'names' in m ? { names: m.names } : { whole: m.whole });
  }
  const targets = reachable.filter((p) => {
    const m = moduleChanges.get(p);
    return !(m && 'names' in m && m.names.length === 0);
  });
  // A workspace package (or the package itself, imported by its own name) is every production module in it.
  for (const [key, node] of graph.nodes) {
    if (!key.startsWith(PACKAGE_NODE)) continue;
    const dir = key.slice(PACKAGE_NODE.length);
    for (const t of targets)
      if (
        (dir === '' || t.startsWith(`${dir}/`)) &&
        !input.isTestPath(t) &&
        (JS_MODULE.test(t) || t.endsWith('.json'))
      )
        node.edges.push({ to: t, how: 'a module of that package' });
  }
  // Strings naming a changed file: a data file read by path, a script started by name.
  for (const [file, node] of graph.nodes) {
    if (file.startsWith('\u0000')) continue;
    for (const t of targets) {
      if (t === file) continue;
      const said = names(node.strings, node.stringsCapped, file, t, kinds.get(t)?.kind === 'data');
      if (said !== undefined) node.edges.push({ to: t, how: `names ${JSON.stringify(said)}` });
    }
  }

  const reverse = new Map<string, { from: string; edge: GraphEdge }[]>();
  for (const [from, node] of graph.nodes)
    for (const edge of node.edges) {
      const list = reverse.get(edge.to);
      if (list) list.push({ from, edge });
      else reverse.set(edge.to, [{ from, edge }]);
    }
  const why = new Map<string, ProbeReason[]>();
  const add = (file: string, r: ProbeReason) => {
    const list = why.get(file);
    if (list) list.push(r);
    else why.set(file, [r]);
  };
  /** Backwards from `sources` over the reverse edges: for each test file reached, its chain forwards. */
  const backwards = (
    sources: readonly string[],
    reason: (source: string, via: ChainStep[]) => ProbeReason,
    keep: (reason: ProbeReason) => boolean = () => true,
  ) => {
    const next = new Map<string, { to: string; edge: GraphEdge } | null>();
    const queue: string[] = [];
    for (const s of sources) {
      next.set(s, null);
      queue.push(s);
    }
    for (let i = 0; i < queue.length; i++) {
      const at = queue[i] as string;
      for (const { from, edge } of reverse.get(at) ?? []) {
        if (next.has(from)) continue;
        next.set(from, { to: at, edge });
        queue.push(from);
      }
    }
    for (const t of testFiles) {
      if (!next.has(t)) continue;
      const via: ChainStep[] = [{ file: t }];
      let at = t;
      for (let step = next.get(at); step; step = next.get(at)) {
        via.push({
          file: step.to.startsWith(PACKAGE_NODE)
            ? `(the production modules of ${step.to.slice(PACKAGE_NODE.length) || 'the root package'})`
            : step.to === SETUP_NODE
              ? "(the runner's configuration and setup files)"
              : step.to,
          by: step.edge.how,
          ...(step.edge.line !== undefined ? { line: step.edge.line } : {}),
        });
        at = step.to;
      }
      const r = reason(at, via);
      if (keep(r)) add(t, r);
    }
  };
  const mentionsCache = new Map<string, Mentions>();
  const closureOf = (test: string): string[] => {
    const seen = new Set<string>([test]);
    const queue = [test];
    for (let i = 0; i < queue.length; i++)
      for (const e of graph.nodes.get(queue[i] as string)?.edges ?? [])
        if (!seen.has(e.to)) {
          seen.add(e.to);
          queue.push(e.to);
        }
    return [...seen].filter((f) => !f.startsWith('\u0000')).sort(byCodePoint);
  };
  /** The first file of the test's closure (the changed module aside) that mentions one of `names`. */
  const firstMention = async (test: string, module: string, names: readonly string[]) => {
    const files = closureOf(test).filter((f) => f !== module);
    const unread = files.filter((f) => !mentionsCache.has(f));
    for (const [f, text] of await input.files.readMany(unread)) mentionsCache.set(f, mentionsOf(f, text));
    let computed: ProbeReason['uses'] | undefined;
    for (const f of files) {
      const m = mentionsCache.get(f);
      // A file the gate could not read could mention anything.
      if (!m) return { name: names[0] ?? '', file: f, computed: true as const };
      const hit = mentioned(m, names);
      if (hit && !hit.computed) return { name: hit.name, file: f };
      if (hit && !computed) computed = { name: hit.name, file: f, computed: true };
    }
    return computed;
  };
  for (const t of targets) {
    const m = moduleChanges.get(t);
    const named = m && 'names' in m ? m.names : undefined;
    const found: { test: string; reason: ProbeReason }[] = [];
    backwards(
      [t],
      (source, via) => {
        const reason: ProbeReason =
          via.length === 1
            ? { change: source, via: [{ file: source, by: 'the patch changed it' }] }
            : { change: source, via };
        found.push({ test: via[0]?.file ?? source, reason });
        return reason;
      },
      named ? () => false : undefined,
    );
    if (!named) continue;
    for (const { test, reason } of found) {
      // The changed module is the test file itself (a test-side module the patch changed): probed.
      const uses = test === t ? undefined : await firstMention(test, t, named);
      if (test === t || uses) add(test, { ...reason, ...(uses ? { uses } : {}) });
    }
  }
  for (const c of live) {
    const k = kinds.get(c.path);
    if (k?.kind === 'snapshot' && testFiles.has(k.test))
      add(k.test, { change: c.path, via: [{ file: k.test }, { file: c.path, by: 'its snapshot file' }] });
  }
  // A load the gate cannot follow could be any changed module its language can load.
  const changedModule = { js: false, py: false };
  for (const t of targets) {
    if (JS_MODULE.test(t) || t.endsWith('.json')) changedModule.js = true;
    if (t.endsWith('.py')) changedModule.py = true;
  }
  const doubtful = [...graph.nodes]
    .filter(([f, n]) => !f.startsWith('\u0000') && n.doubts.some((d) => changedModule[d.lang]))
    .map(([f]) => f);
  if (doubtful.length > 0)
    backwards(doubtful, (source, via) => {
      const d = graph.nodes.get(source)?.doubts.find((x) => changedModule[x.lang]);
      return {
        change: '(a changed module it may load)',
        via,
        ...(d ? { unresolved: { file: source, line: d.line, what: d.what } } : {}),
      };
    });

  const probed: ProbedFile[] = [];
  const notProbed: string[] = [];
  for (const f of [...testFiles].sort(byCodePoint)) {
    const list = why.get(f);
    if (!list) {
      notProbed.push(f);
      continue;
    }
    const sorted = [...list].sort(
      (a, b) => kindOrder(a.via) - kindOrder(b.via) || byCodePoint(a.change, b.change),
    );
    probed.push({ file: f, why: sorted.slice(0, MAX_REASONS), reasons: sorted.length });
  }
  return { mode: 'affected', reasons: [], probed, notProbed, changes };
}

/** Both copies of the production modules the patch modified that `which` picks. */
async function modifiedPairs(
  input: ScopeInput,
  live: readonly Change[],
  which: (p: string) => boolean,
): Promise<{ path: string; base: string; head: string }[]> {
  const { readBase } = input;
  if (!readBase) return [];
  const modified = live.filter((c) => c.kind === 'modified' && which(c.path) && !input.isTestPath(c.path));
  const heads = await input.files.readMany(modified.map((c) => c.path));
  const pairs: { path: string; base: string; head: string }[] = [];
  for (const c of modified) {
    const base = await readBase(c.path);
    const head = heads.get(c.path);
    if (base !== undefined && head !== undefined) pairs.push({ path: c.path, base, head });
  }
  return pairs;
}

/** Modified Python modules, compared definition by definition. */
async function pythonModuleChanges(
  input: ScopeInput,
  live: readonly Change[],
): Promise<Map<string, ModuleChange>> {
  if (!input.diffPython) return new Map();
  return changedNames(await modifiedPairs(input, live, (p) => p.endsWith('.py')), input.diffPython);
}

/**
 * Dependency files that decide nothing the tests run with: with no setup
 * step installing into the checkouts, a lockfile or a manifest is only
 * metadata, and a mixed manifest (`pyproject.toml`, `setup.cfg`) reaches the
 * tests only through its test sections. `package.json` and the tsconfigs are
 * read when modules load, so they always count.
 */
async function inertDependencyFiles(
  input: ScopeInput,
  live: readonly Change[],
  kinds: ReadonlyMap<string, PathKind>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (input.installs !== false || !input.readBase) return out;
  for (const c of live) {
    const k = kinds.get(c.path);
    if (k?.kind !== 'all' || k.manifest !== true) continue;
    const rule = sectionRuleFor(c.path);
    if (rule && rule.kind !== 'toml' && rule.kind !== 'ini') continue;
    if (rule) {
      const base = c.kind === 'renamed' ? undefined : await input.readBase(c.path);
      const head = (await input.files.readMany([c.path])).get(c.path);
      const merged = mergeSections(rule, base, head);
      // The head's test sections are the base's (else the merge would have put the base's back).
      if (merged.fromBase !== undefined || merged.text !== head) continue;
      out.set(
        c.path,
        `${c.path} changed outside its test sections, and no setup step installs from it: nothing the tests run with changed`,
      );
    } else
      out.set(
        c.path,
        `${c.path} is a dependency manifest or lockfile, and no setup step installs from it: nothing the tests run with changed`,
      );
  }
  return out;
}

/**
 * Modified JavaScript and TypeScript modules whose copies run the same code
 * (formatting, comments, types): they change nothing. Any other change counts
 * whole: JavaScript reaches code by computed keys too often for names to say.
 */
async function jsModuleChanges(
  input: ScopeInput,
  live: readonly Change[],
): Promise<Map<string, ModuleChange>> {
  const out = new Map<string, ModuleChange>();
  for (const m of await modifiedPairs(input, live, (p) => JS_MODULE.test(p)))
    if (sameRuntimeCode(input.ts(), m.path, m.base, m.head)) out.set(m.path, { names: [] });
  return out;
}
