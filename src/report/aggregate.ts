import { REASON_CODES, type ReasonCode } from '../codes.js';
import type { Artifact, Finding, Severity } from '../layers/types.js';
import { byCodePoint } from '../util/compare.js';
import { stableLine } from './stable-json.js';

/**
 * A lock of a million entries the patch deleted is a million findings of one
 * code. Listed one by one they would make a scorecard of hundreds of MB, a
 * summary.md GitHub refuses, a report.html no browser opens and a terminal
 * table no one reads, while saying nothing the first few do not. Past
 * `limit` findings of one code in one layer, the findings of that code
 * become one, carrying the count and a sample; the full list goes to an
 * artifact next to the scorecard (`findings.<layer>.<CODE>.json`).
 */
export const AGGREGATE_ABOVE = 1000;
/** Findings of an aggregated code whose evidence is kept in the aggregate's own evidence. */
export const AGGREGATE_SAMPLE = 10;
export const FINDINGS_ARTIFACT_SCHEMA = 'patchgate/findings@1';

export interface AggregateOptions {
  /** Aggregate a code with more findings than this (default {@link AGGREGATE_ABOVE}). */
  limit?: number;
  /** How many findings the aggregate quotes in its evidence (default {@link AGGREGATE_SAMPLE}). */
  sample?: number;
}

export interface Aggregated {
  /** The findings, each over-limit code replaced by one aggregate where its first finding was. */
  findings: Finding[];
  /** One artifact per aggregated code, listing every one of its findings. */
  artifacts: Artifact[];
}

const RANK: Record<Severity, number> = { error: 0, reject: 1, warn: 2 };

/** The artifact listing every finding of `code` in `layer`. */
export function findingsArtifactName(layer: string, code: string): string {
  return `findings.${layer}.${code}.json`;
}

/** Findings an aggregate stands for: its count, else 1. */
export function findingCount(f: Finding): number {
  const n = f.evidence.aggregated;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 1;
}

// The same tie-breaks sortFindings uses, so the artifact and the sample are in scorecard order.
const pathKey = (f: Finding) => String(f.evidence.path ?? f.evidence.file ?? '');
const inGroupOrder = (a: Finding, b: Finding) =>
  RANK[a.severity] - RANK[b.severity] ||
  byCodePoint(pathKey(a), pathKey(b)) ||
  byCodePoint(a.message, b.message);

/** Where the first finding points, so the aggregate still names a file (and GitHub annotates it). */
function locationOf(evidence: Finding['evidence']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['file', 'path', 'line', 'source'] as const)
    if (evidence[k] !== undefined) out[k] = evidence[k];
  return out;
}

/** Past this many distinct keys a key list is slower than sorting each object (V8 walks the list per object). */
const MAX_ORDERED_KEYS = 256;
const INDEX_KEY = /^(0|[1-9][0-9]*)$/;

/** Every object key in `members`, at any depth, in code-point order; undefined when there are too many. */
function keyOrder(members: readonly Finding[]): string[] | undefined {
  const keys = new Set<string>();
  const stack: unknown[] = [];
  for (const f of members) {
    stack.push(f);
    while (stack.length > 0) {
      const v = stack.pop();
      if (v === null || typeof v !== 'object') continue;
      if (!Array.isArray(v)) {
        for (const k of Object.keys(v)) {
          // An object lists integer-like keys first whatever the order (so stableLine does): no key list then.
          if (INDEX_KEY.test(k)) return undefined;
          keys.add(k);
        }
        if (keys.size > MAX_ORDERED_KEYS) return undefined;
      }
      for (const child of Object.values(v))
        if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return [...keys].sort(byCodePoint);
}

/**
 * The artifact's text as chunks, one finding a line: a list this long may not
 * fit in one string (V8 caps a string near 512 MiB), and a line per finding is
 * what `grep` and `jq --stream` want. Same findings, same bytes.
 */
function artifactChunks(layer: string, code: string, members: readonly Finding[]): string[] {
  const chunks: string[] = [
    `{"schema":${JSON.stringify(FINDINGS_ARTIFACT_SCHEMA)},"layer":${JSON.stringify(layer)},"code":${JSON.stringify(code)},"count":${members.length},"findings":[\n`,
  ];
  const order = keyOrder(members);
  for (let i = 0; i < members.length; i++) {
    // JSON.stringify with a key list writes every object's keys in the list's order: sorted, as stableLine
    // writes them, without a sorted copy of each finding (a third of the time on a million).
    const line = order ? JSON.stringify(members[i], order) : stableLine(members[i]);
    chunks.push(i + 1 < members.length ? `${line},\n` : `${line}\n`);
  }
  chunks.push(']}\n');
  return chunks;
}

function aggregate(
  layer: string,
  code: ReasonCode,
  members: Finding[],
  limit: number,
  sample: number,
): [Finding, Artifact] {
  members.sort(inGroupOrder);
  const first = members[0] as Finding;
  const artifact = findingsArtifactName(layer, code);
  const severities: Partial<Record<Severity, number>> = {};
  for (const f of members) severities[f.severity] = (severities[f.severity] ?? 0) + 1;
  const firstNext = typeof first.evidence.next === 'string' ? first.evidence.next : undefined;
  const codeNext = firstNext ?? REASON_CODES[code]?.next;
  const finding: Finding = {
    code,
    layer,
    // The most severe of them: aggregating never changes the verdict or the layer's status.
    severity: first.severity,
    message: `${members.length} ${code} findings in the ${layer} layer, shown as one (over ${limit} of one code); every one is in ${artifact}. The first: ${first.message}`,
    evidence: {
      ...locationOf(first.evidence),
      aggregated: members.length,
      severities,
      artifact,
      sample: members.slice(0, sample).map((f) => f.evidence),
      next: `Read ${artifact} for the whole list.${codeNext ? ` ${codeNext}` : ''}`,
    },
  };
  return [finding, { name: artifact, content: artifactChunks(layer, code, members) }];
}

/**
 * Findings with every code that has more than `limit` findings in one layer
 * replaced by one aggregate, and the artifacts that list them in full. Pure
 * and deterministic: the same findings give the same aggregates and the same
 * artifact bytes (members are ordered as the scorecard orders findings, ties
 * kept in the order given). Codes at or under the limit pass through
 * untouched, in their order.
 */
export function aggregateFindings(findings: readonly Finding[], options: AggregateOptions = {}): Aggregated {
  const limit = options.limit ?? AGGREGATE_ABOVE;
  const sample = options.sample ?? AGGREGATE_SAMPLE;
  const groups = new Map<string, Finding[]>();
  const key = (f: Finding) => `${f.layer}\u0000${f.code}`;
  for (const f of findings) {
    const k = key(f);
    const g = groups.get(k);
    if (g) g.push(f);
    else groups.set(k, [f]);
  }
  let over = false;
  for (const g of groups.values()) if (g.length > limit) over = true;
  if (!over) return { findings: [...findings], artifacts: [] };

  const out: Finding[] = [];
  const artifacts: Artifact[] = [];
  for (const f of findings) {
    const k = key(f);
    const g = groups.get(k);
    if (g === undefined) continue;
    if (g.length <= limit) {
      out.push(f);
      continue;
    }
    // Taken at the first finding of the group; the rest of its members are skipped.
    groups.delete(k);
    const [one, artifact] = aggregate(f.layer, f.code, g, limit, sample);
    out.push(one);
    artifacts.push(artifact);
  }
  artifacts.sort((a, b) => byCodePoint(a.name, b.name));
  return { findings: out, artifacts };
}
