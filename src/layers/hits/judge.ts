import { breachEvidence, type LimitBreach } from '../../sandbox/sandbox.js';
import { byCodePoint } from '../../util/compare.js';
import type { Finding, FrozenItem } from '../types.js';
import type { HitReportRow, MutantOutcome, PropertyInfo } from './model.js';
import { scoreClaims } from './perturb/index.js';
import type { RevisionScore, RunOutcome, ScoredProperty } from './scorer.js';

const LAYER = 'hits';

/** What one revision's runs say about one property, once the runs are compared. */
export type PropertyVerdict =
  | { kind: 'scored'; info: PropertyInfo; row: HitReportRow; baselineError?: string }
  | { kind: 'flaky'; info: PropertyInfo; row: HitReportRow; disagreements: Disagreement[] }
  | { kind: 'timeout'; info: PropertyInfo; message: string }
  | { kind: 'crash'; info: PropertyInfo; message: string; limit?: LimitBreach };

export interface Disagreement {
  run: number;
  baseline?: { first: string; this: string };
  /** Mutants whose status differs from the first run's (at most 10 listed). */
  mutants: { paths: string[]; operators: string[]; first: string; this: string }[];
  mutantsDiffering: number;
}

const label = (m: MutantOutcome) => `${m.paths.join(' & ')}|${m.operators.join(' & ')}`;

/** The seed's hit report row, computed from one run: a hit is a mutant whose status differs from the baseline. */
export function hitRow(info: PropertyInfo, run: Extract<RunOutcome, { ok: true }>): HitReportRow {
  const ops = new Map<string, Set<string>>();
  for (const m of run.mutants) {
    if (m.status === run.baseline) continue;
    // An interaction hit counts for both of its fields; its operator names the pair.
    const op = m.operators.join('+');
    for (const p of m.paths) {
      const set = ops.get(p) ?? new Set<string>();
      set.add(op);
      ops.set(p, set);
    }
  }
  const hits = [...ops.keys()].sort(byCodePoint);
  const claimed = [...new Set(info.claims)].sort(byCodePoint);
  const { false_claims, unclaimed_hits } = scoreClaims(claimed, hits);
  const hit_operators: Record<string, string[]> = {};
  for (const p of hits) hit_operators[p] = [...(ops.get(p) ?? [])].sort(byCodePoint);
  return {
    property: info.name,
    baseline: run.baseline,
    hit_count: hits.length,
    hits,
    claimed,
    false_claims,
    unclaimed_hits,
    hit_operators,
    fixture: info.fixture,
    source: info.source,
  };
}

function compareRuns(
  first: Extract<RunOutcome, { ok: true }>,
  other: Extract<RunOutcome, { ok: true }>,
  run: number,
): Disagreement | undefined {
  const byLabel = new Map(first.mutants.map((m) => [label(m), m.status]));
  const differing = other.mutants.filter((m) => byLabel.get(label(m)) !== m.status);
  const countChanged = first.mutants.length !== other.mutants.length;
  if (first.baseline === other.baseline && differing.length === 0 && !countChanged) return undefined;
  return {
    run,
    ...(first.baseline !== other.baseline
      ? { baseline: { first: first.baseline, this: other.baseline } }
      : {}),
    mutants: differing.slice(0, 10).map((m) => ({
      paths: m.paths,
      operators: m.operators,
      first: byLabel.get(label(m)) ?? 'absent',
      this: m.status,
    })),
    mutantsDiffering: differing.length,
  };
}

export function judgeProperty(p: ScoredProperty): PropertyVerdict {
  const crash = p.runs.find((r) => !r.ok && r.kind === 'crash');
  if (crash && !crash.ok && crash.kind === 'crash')
    return {
      kind: 'crash',
      info: p.info,
      message: crash.message,
      ...(crash.limit ? { limit: crash.limit } : {}),
    };
  const timeout = p.runs.find((r) => !r.ok && r.kind === 'timeout');
  if (timeout && !timeout.ok) return { kind: 'timeout', info: p.info, message: timeout.message };
  const runs = p.runs.filter((r): r is Extract<RunOutcome, { ok: true }> => r.ok);
  const first = runs[0];
  if (!first) return { kind: 'crash', info: p.info, message: `property '${p.info.name}' produced no run` };
  const row = hitRow(p.info, first);
  const disagreements = runs.slice(1).flatMap((r, i) => compareRuns(first, r, i + 2) ?? []);
  if (disagreements.length > 0) return { kind: 'flaky', info: p.info, row, disagreements };
  return {
    kind: 'scored',
    info: p.info,
    row,
    ...(first.baselineError ? { baselineError: first.baselineError } : {}),
  };
}

export interface JudgeInput {
  base: RevisionScore;
  head: RevisionScore;
  runs: number;
  /** Properties a valid ledger row freezes, by name. */
  frozen: Map<string, FrozenItem>;
}

export interface JudgeOutput {
  findings: Finding[];
  frozen: FrozenItem[];
  reports: { base: HitReportRow[]; head: HitReportRow[] };
  /** Every property's verdict per revision, by name (what the claims layer binds to). */
  verdicts: { base: ReadonlyMap<string, PropertyVerdict>; head: ReadonlyMap<string, PropertyVerdict> };
}

function f(
  code: Finding['code'],
  severity: Finding['severity'],
  message: string,
  evidence: Record<string, unknown>,
): Finding {
  return { code, layer: LAYER, severity, message, evidence };
}

/**
 * The hits decision table, on the head against the base: a property that
 * lost hits rejects, a flake counts only under its own ledger row and locked
 * digest, and an expired row fails closed.
 */
export function judge(input: JudgeInput): JudgeOutput {
  const findings: Finding[] = [];
  const frozen: FrozenItem[] = [];
  const verdicts = (score: RevisionScore) =>
    new Map(score.properties.map((p) => [p.info.name, judgeProperty(p)]));
  const base = verdicts(input.base);
  const head = verdicts(input.head);
  // Whether a property exists on a side is its listing's say: a shard scores only the properties it owns.
  const onBase = new Set(input.base.listed.map((i) => i.name));
  const onHead = new Set(input.head.listed.map((i) => i.name));

  for (const side of [input.base, input.head]) {
    for (const p of side.problems) {
      findings.push(
        f('CONFIG_INVALID', 'error', `${side.side}: ${p.message}`, {
          side: side.side,
          source: p.source,
          ...(p.property ? { property: p.property } : {}),
        }),
      );
    }
  }

  for (const [name, v] of head) {
    const ev = { property: name, fixture: v.info.fixture, source: v.info.source };
    if (v.kind === 'crash') {
      // A cap the head's code hit is the patch's doing (reject, with the cap); any other crash is the gate's (error).
      if (v.limit) {
        findings.push(
          f('RESOURCE_LIMIT', 'reject', `head: property '${name}' ${v.limit.message}`, {
            ...ev,
            side: 'head',
            ...breachEvidence(v.limit),
          }),
        );
      } else {
        // The same host program ran the base's properties: a crash only the head's code causes is the patch's.
        const onBase = base.get(name);
        const hostWorks = onBase
          ? onBase.kind !== 'crash'
          : [...base.values()].some((b) => b.kind !== 'crash');
        findings.push(
          hostWorks
            ? f(
                'HEAD_RUN_BROKEN',
                'reject',
                `head: property '${name}' broke the process it runs in (${v.message}), where ${onBase ? 'the base scores it' : "the base's properties score"} in the same host`,
                {
                  ...ev,
                  side: 'head',
                  error: v.message,
                  next: 'find what in the property or the code under test ends the process (process.exit, a native crash, a closed descriptor) and remove it',
                },
              )
            : f(
                'BASE_RUN_BROKEN',
                'error',
                `property '${name}' crashes its host on the base too (${onBase?.kind === 'crash' ? onBase.message : 'no base property could be scored'}): there is nothing to judge the head against`,
                { ...ev, side: 'base', error: v.message },
              ),
        );
      }
      continue;
    }
    if (v.kind === 'timeout') {
      findings.push(f('CHECK_TIMEOUT', 'reject', `head: ${v.message}`, { ...ev, side: 'head' }));
      continue;
    }
    if (v.kind === 'flaky') {
      const freeze = input.frozen.get(name);
      if (freeze) {
        frozen.push(freeze);
        continue;
      }
      findings.push(
        f(
          'FLAKE_UNCLASSIFIED',
          'reject',
          `property '${name}' gave different results across ${input.runs} runs under an unchanged fixture; a human must classify the cause in the flake ledger (the patch may not)`,
          { ...ev, side: 'head', runs: input.runs, disagreements: v.disagreements },
        ),
      );
      continue;
    }
    const { row } = v;
    if (row.baseline === 'fail') {
      findings.push(
        f(
          'BASELINE_FAIL',
          'reject',
          `property '${name}' fails on its own locked fixture ${row.fixture}: ${v.baselineError ?? 'failed'}`,
          {
            ...ev,
            error: v.baselineError,
          },
        ),
      );
      continue;
    }
    if (row.hit_count === 0) {
      findings.push(
        f(
          'ZERO_HIT',
          'reject',
          `property '${name}': no perturbation of ${row.fixture} can make it fail; it is decoration and can never be frozen`,
          {
            ...ev,
            claimed: row.claimed,
          },
        ),
      );
    }
    for (const claim of row.false_claims) {
      findings.push(
        f(
          'FALSE_CLAIM',
          'reject',
          `property '${name}' claims '${claim}', but perturbing it never changes the outcome`,
          {
            ...ev,
            field: claim,
            hits: row.hits,
          },
        ),
      );
    }
    for (const hit of row.unclaimed_hits) {
      findings.push(
        f(
          'UNCLAIMED_HIT',
          'warn',
          `property '${name}' can be failed through '${hit}', which it does not claim`,
          {
            ...ev,
            field: hit,
            operators: row.hit_operators[hit],
          },
        ),
      );
    }
  }

  for (const [name, v] of base) {
    const h = head.get(name);
    const ev = { property: name, fixture: v.info.fixture, source: v.info.source };
    if (!h && onHead.has(name)) continue;
    if (!h) {
      findings.push(
        f(
          'PROPERTY_SET_CHANGED',
          'reject',
          `property '${name}' exists on the base but not on the head: a removed or renamed property weakens the gate`,
          {
            ...ev,
            change: 'removed',
          },
        ),
      );
      continue;
    }
    if (v.kind === 'crash' && h.kind !== 'crash') {
      findings.push(
        f(
          'BASE_RUN_BROKEN',
          'warn',
          `property '${name}' crashes its host on the base (${v.message}), so the head's hit surface cannot be compared with it`,
          { ...ev, side: 'base', error: v.message },
        ),
      );
      continue;
    }
    if (v.kind === 'flaky' && h.kind === 'scored') {
      findings.push(
        f(
          'FLAKE_UNCLASSIFIED',
          'warn',
          `property '${name}' is flaky on the base, so its hit surface cannot be compared`,
          { ...ev, side: 'base', disagreements: v.disagreements },
        ),
      );
      continue;
    }
    if (v.kind !== 'scored' || h.kind !== 'scored' || v.row.baseline !== 'pass' || h.row.baseline !== 'pass')
      continue;
    const headOps = h.row.hit_operators;
    const lostPaths = v.row.hits.filter((p) => !(p in headOps));
    const lostOperators: Record<string, string[]> = {};
    for (const p of v.row.hits) {
      const kept = headOps[p];
      const lost = (v.row.hit_operators[p] ?? []).filter((op) => !kept?.includes(op));
      if (lost.length > 0) lostOperators[p] = lost;
    }
    if (lostPaths.length > 0 || Object.keys(lostOperators).length > 0) {
      findings.push(
        f(
          'HIT_SURFACE_SHRANK',
          'reject',
          `property '${name}' can be failed through fewer fixture fields on the head: lost ${lostPaths.length > 0 ? lostPaths.join(', ') : 'operators on kept fields'} (${v.row.hit_count} → ${h.row.hit_count} hit paths)`,
          { ...ev, lostPaths, lostOperators, baseHits: v.row.hits, headHits: h.row.hits },
        ),
      );
    }
  }
  for (const [name, v] of head) {
    if (onBase.has(name)) continue;
    findings.push(
      f(
        'PROPERTY_SET_CHANGED',
        'warn',
        `property '${name}' is new on the head; it earns nothing until it has hits on its locked fixture`,
        {
          property: name,
          fixture: v.info.fixture,
          source: v.info.source,
          change: 'added',
        },
      ),
    );
  }

  const rows = (m: Map<string, PropertyVerdict>) =>
    [...m.values()].flatMap((v) => (v.kind === 'scored' || v.kind === 'flaky' ? [v.row] : []));
  return { findings, frozen, reports: { base: rows(base), head: rows(head) }, verdicts: { base, head } };
}
