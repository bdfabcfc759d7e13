/**
 * Production code that reaches into the test machinery. The overlay runs the
 * base's tests, but on the head's production code, and production code runs
 * in the test runner's process: it can import the runner and patch it, import
 * a test helper, replace builtins or `sys.modules`, kill the runner before it
 * reports, or ask "am I under test?" and answer the test rather than the user.
 *
 * Found with real parsers on the committed text (never run): the TypeScript
 * compiler's AST for JavaScript and TypeScript, Python's own `ast` (run in the
 * sandbox) for Python. Only what the patch added counts: a reach the base's
 * copy of the file already had is not this patch's doing.
 */
import { testSideFor } from '../../overlay/test-side.js';
import { loadTypescript } from '../../util/typescript.js';
import type { Finding, LayerContext } from '../types.js';
import { jsReach } from './reach-js.js';
import { pythonReach } from './reach-python.js';
import type { Reach } from './reach-rules.js';

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/;
const PY_FILE = /\.py$/;

export async function reachFindings(ctx: LayerContext, layer: string): Promise<Finding[]> {
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
  const ts = await loadTypescript();
  for (const t of texts) {
    if (!JS_FILE.test(t.change.path)) continue;
    perFile.set(t.change.path, {
      head: t.head === undefined ? [] : jsReach(ts, t.change.path, t.head, side.isTestPath),
      base: t.base === undefined ? [] : jsReach(ts, t.change.path, t.base, side.isTestPath),
    });
  }
  const python = texts.filter((t) => PY_FILE.test(t.change.path));
  if (python.length > 0) {
    const parsed = await pythonReach(ctx, python, side.isTestPath);
    for (const [file, r] of parsed) perFile.set(file, r);
  }

  const findings: Finding[] = [];
  for (const [file, { head, base }] of perFile) {
    // Counted per kind of reach, so a second copy of a reach the base had is still new.
    const before = new Map<string, number>();
    for (const r of base)
      before.set(`${r.what}\u241f${r.detail}`, (before.get(`${r.what}\u241f${r.detail}`) ?? 0) + 1);
    for (const r of head) {
      const key = `${r.what}\u241f${r.detail}`;
      const left = before.get(key) ?? 0;
      if (left > 0) {
        before.set(key, left - 1);
        continue;
      }
      findings.push({
        code: 'PRODUCTION_REACHES_TESTS',
        layer,
        severity: 'reject',
        message: `${file}:${r.line}: production code ${r.what}: code under test must not see or steer the tests that judge it`,
        evidence: {
          path: file,
          line: r.line,
          reach: r.what,
          detail: r.detail,
          next: 'move test-only code to the test side (tests.paths in the base config), or a human lands the change in its own commit',
        },
      });
    }
  }
  return findings;
}
