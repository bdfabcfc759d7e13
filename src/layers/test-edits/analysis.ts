/**
 * One analysis of the patch's test-side diff per run, shared by every layer
 * that explains a finding with it (regression, seeds, hits, signatures) and
 * by the test-edits layer, which reports what no finding explained.
 *
 * Every test-side file the patch changed, deleted or renamed (git's rename
 * detection), every runner configuration file, and every test-side file it
 * added that holds no tests (a conftest.py, a setup file), is read on both
 * sides from git's objects (never from a checkout head code could have
 * written), by real parsers: the TypeScript compiler for JavaScript and
 * TypeScript, Python's `ast` in the sandbox for Python (one process for every
 * file), the runners' own config readers for their configuration. A test the
 * patch moved to another file is followed there by its name.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import { testSideFor } from '../../overlay/test-side.js';
import { loadTypescript } from '../../util/typescript.js';
import type { LayerContext } from '../types.js';
import { compareFile, deletedTest, type FilePair, matchUnits } from './compare.js';
import { configFacts, isRunnerConfig } from './config-facts.js';
import { jsFacts } from './js-facts.js';
import type { FileFacts, FileReading, TestEdit, Unit } from './model.js';
import { pythonFacts } from './python-facts.js';

const JS_FILE = /\.[cm]?[jt]sx?$|\.snap$/;
const PY_FILE = /\.py$/;
const TEST_FILE = /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/;
/** Past this a file is not read (no test file is this large); it is reported as unread. */
export const MAX_TEST_FILE_BYTES = 4 * 1024 * 1024;
const MAX_EVIDENCE_TEXT = 400;

/** A base test, as a finding names it. */
export interface TestQuery {
  /** The base's path of the file it is in. */
  file: string;
  /** The runner's name of it (`Class::test_x[p]`, `describe > it`); absent for the whole file. */
  name?: string;
  /** Look only for a seed or hits property of this name (its module, when known, in `file`). */
  kind?: 'seed' | 'hits';
}

interface AnalyzedFile {
  file: string;
  baseFile: string;
  /** The base's tests of the file. */
  units: Unit[];
  /** JavaScript and TypeScript configure every test; Python only those under its folder. */
  scope: 'all' | 'folder' | 'self';
}

export class TestEditAnalysis {
  private readonly explained = new Set<TestEdit>();
  private readonly order: ReadonlyMap<TestEdit, number>;

  /** Edits by the base's path of their file (the head's for a file the patch added). */
  private readonly byFile = new Map<string, TestEdit[]>();
  private readonly fileOf = new Map<string, AnalyzedFile>();
  /** Edits to a whole file that configures others (a conftest, a runner config, a setup file). */
  private readonly configuring: { edit: TestEdit; from: AnalyzedFile }[] = [];

  constructor(
    readonly edits: readonly TestEdit[],
    private readonly files: readonly AnalyzedFile[],
  ) {
    this.order = new Map(edits.map((e, i) => [e, i]));
    for (const f of files) {
      this.fileOf.set(f.baseFile, f);
      if (!this.fileOf.has(f.file)) this.fileOf.set(f.file, f);
    }
    for (const e of edits) {
      const base = e.baseFile ?? e.file;
      const list = this.byFile.get(base);
      if (list) list.push(e);
      else this.byFile.set(base, [e]);
      const from = this.fileOf.get(base);
      if (e.test === undefined && from && from.scope !== 'self') this.configuring.push({ edit: e, from });
    }
  }

  /** How many files were read. */
  get fileCount(): number {
    return this.files.length;
  }

  /**
   * The edits that can explain what a base test did on the head's code: its
   * own, those to its file as a whole (a hook, a module-wide skip, an `only`
   * on another test, the file's deletion, a snapshot of it), and those to
   * the files that configure it (a conftest.py above it, a runner config, a
   * setup file). Looked up by file, so a run with many findings and many
   * edits stays linear in both.
   */
  forTest(q: TestQuery): TestEdit[] {
    const name = q.name === undefined ? undefined : stripParams(q.name);
    const named = (test: string | undefined) =>
      name === undefined || (test !== undefined && unitNameMatches(test, name));
    // A fast-check seed row names no file: its module is the one that defines a property of that id. A head
    // test (the signatures layer's) is found by the head's path and name too.
    const own =
      q.file === ''
        ? this.files.filter((f) => f.units.some((u) => u.kind === q.kind && named(u.name)))
        : [...new Set([this.fileOf.get(q.file)])].filter((f): f is AnalyzedFile => f !== undefined);
    const snapshotOf = (file: string) =>
      `${path.posix.dirname(file)}/__snapshots__/${path.posix.basename(file)}.snap`.replace(/^\.\//, '');
    const snapshots = new Set([
      ...own.map((f) => snapshotOf(f.baseFile)),
      ...(q.file !== '' ? [snapshotOf(q.file)] : []),
    ]);
    const rank = new Map<TestEdit, number>();
    for (const mine of own)
      for (const e of this.byFile.get(mine.baseFile) ?? []) {
        if (e.test !== undefined && e.kind !== 'focus-added' && (named(e.test) || named(e.headTest)))
          rank.set(e, 0);
        else if (e.test === undefined || e.kind === 'focus-added') rank.set(e, 1);
        // A property its module defines by other means (a Python PROPERTIES list): every edit of the module.
        else if (q.kind !== undefined && !mine.units.some((u) => named(u.name))) rank.set(e, 1);
      }
    for (const snap of snapshots)
      for (const e of this.byFile.get(snap) ?? []) if (e.test === undefined || named(e.test)) rank.set(e, 1);
    const ownFiles = new Set(own.map((f) => f.baseFile));
    for (const { edit, from } of this.configuring) {
      if (ownFiles.has(from.baseFile) || snapshots.has(from.baseFile)) continue;
      const dir = path.posix.dirname(from.baseFile);
      if (
        from.scope === 'all' ||
        own.some((f) => inFolder(dir, f.baseFile)) ||
        (own.length === 0 && inFolder(dir, q.file))
      )
        rank.set(edit, 2);
    }
    // Its own edits first, then its file's, then those of the files that configure it.
    return [...rank.keys()].sort(
      (a, b) => rank.get(a)! - rank.get(b)! || this.order.get(a)! - this.order.get(b)!,
    );
  }

  /** Marks edits as the evidence of a finding: the test-edits layer does not report them again. */
  explain(edits: readonly TestEdit[]): void {
    for (const e of edits) this.explained.add(e);
  }

  /** The edits no finding has explained. */
  unexplained(): TestEdit[] {
    return this.edits.filter((e) => !this.explained.has(e));
  }
}

function inFolder(dir: string, file: string): boolean {
  return dir === '.' || dir === '' || file.startsWith(`${dir}/`);
}

/** A pytest id's parameters (`test_x[1-2]`) are one test of the file. */
function stripParams(name: string): string {
  return name.replace(/\[[^\]]*\]$/, '');
}

/**
 * Whether the runner's name of a test is this unit's: the same path of
 * names joined by ` > ` (vitest) or spaces (jest, mocha), with a table
 * test's `%s` / `$x` placeholders matching anything.
 */
export function unitNameMatches(unit: string, runnerName: string): boolean {
  const name = stripParams(runnerName.trim());
  if (unit === name || unit.split(' > ').join(' ') === name) return true;
  if (!/%[sdifjoOp#%]|\$\w|\$\{/.test(unit)) return false;
  const parts = unit.split(/(%[sdifjoOp#%]|\$\{[^}]*\}|\$\w+(?:\.\w+)*)/);
  const source = parts
    .map((p, i) => (i % 2 === 1 ? '.*' : p.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')))
    .join('');
  return new RegExp(`^(?:${source}|${source.split(' > ').join(' ')})$`).test(name);
}

const analyses = new WeakMap<object, Promise<TestEditAnalysis>>();

/**
 * The run's analysis, made on first use. The layers that explain edits
 * (regression, hits, seeds) and the test-edits layer that reports the rest
 * share it, so it is keyed by the run's contract snapshot: one object per
 * run, while each layer is handed a context of its own.
 */
export function testEditsOf(ctx: LayerContext): Promise<TestEditAnalysis> {
  let p = analyses.get(ctx.snapshot);
  if (!p) {
    p = analyzeTestEdits(ctx);
    analyses.set(ctx.snapshot, p);
  }
  return p;
}

interface Wanted {
  file: string;
  baseFile: string;
  base?: string;
  head?: string;
  lang: 'js' | 'py' | 'config';
  added: boolean;
}

export async function analyzeTestEdits(ctx: LayerContext): Promise<TestEditAnalysis> {
  const side = testSideFor(ctx.config, ctx.overlay.named);
  const modules = picomatch(
    [
      ...(ctx.config.hits?.properties ?? []),
      ...(ctx.config.hits?.python ?? []).map((p) => p.module),
      ...(ctx.config.seeds?.properties ?? []),
    ],
    { dot: true },
  );
  const wanted: Wanted[] = [];
  for (const c of ctx.changes) {
    const baseFile = c.kind === 'renamed' ? (c.from ?? c.path) : c.path;
    const config = isRunnerConfig(c.path) || isRunnerConfig(baseFile);
    if (!config && !side.isTestPath(c.path) && !side.isTestPath(baseFile)) continue;
    // A runner's configuration module is read for its include and exclude lists.
    const lang = PY_FILE.test(c.path) ? 'py' : config ? 'config' : JS_FILE.test(c.path) ? 'js' : undefined;
    if (!lang) continue;
    const [base, head] = await Promise.all([
      c.kind === 'added' ? undefined : ctx.base.readCommitted(baseFile),
      c.kind === 'deleted' ? undefined : ctx.head.readCommitted(c.path),
    ]);
    wanted.push({
      file: c.kind === 'deleted' ? baseFile : c.path,
      baseFile,
      ...(base !== undefined ? { base } : {}),
      ...(head !== undefined ? { head } : {}),
      lang,
      added: c.kind === 'added',
    });
  }

  const readings = new Map<string, FileReading>();
  const key = (s: 'base' | 'head', f: string) => `${s}\u241f${f}`;
  const tooLarge = (text: string): FileReading | undefined =>
    Buffer.byteLength(text, 'utf8') > MAX_TEST_FILE_BYTES
      ? { ok: false, error: `larger than ${MAX_TEST_FILE_BYTES} bytes, not read`, line: 0 }
      : undefined;
  const python = new Map<string, string>();
  const ts = wanted.some((w) => w.lang !== 'py') ? await loadTypescript() : undefined;
  for (const w of wanted) {
    for (const s of ['base', 'head'] as const) {
      const text = w[s];
      const file = s === 'base' ? w.baseFile : w.file;
      if (text === undefined) continue;
      const big = tooLarge(text);
      if (big) readings.set(key(s, file), big);
      else if (w.lang === 'py') python.set(key(s, file), text);
      else if (w.lang === 'config') readings.set(key(s, file), configFacts(ts!, file, text));
      else readings.set(key(s, file), jsFacts(ts!, file, text));
    }
  }
  for (const [k, r] of await pythonFacts(python, {
    sandbox: ctx.sandbox,
    logDir: ctx.logDir,
    signal: ctx.signal,
  }))
    readings.set(k, r);

  const edits: TestEdit[] = [];
  const files: AnalyzedFile[] = [];
  const gone: { pair: FilePair; unit: Unit }[] = [];
  const added: { pair: FilePair; unit: Unit }[] = [];
  for (const w of wanted) {
    const b = w.base === undefined ? undefined : readings.get(key('base', w.baseFile));
    const h = w.head === undefined ? undefined : readings.get(key('head', w.file));
    // A copy that does not parse hides what it does: said so, never read as "nothing changed".
    if (h && !h.ok) {
      edits.push({
        kind: 'unreadable',
        file: w.file,
        ...(w.baseFile !== w.file ? { baseFile: w.baseFile } : {}),
        ...(h.line > 0 ? { headLine: h.line } : {}),
        description: `left ${w.file} in a state the gate's parser cannot read (${h.error}), so what it changed in its tests is unknown`,
      });
      files.push({ file: w.file, baseFile: w.baseFile, units: b?.ok ? b.facts.units : [], scope: 'self' });
      continue;
    }
    const baseFacts: FileFacts | undefined = b?.ok ? b.facts : undefined;
    const headFacts: FileFacts | undefined = h?.ok ? h.facts : undefined;
    if (w.base !== undefined && !baseFacts) continue; // the base's copy does not parse: nothing to compare with
    const pair: FilePair = {
      file: w.file,
      baseFile: w.baseFile,
      ...(baseFacts ? { base: baseFacts } : {}),
      ...(headFacts ? { head: headFacts } : {}),
      term: w.lang === 'py' ? 'strategy' : 'arbitrary',
      // A file of tests the patch adds only adds tests (their names are kept, for a test moved there).
      holdsTests:
        TEST_FILE.test(w.file) ||
        modules(w.file) ||
        (baseFacts?.units.length ?? 0) > 0 ||
        (w.added && (headFacts?.units.length ?? 0) > 0),
    };
    const compared = compareFile(pair);
    for (const e of compared.edits) edits.push(e);
    for (const unit of compared.gone) gone.push({ pair, unit });
    for (const unit of compared.added) added.push({ pair, unit });
    const scope = w.lang === 'py' ? (pair.holdsTests ? 'self' : 'folder') : pair.holdsTests ? 'self' : 'all';
    files.push({ file: w.file, baseFile: w.baseFile, units: baseFacts?.units ?? [], scope });
  }
  // A test moved to another file is compared with itself there; one that is gone everywhere was deleted.
  for (const g of gone) {
    const i = added.findIndex(
      (a) => a.unit.name === g.unit.name && a.unit.kind === g.unit.kind && a.pair !== g.pair,
    );
    if (i >= 0) {
      const target = added.splice(i, 1)[0]!;
      const moved = compareFile({
        ...target.pair,
        baseFile: g.pair.baseFile,
        base: { units: [g.unit], hooks: [], mocks: [], excludes: [], marks: [] },
        head: { units: [target.unit], hooks: [], mocks: [], excludes: [], marks: [] },
      });
      for (const e of moved.edits) edits.push(e);
      continue;
    }
    const matched = matchUnits([g.unit], []);
    for (const u of matched.gone) edits.push(deletedTest(g.pair.file, g.pair.baseFile, u));
  }
  return new TestEditAnalysis(edits.map(capped), files);
}

function cap(s: string | undefined): string | undefined {
  if (s === undefined || s.length <= MAX_EVIDENCE_TEXT) return s;
  return `${s.slice(0, MAX_EVIDENCE_TEXT - 1)}…`;
}

function capped(e: TestEdit): TestEdit {
  const before = cap(e.before);
  const after = cap(e.after);
  return { ...e, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}
