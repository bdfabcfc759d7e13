/**
 * The base's checks judge the head's code. The base's test suite runs on the
 * overlay (the head's tree with the base's test side); a base test that
 * passes on the base and fails, skips or vanishes there is the patch's doing,
 * whatever the head's own (edited) tests say. The head's own run still goes
 * through the signatures layer: its tests add evidence, they cannot remove it.
 */
import { contractReadOptions } from '../../config/contract-file.js';
import type { PatchgateConfig } from '../../config/schema.js';
import { matchFailure, readSignatureFreeze, type SignatureFreeze } from '../../freeze/signature-freeze.js';
import type { TestOutcome } from '../../junit/model.js';
import { testFileOf } from '../../runners/tests/presets.js';
import type { SuiteRun } from '../../runners/tests/session.js';
import { failureSignature, skipKind } from '../../signatures/signature.js';
import { acceptedByHuman, overrideActive, waivable } from '../override.js';
import { waivedBySignature } from '../signature-waiver.js';
import type { Finding, FrozenItem, Layer, LayerContext, Override } from '../types.js';
import { byId, type Disagreement, disagreements } from './compare-runs.js';
import { reachFindings } from './reach.js';
import { testSideFindings } from './test-side-findings.js';
import { toolchainFindings } from './toolchain.js';

const LAYER = 'regression';

/** The failure (or skip) a signature row would have to cover, as the signatures layer reads it. */
function firstProblem(t: TestOutcome): { kind: string; message: string } {
  if (t.status === 'skipped' || t.status === 'xfailed')
    return { kind: skipKind(t.skipped, t.status), message: t.skipped?.message ?? '' };
  const f = t.failures[0] ?? t.retries?.[0];
  return f ? { kind: f.kind, message: f.message } : { kind: t.status, message: '' };
}

export const regressionLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  usesTestRuns: true,
  enabled: (config: PatchgateConfig) => config.tests !== undefined,
  contractFiles: () => [],
  async run(ctx: LayerContext) {
    const cfg = ctx.config.tests;
    const tests = ctx.tests;
    if (!cfg || !tests) return { findings: [] };
    const variable = cfg.overrideTokenEnv;
    const overridden = overrideActive(ctx.env, variable);
    const findings: Finding[] = [];
    const overrides: Override[] = [];
    const frozen: FrozenItem[] = [];
    const waive = (f: Finding, path: string): Finding =>
      overridden ? acceptedByHuman(waivable(f, variable), path, variable, overrides) : waivable(f, variable);

    for (const f of await toolchainFindings(ctx, LAYER)) findings.push(waive(f, String(f.evidence.path)));
    findings.push(...(await reachFindings(ctx, LAYER)));
    for (const f of testSideFindings(ctx, LAYER))
      findings.push(f.code === 'TEST_CONFIG_IMPORT_CHANGED' ? waive(f, String(f.evidence.path)) : f);

    const ov = ctx.overlay;
    // The patch left the test side alone: the overlay is the head's tree, and the signatures layer already
    // judges that very run.
    if (ov.sameAsHead) return { findings, overrides };

    // The head's own run only adds ids the overlay must also run; a head run that broke is the signatures
    // layer's finding, and takes nothing away from what the base's tests say here.
    const [overlayRun, headRun] = await Promise.all([
      tests.overlayRun(),
      tests.headRun(0).catch((err: unknown) => {
        if (ctx.signal.aborted) throw err;
        return { tests: [] as TestOutcome[] };
      }),
    ]);
    const overlay = byId(overlayRun.tests);
    const preset = cfg.preset;
    const restored = new Set(ov.restored);
    const headOnly = new Set(ov.headOnly);

    // Ids the overlay must run: the head ran them from a test file the patch left alone.
    const expected = new Set<string>();
    for (const t of headRun.tests) {
      const file = testFileOf(preset, t);
      if (file !== undefined && !restored.has(file) && !headOnly.has(file)) expected.add(t.id);
    }
    const notPassing = [...new Set([...overlay.keys(), ...expected])].filter((id) => {
      const list = overlay.get(id);
      return !list || list.some((t) => t.status !== 'passed');
    });

    // The base's own run of every test the patch touched and of every test in doubt, by file where the
    // runner can select files: the base inventory of a deleted test file comes from here.
    const files = new Set<string>();
    let unknownFile = false;
    for (const f of ov.restored) if (await isRunnableTestFile(ctx, f)) files.add(f);
    for (const id of notPassing) {
      const t = overlay.get(id)?.[0] ?? headRun.tests.find((x) => x.id === id);
      const file = t ? testFileOf(preset, t) : undefined;
      if (file === undefined) unknownFile = true;
      else files.add(file);
    }
    let base: SuiteRun | undefined;
    if (files.size > 0 || unknownFile)
      base = await tests.baseRunFiles(unknownFile ? undefined : [...files].sort());
    const baseById = byId(base?.tests ?? []);
    for (const t of base?.tests ?? []) {
      const file = testFileOf(preset, t);
      if (file !== undefined && restored.has(file)) expected.add(t.id);
    }

    const freeze = await signatureFreeze(ctx);
    for (const d of disagreements(overlay, baseById, expected)) {
      const f = regressionFinding(ctx, d, freeze, frozen);
      if (f) findings.push(waive(f, d.id));
    }
    return {
      findings,
      overrides,
      frozen,
      artifacts: [
        {
          name: 'overlay.json',
          content: `${JSON.stringify(
            {
              restored: ov.restored,
              headOnly: ov.headOnly,
              merged: ov.merged,
              fromBase: ov.fromBase,
              // Why each path beyond the globs is test side: the base file and key that name it.
              named: ov.named,
              shared: ov.shared,
              overlayTests: overlayRun.tests.length,
              baseRerun: base
                ? { label: base.label, tests: base.tests.length, files: [...files].sort() }
                : null,
            },
            null,
            2,
          )}\n`,
        },
      ],
    };
  },
};

/** A restored test-side file the runner would load as tests (not a config or setup file). */
async function isRunnableTestFile(ctx: LayerContext, file: string): Promise<boolean> {
  return (
    (await ctx.base.readCommitted(file)) !== undefined &&
    /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/.test(file)
  );
}

async function signatureFreeze(ctx: LayerContext): Promise<SignatureFreeze | undefined> {
  const cfg = ctx.config.signatures;
  if (!cfg?.enabled) return undefined;
  return readSignatureFreeze(ctx.frozen.base, cfg.freeze, 'the base revision', {
    ...contractReadOptions(ctx.config, ctx.signal),
    ifMissing: 'empty',
  });
}

function regressionFinding(
  ctx: LayerContext,
  d: Disagreement,
  freeze: SignatureFreeze | undefined,
  frozen: FrozenItem[],
): Finding | undefined {
  const t = d.tests[0];
  const scheme = ctx.config.signatures?.scheme ?? 'seed';
  const next =
    'fix the production code so the base test passes again; if the change of behaviour is intended, a human updates the test in its own commit (or accepts this run with the override variable)';
  if (d.overlay === 'absent' || !t) {
    return {
      code: 'TEST_VANISHED',
      layer: LAYER,
      severity: 'reject',
      message: `base test ${d.id} passes on the base but did not run at all on the head's code with the base's tests (collection or import error, or dropped): a test cannot vanish`,
      evidence: { test: d.id, base: d.base, overlay: 'did not run', next },
    };
  }
  const problem = firstProblem(t);
  const sig = failureSignature(problem.kind, problem.message, scheme);
  const row = freeze ? matchFailure(freeze, problem.kind, problem.message, ctx.today, d.id) : undefined;
  if (row && freeze) {
    frozen.push(waivedBySignature(LAYER, d.id, row, freeze.file, sig.template));
    return undefined;
  }
  return {
    code: 'REGRESSION',
    layer: LAYER,
    severity: 'reject',
    message: `base test ${d.id} passes on the base but ${d.overlay === 'skipped' ? 'is skipped' : 'fails'} on the head's code (run with the base's own tests and runner config): ${sig.template}`,
    evidence: {
      test: d.id,
      file: t.file,
      base: d.base,
      overlay: d.overlay,
      kind: problem.kind,
      message: problem.message,
      template: sig.template,
      sha256: sig.sha256,
      next,
    },
  };
}
