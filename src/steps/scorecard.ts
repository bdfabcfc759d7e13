import type { PatchIdentity } from '../git/authors.js';
import type { ResolvedRevisions } from '../git/revisions.js';
import { SCORECARD_SCHEMA, type Scorecard, sortFindings, verdictOf } from '../report/scorecard.js';
import type { LayerRunResult } from './run-layers.js';

export interface ScorecardInputs {
  revs: ResolvedRevisions;
  identity: PatchIdentity;
  headTree: string;
  configFile: string;
  /** The pipeline's layer names, in order: findings are sorted by them. */
  layerOrder: readonly string[];
  run: LayerRunResult;
  today: string;
  isolation: Scorecard['isolation'];
}

/** The verdict and everything behind it; timings are the caller's, taken once the copies are gone. */
export function buildScorecard(i: ScorecardInputs): Omit<Scorecard, 'timings'> {
  const { findings } = i.run;
  const verdict = verdictOf(findings);
  const errorKind =
    verdict !== 'error'
      ? undefined
      : findings.some((f) => f.severity === 'error' && f.code === 'INTERNAL_ERROR')
        ? 'internal'
        : 'input';
  return {
    schema: SCORECARD_SCHEMA,
    verdict,
    ...(errorKind ? { errorKind } : {}),
    base: {
      ref: i.revs.requestedBase.ref,
      requested: i.revs.requestedBase.commit,
      commit: i.revs.baseCommit,
    },
    head: {
      ref: i.revs.head.ref,
      commit: i.revs.head.commit,
      tree: i.headTree,
      worktree: i.revs.head.worktree,
    },
    patch: i.identity,
    config: { file: i.configFile, revision: 'base' },
    layers: i.run.layers,
    findings: sortFindings(findings, i.layerOrder),
    overrides: [...i.run.overrides].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    frozen: i.run.frozen,
    today: i.today,
    isolation: i.isolation,
  };
}
