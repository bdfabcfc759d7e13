/**
 * How a layer's outcomes on the shards of one run become the outcome an
 * unsharded run gives (see docs/shards.md). Each shard runs every layer: the
 * cheap whole-repository work in full, which every shard must then agree on,
 * and the expensive work for the units it owns (test files, properties, tape
 * rows), whose results are simply put together. A layer says which of its
 * findings are about a unit; the rest are whole, and a part that says other
 * than the others is a SHARD_DISAGREEMENT, never silently one of them.
 */
import { pushAll } from '../util/arrays.js';
import { stableLine } from '../util/stable-json.js';
import type { Artifact, Finding, FrozenItem, LayerOutcome, Override, PropertyProof } from './types.js';

/** What a merge of one layer is given besides the parts' outcomes. */
export interface MergeContext {
  /** The merged proofs of the layers this one reads (its `after`). */
  proofs: readonly PropertyProof[];
}

/** How a layer's shard outcomes combine; without it, every shard's outcome must be the same. */
export interface ShardMerge {
  merge(parts: readonly LayerOutcome[], ctx: MergeContext): LayerOutcome | Promise<LayerOutcome>;
}

/** Shards that should have computed the same thing did not. */
export class ShardDisagreement extends Error {
  constructor(
    /** What differed, in words: "the whole-repository findings", "artifact overlay.json". */
    readonly what: string,
    /** The 1-based shards that differ from the first. */
    readonly shards: readonly number[],
    readonly first: string,
    readonly other: string,
  ) {
    super(`shard ${shards.join(', ')} computed ${what} differently from shard 1`);
  }
}

const canon = (v: unknown): string => stableLine(v) ?? 'undefined';

/** The value every part gives, which must be the same; shard numbers are 1-based by position. */
export function agreed<T>(what: string, values: readonly T[]): T {
  const first = canon(values[0]);
  const differ = values.flatMap((v, i) => (canon(v) === first ? [] : [i + 1]));
  if (differ.length > 0) throw new ShardDisagreement(what, differ, first, canon(values[differ[0]! - 1]));
  return values[0] as T;
}

/** Items in every list (as a multiset, in the first list's order), and what each list has besides. */
export function commonAndRest<T>(lists: readonly (readonly T[])[]): { common: T[]; rest: T[][] } {
  const counts = lists.map((l) => {
    const m = new Map<string, number>();
    for (const x of l) m.set(canon(x), (m.get(canon(x)) ?? 0) + 1);
    return m;
  });
  const take = new Map<string, number>();
  for (const [k, n] of counts[0] ?? []) {
    let min = n;
    for (const m of counts.slice(1)) min = Math.min(min, m.get(k) ?? 0);
    if (min > 0) take.set(k, min);
  }
  const common: T[] = [];
  const left = new Map(take);
  for (const x of lists[0] ?? []) {
    const k = canon(x);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      common.push(x);
      left.set(k, n - 1);
    }
  }
  const rest = lists.map((l) => {
    const skip = new Map(take);
    return l.filter((x) => {
      const k = canon(x);
      const n = skip.get(k) ?? 0;
      if (n === 0) return true;
      skip.set(k, n - 1);
      return false;
    });
  });
  return { common, rest };
}

/** An artifact's text, whole. */
export function artifactText(a: Artifact): string {
  return typeof a.content === 'string' ? a.content : a.content.join('');
}

/** Per artifact name, how the parts' copies combine (each given in shard order). */
export type ArtifactMerge = (contents: readonly string[], parts: readonly LayerOutcome[]) => string;

export interface ByUnitOptions {
  /** The unit a finding is about (a test file, a property, a tape row), or undefined when the whole repository's. */
  unitOf(f: Finding): string | undefined;
  artifacts?: Readonly<Record<string, ArtifactMerge>>;
  note?(parts: readonly LayerOutcome[]): string | undefined;
  scope?(parts: readonly LayerOutcome[]): LayerOutcome['scope'];
  /** Findings only the parts together can give (a suite that ran nothing on every shard). */
  extra?(parts: readonly LayerOutcome[]): Finding[];
}

/**
 * The merge of a layer whose units are judged each on one shard: whole
 * findings must agree; unit findings, proofs, frozen items and overrides of
 * all shards are put together; artifacts by their own rule.
 */
export function byUnit(o: ByUnitOptions): ShardMerge {
  return {
    merge(parts) {
      const whole = parts.map((p) => p.findings.filter((f) => o.unitOf(f) === undefined));
      agreed('the findings about the whole repository', whole.map(sortedCanon));
      const findings: Finding[] = [...(whole[0] ?? [])];
      for (const p of parts) for (const f of p.findings) if (o.unitOf(f) !== undefined) findings.push(f);
      if (o.extra) pushAll(findings, o.extra(parts));
      const note = o.note
        ? o.note(parts)
        : agreed(
            'the note',
            parts.map((p) => p.note),
          );
      const scope = o.scope
        ? o.scope(parts)
        : agreed(
            'the scope',
            parts.map((p) => p.scope),
          );
      const overrides = together(parts.map((p) => p.overrides ?? []));
      const frozen = together(parts.map((p) => p.frozen ?? []));
      const proofs = parts.flatMap((p) => p.proofs ?? []);
      const artifacts = mergeArtifacts(parts, o.artifacts ?? {});
      return {
        findings,
        ...(note !== undefined ? { note } : {}),
        ...(scope !== undefined ? { scope } : {}),
        ...(overrides.length > 0 ? { overrides } : {}),
        ...(frozen.length > 0 ? { frozen } : {}),
        ...(artifacts.length > 0 ? { artifacts } : {}),
        ...(proofs.length > 0 ? { proofs } : {}),
      };
    },
  };
}

const sortedCanon = (list: readonly unknown[]): string[] => list.map(canon).sort();

/** Items every part has once, then each part's own. */
function together<T extends Override | FrozenItem>(lists: readonly (readonly T[])[]): T[] {
  const { common, rest } = commonAndRest(lists);
  return [...common, ...rest.flat()];
}

/**
 * The parts' artifacts, by name in the first part's order: every part must
 * write the same names; an artifact without a rule of its own must be the
 * same on every shard.
 */
export function mergeArtifacts(
  parts: readonly LayerOutcome[],
  rules: Readonly<Record<string, ArtifactMerge>>,
): Artifact[] {
  agreed(
    'the artifacts it writes',
    parts.map((p) => (p.artifacts ?? []).map((a) => a.name)),
  );
  return (parts[0]?.artifacts ?? []).map((a, i) => {
    const contents = parts.map((p) => artifactText(p.artifacts?.[i] as Artifact));
    const rule = rules[a.name];
    return { name: a.name, content: rule ? rule(contents, parts) : agreed(`artifact ${a.name}`, contents) };
  });
}

/** A JSON artifact's parts, parsed (each was written by a shard of ours, as JSON with a final newline). */
export function jsonParts<T>(contents: readonly string[]): T[] {
  return contents.map((c) => JSON.parse(c) as T);
}

/** The JSON artifact form every layer writes: two-space indent and a final newline. */
export const jsonArtifact = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The outcome of a layer whose work is the whole repository's: the same on every shard, reports and all. */
export function sameOutcome(parts: readonly LayerOutcome[]): LayerOutcome {
  agreed(
    'its outcome',
    parts.map((o) => ({ ...o, artifacts: undefined })),
  );
  const artifacts = mergeArtifacts(parts, {});
  const first = parts[0] as LayerOutcome;
  return { ...first, ...(artifacts.length > 0 ? { artifacts } : {}) };
}

/**
 * A merge for a layer that leaves a part when it did its work: when it
 * stopped before any (nothing configured, an empty matrix) it left none on
 * any shard, and its outcomes must then be the same everywhere. A part on
 * some shards and not on others is a disagreement.
 */
export function whenParts(merge: ShardMerge['merge']): ShardMerge {
  return {
    merge(parts, ctx) {
      const without = parts.flatMap((p, i) => (p.part === undefined ? [i + 1] : []));
      if (without.length === parts.length) return sameOutcome(parts);
      if (without.length > 0)
        throw new ShardDisagreement('whether the layer did its work', without, 'a part', 'no part');
      return merge(parts, ctx);
    },
  };
}
