import { assertSourcesFound, nothingConfigured } from '../../config/configured-sources.js';
import { contractReadOptions } from '../../config/contract-file.js';
import { switchOf } from '../../config/layers-on.js';
import type { PatchgateConfig } from '../../config/schema.js';
import { contractFilesOf } from '../../contracts/registry.js';
import { readFlakeLedger } from '../../freeze/flake-ledger.js';
import { lockedFixtureDigests } from '../fixtures/locked-digests.js';
import { ProgressTally } from '../progress.js';
import { byUnit, jsonArtifact, jsonParts } from '../shard-merge.js';
import { attachEdits } from '../test-edits/attach.js';
import type { Artifact, Layer, LayerContext, NamedContract, PropertyProof } from '../types.js';
import { judge } from './judge.js';
import { applyLedgerRules } from './ledger-rules.js';
import { overlayScoringNeeded } from './overlay-needed.js';
import { parsePath } from './perturb/index.js';
import { PropertyPool } from './pool.js';
import { FixtureCache, scoreRevision } from './scorer.js';

const LAYER = 'hits';

/**
 * What the base's properties say about the head's code. Property-set and
 * claim findings are about the head's own property modules, which the head
 * side already reports.
 */
const OVERLAY_CODES = new Set<string>([
  'ZERO_HIT',
  'HIT_SURFACE_SHRANK',
  'BASELINE_FAIL',
  'FLAKE_UNCLASSIFIED',
  'CHECK_TIMEOUT',
  'RESOURCE_LIMIT',
  'HEAD_RUN_BROKEN',
]);

function has(value: unknown, claim: string): boolean {
  let node: unknown = value;
  try {
    for (const seg of parsePath(claim)) {
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node as object, seg)) return false;
      node = (node as Record<string | number, unknown>)[seg];
    }
    return true;
  } catch {
    return false;
  }
}

export const hitsLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  enabled: switchOf(LAYER),
  contractFiles: (config: PatchgateConfig): NamedContract[] => contractFilesOf(LAYER, config),
  async run(ctx: LayerContext) {
    const hits = ctx.config.hits;
    if (!hits) return { findings: [] };
    await assertSourcesFound(ctx.base.root, ctx.configFile, [
      ...hits.properties.map((g, i) => ({ key: `hits.properties[${i}]`, kind: 'glob' as const, value: g })),
      ...hits.python.map((p, i) => ({
        key: `hits.python[${i}].module`,
        kind: 'file' as const,
        value: p.module,
      })),
    ]);
    const read = contractReadOptions(ctx.config, ctx.signal);
    const locked = await lockedFixtureDigests(ctx.snapshot.base, ctx.config, 'the base revision', read);
    const ledger = await readFlakeLedger(ctx.snapshot.base, hits.ledger, 'the base revision', read);
    const childEnv = ctx.sandbox.environment();
    // One pool per revision: head code never shares a process (or a view of the disk) with the base's.
    const poolFor = (root: string) =>
      new PropertyPool({
        workers: hits.workers,
        timeoutMs: hits.timeoutMs,
        env: childEnv,
        sandbox: ctx.sandbox,
        root,
        ...(hits.network ? { network: true } : {}),
        signal: ctx.signal,
      });
    const lockedSet = new Set(locked.keys());
    let base: Awaited<ReturnType<typeof scoreRevision>>;
    let head: Awaited<ReturnType<typeof scoreRevision>>;
    let overlay: Awaited<ReturnType<typeof scoreRevision>> | undefined;
    const basePool = poolFor(ctx.base.root);
    const headPool = poolFor(ctx.head.root);
    // The base's property code on the head's code, when the patch touched the test side: the hit surface is
    // then compared for the same property code on both sides, so editing a property hides nothing. Skipped
    // when that code and its fixtures are the base's through and through (it would score as the base did).
    const overlayPool = (await overlayScoringNeeded(ctx)) ? poolFor(ctx.overlay.root) : undefined;
    try {
      // One count over every revision scored: properties (each with all its runs) done of those listed.
      const progress = new ProgressTally(ctx.progress, 'properties scored');
      const shard = ctx.shard;
      const common = {
        hits,
        locked: lockedSet,
        childEnv,
        signal: ctx.signal,
        sandbox: ctx.sandbox,
        progress,
        // A shard lists every property and scores those it owns.
        ...(shard ? { owns: (name: string) => shard.owns('property', name) } : {}),
      };
      // All revisions at once: each is mostly waiting for its processes to start and load their modules.
      [base, head, overlay] = await Promise.all([
        scoreRevision({
          ...common,
          pool: basePool,
          side: 'base',
          root: ctx.base.root,
          readCommitted: ctx.base.readCommitted,
        }),
        scoreRevision({
          ...common,
          pool: headPool,
          side: 'head',
          root: ctx.head.root,
          readCommitted: ctx.head.readCommitted,
        }),
        overlayPool
          ? scoreRevision({
              ...common,
              pool: overlayPool,
              side: 'head',
              root: ctx.overlay.root,
              readCommitted: ctx.overlay.readCommitted,
            })
          : Promise.resolve(undefined),
      ]);
      if (base.emptySources.length > 0) {
        throw nothingConfigured(
          ctx.configFile,
          base.emptySources[0] as string,
          `the harness of ${base.emptySources.join(', ')} lists no property in the base revision`,
        );
      }
      if (base.listed.length === 0 && base.problems.length === 0) {
        const keys = ['hits.properties', 'hits.python', 'hits.harnesses', 'hits.commands'];
        throw nothingConfigured(
          ctx.configFile,
          'hits.properties',
          `the hits layer is on, but ${keys.join(', ')} yield no property in the base revision`,
        );
      }
    } finally {
      await Promise.all([basePool.close(), headPool.close(), overlayPool?.close()]);
    }

    // The ledger is judged against the base's properties and the base's locked fixtures.
    const baseFixtures = new FixtureCache(ctx.base.readCommitted);
    const fixtureValues = new Map<string, unknown>();
    for (const info of base.listed) {
      const fx = await baseFixtures.get(info.fixture);
      if (fx.ok) fixtureValues.set(info.fixture, fx.value);
    }
    const verdict = applyLedgerRules({
      ledger,
      file: hits.ledger,
      today: ctx.today,
      properties: new Map(base.listed.map((p) => [p.name, { fixture: p.fixture, claims: p.claims }])),
      fixtureDigest: (fixture) => locked.get(fixture),
      claimLivesInLock: (fixture, claim) => has(fixtureValues.get(fixture), claim),
    });
    const frozen = new Map(
      [...verdict.active].map(([property, freeze]) => [
        property,
        {
          layer: LAYER,
          covers: property,
          ...(freeze.cause ? { cause: freeze.cause } : {}),
          owner: freeze.owner,
          expires: freeze.expires,
          action: freeze.action,
          source: freeze.source,
        },
      ]),
    );
    const judged = judge({ base, head, runs: hits.runs, frozen });
    let onOverlay: ReturnType<typeof judge> | undefined;
    const artifacts: Artifact[] = [
      { name: 'hit_report.base.json', content: `${JSON.stringify(judged.reports.base, null, 2)}\n` },
      { name: 'hit_report.head.json', content: `${JSON.stringify(judged.reports.head, null, 2)}\n` },
    ];
    const findings = [...verdict.findings, ...judged.findings];
    if (overlay) {
      onOverlay = judge({ base, head: overlay, runs: hits.runs, frozen });
      artifacts.push({
        name: 'hit_report.overlay.json',
        content: `${JSON.stringify(onOverlay.reports.head, null, 2)}\n`,
      });
      for (const f of onOverlay.findings) {
        if (!OVERLAY_CODES.has(f.code)) continue;
        findings.push({
          ...f,
          message: f.message.replace(/^head: /, "the base's property on the head's code: "),
          evidence: { ...f.evidence, side: 'overlay' },
        });
      }
    }
    // A property that lost its hits names the edit to its module: the check that no longer looks.
    const explained = await attachEdits(ctx, findings, (f) =>
      (f.code === 'HIT_SURFACE_SHRANK' || f.code === 'ZERO_HIT') &&
      typeof f.evidence.source === 'string' &&
      typeof f.evidence.property === 'string'
        ? { file: f.evidence.source, name: f.evidence.property, kind: 'hits' }
        : undefined,
    );
    return {
      findings: explained,
      frozen: judged.frozen,
      artifacts,
      proofs: hitProofs(judged, onOverlay, new Set(frozen.keys())),
    };
  },
  // A property is scored and judged on the shard that owns its name; the flake ledger's rules and the
  // properties that failed to load are every shard's alike.
  shards: byUnit({
    unitOf: (f) => (f.code === 'CONFIG_INVALID' || f.code.startsWith('LEDGER_') ? undefined : 'property'),
    artifacts: {
      'hit_report.base.json': mergeHitReports,
      'hit_report.head.json': mergeHitReports,
      'hit_report.overlay.json': mergeHitReports,
    },
  }),
};

/** A hit report of one run: every shard's rows, by property name as one run orders them. */
function mergeHitReports(contents: readonly string[]): string {
  const rows = jsonParts<{ property: string }[]>(contents).flat();
  return jsonArtifact(rows.sort((a, b) => (a.property < b.property ? -1 : a.property > b.property ? 1 : 0)));
}

/**
 * What the run proved per property: the base's property code on the head's
 * code when that was scored, the head's own otherwise (then it is the base's
 * code too, or the property is the patch's own). A frozen, flaky, crashed or
 * baseline-failing property proves nothing; zero hits is a pass with no
 * failure mode, which the claims layer refuses.
 */
function hitProofs(
  judged: ReturnType<typeof judge>,
  onOverlay: ReturnType<typeof judge> | undefined,
  frozen: ReadonlySet<string>,
): PropertyProof[] {
  const out: PropertyProof[] = [];
  const names = new Set([...judged.verdicts.base.keys(), ...judged.verdicts.head.keys()]);
  for (const name of [...names].sort()) {
    const onBase = judged.verdicts.base.has(name);
    const fromOverlay = onBase ? onOverlay?.verdicts.head.get(name) : undefined;
    const v = fromOverlay ?? judged.verdicts.head.get(name);
    const side = fromOverlay ? ('overlay' as const) : ('head' as const);
    if (!v) {
      out.push({ kind: 'hits', name, side, onBase, passed: false, why: 'not found on the head' });
      continue;
    }
    const why = frozen.has(name)
      ? 'frozen by a flake ledger row'
      : v.kind === 'flaky'
        ? 'flaky: its runs disagreed'
        : v.kind === 'timeout' || v.kind === 'crash'
          ? v.message
          : v.row.baseline === 'fail'
            ? `fails on its own locked fixture${v.baselineError ? `: ${v.baselineError}` : ''}`
            : undefined;
    out.push({
      kind: 'hits',
      name,
      side,
      onBase,
      passed: why === undefined,
      ...(v.kind === 'scored' || v.kind === 'flaky' ? { hits: v.row.hit_count } : {}),
      ...(why !== undefined ? { why } : {}),
    });
  }
  return out;
}
