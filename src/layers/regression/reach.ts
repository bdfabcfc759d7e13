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
 * only outside the files the base declares as entry points.
 */
import { testSideFor } from '../../overlay/test-side.js';
import { loadTypescript } from '../../util/typescript.js';
import type { Finding, LayerContext } from '../types.js';
import { entryPoints } from './reach-entry.js';
import { jsReach } from './reach-js.js';
import { pythonReach } from './reach-python.js';
import { type Reach, reachNext } from './reach-rules.js';

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/;
const PY_FILE = /\.py$/;

/** Every reach the patch added to production code, per file, before any finding is made. */
export async function addedReaches(ctx: LayerContext): Promise<{ file: string; reach: Reach }[]> {
  const side = testSideFor(ctx.config);
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
  const perFile = new Map<string, { head: Reach[]; base: Reach[] }>();
  const js = texts.filter((t) => JS_FILE.test(t.change.path));
  if (js.length > 0) {
    const ts = await loadTypescript();
    for (const t of js)
      perFile.set(t.change.path, {
        head: t.head === undefined ? [] : jsReach(ts, t.change.path, t.head, side.isTestPath),
        base: t.base === undefined ? [] : jsReach(ts, t.change.path, t.base, side.isTestPath),
      });
  }
  let scriptModules: string[] = [];
  const python = texts.filter((t) => PY_FILE.test(t.change.path));
  if (python.length > 0) {
    const parsed = await pythonReach(ctx, python, side.isTestPath);
    for (const [file, r] of parsed.perFile) perFile.set(file, r);
    scriptModules = parsed.scriptModules;
  }
  const entries = await entryPoints(
    ctx,
    texts.map((t) => ({ path: t.change.path, base: t.base })),
    scriptModules,
  );

  const out: { file: string; reach: Reach }[] = [];
  for (const [file, sides] of perFile) {
    const counts = (rs: Reach[]) => rs.filter((r) => !(r.entryOk && entries.has(file)));
    // Counted per kind of reach, so a second copy of a reach the base had is still new.
    const before = new Map<string, number>();
    const key = (r: Reach) => `${r.what}\u241f${r.detail}`;
    for (const r of counts(sides.base)) before.set(key(r), (before.get(key(r)) ?? 0) + 1);
    for (const r of counts(sides.head)) {
      const left = before.get(key(r)) ?? 0;
      if (left > 0) before.set(key(r), left - 1);
      else out.push({ file, reach: r });
    }
  }
  return out;
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
