import { contractReadOptions } from '../../config/contract-file.js';
import type { PatchgateConfig } from '../../config/schema.js';
import { coveringFreeze, readStabilityFreeze } from '../../freeze/stability-freeze.js';
import type { TestOutcome } from '../../junit/model.js';
import { runRepeated } from '../../runners/tests/parallel.js';
import type { TestIdParts } from '../../runners/tests/presets.js';
import type { SuiteRun } from '../../runners/tests/session.js';
import { ProgressTally } from '../progress.js';
import type { Finding, FrozenItem, Layer, LayerContext, NamedContract } from '../types.js';

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
 * Seed 002's stability probe: run the head's tests N times; a test whose
 * outcome differs is flaky. Flaky on the base too → pre-existing (accepted
 * only under an unexpired, owned freeze row); stable on the base, or absent
 * there → the patch introduced nondeterminism: NEW_FLAKE, never freezable.
 * Only the flaky ids are rerun on the base.
 */
export const stabilityLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  onlyAfterClean: true,
  enabled: (config: PatchgateConfig) => config.stability?.enabled === true && config.tests !== undefined,
  contractFiles: (config: PatchgateConfig): NamedContract[] =>
    config.stability ? [{ path: config.stability.freeze, role: 'stability.freeze' }] : [],
  async run(ctx: LayerContext) {
    const cfg = ctx.config.stability;
    const tests = ctx.tests;
    if (!cfg || !tests) return { findings: [] };
    const freezes = await readStabilityFreeze(
      ctx.frozen.base,
      cfg.freeze,
      'the base revision',
      contractReadOptions(ctx.config, ctx.signal),
    );
    const tally = new ProgressTally(ctx.progress, 'stability runs');
    tally.expect(cfg.runs);
    const headRuns = await runRepeated(cfg.runs, cfg.parallel, (i) =>
      tests.headRun(i).finally(() => tally.finish()),
    );
    const head = outcomesById(headRuns);
    const flaky = [...head].filter(([, e]) => isFlaky(e.results));
    const findings: Finding[] = [];
    const frozen: FrozenItem[] = [];
    if (flaky.length === 0) return { findings };

    // Rerun on the base by what exists there: a test whose file the base lacks is new (and asking the base
    // runner for it would make it run nothing at all); a rerun that runs nothing is an error, never absence.
    const newOnHead = new Set<string>();
    const subset: TestIdParts[] = [];
    for (const [id, e] of flaky) {
      const parts: TestIdParts = {
        suite: e.parts.suite,
        classname: e.parts.classname,
        name: e.parts.name,
        ...(e.parts.file ? { file: e.parts.file } : {}),
      };
      if ((await tests.baseHasTestFile(parts)) === false) newOnHead.add(id);
      else subset.push(parts);
    }
    const baseRuns: SuiteRun[] = [];
    if (subset.length > 0) {
      tally.expect(cfg.runs);
      for (let i = 0; i < cfg.runs; i++) {
        baseRuns.push(await tests.baseRun(subset));
        tally.finish();
      }
    }
    const base = outcomesById(baseRuns);

    for (const [id, entry] of flaky) {
      const onBase = newOnHead.has(id) ? undefined : base.get(id)?.results;
      const evidence = {
        test: id,
        file: entry.parts.file,
        ...(newOnHead.has(id) ? { base: 'its file does not exist in the base revision' } : {}),
        headRuns: entry.results,
        baseRuns: onBase ?? null,
        runs: cfg.runs,
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
        message: `test ${id} is flaky on the base too (${onBase.join(', ')}), but no unexpired freeze row in ${cfg.freeze} with an owner and a reason covers it`,
        evidence: { ...evidence, freeze: cfg.freeze },
      });
    }
    return { findings, frozen };
  },
};
