/**
 * What the stability probe says about its scope: `stability.json` (every
 * test file, probed or not, each probed one with the changes it reaches and
 * the import chain), a summary for the scorecard, and one line for the
 * reports.
 */
import { byCodePoint } from '../../util/compare.js';
import type { ScopeSummary } from '../types.js';
import type { ProbeReason, ProbeScope } from './probe-scope.js';

export const STABILITY_ARTIFACT = 'stability.json';
const SHOWN = 20;

/** A reason in a few words: `reaches src/a.py through src/pkg/__init__.py`. */
export function reasonText(r: ProbeReason): string {
  if (r.via.length <= 1) return r.via[0]?.by ?? 'the patch changed it';
  const middle = r.via.slice(1, -1).map((s) => s.file);
  const through = middle.length > 0 ? ` through ${middle.join(' → ')}` : '';
  if (r.unresolved)
    return `may load a changed module: ${r.unresolved.file}:${r.unresolved.line} ${r.unresolved.what}${middle.length > 1 ? ` (reached through ${middle.slice(0, -1).join(' → ')})` : ''}`;
  const last = r.via[r.via.length - 1];
  const uses = r.uses
    ? r.uses.computed
      ? `; ${r.uses.file} reaches attributes by computed names, so may use what changed (${r.uses.name}…)`
      : `; ${r.uses.file} uses ${r.uses.name}, which the patch changed`
    : '';
  return `${last?.by ?? 'reaches'} → ${r.change}${through}${uses}`;
}

export function scopeSummary(scope: ProbeScope): ScopeSummary {
  return {
    mode: scope.mode,
    ...(scope.mode === 'all' ? { reasons: scope.reasons.slice(0, 5) } : {}),
    probedFiles: scope.probed.length,
    notProbedFiles: scope.notProbed.length,
    probed: scope.probed.slice(0, SHOWN).map((p) => ({
      file: p.file,
      why: p.why[0] ? reasonText(p.why[0]) : (scope.reasons[0] ?? 'every test is probed'),
    })),
    artifact: STABILITY_ARTIFACT,
  };
}

export function scopeNote(scope: ProbeScope): string {
  const total = scope.probed.length + scope.notProbed.length;
  if (scope.mode === 'all') return `probed every test file (${total}): ${scope.reasons[0] ?? ''}`;
  if (scope.probed.length === 0)
    return `probed no test: no test file (of ${total}) reaches what the patch changed; see ${STABILITY_ARTIFACT}`;
  const first = scope.probed[0];
  return `probed ${scope.probed.length} of ${total} test files (${first?.file}${first?.why[0] ? `: ${reasonText(first.why[0])}` : ''}${scope.probed.length > 1 ? ', …' : ''}); see ${STABILITY_ARTIFACT}`;
}

/**
 * The scope one run would have probed, from the shares of shards: each
 * judged the test files it ran; the changes and the reasons to probe
 * everything are the whole patch's, the same on every shard.
 */
export function mergeScopes(scopes: readonly ProbeScope[]): ProbeScope {
  const first = scopes[0] as ProbeScope;
  const byFile = (a: { file: string }, b: { file: string }) => byCodePoint(a.file, b.file);
  const all = scopes.every((s) => s.mode === 'all');
  return {
    mode: all ? 'all' : 'affected',
    reasons: all ? first.reasons : [],
    probed: scopes.flatMap((s) => s.probed).sort(byFile),
    notProbed: scopes.flatMap((s) => s.notProbed).sort(byCodePoint),
    changes: first.changes,
  };
}

export function scopeArtifact(
  scope: ProbeScope,
  runs: { labels: string[]; runs: number; tests: number; flaky: string[] },
): string {
  return `${JSON.stringify(
    {
      schema: 'patchgate/stability@1',
      scope: scope.mode,
      ...(scope.mode === 'all' ? { reasons: scope.reasons } : {}),
      changes: scope.changes,
      probed: scope.probed.map((p) => ({
        file: p.file,
        ...(p.why.length > 0 ? { because: p.why, reasons: p.reasons } : {}),
      })),
      notProbed: scope.notProbed,
      runs: runs.runs,
      runLabels: runs.labels,
      testsJudged: runs.tests,
      flaky: runs.flaky,
    },
    null,
    2,
  )}\n`;
}
