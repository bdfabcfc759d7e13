import { isReasonCode } from '../codes.js';
import { asPatchgateError, InputError, InternalError } from '../errors.js';
import type {
  Artifact,
  Finding,
  FrozenItem,
  Layer,
  LayerContext,
  LayerOutcome,
  Override,
  PropertyProof,
  Severity,
} from '../layers/types.js';
import type { WrittenGuard } from '../layers/written-guard.js';
import { aggregateFindings } from '../report/aggregate.js';
import { boundFinding } from '../report/bounded.js';
import { LOGS_IN_OUT, relocateArtifact, relocateLogPaths, relocateLogValue } from '../report/log-paths.js';
import { type LayerSummary, layerStatus, verdictOf } from '../report/scorecard.js';
import type { TestSession } from '../runners/tests/session.js';
import { pushAll } from '../util/arrays.js';
import { startsTestRuns } from './runtime.js';
import type { LayerPart } from './shard-part.js';

/** What decides whether a layer runs: nothing here changes while it is asked. */
export interface SkipState {
  configFile: string;
  /** Whether the config turns the layer on. */
  enabled: boolean;
  /** A sandbox finding that stops head code from running, by its code. */
  blocking?: string;
  /** The run asked for every layer (CLI: --all-layers). */
  allLayers: boolean;
  /** What the findings so far add up to. */
  verdictSoFar: 'accept' | 'reject' | 'error';
}

const BLOCKED: Readonly<Record<string, string>> = {
  SANDBOX_UNAVAILABLE: 'head code runs only in the sandbox here (see SANDBOX_UNAVAILABLE)',
  PROGRAM_HIDDEN: 'a program the config runs is not in the sandbox (see PROGRAM_HIDDEN)',
};

/** Why `layer` does not run, or undefined when it does. */
export function skipReason(layer: Layer, state: SkipState): string | undefined {
  if (!state.enabled) return `not enabled in ${state.configFile}`;
  if (state.blocking !== undefined && layer.runsHeadCode)
    return (
      BLOCKED[state.blocking] ??
      "head code given network runs only with the sandbox's own network (see SANDBOX_NETWORK_UNAVAILABLE)"
    );
  if (layer.onlyAfterClean && !state.allLayers && state.verdictSoFar !== 'accept')
    return 'an earlier layer did not pass (use --all-layers to run it anyway)';
  return undefined;
}

/**
 * Refuses a pipeline in which a layer would run before one whose proofs it
 * reads: it would see none, and could not tell that from "none proved".
 */
export function checkLayerOrder(pipeline: readonly Layer[]): void {
  const position = new Map(pipeline.map((l, i) => [l.name, i]));
  if (position.size !== pipeline.length)
    throw new InternalError(`two layers share a name: ${pipeline.map((l) => l.name).join(', ')}`);
  pipeline.forEach((layer, i) => {
    for (const earlier of layer.after ?? []) {
      const at = position.get(earlier);
      if (at !== undefined && at > i)
        throw new InternalError(
          `layer ${layer.name} reads what ${earlier} proves, so it must run after it; the pipeline has it before`,
        );
    }
  });
}

/**
 * Errors that are the patch's doing when head code produced them: a cap it
 * hit, an instrument it replaced, a run it broke that works on the base. On
 * the base's own run they mean the base could not run: an error.
 */
const HEAD_BLAME: ReadonlySet<string> = new Set(['RESOURCE_LIMIT', 'INSTRUMENT_SHADOWED', 'HEAD_RUN_BROKEN']);

export function errorFinding(layer: string, err: unknown): Finding {
  const e = asPatchgateError(err);
  // An error whose code is a reason code of its own (a test run that timed out, an unreadable report)
  // keeps it: calling it CONFIG_INVALID would send the user to the wrong file.
  const code = e.kind === 'internal' ? 'INTERNAL_ERROR' : isReasonCode(e.code) ? e.code : 'CONFIG_INVALID';
  const severity: Severity = HEAD_BLAME.has(code) && e.details.side !== 'base' ? 'reject' : 'error';
  return {
    code,
    layer,
    severity,
    message: e.message,
    evidence: { error: e.code, kind: e.kind, ...e.details },
  };
}

/** What every layer gets, less what the run loop hands each one (its proofs, the layers before it). */
export type SharedContext = Omit<LayerContext, 'proofs' | 'layersRun'>;

export interface LayerRunOptions {
  pipeline: readonly Layer[];
  /** Whether the config turns a layer on. */
  isEnabled(layer: Layer): boolean;
  configFile: string;
  context: SharedContext;
  /** Findings that come before any layer's (the sandbox's shortfalls, missing submodules). */
  findings: readonly Finding[];
  blocking: Finding | undefined;
  guards: readonly WrittenGuard[];
  tests: TestSession | undefined;
  logDir: string;
  /** Where log paths in findings point, relative to the scorecard (a shard's logs sit under tests/shard-K). */
  logsTo?: string;
  /** Keep each layer's outcome as it was before findings were folded together: this run is a shard. */
  recordParts?: boolean;
  allLayers: boolean;
  signal: AbortSignal;
  now(): number;
  /** Told which layer runs now, for progress shown under its name. */
  onLayer(name: string): void;
  hooks: {
    onLayerStart?(name: string): void | Promise<void>;
    onLayerEnd?(summary: LayerSummary): void | Promise<void>;
    onArtifact?(artifact: Artifact): void | Promise<void>;
  };
}

export interface LayerRunResult {
  layers: LayerSummary[];
  findings: Finding[];
  overrides: Override[];
  frozen: FrozenItem[];
  /** Each layer's own time in ms, less the dependency install it waited for. */
  timings: Record<string, number>;
  /** With `recordParts`: every layer's outcome on this shard, for `patchgate merge`. */
  parts?: LayerPart[];
}

/** Runs the layers in order: each skip said, each throw an error finding, each result bounded. */
export async function runLayers(o: LayerRunOptions): Promise<LayerRunResult> {
  checkLayerOrder(o.pipeline);
  const findings: Finding[] = [...o.findings];
  const layers: LayerSummary[] = [];
  const overrides: Override[] = [];
  const frozen: FrozenItem[] = [];
  const timings: Record<string, number> = {};
  const proofsBy = new Map<string, readonly PropertyProof[]>();
  const layersRun: string[] = [];
  const parts: LayerPart[] | undefined = o.recordParts ? [] : undefined;
  const logsTo = o.logsTo ?? LOGS_IN_OUT;
  const fix = (f: Finding) => relocateLogPaths(boundFinding(f), o.logDir, logsTo);
  const enabled = o.pipeline.filter((l) => o.isEnabled(l));
  const early = startsTestRuns(enabled);
  let prefetched = false;
  for (const layer of o.pipeline) {
    const reason = skipReason(layer, {
      configFile: o.configFile,
      enabled: o.isEnabled(layer),
      ...(o.blocking ? { blocking: o.blocking.code } : {}),
      allLayers: o.allLayers,
      verdictSoFar: verdictOf(findings),
    });
    if (reason !== undefined) {
      layers.push({ name: layer.name, status: 'skipped', findings: 0, reason });
      parts?.push({ name: layer.name, skipped: reason, guards: [], ms: 0 });
      continue;
    }
    // The test runs every test layer needs start with the first layer that runs head code (never before:
    // the fixtures layer reads the head's checkout, which head code must not be writing meanwhile).
    if (layer.runsHeadCode && !prefetched && o.tests && early.headRun) {
      prefetched = true;
      // The base's list of its tests is base code on the base's checkout: it can run alongside.
      o.tests.prefetch({ inventory: early.baseInventory });
    }
    o.onLayer(layer.name);
    await o.hooks.onLayerStart?.(layer.name);
    const t0 = o.now();
    const setupBefore = o.tests?.setupMs ?? 0;
    let layerFindings: Finding[];
    let told: Pick<LayerSummary, 'note' | 'scope'> = {};
    let kept: LayerOutcome | undefined;
    try {
      const outcome = await layer.run({
        ...o.context,
        proofs: Object.freeze((layer.after ?? []).flatMap((name) => proofsBy.get(name) ?? [])),
        layersRun: Object.freeze([...layersRun]),
      });
      layerFindings = outcome.findings;
      told = {
        ...(outcome.note !== undefined ? { note: outcome.note } : {}),
        ...(outcome.scope !== undefined ? { scope: outcome.scope } : {}),
      };
      pushAll(overrides, outcome.overrides ?? []);
      pushAll(frozen, outcome.frozen ?? []);
      proofsBy.set(layer.name, Object.freeze((outcome.proofs ?? []).map((p) => Object.freeze({ ...p }))));
      // A report that names a log names the out folder's copy, as findings do.
      const artifacts = (outcome.artifacts ?? []).map((a) => relocateArtifact(a, o.logDir, logsTo));
      for (const artifact of artifacts) await o.hooks.onArtifact?.(artifact);
      if (parts) kept = partOutcome({ ...outcome, artifacts }, (v) => relocateLogValue(v, o.logDir, logsTo));
    } catch (err) {
      if (o.signal.aborted) throw err;
      // A layer that throws can never let the patch through.
      layerFindings = [errorFinding(layer.name, err)];
    }
    // An interrupted layer's findings are the interruption's, not the patch's: no verdict is given.
    if (o.signal.aborted) throw new InputError('ABORTED', 'the run was interrupted');
    const guarded: Finding[] = [];
    if (layer.runsHeadCode) for (const g of o.guards) pushAll(guarded, await g.check(layer.name));
    // Evidence head code shaped is bounded before anything walks it, and a log path names the out folder's
    // copy (tests/…): the temp folder is gone by the time anyone reads it. Done once, for the part too.
    const fixed = layerFindings.map(fix);
    const fixedGuards = guarded.map(fix);
    // Installing dependencies is the setup's time, not the layer's that first needed it.
    timings[layer.name] = Math.round(o.now() - t0 - ((o.tests?.setupMs ?? 0) - setupBefore));
    parts?.push({
      name: layer.name,
      ...(kept ? { outcome: { ...kept, findings: fixed } } : { threw: fixed[0] as Finding }),
      guards: fixedGuards,
      ms: timings[layer.name] ?? 0,
    });
    const all = [...fixed, ...fixedGuards];
    const summary: LayerSummary = {
      name: layer.name,
      status: layerStatus(all),
      findings: all.length,
      ...told,
    };
    // Thousands of findings of one code become one with the count, the full list an artifact.
    const shown = aggregateFindings(all);
    for (const artifact of shown.artifacts) await o.hooks.onArtifact?.(artifact);
    layers.push(summary);
    layersRun.push(layer.name);
    pushAll(findings, shown.findings);
    await o.hooks.onLayerEnd?.(summary);
  }
  return { layers, findings, overrides, frozen, timings, ...(parts ? { parts } : {}) };
}

/** A layer's outcome as a shard keeps it (its findings are set once fixed): artifacts whole, all plain JSON. */
function partOutcome(outcome: LayerOutcome, relocate: (value: unknown) => unknown): LayerOutcome {
  return {
    findings: outcome.findings,
    ...(outcome.note !== undefined ? { note: outcome.note } : {}),
    ...(outcome.scope !== undefined ? { scope: outcome.scope } : {}),
    ...(outcome.overrides?.length ? { overrides: outcome.overrides } : {}),
    ...(outcome.frozen?.length ? { frozen: outcome.frozen } : {}),
    ...(outcome.artifacts?.length
      ? {
          artifacts: outcome.artifacts.map((a) => ({
            name: a.name,
            content: typeof a.content === 'string' ? a.content : a.content.join(''),
          })),
        }
      : {}),
    ...(outcome.proofs?.length ? { proofs: outcome.proofs } : {}),
    ...(outcome.part !== undefined ? { part: relocate(outcome.part) } : {}),
  };
}
