/**
 * Whether scoring the base's properties on the overlay can say anything the
 * base's own scoring has not: only when some of their code or data differs
 * between the base and the overlay. A TypeScript property module whose imports
 * (followed through relative imports) are test-side files the overlay takes
 * from the base, `patchgate` itself or Node's builtins, with fixtures the patch
 * left alone, scores the same on both: the overlay run is then skipped. Python
 * property modules import production code by module name, so they are always
 * scored there. Read with the TypeScript compiler's import scanner, never run.
 */
import { testSideFor } from '../../overlay/test-side.js';
import { findModules } from '../../util/find-modules.js';
import { importCandidates } from '../../util/import-candidates.js';
import { loadTypescript } from '../../util/typescript.js';
import type { LayerContext } from '../types.js';

const SELF_CONTAINED = /^(patchgate(\/.*)?|node:.*|fast-check)$/;

export async function overlayScoringNeeded(ctx: LayerContext): Promise<boolean> {
  const hits = ctx.config.hits;
  if (!hits || ctx.overlay.sameAsHead) return false;
  if (hits.python.length > 0) return true;
  const roots = ctx.config.fixtures?.roots ?? [];
  const under = (p: string, root: string) => p === root || p.startsWith(`${root.replace(/\/$/, '')}/`);
  if (
    ctx.changes.some((c) => roots.some((r) => under(c.path, r) || (c.from !== undefined && under(c.from, r))))
  )
    return true;
  const side = testSideFor(ctx.config, ctx.overlay.named);
  const ts = await loadTypescript();
  const pending = await findModules(ctx.base.root, hits.properties);
  const seen = new Set<string>();
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    // What the overlay runs of this file is the base's only when it is test side.
    if (!side.isTestPath(file)) return true;
    const text = await ctx.base.readCommitted(file);
    if (text === undefined) return true;
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!spec.startsWith('.')) {
        if (!SELF_CONTAINED.test(spec)) return true;
        continue;
      }
      let found: string | undefined;
      for (const c of importCandidates(file, spec))
        if ((await ctx.base.readCommitted(c)) !== undefined) found ??= c;
      // An import that resolves to nothing committed (generated, or a path alias) cannot be proven the same.
      if (found === undefined) return true;
      pending.push(found);
    }
  }
  return false;
}
