/**
 * Which shard does which unit of the expensive work. A sharded check runs on
 * n CI jobs that never talk to each other, so every job must compute the
 * same plan from the same inputs: the repository's trees (test files), the
 * names of properties and tape rows, and, when the run history is given, the
 * durations it recorded before the base commit was made. Nothing here reads
 * a clock or a checkout.
 *
 * Test files are balanced: by recorded duration (longest first, each to the
 * least loaded shard) when the history knows them, by count otherwise
 * (sorted paths dealt round-robin). Properties, tape rows and claims go by a
 * hash of their name: they need no list known in advance, and a name the
 * head made up lands on exactly one shard like any other.
 */
import { createHash } from 'node:crypto';
import { byCodePoint } from '../util/compare.js';

/** `index` of `total`, 1-based, as `--shard index/total` says it. */
export interface ShardSpec {
  index: number;
  total: number;
}

/** The most shards a run may be split into: more than any CI system's matrix. */
export const MAX_SHARDS = 256;

export class ShardSpecError extends Error {}

/** `2/4` → { index: 2, total: 4 }; anything else throws with what was expected. */
export function parseShardSpec(text: string): ShardSpec {
  const m = /^\s*([0-9]+)\s*\/\s*([0-9]+)\s*$/.exec(text);
  if (!m)
    throw new ShardSpecError(`--shard takes INDEX/TOTAL, such as 2/4 (the second of four); got '${text}'`);
  const index = Number(m[1]);
  const total = Number(m[2]);
  if (!Number.isSafeInteger(total) || total < 1 || total > MAX_SHARDS)
    throw new ShardSpecError(`--shard ${text}: the total must be 1 to ${MAX_SHARDS}`);
  if (!Number.isSafeInteger(index) || index < 1 || index > total)
    throw new ShardSpecError(`--shard ${text}: the index must be 1 to ${total} (shards count from 1)`);
  return { index, total };
}

/** What the history says a test file costs, in ms per run; absent: balance by count. */
export interface RecordedDurations {
  /** Mean wall time per file over the trusted runs read. */
  ms: ReadonlyMap<string, number>;
  /** How many trusted runs they come from. */
  runs: number;
  /** The runs read were recorded before this instant (the base commit's date): every shard reads the same. */
  before: string;
}

/** Kinds of unit the layers split by; a test file is planned, the others go by hash. */
export type UnitKind = 'test-file' | 'property' | 'property-module' | 'tape-row' | 'claim';

export interface TestFilePlan {
  /** `duration` when recorded durations balanced it; `count` otherwise; `suite` when the runner cannot select files. */
  by: 'duration' | 'count' | 'suite';
  /** Every planned file, sorted. */
  files: readonly string[];
  /** Per shard (index − 1): its files, sorted. */
  shards: readonly (readonly string[])[];
  /** Per shard: the load it was given (files, or ms). */
  load: readonly number[];
  durations?: { runs: number; before: string; known: number };
}

/** A stable owner in 1..total for a name no plan lists. */
export function hashOwner(key: string, total: number): number {
  if (total <= 1) return 1;
  const h = createHash('sha256').update(key).digest();
  // 48 bits: far more than any total, and exact in a double.
  return (h.readUIntBE(0, 6) % total) + 1;
}

/**
 * Deals `files` to `total` shards. With durations, longest-processing-time
 * first: a file the history has not seen counts as the median of those it
 * has (a new test file is as likely long as short). Ties go to the lower
 * shard, so the plan is a function of its inputs alone.
 */
export function planTestFiles(
  files: readonly string[],
  total: number,
  durations?: RecordedDurations,
  canSelectFiles = true,
): TestFilePlan {
  const sorted = [...new Set(files)].sort(byCodePoint);
  const shards: string[][] = Array.from({ length: total }, () => []);
  const load = Array.from({ length: total }, () => 0);
  if (!canSelectFiles) {
    // The runner runs its whole suite or nothing: the suite is one unit, the first shard's.
    shards[0] = sorted;
    load[0] = sorted.length;
    return { by: 'suite', files: sorted, shards, load };
  }
  const known = durations ? sorted.filter((f) => durations.ms.has(f)) : [];
  if (!durations || known.length === 0) {
    sorted.forEach((f, i) => {
      shards[i % total]?.push(f);
      load[i % total] = (load[i % total] ?? 0) + 1;
    });
    return { by: 'count', files: sorted, shards, load };
  }
  const values = known.map((f) => durations.ms.get(f) as number).sort((a, b) => a - b);
  const median = values[Math.floor(values.length / 2)] ?? 1;
  // Whole milliseconds, at least one: every shard computes the same sums in the same order.
  const weight = (f: string) => Math.max(1, Math.round(durations.ms.get(f) ?? median));
  const order = [...sorted].sort((a, b) => weight(b) - weight(a) || byCodePoint(a, b));
  for (const f of order) {
    let best = 0;
    for (let i = 1; i < total; i++) if ((load[i] as number) < (load[best] as number)) best = i;
    shards[best]?.push(f);
    load[best] = (load[best] as number) + weight(f);
  }
  for (const s of shards) s.sort(byCodePoint);
  return {
    by: 'duration',
    files: sorted,
    shards,
    load,
    durations: { runs: durations.runs, before: durations.before, known: known.length },
  };
}

/**
 * One shard's share of a run: which units it does. Every unit is owned by
 * exactly one shard of the same plan; a test file the plan does not list
 * (one the runner reports from a path the gate did not expect) goes by hash.
 */
export class ShardSlice {
  private readonly owner = new Map<string, number>();
  readonly digest: string;

  constructor(
    readonly spec: ShardSpec,
    readonly plan: TestFilePlan,
  ) {
    plan.shards.forEach((files, i) => {
      for (const f of files) this.owner.set(f, i + 1);
    });
    this.digest = planDigest(spec.total, plan);
  }

  /** The test files this shard runs, sorted; the whole suite when `plan.by` is `suite` and this is shard 1. */
  get testFiles(): readonly string[] {
    return this.plan.shards[this.spec.index - 1] ?? [];
  }

  /** Whether this shard runs the test suite at all when its runner cannot select files. */
  get runsSuite(): boolean {
    return this.plan.by !== 'suite' || this.spec.index === 1;
  }

  ownerOf(kind: UnitKind, key: string): number {
    if (kind === 'test-file') {
      if (this.plan.by === 'suite') return 1;
      return this.owner.get(key) ?? hashOwner(`test-file\u241f${key}`, this.spec.total);
    }
    return hashOwner(`${kind}\u241f${key}`, this.spec.total);
  }

  owns(kind: UnitKind, key: string): boolean {
    return this.ownerOf(kind, key) === this.spec.index;
  }
}

/** What every shard of one run must agree on: the total and who runs which test file. */
export function planDigest(total: number, plan: TestFilePlan): string {
  const h = createHash('sha256');
  h.update(`patchgate-shard-plan@1\n${total}\n${plan.by}\n`);
  plan.shards.forEach((files, i) => {
    for (const f of files) h.update(`${i + 1}\t${f}\n`);
  });
  return h.digest('hex');
}
