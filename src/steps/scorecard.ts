import type { PatchIdentity } from '../git/authors.js';
import type { ResolvedRevisions } from '../git/revisions.js';
import type { Finding } from '../layers/types.js';
import {
  type MergedShards,
  SCORECARD_SCHEMA,
  type Scorecard,
  type ShardOfRun,
  sortFindings,
  sortFrozen,
  sortOverrides,
  verdictOf,
} from '../report/scorecard.js';
import type { LayerRunResult } from './run-layers.js';

export interface ScorecardInputs {
  revs: ResolvedRevisions;
  identity: PatchIdentity;
  headTree: string;
  configFile: string;
  /** The pipeline's layer names, in order: findings are sorted by them. */
  layerOrder: readonly string[];
  run: Pick<LayerRunResult, 'layers' | 'findings' | 'overrides' | 'frozen'>;
  today: string;
  isolation: Scorecard['isolation'];
  /** This run is one shard of several. */
  shard?: ShardOfRun;
}

/** What a scorecard says of the run besides its layers: the same for one run and for a merge of shards. */
export type RunFacts = Pick<Scorecard, 'base' | 'head' | 'config' | 'today' | 'isolation'> & {
  patch?: Scorecard['patch'];
};

/** The verdict and everything behind it; timings are the caller's, taken once the copies are gone. */
export function buildScorecard(i: ScorecardInputs): Omit<Scorecard, 'timings'> {
  return assembleScorecard(
    {
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
      today: i.today,
      isolation: i.isolation,
    },
    i.run,
    i.layerOrder,
    i.shard ? { shard: i.shard } : {},
  );
}

/** The scorecard of `facts` and the layers' results, findings, overrides and frozen items in their fixed order. */
export function assembleScorecard(
  facts: RunFacts,
  run: {
    layers: Scorecard['layers'];
    findings: readonly Finding[];
    overrides: Scorecard['overrides'];
    frozen: Scorecard['frozen'];
  },
  layerOrder: readonly string[],
  bookkeeping: { shard?: ShardOfRun; shards?: MergedShards },
): Omit<Scorecard, 'timings'> {
  const { findings } = run;
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
    base: facts.base,
    head: facts.head,
    ...(facts.patch ? { patch: facts.patch } : {}),
    ...(bookkeeping.shard ? { shard: bookkeeping.shard } : {}),
    ...(bookkeeping.shards ? { shards: bookkeeping.shards } : {}),
    config: facts.config,
    layers: run.layers,
    findings: sortFindings(findings, layerOrder),
    overrides: sortOverrides(run.overrides),
    frozen: sortFrozen(run.frozen, layerOrder),
    today: facts.today,
    isolation: facts.isolation,
  };
}
