import type { HitReportRow } from '../../layers/hits/model.js';
import type { Artifact } from '../../layers/types.js';

/**
 * The layer artifacts the report draws from, read defensively: they are the
 * gate's own output, but their strings carry what the patch wrote, and a
 * report must render whatever shape a file turned out to have. A file that
 * does not parse, or parses to an unexpected shape, is left out of its
 * section and named as unreadable.
 */

/** A row of hit_report.*.json, as the hits layer writes it. */
// Read back defensively: `baseline` may be any string in a file, not only the layer's own values.
export type HitRow = Omit<HitReportRow, 'baseline'> & { baseline: string };

export type HitSide = 'base' | 'head' | 'overlay';

export interface ClaimCell {
  value?: string;
  status: string;
  why?: string;
  detail?: Record<string, unknown>;
}

export interface ClaimRow {
  id: string;
  statement: string;
  source: { file: string; line?: number };
  cells: Partial<Record<'fixture' | 'property' | 'freeze', ClaimCell>>;
  statement_problems: string[];
}

export interface ClaimsReport {
  ledger: string;
  window_runs?: number;
  claims: ClaimRow[];
  head_claims: ClaimRow[];
}

export interface SeedReplayRow {
  property: string;
  seed: string;
  status: string;
  examples?: number;
  via?: string;
  message?: string;
}

export interface SeedCount {
  property: string;
  counted: number;
  how: string;
}

export interface SeedReplayReport {
  /** The artifact's name: seed_replay.json or seed_replay.overlay.json. */
  name: string;
  tape: string;
  replays: SeedReplayRow[];
  counts: SeedCount[];
}

/** A mutant of mutation.json: what the base's tests did to it on each side. */
export interface MutantRow {
  id: string;
  operator: string;
  line?: number;
  original: string;
  mutated: string;
  /** false when the base has no such mutant; undefined in an artifact that does not say. */
  onBase?: boolean;
  base: string;
  head: string;
  baseBy: string[];
  headBy: string[];
}

export interface MutationFunctionRow {
  file: string;
  function: string;
  changed: number[];
  onBase: boolean;
  skipped: number;
  mutants: MutantRow[];
}

export interface MutationReport {
  scope: string;
  testFiles: string[];
  skipped: number;
  defeats: { file: string; why: string }[];
  functions: MutationFunctionRow[];
}

export interface ReportInputs {
  hits: Partial<Record<HitSide, HitRow[]>>;
  claims?: ClaimsReport;
  mutation?: MutationReport;
  seeds: SeedReplayReport[];
  /** Artifacts that were present but could not be read. */
  unreadable: string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

function hitRow(v: unknown): HitRow | undefined {
  if (!isObject(v)) return undefined;
  const property = str(v.property);
  if (property === undefined) return undefined;
  const ops: Record<string, string[]> = {};
  if (isObject(v.hit_operators))
    for (const [path, list] of Object.entries(v.hit_operators)) ops[path] = strings(list);
  const hits = strings(v.hits);
  return {
    property,
    baseline: str(v.baseline) ?? 'unknown',
    hit_count: num(v.hit_count) ?? hits.length,
    hits,
    claimed: strings(v.claimed),
    false_claims: strings(v.false_claims),
    unclaimed_hits: strings(v.unclaimed_hits),
    hit_operators: ops,
    fixture: str(v.fixture) ?? '',
    source: str(v.source) ?? '',
  };
}

function claimCell(v: unknown): ClaimCell | undefined {
  if (!isObject(v)) return undefined;
  const status = str(v.status);
  if (status === undefined) return undefined;
  const value = str(v.value);
  const why = str(v.why);
  return {
    status,
    ...(value !== undefined ? { value } : {}),
    ...(why !== undefined ? { why } : {}),
    ...(isObject(v.detail) ? { detail: v.detail } : {}),
  };
}

function claimRow(v: unknown): ClaimRow | undefined {
  if (!isObject(v)) return undefined;
  const id = str(v.id);
  if (id === undefined) return undefined;
  const source = isObject(v.source) ? v.source : {};
  const line = num(source.line);
  const cells: ClaimRow['cells'] = {};
  if (isObject(v.cells))
    for (const name of ['fixture', 'property', 'freeze'] as const) {
      const c = claimCell(v.cells[name]);
      if (c) cells[name] = c;
    }
  return {
    id,
    statement: str(v.statement) ?? '',
    source: { file: str(source.file) ?? '', ...(line !== undefined ? { line } : {}) },
    cells,
    statement_problems: strings(v.statement_problems),
  };
}

function claimsReport(v: unknown): ClaimsReport | undefined {
  if (!isObject(v) || !Array.isArray(v.claims)) return undefined;
  const rows = (list: unknown) =>
    Array.isArray(list) ? list.map(claimRow).filter((r): r is ClaimRow => r !== undefined) : [];
  const windowRuns = num(v.window_runs);
  return {
    ledger: str(v.ledger) ?? '',
    ...(windowRuns !== undefined ? { window_runs: windowRuns } : {}),
    claims: rows(v.claims),
    head_claims: rows(v.head_claims),
  };
}

function seedReport(name: string, v: unknown): SeedReplayReport | undefined {
  if (!isObject(v) || !Array.isArray(v.replays)) return undefined;
  const replays: SeedReplayRow[] = [];
  for (const r of v.replays) {
    if (!isObject(r)) continue;
    const property = str(r.property);
    if (property === undefined) continue;
    const examples = num(r.examples);
    const via = str(r.via);
    const message = str(r.message);
    replays.push({
      property,
      seed: str(r.seed) ?? String(r.seed ?? ''),
      status: str(r.status) ?? 'unknown',
      ...(examples !== undefined ? { examples } : {}),
      ...(via !== undefined ? { via } : {}),
      ...(message !== undefined ? { message } : {}),
    });
  }
  const counts: SeedCount[] = [];
  for (const c of Array.isArray(v.counts) ? v.counts : []) {
    if (!isObject(c)) continue;
    const property = str(c.property);
    const counted = num(c.counted);
    if (property === undefined || counted === undefined) continue;
    counts.push({ property, counted, how: str(c.how) ?? '' });
  }
  return { name, tape: str(v.tape) ?? '', replays, counts };
}

function verdictOf(v: unknown): { status: string; by: string[] } {
  return isObject(v)
    ? { status: str(v.status) ?? 'unknown', by: strings(v.by) }
    : { status: 'unknown', by: [] };
}

function mutationReport(v: unknown): MutationReport | undefined {
  if (!isObject(v) || !Array.isArray(v.functions)) return undefined;
  const functions: MutationFunctionRow[] = [];
  for (const f of v.functions) {
    if (!isObject(f)) continue;
    const mutants: MutantRow[] = [];
    for (const m of Array.isArray(f.mutants) ? f.mutants : []) {
      if (!isObject(m)) continue;
      const base = verdictOf(m.base);
      const head = verdictOf(m.head);
      const line = num(m.line);
      mutants.push({
        id: str(m.id) ?? '',
        operator: str(m.operator) ?? '',
        ...(line !== undefined ? { line } : {}),
        original: str(m.original) ?? '',
        mutated: str(m.mutated) ?? '',
        ...(typeof m.onBase === 'boolean' ? { onBase: m.onBase } : {}),
        base: base.status,
        head: head.status,
        baseBy: base.by,
        headBy: head.by,
      });
    }
    functions.push({
      file: str(f.file) ?? '',
      function: str(f.function) ?? '',
      changed: Array.isArray(f.changed) ? f.changed.filter((x): x is number => num(x) !== undefined) : [],
      onBase: f.onBase === true,
      skipped: num(f.skipped) ?? 0,
      mutants,
    });
  }
  const defeats = (Array.isArray(v.defeats) ? v.defeats : []).flatMap((d) =>
    isObject(d) ? [{ file: str(d.file) ?? '', why: str(d.why) ?? '' }] : [],
  );
  return {
    scope: str(v.scope) ?? '',
    testFiles: strings(v.testFiles),
    skipped: num(v.skipped) ?? 0,
    defeats,
    functions,
  };
}

const HIT_FILES: Record<string, HitSide> = {
  'hit_report.base.json': 'base',
  'hit_report.head.json': 'head',
  'hit_report.overlay.json': 'overlay',
};

/** What the report can use of a run's artifacts; anything else (logs, unknown names) is ignored. */
export function readArtifacts(artifacts: readonly Artifact[]): ReportInputs {
  const out: ReportInputs = { hits: {}, seeds: [], unreadable: [] };
  for (const a of artifacts) {
    const side = HIT_FILES[a.name];
    const isClaims = a.name === 'claims.json';
    const isSeeds = /^seed_replay(\.[a-z]+)?\.json$/.test(a.name);
    const isMutation = a.name === 'mutation.json';
    if (!side && !isClaims && !isSeeds && !isMutation) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof a.content === 'string' ? a.content : a.content.join(''));
    } catch {
      out.unreadable.push(a.name);
      continue;
    }
    if (side) {
      if (!Array.isArray(parsed)) {
        out.unreadable.push(a.name);
        continue;
      }
      out.hits[side] = parsed.map(hitRow).filter((r): r is HitRow => r !== undefined);
    } else if (isMutation) {
      const report = mutationReport(parsed);
      if (report) out.mutation = report;
      else out.unreadable.push(a.name);
    } else if (isClaims) {
      const report = claimsReport(parsed);
      if (report) out.claims = report;
      else out.unreadable.push(a.name);
    } else {
      const report = seedReport(a.name, parsed);
      if (report) out.seeds.push(report);
      else out.unreadable.push(a.name);
    }
  }
  out.seeds.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}
