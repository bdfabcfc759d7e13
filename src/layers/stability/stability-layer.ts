import { contractReadOptions } from '../../config/contract-file.js';
import { switchOf } from '../../config/layers-on.js';
import type { PatchgateConfig } from '../../config/schema.js';
import { contractFilesOf } from '../../contracts/registry.js';
import { coveringFreeze, readStabilityFreeze } from '../../freeze/stability-freeze.js';
import type { TestOutcome } from '../../junit/model.js';
import { TestRunError } from '../../runners/tests/errors.js';
import { runRepeated } from '../../runners/tests/parallel.js';
import { type TestIdParts, testFileOf } from '../../runners/tests/presets.js';
import type { SuiteRun } from '../../runners/tests/session.js';
import { byCodePoint } from '../../util/compare.js';
import { type FlakeRecord, historyEvidence, historyWords } from '../flake-history.js';
import { ProgressTally } from '../progress.js';
import { agreed, byUnit, whenParts } from '../shard-merge.js';
import type { Finding, FrozenItem, Layer, LayerContext, LayerOutcome, NamedContract } from '../types.js';
import { mergeScopes, STABILITY_ARTIFACT, scopeArtifact, scopeNote, scopeSummary } from './probe-report.js';
import type { ProbeScope } from './probe-scope.js';
import { scopeOfPatch } from './scope-of-patch.js';

const LAYER = 'stability';

/** Outcomes that count as the same result for flakiness: a retried pass is already a flake. */
function verdictOf(t: TestOutcome | undefined): string {
  if (!t) return 'absent';
  if (t.status === 'flaky') return 'flaky';
  if (t.status === 'failed' || t.status === 'error') return 'failed';
  if (t.status === 'skipped' || t.status === 'xfailed') return 'skipped';
  return 'passed';
}

/** Per test id, what each run said. Ids repeated inside one run (retries as testcases) are merged. */
function outcomesById(runs: SuiteRun[]): Map<string, { parts: TestOutcome; results: string[] }> {
  const out = new Map<string, { parts: TestOutcome; results: string[] }>();
  runs.forEach((run, i) => {
    const seen = new Map<string, string>();
    for (const t of run.tests) {
      const v = verdictOf(t);
      const prev = seen.get(t.id);
      seen.set(t.id, prev && prev !== v ? 'flaky' : v);
      if (!out.has(t.id)) out.set(t.id, { parts: t, results: [] });
    }
    for (const [id, entry] of out) entry.results[i] = seen.get(id) ?? 'absent';
  });
  for (const entry of out.values()) for (let i = 0; i < runs.length; i++) entry.results[i] ??= 'absent';
  return out;
}

const isFlaky = (results: string[]) => results.includes('flaky') || new Set(results).size > 1;

/**
 * The reruns at once: the config's, else one. Reruns side by side share the
 * head's checkout, so a test that writes into it (a marker file, a cache)
 * meets its twin in the other run: that can make a stable test look flaky
 * (a NEW_FLAKE the patch did not cause), and pytest 7 stops collecting when
 * a file it listed is gone a moment later. Only a human who knows the tests
 * keep to themselves turns it up (`stability.parallel`).
 */
export function rerunsAtOnce(config: PatchgateConfig): number {
  return config.stability?.parallel ?? 1;
}

/**
 * The stability probe: run the head's tests N times; a test whose
 * outcome differs is flaky. Flaky on the base too → pre-existing (accepted
 * only under an unexpired, owned freeze row); stable on the base, or absent
 * there → the patch introduced nondeterminism: NEW_FLAKE, never freezable.
 * Only the flaky ids are rerun on the base.
 *
 * Only what the patch can affect is rerun (see probe-scope): the test files
 * it changed and those whose import closure reaches what it changed; every
 * test when it changed what every test runs with. Flakiness is judged over
 * the probed files alone: a test the reruns did not select is not absent.
 */
export const stabilityLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  onlyAfterClean: true,
  enabled: switchOf(LAYER),
  contractFiles: (config: PatchgateConfig): NamedContract[] => contractFilesOf(LAYER, config),
  async run(ctx: LayerContext) {
    const cfg = ctx.config.stability;
    const tests = ctx.tests;
    if (!cfg || !tests) return { findings: [] };
    const freezes = await readStabilityFreeze(
      ctx.snapshot.base,
      cfg.freeze,
      'the base revision',
      contractReadOptions(ctx.config, ctx.signal),
    );
    const preset = ctx.config.tests?.preset;
    const parallel = rerunsAtOnce(ctx.config);
    const tally = new ProgressTally(ctx.progress, 'stability runs');
    tally.expect(cfg.runs);
    const first = await tests.headRun(0).finally(() => tally.finish());
    const scope = await scopeOfPatch(ctx, first, LAYER);
    const told = { note: scopeNote(scope), scope: scopeSummary(scope) };
    // On a shard, the scope and the runs are its share's: the merge puts the shares together.
    let probe: ProbeRuns = { labels: [first.label], runs: cfg.runs, tests: 0, flaky: [] };
    const report = (labels: string[], judged: number, flakyIds: string[]) => {
      probe = { labels, runs: cfg.runs, tests: judged, flaky: [...flakyIds].sort(byCodePoint) };
      return { name: STABILITY_ARTIFACT, content: scopeArtifact(scope, probe) };
    };
    const shardPart = (): { part?: StabilityPart } => (ctx.shard ? { part: { scope, probe } } : {});
    if (scope.mode === 'affected' && scope.probed.length === 0) {
      // Nothing the patch changed reaches a test: no rerun could show a flake of its making.
      tally.finish(cfg.runs - 1);
      return { findings: [], artifacts: [report([first.label], 0, [])], ...told, ...shardPart() };
    }
    let headRuns: SuiteRun[];
    if (scope.mode === 'all') {
      headRuns = await runRepeated(cfg.runs, parallel, (i) =>
        i === 0 ? Promise.resolve(first) : tests.headRun(i).finally(() => tally.finish()),
      );
    } else {
      const probedFiles = new Set(scope.probed.map((p) => p.file));
      const files = [...probedFiles];
      const reruns = await runRepeated(cfg.runs - 1, parallel, (i) =>
        tests.headRunFiles(files, `stability-run-${i + 2}`).finally(() => tally.finish()),
      );
      const only = (run: SuiteRun): SuiteRun => ({
        ...run,
        tests: run.tests.filter((t) => {
          const f = testFileOf(preset, t);
          return f !== undefined && probedFiles.has(f);
        }),
      });
      headRuns = [only(first), ...reruns.map(only)];
      // A probed file a rerun ran nothing of was not selected (the runner's filter), which is no evidence.
      const inFirst = new Set(headRuns[0]?.tests.map((t) => testFileOf(preset, t)));
      for (const run of headRuns.slice(1)) {
        const ran = new Set(run.tests.map((t) => testFileOf(preset, t)));
        const missed = [...inFirst].filter((f) => f !== undefined && !ran.has(f));
        if (missed.length > 0)
          throw new TestRunError(
            'TESTS_RUN_FAILED',
            `the stability rerun ${run.label} of the probed test files ran no test of ${missed.slice(0, 3).join(', ')}${missed.length > 3 ? ` and ${missed.length - 3} more` : ''}, which the first run did: the runner did not select them, so the rerun is no evidence; logs: ${run.run.stdoutFile}, ${run.run.stderrFile}`,
            { label: run.label, files: missed, side: 'head' },
          );
      }
    }
    const head = outcomesById(headRuns);
    const flaky = [...head].filter(([, e]) => isFlaky(e.results));
    const findings: Finding[] = [];
    const frozen: FrozenItem[] = [];
    const artifacts = [
      report(
        headRuns.map((r) => r.label),
        head.size,
        flaky.map(([id]) => id),
      ),
    ];
    if (flaky.length === 0) return { findings, artifacts, ...told, ...shardPart() };

    // Rerun on the base by what exists there: a test whose file the base lacks is new (and asking the base
    // runner for it would make it run nothing at all); a rerun that runs nothing is an error, never absence.
    const newOnHead = new Set<string>();
    const onBaseIds: string[] = [];
    const partsOf = new Map<string, TestIdParts>();
    for (const [id, e] of flaky) {
      const parts: TestIdParts = {
        suite: e.parts.suite,
        classname: e.parts.classname,
        name: e.parts.name,
        ...(e.parts.file ? { file: e.parts.file } : {}),
      };
      if ((await tests.baseHasTestFile(parts)) === false) newOnHead.add(id);
      else {
        onBaseIds.push(id);
        partsOf.set(id, parts);
      }
    }
    // A test the run history saw flake on trusted runs in the window is flaky on the base by that record: the
    // history has seen more base runs than these reruns would. The rest are rerun on the base as before.
    const remembered: ReadonlyMap<string, FlakeRecord> = ctx.flakeHistory
      ? await ctx.flakeHistory.flakes(onBaseIds)
      : new Map();
    const subset = onBaseIds.filter((id) => !remembered.has(id)).map((id) => partsOf.get(id) as TestIdParts);
    const baseRuns: SuiteRun[] = [];
    if (subset.length > 0) {
      tally.expect(cfg.runs);
      for (let i = 0; i < cfg.runs; i++) {
        baseRuns.push(await tests.baseRun(subset, 'stability'));
        tally.finish();
      }
    }
    const base = outcomesById(baseRuns);

    for (const [id, entry] of flaky) {
      const record = remembered.get(id);
      const onBase = newOnHead.has(id) ? undefined : record ? ['flaky'] : base.get(id)?.results;
      const evidence = {
        test: id,
        file: entry.parts.file,
        ...(newOnHead.has(id) ? { base: 'its file does not exist in the base revision' } : {}),
        headRuns: entry.results,
        baseRuns: record ? null : (onBase ?? null),
        runs: cfg.runs,
        ...(record ? { history: historyEvidence(record) } : {}),
      };
      if (!onBase || onBase.every((r) => r === 'absent') || !isFlaky(onBase)) {
        findings.push({
          code: 'NEW_FLAKE',
          layer: LAYER,
          severity: 'reject',
          message:
            onBase && !onBase.every((r) => r === 'absent')
              ? `test ${id} is stable on the base (${onBase.join(', ')}) but flaky on the head (${entry.results.join(', ')}): the patch introduced nondeterminism; never freezable`
              : `test ${id} only exists on the head and is flaky (${entry.results.join(', ')}); never freezable`,
          evidence,
        });
        continue;
      }
      const freeze = coveringFreeze(freezes, id, ctx.today);
      if (freeze) {
        frozen.push({
          layer: LAYER,
          covers: id,
          owner: freeze.owner,
          expires: freeze.expires,
          action: freeze.action,
          source: freeze.source,
          ...(freeze.origin ? { origin: freeze.origin } : {}),
        });
        continue;
      }
      findings.push({
        code: 'PREEXISTING_FLAKE_UNFROZEN',
        layer: LAYER,
        severity: 'reject',
        message: `test ${id} is flaky on the base too (${record ? historyWords(record) : onBase.join(', ')}), but no unexpired freeze row in ${cfg.freeze} with an owner and a reason covers it`,
        evidence: { ...evidence, freeze: cfg.freeze },
      });
    }
    return { findings, frozen, artifacts, ...told, ...shardPart() };
  },
  // Each test is probed on the shard that runs its file; the scope, the note and stability.json are the
  // shares' put together.
  // Without a tests section the probe did nothing, alike on every shard (no part).
  shards: whenParts(
    byUnit({
      unitOf: () => 'test',
      note: (parts) => scopeNote(mergedScope(parts)),
      scope: (parts) => scopeSummary(mergedScope(parts)),
      artifacts: {
        [STABILITY_ARTIFACT]: (_contents, parts) => {
          const stab = stabilityParts(parts);
          const ran = stab.filter((p) => p.probe.labels.length > 1);
          return scopeArtifact(mergeScopes(stab.map((p) => p.scope)), {
            labels: ran[0]?.probe.labels ?? stab[0]?.probe.labels ?? [],
            runs: agreed(
              'the number of stability runs',
              stab.map((p) => p.probe.runs),
            ),
            tests: stab.reduce((n, p) => n + p.probe.tests, 0),
            flaky: stab.flatMap((p) => p.probe.flaky).sort(byCodePoint),
          });
        },
      },
    }).merge,
  ),
};

interface ProbeRuns {
  labels: string[];
  runs: number;
  tests: number;
  flaky: string[];
}

interface StabilityPart {
  scope: ProbeScope;
  probe: ProbeRuns;
}

const stabilityParts = (parts: readonly LayerOutcome[]): StabilityPart[] =>
  parts.map((p) => p.part as StabilityPart);

const mergedScope = (parts: readonly LayerOutcome[]): ProbeScope =>
  mergeScopes(stabilityParts(parts).map((p) => p.scope));
