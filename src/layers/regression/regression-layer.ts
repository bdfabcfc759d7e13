/**
 * The base's checks judge the head's code. The base's test suite runs on the
 * overlay (the head's tree with the base's test side); a base test that
 * passes on the base and fails, skips or vanishes there is the patch's doing,
 * whatever the head's own (edited) tests say. The head's own run still goes
 * through the signatures layer: its tests add evidence, they cannot remove it.
 */

import { contractReadOptions } from '../../config/contract-file.js';
import { switchOf } from '../../config/layers-on.js';
import {
  matchFailure,
  readSignatureFreeze,
  type SignatureFreeze,
  type SignatureFreezeRow,
} from '../../freeze/signature-freeze.js';
import { assertionText } from '../../junit/assertion-text.js';
import type { TestOutcome } from '../../junit/model.js';
import { type TestIdParts, testFileOf } from '../../runners/tests/presets.js';
import { inventoryKey, type SuiteRun } from '../../runners/tests/session.js';
import { failureSignature, skipKind } from '../../signatures/signature.js';
import { pushAll } from '../../util/arrays.js';
import { byCodePoint } from '../../util/compare.js';
import { type ExcuseCandidate, excuses } from '../freeze-evidence.js';
import { acceptedByHuman, overridable } from '../override.js';
import { agreed, byUnit, jsonArtifact, jsonParts } from '../shard-merge.js';
import { excusedBySignature } from '../signature-excuse.js';
import { attachEdits, queryOf } from '../test-edits/attach.js';
import type { Finding, FrozenItem, Layer, LayerContext, Override } from '../types.js';
import { byId, type Disagreement, disagreements } from './compare-runs.js';
import { groupByFile } from './group-findings.js';
import { type NothingRan, nothingRan, nothingRanFinding, nothingRanOnAll } from './nothing-ran.js';
import { reachFindings } from './reach.js';
import { testSideFindings } from './test-side-findings.js';
import { toolchainFindings } from './toolchain.js';
import { causeFor, loadFailures, type VanishCause } from './vanish-cause.js';

const LAYER = 'regression';
const PER_TEST = new Set(['REGRESSION', 'TEST_VANISHED']);
const OVERLAY_REPORT = 'overlay.json';

/** The failure (or skip) a signature row would have to cover, as the signatures layer reads it. */
function firstProblem(t: TestOutcome): { kind: string; message: string; body?: string } {
  if (t.status === 'skipped' || t.status === 'xfailed')
    return { kind: skipKind(t.skipped, t.status), message: t.skipped?.message ?? '' };
  const f = t.failures[0];
  if (f) return { kind: f.kind, message: f.message, body: f.body };
  const r = t.retries?.[0];
  return r ? { kind: r.kind, message: r.message } : { kind: t.status, message: '' };
}

export const regressionLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  testRuns: { headRun: true, baseInventory: true },
  enabled: switchOf(LAYER),
  contractFiles: () => [],
  async run(ctx: LayerContext) {
    const cfg = ctx.config.tests;
    const tests = ctx.tests;
    if (!cfg || !tests) return { findings: [] };
    const variable = cfg.overrideTokenEnv;
    const overridden = ctx.overrides.active(variable);
    const findings: Finding[] = [];
    const overrides: Override[] = [];
    const frozen: FrozenItem[] = [];
    const offerOverride = (f: Finding, path: string): Finding =>
      overridden
        ? acceptedByHuman(overridable(f, variable), path, variable, overrides)
        : overridable(f, variable);

    for (const f of await toolchainFindings(ctx, LAYER))
      findings.push(offerOverride(f, String(f.evidence.path)));
    for (const f of await reachFindings(ctx, LAYER))
      findings.push(offerOverride(f, `${f.evidence.path}:${f.evidence.line}`));
    for (const f of testSideFindings(ctx, LAYER))
      findings.push(f.code === 'TEST_CONFIG_IMPORT_CHANGED' ? offerOverride(f, String(f.evidence.path)) : f);

    const ov = ctx.overlay;
    const preset = cfg.preset;
    // The base's own list of its tests, on every run: a production change can make a base test vanish without
    // touching a test (a parametrized case drawn from a production constant).
    const [overlayRun, headRun, inventory] = await Promise.all([
      tests.overlayRun(),
      // The head's own run only adds ids the overlay must also run; a head run that broke is the signatures
      // layer's finding, and takes nothing away from what the base's tests say here.
      ov.sameAsHead
        ? undefined
        : tests.headRun(0).catch((err: unknown) => {
            if (ctx.signal.aborted) throw err;
            return { tests: [] as TestOutcome[] };
          }),
      tests.baseInventory(),
    ]);
    const overlay = byId(overlayRun.tests);
    const overlayKeys = new Set(overlayRun.tests.map(inventoryKey));
    const missing = inventory.tests.filter((t) => !overlayKeys.has(t.key));
    const restored = new Set(ov.restored);
    const headOnly = new Set(ov.headOnly);

    // Ids the overlay must run: the head ran them from a test file the patch left alone.
    const expected = new Set<string>();
    for (const t of headRun?.tests ?? []) {
      const file = testFileOf(preset, t);
      if (file !== undefined && !restored.has(file) && !headOnly.has(file)) expected.add(t.id);
    }
    // When the patch left the test side alone the overlay is the head's own run, which the signatures layer
    // judges when it is on: here only what vanished from it is asked about then. With that layer off nothing
    // else would judge the head's failures, so they are judged here, against the base, like any other.
    const judgedBySignatures = ov.sameAsHead && switchOf('signatures')(ctx.config);
    const notPassing = judgedBySignatures
      ? []
      : [...new Set([...overlay.keys(), ...expected])].filter((id) => {
          const list = overlay.get(id);
          return !list || list.some((t) => t.status !== 'passed');
        });

    // The base's own run of every test the patch touched, of every test in doubt and of every listed test
    // that did not run on the head's code, by file where the runner can select files: the base inventory of a
    // deleted test file comes from here.
    const files = new Set<string>();
    let unknownFile = false;
    // A shard reruns the restored files it owns; the others' shards rerun theirs.
    const mine = (f: string) => !ctx.shard || ctx.shard.owns('test-file', f);
    if (!ov.sameAsHead)
      for (const f of ov.restored) if (mine(f) && (await isRunnableTestFile(ctx, f))) files.add(f);
    for (const id of notPassing) {
      const t = overlay.get(id)?.[0] ?? headRun?.tests.find((x) => x.id === id);
      const file = t ? testFileOf(preset, t) : undefined;
      if (file === undefined) unknownFile = true;
      else files.add(file);
    }
    // Confirmed by a run of their own: a parametrized id drawn at random differs from run to run, and must
    // not read as vanished.
    for (const t of missing) {
      if (t.file === undefined) unknownFile = true;
      else files.add(t.file);
    }
    let base: SuiteRun | undefined;
    if (files.size > 0 || unknownFile)
      base = await tests.baseRunFiles(unknownFile ? undefined : [...files].sort());
    const baseById = byId(base?.tests ?? []);
    for (const t of base?.tests ?? []) {
      const file = testFileOf(preset, t);
      if (!ov.sameAsHead && file !== undefined && restored.has(file)) expected.add(t.id);
    }
    // A listed base test that did not run on the head's code must be there.
    const missingKeys = new Set(missing.map((t) => t.key));
    for (const t of base?.tests ?? []) if (missingKeys.has(inventoryKey(t))) expected.add(t.id);

    // Entry points the guard refused in either run: a committed *.dist-info is left out of the overlay.
    const refused = [
      ...new Map(
        [
          ...(overlayRun.guard?.refused ?? []),
          ...(headRun && 'guard' in headRun ? (headRun.guard?.refused ?? []) : []),
        ].map((r) => [`${r.name}\u241f${r.location}`, r]),
      ).values(),
    ];
    const freeze = await signatureFreeze(ctx);
    const found = disagreements(judgedBySignatures ? new Map() : overlay, baseById, expected);
    // Each base test's id parts, to name its file and to find the edits behind its finding.
    const partsOf = (id: string): TestIdParts | undefined => overlay.get(id)?.[0] ?? baseById.get(id)?.[0];
    // The files that did not load on the head's code, in the runner's words (the missing module).
    const failedLoads = loadFailures(overlayRun.tests, (id) => baseById.has(id));
    const tested: Finding[] = [];
    const matched: { d: Disagreement; row: SignatureFreezeRow; candidate: ExcuseCandidate }[] = [];
    for (const d of found) {
      const t = d.tests[0];
      if (d.overlay === 'absent' || !t) {
        const parts = partsOf(d.id);
        const file = parts ? testFileOf(preset, parts) : undefined;
        tested.push(vanished(d, inventory.how, file, causeFor(file, failedLoads, preset === 'pytest')));
        continue;
      }
      const problem = firstProblem(t);
      const row = freeze ? matchFailure(freeze, problem.kind, problem.message, ctx.today, d.id) : undefined;
      if (row)
        matched.push({
          d,
          row,
          candidate: { test: t, kind: problem.kind, message: problem.message, skip: d.overlay === 'skipped' },
        });
      else tested.push(regressionFinding(ctx, d));
    }
    if (matched.length > 0 && freeze) {
      // The base passes these by definition: a row can only show them to be flakes of the head's code.
      const shown = await excuses({
        tests,
        scheme: ctx.config.signatures?.scheme ?? 'seed',
        candidates: matched.map((m) => m.candidate),
        rerunOn: 'overlay',
        goneTestFiles: [],
        runIds: new Set(overlayRun.tests.map((t) => t.id)),
        skipBase: true,
      });
      for (const [i, m] of matched.entries()) {
        const excuse = shown[i]!;
        if (excuse.how !== 'none') {
          frozen.push({
            ...excusedBySignature(LAYER, m.d.id, m.row, freeze.file, failureTemplate(ctx, m.d)),
            excused: excuse.how,
          });
        } else
          tested.push(
            regressionFinding(ctx, m.d, {
              file: freeze.file,
              row: m.row.index,
              ...(m.row.line !== undefined ? { line: m.row.line } : {}),
              why: `row ${m.row.index} of ${freeze.file} matches the wording, but the base passes this test and ${excuse.why}: a freeze excuses only what was already failing`,
            }),
          );
      }
    }
    // Each with the test-side edit behind it, each with its override, then grouped by file when there are many.
    const explained = await attachEdits(ctx, tested, (f) => {
      const parts = partsOf(String(f.evidence.test));
      return parts ? queryOf(preset, parts) : undefined;
    });
    pushAll(findings, groupByFile(explained.map((f) => offerOverride(f, String(f.evidence.test)))));
    const none = await nothingRan(overlayRun, tests, ctx.signal);
    // On a shard, nothing having run on its share is no finding yet: the merge asks all of them.
    if (none && !ctx.shard) findings.push(nothingRanFinding(LAYER, none));
    const report: OverlayReport = {
      restored: ov.restored,
      headOnly: ov.headOnly,
      merged: ov.merged,
      fromBase: ov.fromBase,
      // Why each path beyond the globs is test side: the base file and key that name it.
      named: ov.named,
      shared: ov.shared,
      overlayTests: overlayRun.tests.length,
      baseInventory: { how: inventory.how, label: inventory.label, tests: inventory.tests.length },
      baseRerun: base ? { label: base.label, tests: base.tests.length, files: [...files].sort() } : null,
      ...(refused.length > 0 ? { pluginsRefused: refused } : {}),
    };
    return {
      findings,
      overrides,
      frozen,
      artifacts: [{ name: OVERLAY_REPORT, content: jsonArtifact(report) }],
      ...(ctx.shard ? { part: { nothingRan: none ?? null } } : {}),
    };
  },
  // A base test's finding is its file's, judged on the shard that ran it; the toolchain, reach and
  // test-side findings read the trees alone, and every shard gives them alike.
  shards: byUnit({
    unitOf: (f) => (PER_TEST.has(f.code) ? 'test' : undefined),
    extra: (parts) => {
      const none = nothingRanOnAll(
        parts.map((p) => (p.part as RegressionPart | undefined)?.nothingRan ?? undefined),
      );
      return none ? [nothingRanFinding(LAYER, none)] : [];
    },
    artifacts: { [OVERLAY_REPORT]: mergeOverlayReports },
  }),
};

interface RegressionPart {
  nothingRan: NothingRan | null;
}

interface OverlayReport {
  restored: readonly string[];
  headOnly: readonly string[];
  merged: readonly string[];
  fromBase: readonly unknown[];
  named: readonly unknown[];
  shared: readonly unknown[];
  overlayTests: number;
  baseInventory: { how: string; label: string; tests: number };
  baseRerun: { label: string; tests: number; files: string[] } | null;
  pluginsRefused?: { name: string; location: string }[];
}

/** overlay.json of one run, from the shards': the overlay is the same; counts add up, files join. */
function mergeOverlayReports(contents: readonly string[]): string {
  const parts = jsonParts<OverlayReport>(contents);
  const first = parts[0] as OverlayReport;
  const { overlayTests: _t, baseInventory: _i, baseRerun: _r, pluginsRefused: _p, ...tree } = first;
  agreed(
    'the overlay (overlay.json)',
    parts.map(({ overlayTests: _a, baseInventory: _b, baseRerun: _c, pluginsRefused: _d, ...rest }) => rest),
  );
  const reruns = parts.flatMap((p) => (p.baseRerun ? [p.baseRerun] : []));
  const refused = new Map<string, { name: string; location: string }>();
  for (const p of parts)
    for (const r of p.pluginsRefused ?? []) refused.set(`${r.name}\u241f${r.location}`, r);
  const report: OverlayReport = {
    ...tree,
    overlayTests: parts.reduce((n, p) => n + p.overlayTests, 0),
    baseInventory: {
      how: agreed(
        'how the base lists its tests',
        parts.map((p) => p.baseInventory.how),
      ),
      label: agreed(
        'the label of the base listing',
        parts.map((p) => p.baseInventory.label),
      ),
      tests: parts.reduce((n, p) => n + p.baseInventory.tests, 0),
    },
    baseRerun:
      reruns.length === 0
        ? null
        : {
            label: agreed(
              "the label of the base's run",
              reruns.map((r) => r.label),
            ),
            tests: reruns.reduce((n, r) => n + r.tests, 0),
            files: [...new Set(reruns.flatMap((r) => r.files))].sort(byCodePoint),
          },
    ...(refused.size > 0 ? { pluginsRefused: [...refused.values()] } : {}),
  };
  return jsonArtifact(report);
}

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
  return readSignatureFreeze(ctx.snapshot.base, cfg.freeze, 'the base revision', {
    ...contractReadOptions(ctx.config, ctx.signal),
    ifMissing: 'empty',
  });
}

const NEXT =
  'fix the production code so the base test passes again; if the change of behaviour is intended, a human updates the test in its own commit (or accepts this run with the override variable)';

function vanished(
  d: Disagreement,
  how: 'collected' | 'ran',
  file: string | undefined,
  cause: VanishCause | undefined,
): Finding {
  const why = cause
    ? cause.own
      ? `: ${cause.file ?? 'its file'} did not load (${cause.text})`
      : `: the run stopped at ${cause.file ?? cause.test}, which did not load (${cause.text})`
    : ' (collection or import error, a dropped parameter, or deleted)';
  return {
    code: 'TEST_VANISHED',
    layer: LAYER,
    severity: 'reject',
    message: `base test ${d.id} passes on the base but did not run at all on the head's code with the base's tests${why}: a test cannot vanish`,
    evidence: {
      test: d.id,
      ...(file !== undefined ? { file } : {}),
      base: d.base,
      overlay: 'did not run',
      listedBy: how === 'collected' ? "the base's own test listing" : "the base's full run",
      ...(cause
        ? { cause: cause.text, causeTest: cause.test, ...(cause.file ? { causeFile: cause.file } : {}) }
        : {}),
      next: cause
        ? `fix what keeps ${cause.file ?? 'the test file'} from loading on the head's code (${cause.text}); a deliberate removal is accepted by a human job setting the override variable`
        : NEXT,
    },
  };
}

function failureTemplate(ctx: LayerContext, d: Disagreement): string {
  const t = d.tests[0];
  if (!t) return '';
  const p = firstProblem(t);
  return failureSignature(p.kind, p.message, ctx.config.signatures?.scheme ?? 'seed').template;
}

function regressionFinding(
  ctx: LayerContext,
  d: Disagreement,
  freezeTried?: Record<string, unknown>,
): Finding {
  const t = d.tests[0]!;
  const scheme = ctx.config.signatures?.scheme ?? 'seed';
  const problem = firstProblem(t);
  const sig = failureSignature(problem.kind, problem.message, scheme);
  // The runner's own words for a person (capped, never masked); the template, for matching, beside them.
  const text = assertionText(problem) || sig.template;
  return {
    code: 'REGRESSION',
    layer: LAYER,
    severity: 'reject',
    message: `base test ${d.id} passes on the base but ${d.overlay === 'skipped' ? 'is skipped' : 'fails'} on the head's code (run with the base's own tests and runner config): ${text}${freezeTried ? ` (${String(freezeTried.why)})` : ''}`,
    evidence: {
      test: d.id,
      file: testFileOf(ctx.config.tests?.preset, t) ?? t.file,
      base: d.base,
      overlay: d.overlay,
      kind: problem.kind,
      text,
      message: problem.message,
      template: sig.template,
      sha256: sig.sha256,
      ...(freezeTried ? { freeze: freezeTried } : {}),
      next: NEXT,
    },
  };
}
