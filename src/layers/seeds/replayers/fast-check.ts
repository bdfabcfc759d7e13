import { createRequire } from 'node:module';
import path from 'node:path';
import type { TapeRow } from '../../../contracts/seed-tape.js';
import { ProcessPool, WorkerCrashError } from '../../../sandbox/process-pool.js';
import type {
  ListSeedResult,
  ReplayResult,
  ReplayTask,
  SeedOutcome,
} from '../../../sandboxed/fast-check-replayer.js';
import { findModules } from '../../../util/find-modules.js';
import { builtFile } from '../../../util/package-root.js';
import type { ExampleCount, RunnerOutcome, SeedReplay } from '../model.js';
import type { ReplayerOptions } from './output.js';

/** Rows with runner `fast-check`; `root` is the head, or the working tree when exploring. */
export interface FastCheckReplayOptions extends ReplayerOptions {
  /** Globs of modules exporting `defineSeedProperty` definitions. */
  modules: readonly string[];
  /** Budget of one run of a property (the watchdog's heartbeat). */
  timeoutMs: number;
  workers?: number;
  /** Told how many rows' replays ended, as each row's task comes back. */
  onReplayed?(rows: number): void;
}

export interface FastCheckOutcome extends RunnerOutcome {
  /** The fast-check the replay used: the repository's own when it has one, else patchgate's. */
  fastCheck: { version: string; source: 'repository' | 'patchgate' };
}

/** Seed of the as-declared count for a row that records no seed yet: fixed, so the gate stays reproducible. */
const COUNT_SEED = 0;

class ReplayTimeout extends Error {
  constructor(
    readonly seedIndex: number,
    timeoutMs: number,
  ) {
    super(`a run did not finish within ${timeoutMs} ms`);
  }
}

/**
 * The replay engine: always patchgate's own fast-check, never a copy the
 * patch committed or installed (a `check` that never fails would pass every
 * seed). Property modules that import `fast-check` get this same copy, so
 * their arbitraries and the runner agree.
 */
export function resolveFastCheck(): { file: string; source: 'patchgate' } {
  return { file: createRequire(import.meta.url).resolve('fast-check'), source: 'patchgate' };
}

function notFound(row: TapeRow, why: string): SeedReplay[] {
  const seeds = row.seeds.length > 0 ? row.seeds.map((s) => s.seed) : [''];
  return seeds.map((seed) => ({ property: row.id, seed, status: 'not-found', message: why }));
}

function toReplay(row: TapeRow, o: SeedOutcome): SeedReplay {
  return {
    property: row.id,
    seed: o.seed,
    status: o.status,
    examples: o.examples,
    ...(o.via ? { via: o.via === 'declared' ? 'seed' : o.via } : {}),
    ...(o.message !== undefined ? { message: o.message } : {}),
    ...(o.counterexample !== undefined ? { counterexample: o.counterexample } : {}),
    ...(o.shrunk !== undefined ? { shrunk: o.shrunk } : {}),
    ...(o.path !== undefined ? { path: o.path } : {}),
  };
}

function countOf(row: TapeRow, r: ReplayResult): ExampleCount | undefined {
  if (r.declared.failed) return undefined;
  let counted = r.declared.counted;
  let how = `as declared (numRuns ${r.declared.numRuns}), seed ${r.declared.seed}`;
  for (const s of r.seeds) {
    if (s.status === 'pass' && s.examples < counted) {
      counted = s.examples;
      how = `replay of seed ${s.seed} at numRuns ${r.replayRuns} (the rest were skipped)`;
    }
  }
  return { property: row.id, counted, how };
}

/** `Promise.all`, calling `onEach` as each promise settles. */
function allCounted<T>(onEach: () => void, promises: Promise<T>[]): Promise<T[]> {
  return Promise.all(promises.map((p) => p.finally(onEach)));
}

/**
 * Replays every fast-check row of the tape in one worker pool: one task per
 * property with all its seeds, so no process (and no module load) per seed.
 */
export async function replayFastCheck(opts: FastCheckReplayOptions): Promise<FastCheckOutcome> {
  const fc = resolveFastCheck();
  const pool = new ProcessPool({
    sandbox: opts.sandbox,
    handler: builtFile('sandboxed/fast-check-replayer'),
    root: opts.root,
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
    timeoutMs: opts.timeoutMs,
    env: opts.env,
    ...(opts.network ? { network: true } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  try {
    const files = (await findModules(opts.root, opts.modules)).map((m) => path.join(opts.root, m));
    const listed = (await pool.run(
      { kind: 'list', modules: files, fastCheck: fc.file },
      {
        label: 'listing seed properties',
        onTimeout: () => new Error('loading seed property modules timed out'),
      },
    )) as ListSeedResult;
    const modulesOf = new Map<string, string[]>();
    for (const p of listed.properties) modulesOf.set(p.id, [...(modulesOf.get(p.id) ?? []), p.module]);
    const rel = (f: string) => path.relative(opts.root, f).split(path.sep).join('/');
    const loadErrors = listed.errors.map((e) => `${rel(e.module)}: ${e.message}`);

    const perRow = await allCounted(
      () => opts.onReplayed?.(1),
      opts.rows.map(async (row): Promise<{ replays: SeedReplay[]; count?: ExampleCount }> => {
        const found = modulesOf.get(row.id) ?? [];
        if (found.length === 0) {
          const where =
            opts.modules.length > 0 ? opts.modules.join(', ') : '(no seeds.properties globs configured)';
          const broken =
            loadErrors.length > 0 ? `; modules that failed to load: ${loadErrors.join('; ')}` : '';
          return {
            replays: notFound(
              row,
              `property '${row.id}' not found: no module matching ${where} defines it with defineSeedProperty, but the tape still lists it (renaming does not escape the tape)${broken}`,
            ),
          };
        }
        if (found.length > 1) {
          return {
            replays: notFound(
              row,
              `property '${row.id}' is defined more than once (${found.map(rel).join(', ')}), so the tape cannot tell which one its seeds belong to`,
            ),
          };
        }
        const task: Omit<ReplayTask, 'progress'> = {
          kind: 'replay',
          module: found[0] as string,
          id: row.id,
          fastCheck: fc.file,
          seeds: row.seeds,
          minExamples: row.min_examples,
          countSeed: COUNT_SEED,
        };
        try {
          const r = (await pool.run(task, {
            label: row.id,
            progress: true,
            onTimeout: (i) => new ReplayTimeout(i, opts.timeoutMs),
          })) as ReplayResult;
          const count = countOf(row, r);
          return { replays: r.seeds.map((o) => toReplay(row, o)), ...(count ? { count } : {}) };
        } catch (err) {
          if (err instanceof ReplayTimeout) {
            return {
              replays: row.seeds.map((s, i): SeedReplay => {
                if (i < err.seedIndex) {
                  return {
                    property: row.id,
                    seed: s.seed,
                    status: 'not-run',
                    message: 'not reported: a later run of this property hung and its worker was stopped',
                  };
                }
                return i === err.seedIndex
                  ? {
                      property: row.id,
                      seed: s.seed,
                      status: 'timeout',
                      message: `replaying seed ${s.seed}: ${err.message}; a hang is never a pass`,
                    }
                  : {
                      property: row.id,
                      seed: s.seed,
                      status: 'not-run',
                      message: `not replayed: seed ${row.seeds[err.seedIndex]?.seed ?? '?'} of this property hung first`,
                    };
              }),
              ...(err.seedIndex >= row.seeds.length
                ? {
                    count: { property: row.id, counted: 0, how: `the as-declared run hung (${err.message})` },
                  }
                : {}),
            };
          }
          const message = err instanceof Error ? err.message : String(err);
          const seeds = row.seeds.length > 0 ? row.seeds.map((s) => s.seed) : [''];
          const limit = err instanceof WorkerCrashError ? err.breach : undefined;
          return {
            replays: seeds.map((seed) => ({
              property: row.id,
              seed,
              status: 'error' as const,
              message,
              ...(limit ? { limit } : {}),
            })),
          };
        }
      }),
    );
    return {
      replays: perRow.flatMap((r) => r.replays),
      counts: perRow.flatMap((r) => (r.count ? [r.count] : [])),
      processes: 0,
      fastCheck: { version: listed.fastCheckVersion, source: fc.source },
    };
  } finally {
    await pool.close();
  }
}
