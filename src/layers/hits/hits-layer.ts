import picomatch from 'picomatch';
import { assertSourcesFound, nothingConfigured } from '../../config/configured-sources.js';
import { contractReadOptions } from '../../config/contract-file.js';
import { switchOf } from '../../config/layers-on.js';
import type { PatchgateConfig } from '../../config/schema.js';
import { contractFilesOf } from '../../contracts/registry.js';
import { asPatchgateError } from '../../errors.js';
import { readFlakeLedger } from '../../freeze/flake-ledger.js';
import { lockedFixtureDigests } from '../fixtures/locked-digests.js';
import { ProgressTally } from '../progress.js';
import { byUnit, jsonArtifact, jsonParts, type MergeContext, whenParts } from '../shard-merge.js';
import { attachEdits } from '../test-edits/attach.js';
import type {
  Artifact,
  Finding,
  Layer,
  LayerContext,
  LayerOutcome,
  NamedContract,
  PropertyProof,
} from '../types.js';
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
    // They score at once, so by default they share the cores rather than each taking all of them.
    const needOverlay = await overlayScoringNeeded(ctx);
    const poolFor = (root: string) =>
      new PropertyPool({
        workers: hits.workers,
        sharedBy: needOverlay ? 3 : 2,
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
    const overlayPool = needOverlay ? poolFor(ctx.overlay.root) : undefined;
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
        // A shard loads the property modules it owns, and scores the harnesses' properties it owns by name.
        ...(shard
          ? {
              owns: (name: string) => shard.owns('property', name),
              ownsModule: (module: string) => shard.owns('property-module', module),
            }
          : {}),
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
      // On a shard, its share of the modules may hold none: the merge asks whether any shard found one.
      if (base.listed.length === 0 && base.problems.length === 0 && !ctx.shard) {
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
    const isModule = picomatch(hits.properties, { dot: true });
    const moduleOf = (score: typeof base) =>
      score.listed.filter((i) => isModule(i.source)).map((i) => [i.name, i.source] as [string, string]);
    return {
      findings: explained,
      frozen: judged.frozen,
      artifacts,
      proofs: hitProofs(judged, onOverlay, new Set(frozen.keys())),
      ...(ctx.shard
        ? {
            part: {
              configFile: ctx.configFile,
              globs: [...hits.properties],
              baseFound: base.listed.length + base.problems.length,
              modules: { base: moduleOf(base), head: moduleOf(head) },
            } satisfies HitsPart,
          }
        : {}),
    };
  },
  shards: whenParts(mergeHits),
};

/** What the merge needs of a shard's hits besides its findings: the properties its modules define, per side. */
interface HitsPart {
  configFile: string;
  /** hits.properties: a problem of a source they match is the module's, on the shard that loaded it. */
  globs: string[];
  /** Properties (and problems) the base's sources gave this shard. */
  baseFound: number;
  /** [name, module] of every property of the modules this shard loaded. */
  modules: { base: [string, string][]; head: [string, string][] };
}

/** The ledger findings that need the property's listing (its fixture), judged where the property is listed. */
const LEDGER_PER_PROPERTY = new Set(['LEDGER_DIGEST_MISMATCH', 'LEDGER_EXTERNAL_IO_INVALID']);

/**
 * Each property module is loaded, listed and scored on the shard that owns
 * it, so a property is judged where its module is (on the base and the head
 * alike, the same path); a harness's properties go by name. A finding about a
 * module or a property is that shard's; the flake ledger's row checks and the
 * harnesses' problems are every shard's alike. A property name that modules
 * on two shards define (moved between modules, or defined twice) cannot be
 * compared on either: an error, never a guess.
 */
async function mergeHits(parts: readonly LayerOutcome[], mctx: MergeContext): Promise<LayerOutcome> {
  const hits = parts.map((p) => p.part as HitsPart);
  const isModule = picomatch(hits[0]?.globs ?? [], { dot: true });
  if (hits.every((h) => h.baseFound === 0)) {
    const keys = ['hits.properties', 'hits.python', 'hits.harnesses', 'hits.commands'];
    const e = asPatchgateError(
      nothingConfigured(
        hits[0]?.configFile ?? '',
        'hits.properties',
        `the hits layer is on, but ${keys.join(', ')} yield no property in the base revision`,
      ),
    );
    return {
      findings: [
        {
          code: 'CONFIG_INVALID',
          layer: LAYER,
          severity: 'error',
          message: e.message,
          evidence: { error: e.code, kind: e.kind, ...e.details },
        },
      ],
    };
  }
  const shardsOf = new Map<string, Set<number>>();
  hits.forEach((h, i) => {
    for (const [name] of [...h.modules.base, ...h.modules.head])
      shardsOf.set(name, (shardsOf.get(name) ?? new Set()).add(i + 1));
  });
  const split: Finding[] = [...shardsOf]
    .filter(([, s]) => s.size > 1)
    .map(([name, s]) => {
      const where = hits.flatMap((h, i) =>
        [...h.modules.base.map((x) => ['base', ...x]), ...h.modules.head.map((x) => ['head', ...x])]
          .filter(([, n]) => n === name)
          .map(([side, , m]) => `${m} on the ${side} (shard ${i + 1})`),
      );
      return {
        code: 'SHARD_DISAGREEMENT',
        layer: LAYER,
        severity: 'error',
        message: `property '${name}' is defined in modules different shards load (${where.join(', ')}): no shard can compare it; check this patch unsharded`,
        evidence: {
          what: `where property ${name} is defined`,
          property: name,
          shards: [...s].sort((a, b) => a - b),
          where,
          next: 'run patchgate check without --shard for this patch',
        },
      } satisfies Finding;
    });
  const merged = await byUnit({
    unitOf: (f) => {
      if (f.code === 'CONFIG_INVALID')
        return typeof f.evidence.source === 'string' && isModule(f.evidence.source) ? 'module' : undefined;
      if (f.code.startsWith('LEDGER_')) return LEDGER_PER_PROPERTY.has(f.code) ? 'property' : undefined;
      return 'property';
    },
    artifacts: {
      'hit_report.base.json': mergeHitReports,
      'hit_report.head.json': mergeHitReports,
      'hit_report.overlay.json': mergeHitReports,
    },
  }).merge(parts, mctx);
  return { ...merged, findings: [...split, ...merged.findings] };
}

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
