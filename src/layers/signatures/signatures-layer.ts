import { contractReadOptions } from '../../config/contract-file.js';
import { switchOf } from '../../config/layers-on.js';
import type { PatchgateConfig } from '../../config/schema.js';
import { contractFilesOf } from '../../contracts/registry.js';
import type { SignatureFreezeRow } from '../../freeze/signature-freeze.js';
import {
  bindingProblem,
  deletedRows,
  matchFailure,
  readSignatureFreeze,
  rowStatus,
  rowsMatching,
} from '../../freeze/signature-freeze.js';
import { coveringFreeze, readStabilityFreeze } from '../../freeze/stability-freeze.js';
import { assertionText } from '../../junit/assertion-text.js';
import type { TestOutcome } from '../../junit/model.js';
import { testSideFor } from '../../overlay/test-side.js';
import { failureSignature, skipKind } from '../../signatures/signature.js';
import { pushAll } from '../../util/arrays.js';
import { classifyFailures, type NewFailure } from '../failure-class.js';
import { historyEvidence, historyWords } from '../flake-history.js';
import { type ExcuseCandidate, excuses } from '../freeze-evidence.js';
import { agreed, byUnit } from '../shard-merge.js';
import { excusedBySignature } from '../signature-excuse.js';
import type { Finding, FrozenItem, Layer, LayerContext, NamedContract } from '../types.js';
import { markAddedSkips } from './added-skip.js';

const LAYER = 'signatures';

function f(code: Finding['code'], message: string, evidence: Record<string, unknown>): Finding {
  return { code, layer: LAYER, severity: 'reject', message, evidence };
}

/** Why the rows whose hash matches did not cover this failure of `test`, for the message. */
function nearMiss(
  freeze: Parameters<typeof rowsMatching>[0],
  kind: string,
  message: string,
  today: string,
  test: string,
): string {
  const near = rowsMatching(freeze, kind, message)[0];
  if (!near) return '';
  const status = rowStatus(near.row, today);
  if (status === 'expired') return ` (row ${near.row.index} matches but expired on ${near.row.expires})`;
  if (status === 'incomplete')
    return ` (row ${near.row.index} matches but is incomplete: it needs an owner, an expiry and an action)`;
  const unbound = bindingProblem(near, test);
  return unbound ? ` (row ${near.row.index} matches the signature, but ${unbound})` : '';
}

/**
 * The signature freeze: every failure and every skip of the head's
 * tests must be covered by a human-owned row of the base's freeze file,
 * matched on the signature (kind + normalized message), never on the test
 * name — renaming a test does not escape its row.
 */
export const signaturesLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  testRuns: { headRun: true },
  enabled: switchOf(LAYER),
  contractFiles: (config: PatchgateConfig): NamedContract[] => contractFilesOf(LAYER, config),
  async run(ctx: LayerContext) {
    const cfg = ctx.config.signatures;
    if (!cfg || !ctx.tests) return { findings: [] };
    const read = contractReadOptions(ctx.config, ctx.signal);
    const freeze = await readSignatureFreeze(ctx.snapshot.base, cfg.freeze, 'the base revision', read);
    const findings: Finding[] = [];

    // The head may not delete what a human froze, even in a commit that also edits the file.
    const headFreeze = ctx.snapshot.head.has(cfg.freeze)
      ? await readSignatureFreeze(ctx.snapshot.head, cfg.freeze, 'the head', read).catch((err: unknown) => {
          // An unreadable head freeze deletes nothing by itself; an interrupted run stops.
          if (ctx.signal.aborted) throw err;
          return undefined;
        })
      : undefined;
    for (const row of deletedRows(freeze, headFreeze ?? { file: cfg.freeze, rows: [] })) {
      findings.push(
        f(
          'SIGNATURE_ROW_DELETED',
          `the patch removes row ${row.index} (${row.template ?? row.sha256}) from ${cfg.freeze}; freeze rows are human-owned`,
          {
            file: cfg.freeze,
            row: row.index,
            line: row.line,
            sha256: row.sha256,
            template: row.template,
          },
        ),
      );
    }

    const run = await ctx.tests.headRun(0);
    const frozen: FrozenItem[] = [];
    // Rows matched by wording: each excuses its failure only once the base or a rerun shows it was there.
    const matched: { candidate: ExcuseCandidate; row: SignatureFreezeRow; code: string; body?: string }[] =
      [];
    // Failures no row covers: rerun before they are named.
    const unmatched: Unmatched[] = [];
    const check = (
      t: TestOutcome,
      kind: string,
      message: string,
      code: 'UNKNOWN_FAILURE_SIGNATURE' | 'UNFROZEN_SKIP',
      body?: string,
    ) => {
      const sig = failureSignature(kind, message, cfg.scheme);
      const row = matchFailure(freeze, kind, message, ctx.today, t.id);
      if (row) {
        matched.push({
          candidate: { test: t, kind, message, skip: code === 'UNFROZEN_SKIP' },
          row,
          code,
          ...(body !== undefined ? { body } : {}),
        });
        return;
      }
      const why = nearMiss(freeze, kind, message, ctx.today, t.id);
      if (code === 'UNKNOWN_FAILURE_SIGNATURE') {
        // Named only once reruns say what it is.
        unmatched.push({ test: t, kind, message, why, ...(body !== undefined ? { body } : {}) });
        return;
      }
      findings.push(
        f(code, `test ${t.id} was ${kind} without a matching freeze row${why}: a skip is a fail`, {
          test: t.id,
          kind,
          template: sig.template,
          sha256: sig.sha256,
          message,
          file: t.file,
          freeze: cfg.freeze,
          next: `if this is a known failure, a human freezes it: patchgate signatures add --from <report.xml> --test '${t.id}' --owner WHO --expires YYYY-MM-DD --action TEXT`,
        }),
      );
    };
    for (const t of run.tests) {
      if (t.status === 'failed' || t.status === 'error') {
        // A failed test without a failure element still failed: it is checked with an empty message.
        const failures = t.failures.length > 0 ? t.failures : [{ kind: t.status, message: '', body: '' }];
        for (const fl of failures) check(t, fl.kind, fl.message, 'UNKNOWN_FAILURE_SIGNATURE', fl.body);
      } else if (t.status === 'flaky')
        for (const r of t.retries ?? []) check(t, r.kind, r.message, 'UNKNOWN_FAILURE_SIGNATURE');
      else if (t.status === 'skipped' || t.status === 'xfailed') {
        check(t, skipKind(t.skipped, t.status), t.skipped?.message ?? '', 'UNFROZEN_SKIP');
      }
    }
    if (unmatched.length > 0) pushAll(findings, await nameNewFailures(ctx, cfg, unmatched, frozen));
    if (matched.length > 0) {
      const side = testSideFor(ctx.config, ctx.overlay.named);
      const found = await excuses({
        tests: ctx.tests,
        scheme: cfg.scheme,
        candidates: matched.map((m) => m.candidate),
        rerunOn: 'head',
        goneTestFiles: ctx.changes
          .filter((c) => c.kind === 'deleted' || c.kind === 'renamed')
          .map((c) => (c.kind === 'renamed' ? (c.from ?? c.path) : c.path))
          .filter((p) => side.isTestPath(p)),
        runIds: new Set(run.tests.map((t) => t.id)),
      });
      for (const [i, { candidate, row, body }] of matched.entries()) {
        const excuse = found[i]!;
        const t = candidate.test;
        if (excuse.how !== 'none') {
          // An excused failure is still shown: an accept must say what it did not count.
          frozen.push({
            ...excusedBySignature(LAYER, t.id, row, cfg.freeze, `${candidate.kind}|…`),
            excused: excuse.how === 'renamed' ? `renamed from ${excuse.baseTest}` : excuse.how,
          });
          continue;
        }
        const sig = failureSignature(candidate.kind, candidate.message, cfg.scheme);
        const text = readable(candidate.message, body, sig.template);
        findings.push(
          f(
            'FREEZE_COVERS_NEW_FAILURE',
            `test ${t.id} ${candidate.skip ? `was ${candidate.kind}` : 'failed'} with a signature that row ${row.index} of ${cfg.freeze} freezes, but it was not already there: ${excuse.why}; a freeze excuses only what was already failing: ${text}`,
            {
              test: t.id,
              kind: candidate.kind,
              text,
              template: sig.template,
              sha256: sig.sha256,
              message: candidate.message,
              file: t.file,
              freeze: cfg.freeze,
              row: row.index,
              ...(row.line !== undefined ? { line: row.line } : {}),
              rowTest: row.example_test ?? row.test,
              why: excuse.why,
              next: `fix the code so ${t.id} passes again; row ${row.index} was frozen for a failure the base already had, not for this one`,
            },
          ),
        );
      }
    }
    // A skip the patch added is told to restore the test, never to freeze the skip.
    const shared = run.sharedWith;
    return {
      findings: await markAddedSkips(ctx, ctx.tests, findings, run.tests),
      frozen,
      ...(shared ? { note: sharedNote(shared.files.length, shared.label) } : {}),
      ...(ctx.shard
        ? { part: { shared: shared ? { files: shared.files.length, label: shared.label } : null } }
        : {}),
    };
  },
  // Every finding but a deleted freeze row is about a test, judged on the shard that ran its file.
  shards: byUnit({
    unitOf: (f) => (f.code === 'SIGNATURE_ROW_DELETED' ? undefined : 'test'),
    note: (parts) => {
      const shared = parts.map((p) => (p.part as SignaturesPart | undefined)?.shared ?? null);
      // A shard whose head ran whole did what one run would have done: the run ran whole.
      if (shared.some((s) => s === null)) return undefined;
      const label = agreed(
        'the run the head shared',
        shared.map((s) => s?.label),
      );
      return sharedNote(
        shared.reduce((n, s) => n + (s?.files ?? 0), 0),
        label ?? '',
      );
    },
  }),
};

interface SignaturesPart {
  shared: { files: number; label: string } | null;
}

function sharedNote(files: number, label: string): string {
  return `the head ran only the test file(s) it changed (${files}); for every other file, whose tests and code are the same in both trees, the outcomes are those of ${label}`;
}

/**
 * What each failure no row covers is, once reruns said: pre-existing or
 * deterministic (UNKNOWN_FAILURE_SIGNATURE, with the class and the reruns in
 * the evidence), or intermittent: NEW_FLAKE when the base's reruns beside it
 * are stable, a pre-existing flake (frozen by the stability freeze, else
 * PREEXISTING_FLAKE_UNFROZEN) when the base flakes too.
 */
/** The runner's own words for a person (capped, never masked); the template, for matching, stays beside them. */
function readable(message: string, body: string | undefined, template: string): string {
  return assertionText({ message, ...(body !== undefined ? { body } : {}) }) || template;
}

/** A failure no row covers, with the body the runner wrote beside its message (for the finding's text). */
type Unmatched = NewFailure & { why: string; body?: string };

const BASE_SAYS: Record<string, string> = {
  passed: 'passes it (a regression)',
  failed: 'fails it another way',
  skipped: 'skips it',
  absent: 'does not have it',
};

async function nameNewFailures(
  ctx: LayerContext,
  cfg: NonNullable<PatchgateConfig['signatures']>,
  unmatched: readonly Unmatched[],
  frozen: FrozenItem[],
): Promise<Finding[]> {
  const tests = ctx.tests;
  if (!tests) return [];
  const classes = await classifyFailures({
    tests,
    scheme: cfg.scheme,
    failures: unmatched,
    ...(ctx.flakeHistory ? { history: ctx.flakeHistory } : {}),
  });
  const stability = ctx.config.stability?.enabled
    ? await readStabilityFreeze(
        ctx.snapshot.base,
        ctx.config.stability.freeze,
        'the base revision',
        contractReadOptions(ctx.config, ctx.signal),
      )
    : undefined;
  const findings: Finding[] = [];
  const flakes = new Set<string>();
  for (const [i, u] of unmatched.entries()) {
    const c = classes[i]!;
    const t = u.test;
    const sig = failureSignature(u.kind, u.message, cfg.scheme);
    const text = readable(u.message, u.body, sig.template);
    const ev = {
      test: t.id,
      kind: u.kind,
      text,
      template: sig.template,
      sha256: sig.sha256,
      message: u.message,
      file: t.file,
    };
    if (c.kind === 'intermittent') {
      if (flakes.has(t.id)) continue;
      flakes.add(t.id);
      // The stability layer's words for the same facts: one code, one shape of evidence.
      const runs = {
        headRuns: ['failed', ...c.reruns],
        ...(c.onBase ? { baseRuns: c.baseRuns } : { base: 'its file does not exist in the base revision' }),
      };
      if (c.baseFlaky) {
        const row = stability ? coveringFreeze(stability, t.id, ctx.today) : undefined;
        if (row) {
          frozen.push({
            layer: LAYER,
            covers: t.id,
            owner: row.owner,
            expires: row.expires,
            action: row.action,
            source: row.source,
            excused: 'intermittent on the base too',
          });
          continue;
        }
        const r = c.remembered;
        const why = r ? historyWords(r) : c.baseRuns.join(', ');
        findings.push(
          f(
            'PREEXISTING_FLAKE_UNFROZEN',
            `test ${t.id} failed once (${text}) and passed on a rerun; it is flaky on the base too (${why}), and no freeze row covers it`,
            {
              ...ev,
              ...runs,
              ...(r ? { history: historyEvidence(r) } : {}),
              next: `a human freezes the flake in ${ctx.config.stability?.freeze ?? 'stability_freeze.json'} with an owner, a reason and an expiry, or fixes it`,
            },
          ),
        );
        continue;
      }
      findings.push(
        f(
          'NEW_FLAKE',
          `test ${t.id} failed (${text}) and then passed on a rerun (${c.reruns.join(', ')}), while the base's runs of it were stable (${c.baseRuns.join(', ')}): the patch made it nondeterministic; never freezable`,
          {
            ...ev,
            ...runs,
            next: 'find the nondeterminism the patch added (time, ordering, shared state, a random seed) and remove it',
          },
        ),
      );
      continue;
    }
    const what =
      c.kind === 'pre-existing'
        ? `the base's run of this test fails the same way (${c.baseRun})`
        : c.kind === 'unconfirmed'
          ? `its reruns did not run it (${c.reruns.join(', ')}), so the failure stands, and the base ${BASE_SAYS[c.base] ?? `says ${c.base}`}`
          : `it fails every time (${c.reruns.length} more run(s) on the head), and the base ${BASE_SAYS[c.base] ?? `says ${c.base}`}`;
    findings.push(
      f(
        'UNKNOWN_FAILURE_SIGNATURE',
        `test ${t.id} failed with a signature no freeze row covers${u.why}; ${what}: ${text}`,
        {
          ...ev,
          class: c.kind,
          ...(c.kind === 'pre-existing' ? { baseRun: c.baseRun } : { reruns: c.reruns, base: c.base }),
          freeze: cfg.freeze,
          next:
            c.kind === 'pre-existing'
              ? `a known failure the base already has: a human freezes it: patchgate signatures add --from <report.xml> --test '${t.id}' --owner WHO --expires YYYY-MM-DD --action TEXT`
              : c.base === 'passed'
                ? 'fix the code: the base passes this test (a regression)'
                : c.kind === 'unconfirmed'
                  ? 'fix the failure, or a human freezes it with its signature; the runner could not select the test again to rerun it'
                  : 'fix the code or the test: it fails every time, and no freeze row covers this failure',
        },
      ),
    );
  }
  return findings;
}
