import path from 'node:path';
import type { SeedsConfig } from '../../config/schema.js';
import type { TapeRow } from '../../contracts/seed-tape.js';
import { InputError } from '../../errors.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { ProgressTally } from '../progress.js';
import type { ExampleCount, SeedReplay } from './model.js';
import { replayCommands } from './replayers/command.js';
import { type FastCheckOutcome, replayFastCheck } from './replayers/fast-check.js';
import { replayPytest } from './replayers/pytest.js';

export interface ReplayTapeOptions {
  /** The checkout whose code runs. */
  root: string;
  rows: readonly TapeRow[];
  config: SeedsConfig;
  /** Exactly the environment head code may see. */
  env: Record<string, string>;
  sandbox: Sandbox;
  /** Where process runners keep their logs and reports. */
  logDir: string;
  signal?: AbortSignal;
  /** Counts replays: fast-check rows (one pool task each) and the seeds of process rows. */
  progress?: ProgressTally;
  /** The base config's test side (for the pytest guard's shadowing check). */
  isTestPath?(file: string): boolean;
}

export interface TapeReplay {
  replays: SeedReplay[];
  counts: ExampleCount[];
  /** Processes started per runner: pytest starts one per distinct seed, commands one per seed. */
  processes: { pytest: number; command: number };
  fastCheck?: FastCheckOutcome['fastCheck'];
}

/** Seed of the count run of a process row with no seed yet; fixed, so the gate stays reproducible. */
export const COUNT_SEED = '0';

/**
 * A floor that is never run is only trusted: a process row with no seed is
 * still run once, at a fixed seed, so its examples are counted.
 */
function withCountSeed(row: TapeRow): TapeRow {
  return row.seeds.length > 0 ? row : { ...row, seeds: [{ seed: COUNT_SEED }] };
}

/** Replays the rows on one checkout, each runner on its own rows; the runners run one after another. */
export async function replayTape(opts: ReplayTapeOptions): Promise<TapeReplay> {
  const by = (runner: TapeRow['runner']) => opts.rows.filter((r) => r.runner === runner);
  const fcRows = by('fast-check');
  if (fcRows.length > 0 && opts.config.properties.length === 0) {
    // Every such row would fail as not found on every patch: a human's setup mistake, not the patch's.
    throw new InputError(
      'CONFIG_INVALID',
      `the seed tape has fast-check rows (${fcRows.map((r) => `'${r.id}'`).join(', ')}) but seeds.properties names no modules to find them in; add the globs of your defineSeedProperty modules to seeds.properties`,
    );
  }
  const pyRows = by('pytest').map(withCountSeed);
  const cmdRows = by('command').map(withCountSeed);
  const progress = opts.progress;
  const seedsOf = (rows: readonly TapeRow[]) => rows.reduce((n, r) => n + r.seeds.length, 0);
  progress?.expect(fcRows.length + seedsOf(pyRows) + seedsOf(cmdRows));
  const onReplayed = progress ? { onReplayed: (n: number) => progress.finish(n) } : {};
  const common = {
    root: opts.root,
    env: opts.env,
    sandbox: opts.sandbox,
    ...(opts.config.network ? { network: true } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };

  const fc =
    fcRows.length > 0
      ? await replayFastCheck({
          root: opts.root,
          env: opts.env,
          sandbox: opts.sandbox,
          ...(opts.config.network ? { network: true } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
          modules: opts.config.properties,
          rows: fcRows,
          timeoutMs: opts.config.timeoutMs,
          ...(opts.config.workers !== undefined ? { workers: opts.config.workers } : {}),
          ...onReplayed,
        })
      : undefined;
  const py =
    pyRows.length > 0
      ? await replayPytest({
          ...common,
          python: opts.config.python,
          rows: pyRows,
          ...(opts.config.workers !== undefined ? { workers: opts.config.workers } : {}),
          ...(opts.isTestPath ? { isTestPath: opts.isTestPath } : {}),
          timeoutMs: opts.config.processTimeoutMs,
          logDir: path.join(opts.logDir, 'seeds'),
          ...onReplayed,
        })
      : undefined;
  const cmd =
    cmdRows.length > 0
      ? await replayCommands({
          ...common,
          rows: cmdRows,
          timeoutMs: opts.config.processTimeoutMs,
          logDir: path.join(opts.logDir, 'seeds'),
          ...onReplayed,
        })
      : undefined;
  const order = replayOrder(opts.rows);
  return {
    replays: [...(fc?.replays ?? []), ...(py?.replays ?? []), ...(cmd?.replays ?? [])].sort(order.replays),
    counts: [...(fc?.counts ?? []), ...(py?.counts ?? []), ...(cmd?.counts ?? [])].sort(order.counts),
    processes: { pytest: py?.processes ?? 0, command: cmd?.processes ?? 0 },
    ...(fc ? { fastCheck: fc.fastCheck } : {}),
  };
}

/**
 * Replays and counts in tape order (row, then the row's seeds), whichever
 * runner gave them and in whatever order: a shard's share of the rows then
 * sorts into the same place it has in one run's report.
 */
export function replayOrder(rows: readonly Pick<TapeRow, 'id' | 'seeds'>[]): {
  replays: (a: SeedReplay, b: SeedReplay) => number;
  counts: (a: ExampleCount, b: ExampleCount) => number;
} {
  const rowAt = new Map(rows.map((r, i) => [r.id, i]));
  const seedAt = new Map(rows.map((r) => [r.id, new Map(r.seeds.map((s, i) => [s.seed, i]))]));
  const row = (id: string) => rowAt.get(id) ?? rows.length;
  const seed = (id: string, s: string) => seedAt.get(id)?.get(s) ?? Number.MAX_SAFE_INTEGER;
  return {
    replays: (a, b) =>
      row(a.property) - row(b.property) ||
      seed(a.property, a.seed) - seed(b.property, b.seed) ||
      (a.seed < b.seed ? -1 : a.seed > b.seed ? 1 : 0),
    counts: (a, b) => row(a.property) - row(b.property),
  };
}
