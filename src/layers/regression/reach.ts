/**
 * Production code that reaches into the test machinery, or sniffs the test
 * run. The overlay runs the base's tests, but on the head's production code,
 * and production code runs in the test runner's process: it can import the
 * runner and patch it, import a test helper, replace builtins or
 * `sys.modules`, kill the runner before it reports, or ask "am I under
 * test?" (the command line, the module registry, the call stack, the
 * environment, the globals) and answer the test rather than the user.
 *
 * Found with real parsers on the committed text (never run): the TypeScript
 * compiler's AST and checker for JavaScript and TypeScript, Python's own
 * `ast` (run in the sandbox) for Python. Only what the patch added counts: a
 * reach the base's copy of the file already had is not this patch's doing.
 * Reading the command line is what an entry point is for: such reads count
 * only outside the files the base declares as entry points, and library code
 * that newly imports an entry point counts instead.
 */
import path from 'node:path';
import { testSideFor } from '../../overlay/test-side.js';
import { loadTypescript } from '../../util/typescript.js';
import type { Finding, LayerContext } from '../types.js';
import { EntryPoints, jsLoadTargets, pyLoadTargets } from './reach-entry.js';
import { jsScan } from './reach-js.js';
import { pythonReach } from './reach-python.js';
import { type Load, type Reach, reachNext } from './reach-rules.js';

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/;
const PY_FILE = /\.py$/;

type Sides<T> = { head: T[]; base: T[] };

/** What `head` has that `base` has not, counted per key: a second copy of what the base had is new. */
function added<T>(sides: Sides<T>, key: (x: T) => string): T[] {
  const before = new Map<string, number>();
  for (const x of sides.base) before.set(key(x), (before.get(key(x)) ?? 0) + 1);
  const out: T[] = [];
  for (const x of sides.head) {
    const left = before.get(key(x)) ?? 0;
    if (left > 0) before.set(key(x), left - 1);
    else out.push(x);
  }
  return out;
}

/** The same revisions, each file read from git at most once (the entry-point check asks about many). */
function cachedReads(ctx: LayerContext): LayerContext {
  const cached = (read: (f: string) => Promise<string | undefined>) => {
    const seen = new Map<string, Promise<string | undefined>>();
    return (f: string) => {
      let r = seen.get(f);
      if (!r) {
        r = read(f);
        seen.set(f, r);
      }
      return r;
    };
  };
  return {
    ...ctx,
    base: { ...ctx.base, readCommitted: cached(ctx.base.readCommitted) },
    head: { ...ctx.head, readCommitted: cached(ctx.head.readCommitted) },
  };
}

/** Every reach the patch added to production code, per file, before any finding is made. */
export async function addedReaches(gate: LayerContext): Promise<{ file: string; reach: Reach }[]> {
  const ctx = cachedReads(gate);
  // The overlay's own test side: the globs plus every file the base's runner configuration names.
  const side = testSideFor(ctx.config, ctx.overlay?.named ?? []);
  const wanted = ctx.changes.filter(
    (c) => c.kind !== 'deleted' && !side.isTestPath(c.path) && (JS_FILE.test(c.path) || PY_FILE.test(c.path)),
  );
  if (wanted.length === 0) return [];
  const texts = await Promise.all(
    wanted.map(async (c) => ({
      change: c,
      head: await ctx.head.readCommitted(c.path),
      base: await ctx.base.readCommitted(c.from ?? c.path),
    })),
  );
  const perFile = new Map<string, Sides<Reach> & { loads: Sides<Load> }>();
  const js = texts.filter((t) => JS_FILE.test(t.change.path));
  if (js.length > 0) {
    const ts = await loadTypescript();
    const scan = (file: string, text: string | undefined) =>
      text === undefined ? { reaches: [], loads: [] } : jsScan(ts, file, text, side.isTestPath);
    for (const t of js) {
      const head = scan(t.change.path, t.head);
      const base = scan(t.change.path, t.base);
      perFile.set(t.change.path, {
        head: head.reaches,
        base: base.reaches,
        loads: { head: head.loads, base: base.loads },
      });
    }
  }
  let scriptModules: string[] = [];
  const python = texts.filter((t) => PY_FILE.test(t.change.path));
  if (python.length > 0) {
    const parsed = await pythonReach(ctx, python, side.isTestPath);
    for (const [file, r] of parsed.perFile) perFile.set(file, r);
    scriptModules = parsed.scriptModules;
  }
  const entries = new EntryPoints(ctx, scriptModules);

  const out: { file: string; reach: Reach }[] = [];
  for (const [file, sides] of perFile) {
    const isEntry = await entries.has(file);
    const counted = (rs: Reach[]) => rs.filter((r) => !(r.entryOk && isEntry));
    for (const r of added(
      { head: counted(sides.head), base: counted(sides.base) },
      (r) => `${r.what}\u241f${r.detail}`,
    ))
      out.push({ file, reach: r });
    if (isEntry) continue;
    for (const load of added(sides.loads, (l) => l.spec)) {
      const target = await loadedEntryPoint(ctx, entries, file, load);
      if (target)
        out.push({
          file,
          reach: {
            line: load.line,
            shape: 'command-line',
            what: `imports the entry point ${target} (what an entry point reads from the command line must not reach library code)`,
            detail: target,
          },
        });
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.reach.line - b.reach.line));
}

/**
 * A repository path git can be asked about (`tree:path`): normalized, inside the root, not `.` or
 * `./x` (git reads those as relative to a working tree it does not have), no control characters.
 */
function insideRepository(p: string): boolean {
  if (p === '' || p === '.' || p === '..' || p.startsWith('./') || p.startsWith('../') || p.startsWith('/'))
    return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a path with them is no path in the tree
  return path.posix.normalize(p) === p && !/[\u0000-\u001f]/.test(p);
}

/** The entry point a load names, if it names one that exists on either side. */
async function loadedEntryPoint(
  ctx: LayerContext,
  entries: EntryPoints,
  file: string,
  load: Load,
): Promise<string | undefined> {
  const targets = PY_FILE.test(file) ? pyLoadTargets(file, load.spec) : jsLoadTargets(file, load.spec);
  for (const t of targets.filter(insideRepository)) {
    const exists =
      (await ctx.head.readCommitted(t)) !== undefined || (await ctx.base.readCommitted(t)) !== undefined;
    if (exists && (await entries.has(t))) return t;
  }
  return undefined;
}

export async function reachFindings(ctx: LayerContext, layer: string): Promise<Finding[]> {
  const variable = ctx.config.tests?.overrideTokenEnv ?? 'PATCHGATE_TESTS_OVERRIDE';
  return (await addedReaches(ctx)).map(({ file, reach: r }) => {
    const where = r.entryOk ? ' outside an entry point the base declares' : '';
    return {
      code: 'PRODUCTION_REACHES_TESTS',
      layer,
      severity: 'reject',
      message: `${file}:${r.line}: production code ${r.what}${where}: code under test must not see or steer the tests that judge it`,
      evidence: {
        path: file,
        line: r.line,
        shape: r.shape,
        reach: r.what,
        detail: r.detail,
        ...(r.word === undefined ? {} : { word: r.word }),
        next: `${reachNext(r.shape)}; if the change is intended, a human lands it in its own commit and that job sets ${variable}`,
      },
    } satisfies Finding;
  });
}
