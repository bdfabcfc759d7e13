/**
 * `patchgate merge`: the parts of a sharded run become the scorecard one run
 * would have written. Nothing runs here and no repository is read: the parts
 * say everything, and they are checked before they are believed. Every
 * shard 1..n must be there exactly once, all of one run (base, head, head
 * tree, config, shard count, day), all with one plan; each layer then runs
 * its own merge, and the layers that run only after a clean start are
 * skipped exactly where one run would have skipped them.
 */

import { agreed, commonAndRest, ShardDisagreement, sameOutcome } from '../layers/shard-merge.js';
import type {
  Artifact,
  Finding,
  FrozenItem,
  Layer,
  LayerOutcome,
  Override,
  PropertyProof,
} from '../layers/types.js';
import { aggregateFindings } from '../report/aggregate.js';
import {
  type LayerSummary,
  layerStatus,
  type MergedShards,
  type Scorecard,
  verdictOf,
} from '../report/scorecard.js';
import { maxOf, pushAll } from '../util/arrays.js';
import { stableLine } from '../util/stable-json.js';
import { skipReason } from './run-layers.js';
import { assembleScorecard, type RunFacts } from './scorecard.js';
import type { ShardPart } from './shard-part.js';

/** A part and where it came from (named in every finding about it). */
export interface SourcedPart {
  source: string;
  part: ShardPart;
}

export interface MergeResult {
  card: Scorecard;
  /** The files one run would have written beside its scorecard. */
  artifacts: Artifact[];
  /** The parts merged, in shard order (none when they could not be). */
  parts: SourcedPart[];
}

/** What must be the same on every part of one run, field by field. */
const IDENTITY: readonly [string, (p: ShardPart) => unknown][] = [
  ['base commit', (p) => p.run.base.commit],
  ['head commit', (p) => p.run.head.commit],
  ['head tree', (p) => p.run.head.tree],
  ['base config', (p) => p.configDigest],
  ['shard total', (p) => p.shard.total],
  ['day freezes were judged on', (p) => p.run.today],
  ['layers', (p) => p.layerOrder],
];

const MERGE_LAYER = 'merge';

function problem(code: Finding['code'], message: string, evidence: Record<string, unknown>): Finding {
  return { code, layer: MERGE_LAYER, severity: 'error', message, evidence };
}

/** Merges `parts` with the layers of `pipeline` (the same list the shards ran). */
export async function mergeParts(
  parts: readonly SourcedPart[],
  pipeline: readonly Layer[],
  now: () => number,
): Promise<MergeResult> {
  const started = now();
  if (parts.length === 0) throw new RangeError('mergeParts needs at least one part');
  const identity = (p: ShardPart) => stableLine(IDENTITY.map(([, get]) => get(p)));
  // The run is the one most parts are of (the first given on a tie); the rest are foreign.
  const counts = new Map<string, number>();
  for (const { part } of parts) counts.set(identity(part), (counts.get(identity(part)) ?? 0) + 1);
  const reference = [...counts].reduce((best, c) => (c[1] > best[1] ? c : best))[0];
  const ref = parts.find((p) => identity(p.part) === reference) as SourcedPart;
  const problems: Finding[] = [];
  const ours: SourcedPart[] = [];
  for (const p of parts) {
    if (identity(p.part) === reference) {
      ours.push(p);
      continue;
    }
    const [field, get] =
      IDENTITY.find(([, g]) => stableLine(g(p.part)) !== stableLine(g(ref.part))) ?? IDENTITY[0]!;
    problems.push(
      problem(
        'SHARD_FOREIGN',
        `${p.source} is a part of another run: its ${field} is ${stableLine(get(p.part))}, the run's (${ref.source} and the others) is ${stableLine(get(ref.part))}; it is left out`,
        { file: p.source, shard: p.part.shard.index, field, expected: get(ref.part), got: get(p.part) },
      ),
    );
  }
  const total = ref.part.shard.total;
  const byIndex = new Map<number, SourcedPart[]>();
  for (const p of ours) byIndex.set(p.part.shard.index, [...(byIndex.get(p.part.shard.index) ?? []), p]);
  for (let i = 1; i <= total; i++) {
    const here = byIndex.get(i) ?? [];
    if (here.length === 0)
      problems.push(
        problem('SHARD_MISSING', `shard ${i} of ${total} is missing: no part given for it`, {
          shard: i,
          total,
          given: ours.map((p) => p.source),
        }),
      );
    else if (here.length > 1)
      problems.push(
        problem(
          'SHARD_DUPLICATE',
          `shard ${i} of ${total} is given ${here.length} times: ${here.map((p) => p.source).join(', ')}`,
          { shard: i, total, files: here.map((p) => p.source) },
        ),
      );
  }
  for (const p of ours)
    if (p.part.shard.index > total)
      problems.push(
        problem('SHARD_FOREIGN', `${p.source} says it is shard ${p.part.shard.index} of ${total}`, {
          file: p.source,
          shard: p.part.shard.index,
          total,
        }),
      );
  const sorted = [...ours].sort((a, b) => a.part.shard.index - b.part.shard.index);
  const plans = sorted.map((p) => p.part.shard.plan.digest);
  const differ = sorted.filter((p) => p.part.shard.plan.digest !== plans[0]);
  if (differ.length > 0)
    problems.push(
      problem(
        'SHARD_DISAGREEMENT',
        `the shards planned the run differently: ${differ.map((p) => `${p.source} (shard ${p.part.shard.index}, ${p.part.shard.plan.by})`).join(', ')} split the test files otherwise than ${sorted[0]?.source} (${sorted[0]?.part.shard.plan.by}); every shard must read the same history, or none`,
        {
          what: 'the plan',
          shards: differ.map((p) => p.part.shard.index),
          plans: sorted.map((p) => ({
            shard: p.part.shard.index,
            digest: p.part.shard.plan.digest,
            by: p.part.shard.plan.by,
          })),
        },
      ),
    );
  const facts = factsOf(ref.part);
  if (problems.length > 0) {
    const layers: LayerSummary[] = ref.part.layerOrder.map((name) => ({
      name,
      status: 'skipped',
      findings: 0,
      reason: 'the parts could not be merged (see the merge findings)',
    }));
    return {
      card: card(
        facts,
        { layers, findings: problems, overrides: [], frozen: [] },
        ref.part.layerOrder,
        bookkeeping(sorted, total),
        timingsOf(sorted, now() - started),
      ),
      artifacts: [],
      parts: [],
    };
  }
  const merged = await mergeLayers(sorted, pipeline);
  return {
    card: card(
      facts,
      merged,
      ref.part.layerOrder,
      bookkeeping(sorted, total),
      timingsOf(sorted, now() - started),
    ),
    artifacts: merged.artifacts,
    parts: sorted,
  };
}

function factsOf(part: ShardPart): RunFacts {
  return {
    base: part.run.base,
    head: part.run.head,
    ...(part.run.patch ? { patch: part.run.patch } : {}),
    config: part.run.config,
    today: part.run.today,
    isolation: part.run.isolation,
  };
}

function card(
  facts: RunFacts,
  run: { layers: LayerSummary[]; findings: Finding[]; overrides: Override[]; frozen: FrozenItem[] },
  order: readonly string[],
  shards: MergedShards,
  timings: Scorecard['timings'],
): Scorecard {
  return { ...assembleScorecard(facts, run, [MERGE_LAYER, ...order], { shards }), timings };
}

function bookkeeping(parts: readonly SourcedPart[], total: number): MergedShards {
  const first = parts[0]?.part.shard.plan;
  return {
    total,
    plan: { digest: first?.digest ?? '', by: first?.by ?? 'count', files: first?.files ?? 0 },
    parts: parts.map((p) => ({
      index: p.part.shard.index,
      testFiles: p.part.shard.testFiles.length,
      totalMs: p.part.timings.totalMs,
    })),
  };
}

/** The run took as long as its slowest shard (they ran side by side), plus the merge. */
function timingsOf(parts: readonly SourcedPart[], mergeMs: number): Scorecard['timings'] {
  const max = (get: (t: Scorecard['timings']) => number) =>
    maxOf(
      parts.map((p) => get(p.part.timings)),
      0,
    );
  const layers: Record<string, number> = {};
  for (const p of parts)
    for (const [name, ms] of Object.entries(p.part.timings.layers))
      layers[name] = Math.max(layers[name] ?? 0, ms);
  return {
    totalMs: Math.round(max((t) => t.totalMs) + mergeMs),
    revisionsMs: max((t) => t.revisionsMs),
    setupMs: max((t) => t.setupMs),
    cleanupMs: max((t) => t.cleanupMs),
    layers,
  };
}

interface MergedLayers {
  layers: LayerSummary[];
  findings: Finding[];
  overrides: Override[];
  frozen: FrozenItem[];
  artifacts: Artifact[];
}

/** Each layer in order, as one run would have run it, from what the shards gave. */
async function mergeLayers(parts: readonly SourcedPart[], pipeline: readonly Layer[]): Promise<MergedLayers> {
  const first = parts[0]!.part;
  const out: MergedLayers = { layers: [], findings: [], overrides: [], frozen: [], artifacts: [] };
  try {
    pushAll(
      out.findings,
      agreed(
        'the findings before any layer',
        parts.map((p) => p.part.prelude),
      ),
    );
    agreed(
      'the sandbox',
      parts.map((p) => p.part.run.isolation),
    );
    agreed(
      'the patch identity',
      parts.map((p) => p.part.run.patch ?? null),
    );
    agreed(
      'which layers are on',
      parts.map((p) => p.part.skips),
    );
  } catch (err) {
    if (!(err instanceof ShardDisagreement)) throw err;
    out.findings.push(disagreement(MERGE_LAYER, err, parts));
  }
  const byName = new Map(pipeline.map((l) => [l.name, l]));
  const proofsBy = new Map<string, readonly PropertyProof[]>();
  for (const name of first.layerOrder) {
    const layer = byName.get(name);
    if (!layer) {
      out.findings.push(
        problem('SHARD_FOREIGN', `the parts ran a layer this patchgate does not have: ${name}`, {
          layer: name,
          next: 'merge with the patchgate version the shards ran',
        }),
      );
      continue;
    }
    const reason = skipReason(layer, {
      configFile: first.skips.configFile,
      enabled: first.skips.enabled.includes(name),
      ...(first.skips.blocking !== undefined ? { blocking: first.skips.blocking } : {}),
      allLayers: first.skips.allLayers,
      verdictSoFar: verdictOf(out.findings),
    });
    if (reason !== undefined) {
      out.layers.push({ name, status: 'skipped', findings: 0, reason });
      continue;
    }
    const layerParts = parts.map((p) => p.part.layers.find((l) => l.name === name));
    let findings: Finding[];
    let told: Pick<LayerSummary, 'note' | 'scope'> = {};
    const thrown = layerParts.flatMap((l) => (l?.threw ? [l.threw] : []));
    const missing = layerParts.flatMap((l, i) => (l?.outcome || l?.threw ? [] : [i]));
    if (thrown.length > 0) {
      // A layer that threw on any shard would have thrown on the one run: the error is the layer's finding.
      const { common, rest } = commonAndRest(layerParts.map((l) => (l?.threw ? [l.threw] : [])));
      findings = [...common, ...rest.flat()];
    } else if (missing.length > 0) {
      findings = [
        problem(
          'SHARD_DISAGREEMENT',
          `layer ${name} did not run on shard ${missing.map((i) => parts[i]!.part.shard.index).join(', ')}, where the others ran it (${layerParts[missing[0]!]?.skipped ?? 'no outcome'})`,
          {
            what: `whether layer ${name} ran`,
            layer: name,
            shards: missing.map((i) => parts[i]!.part.shard.index),
          },
        ),
      ];
    } else {
      const outcomes = layerParts.map((l) => l?.outcome as LayerOutcome);
      try {
        const proofs = (layer.after ?? []).flatMap((n) => proofsBy.get(n) ?? []);
        const merged = layer.shards ? await layer.shards.merge(outcomes, { proofs }) : sameOutcome(outcomes);
        findings = merged.findings;
        told = {
          ...(merged.note !== undefined ? { note: merged.note } : {}),
          ...(merged.scope !== undefined ? { scope: merged.scope } : {}),
        };
        pushAll(out.overrides, merged.overrides ?? []);
        pushAll(out.frozen, merged.frozen ?? []);
        proofsBy.set(name, merged.proofs ?? []);
        pushAll(out.artifacts, merged.artifacts ?? []);
      } catch (err) {
        if (!(err instanceof ShardDisagreement)) throw err;
        findings = [disagreement(name, err, parts)];
      }
    }
    const { common, rest } = commonAndRest(layerParts.map((l) => l?.guards ?? []));
    pushAll(findings, [...common, ...rest.flat()]);
    out.layers.push({ name, status: layerStatus(findings), findings: findings.length, ...told });
    const shown = aggregateFindings(findings);
    pushAll(out.artifacts, shown.artifacts);
    pushAll(out.findings, shown.findings);
  }
  return out;
}

function disagreement(layer: string, err: ShardDisagreement, parts: readonly SourcedPart[]): Finding {
  const cut = (s: string) => (s.length > 2000 ? `${s.slice(0, 2000)}…` : s);
  return problem(
    'SHARD_DISAGREEMENT',
    `${layer === MERGE_LAYER ? 'the shards' : `layer ${layer}`}: ${err.message}`,
    {
      layer,
      what: err.what,
      shards: err.shards,
      files: err.shards.map((i) => parts[i - 1]?.source),
      first: cut(err.first),
      other: cut(err.other),
    },
  );
}
