/**
 * A skip the patch added is not a known skip to freeze: it is a test the
 * base runs that the head no longer does. An UNFROZEN_SKIP is the patch's
 * when the test-edit analysis shows the mark (a `skip`, `xfail`, `todo` or
 * `only` the head added to that test, or to its file), or when the base's own
 * run of the test passes it. Such a finding's next step is to restore the
 * test, never to freeze the skip.
 */
import type { TestOutcome } from '../../junit/model.js';
import type { TestIdParts } from '../../runners/tests/presets.js';
import type { TestSession } from '../../runners/tests/session.js';
import { analysisFor, queryOf, withEdits } from '../test-edits/attach.js';
import type { EditKind } from '../test-edits/model.js';
import type { Finding, LayerContext } from '../types.js';

const SKIPPING: ReadonlySet<EditKind> = new Set([
  'skip-added',
  'xfail-added',
  'todo-added',
  'focus-added',
  'hook-added',
  'hook-changed',
  'runner-exclude',
]);

const parts = (t: TestOutcome): TestIdParts => ({
  suite: t.suite,
  classname: t.classname,
  name: t.name,
  ...(t.file ? { file: t.file } : {}),
});

export async function markAddedSkips(
  ctx: LayerContext,
  tests: TestSession,
  findings: readonly Finding[],
  run: readonly TestOutcome[],
): Promise<Finding[]> {
  const skips = findings.filter((f) => f.code === 'UNFROZEN_SKIP');
  if (skips.length === 0) return [...findings];
  const byId = new Map(run.map((t) => [t.id, t]));
  const preset = ctx.config.tests?.preset;
  const analysis = await analysisFor(ctx);
  const shown = new Map<Finding, Finding>();
  const unexplained: { f: Finding; t: TestOutcome }[] = [];
  for (const f of skips) {
    const t = byId.get(String(f.evidence.test));
    if (!t) continue;
    const q = queryOf(preset, parts(t));
    const edits = q && analysis ? analysis.forTest(q) : [];
    const marking = edits.filter((e) => SKIPPING.has(e.kind));
    if (marking.length > 0) {
      analysis?.explain(edits);
      shown.set(f, withEdits(restore(f, String(f.evidence.test), 'the patch added the skip'), edits));
    } else unexplained.push({ f, t });
  }
  // The rest: the base's own run of those tests says whether they ran there.
  const onBase: { f: Finding; t: TestOutcome }[] = [];
  for (const u of unexplained) if ((await tests.baseHasTestFile(parts(u.t))) === true) onBase.push(u);
  if (onBase.length > 0) {
    let base: TestOutcome[] = [];
    try {
      base = (
        await tests.baseRun(
          onBase.map((u) => parts(u.t)),
          'skips',
        )
      ).tests;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // The base's rerun is only evidence for the next step; without it the finding keeps the freeze advice.
    }
    const passed = new Set(base.filter((t) => t.status === 'passed').map((t) => t.id));
    for (const u of onBase)
      if (passed.has(u.t.id)) shown.set(u.f, restore(u.f, u.t.id, "the base's own run passes it"));
  }
  return findings.map((f) => shown.get(f) ?? f);
}

function restore(f: Finding, test: string, how: string): Finding {
  return {
    ...f,
    message: `${f.message.replace(/: a skip is a fail/, '')}: the base runs this test and ${how}; a skip is a fail, and one the patch adds is not frozen`,
    evidence: {
      ...f.evidence,
      addedByPatch: true,
      next: `restore ${test} so that it runs as it does on the base (remove the skip the patch added); freezing it is for skips that were already there`,
    },
  };
}
