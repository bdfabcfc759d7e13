import { createHash } from 'node:crypto';
import path from 'node:path';
import { resolveToday } from '../../freeze/model.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { durationsFrom } from '../../history/durations.js';
import { flakeHistoryFrom, windowStart } from '../../history/flake-history.js';
import { runFromCheck, type SideRun } from '../../history/run.js';
import { historyCompanions } from '../../history/store.js';
import { writeRun } from '../../history/write.js';
import type { Artifact } from '../../layers/types.js';
import {
  type GateHooks,
  type GateTestRun,
  type ProgressEvent,
  type RunGateOptions,
  runGate,
  runShard,
} from '../../pipeline.js';
import type { LayerSummary, Scorecard } from '../../report/scorecard.js';
import { parseShardSpec, type ShardSpec, ShardSpecError } from '../../shard/plan.js';
import type { ShardPart } from '../../steps/shard-part.js';
import { exitCodeFor } from '../exit-codes.js';
import { openRepoHistory, type RepoHistory } from '../history-store.js';
import { type CliIO, rawStream } from '../io.js';
import { parseCommand } from '../options.js';
import { OutFolder, type OutFs, PART_FILE, PART_RUNS_FILE } from '../out-folder.js';
import { ProgressLine } from '../progress.js';
import { ciRunOf, publishReports, type Reporter, resolveReporters } from '../publish.js';
import { CHECK } from '../specs.js';
import { usage } from '../usage.js';

export const DEFAULT_OUT: string = CHECK.options.out.default;

export interface CheckDeps {
  /** The file operations behind the out folder; a test makes them fail. */
  outFs?: OutFs;
  /** The clock that stamps a run written to the history. */
  now?(): Date;
}

export async function checkCommand(
  args: string[],
  io: CliIO,
  hooks?: GateHooks,
  deps: CheckDeps = {},
): Promise<number> {
  const parsed = parseCommand(CHECK, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  if (!values.base)
    throw usage('check needs --base REV (the branch the patch targets, e.g. --base origin/main)');
  const reporters = resolveReporters(values.reporter, values.json);
  const ciRun = ciRunOf(values, 'check');
  const shard = values.shard !== undefined ? shardSpec(values.shard) : undefined;
  if (shard && ciRun !== undefined)
    throw usage(
      'check: --ci-run is kept with the merged run: give it to `patchgate merge --history`, not to a shard',
    );
  const out = path.resolve(io.cwd, values.out);
  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  // Outside a repository the gate itself says so, in its scorecard; only the history needs the root first.
  const top = await git.try(['rev-parse', '--show-toplevel']);
  const root = top.code === 0 ? top.stdout.trim() : undefined;
  // Found unusable before the gate runs for minutes, not after; written only once the verdict is in.
  const history = values.history
    ? await openRepoHistory(io, git, root ?? (await findRepoRoot(git)))
    : undefined;
  try {
    return await judge(values.base, values, io, hooks, deps, {
      out,
      root,
      reporters,
      history,
      ciRun,
      ...(shard ? { shard } : {}),
    });
  } finally {
    await history?.db.close();
  }
}

interface Judging {
  out: string;
  root: string | undefined;
  reporters: Reporter[];
  history: RepoHistory | undefined;
  ciRun: string | undefined;
  /** This check is one shard of several: it reads the history (durations, flakes) but never writes it. */
  shard?: ShardSpec;
}

function shardSpec(text: string): ShardSpec {
  try {
    return parseShardSpec(text);
  } catch (err) {
    if (err instanceof ShardSpecError) throw usage(`check: ${err.message}`);
    throw err;
  }
}

async function judge(
  base: string,
  values: { head?: string | undefined; today?: string | undefined; quiet: boolean; 'all-layers': boolean },
  io: CliIO,
  hooks: GateHooks | undefined,
  deps: CheckDeps,
  { out, root, reporters, history, ciRun, shard }: Judging,
): Promise<number> {
  const folder = new OutFolder(out, deps.outFs);
  // A file an earlier run left must never sit beside this run's scorecard.
  await folder.clear();
  // CI injects today; the repository never supplies it (a frozen clock in the repo is an oracle the agent can edit).
  const { today } = resolveToday(values.today, io.env);
  const artifacts: Artifact[] = [];
  const testRuns: SideRun[] = [];
  // Drawn only on a terminal (ProgressLine checks), never with --json or --quiet.
  // The line clears itself with an escape sequence of its own; it makes what it draws display-safe.
  const line = new ProgressLine(rawStream(io.stderr));
  const progress = !values.quiet && !reporters.includes('json') && line.enabled ? line : undefined;
  const options = {
    cwd: io.cwd,
    base,
    head: values.head,
    env: io.env,
    today,
    allLayers: values['all-layers'],
    ...(history
      ? { flakeHistory: flakeHistoryFrom(history.db, history.where, history.repository, windowStart(today)) }
      : {}),
    ...(io.pid !== undefined ? { ownerPid: io.pid } : {}),
    signal: io.signal,
    // The history's files are the gate's, never part of a working-tree head (a CI cache puts them there).
    excludeFromHead: [out, ...(root !== undefined ? historyCompanions(root) : [])],
    hooks: {
      ...hooks,
      ...(history || shard || hooks?.onTestRun
        ? {
            onTestRun: (run: GateTestRun) => {
              if (history || shard) testRuns.push({ side: run.side, tests: run.tests });
              hooks?.onTestRun?.(run);
            },
          }
        : {}),
      // Head processes wrote their logs where only they and the gate could; now that all of them are gone, the gate copies them out.
      onLogs: async (dir: string) => {
        // A shard's logs go where the merged folder keeps them, so its findings' paths hold in both.
        await folder.copyLogs(dir, undefined, shard ? `shard-${shard.index}` : undefined);
        await hooks?.onLogs?.(dir);
      },
      onArtifact: async (artifact: Artifact) => {
        artifacts.push(artifact);
        await hooks?.onArtifact?.(artifact);
      },
      onLayerStart: async (name: string) => {
        progress?.layerStart(name);
        await hooks?.onLayerStart?.(name);
      },
      ...(progress || hooks?.onProgress
        ? {
            onProgress: (event: ProgressEvent) => {
              progress?.update(event);
              hooks?.onProgress?.(event);
            },
          }
        : {}),
      onLayerEnd: async (summary: LayerSummary) => {
        progress?.clear();
        await hooks?.onLayerEnd?.(summary);
      },
    },
  } satisfies RunGateOptions;
  let card: Scorecard;
  let part: ShardPart | undefined;
  try {
    if (shard) {
      ({ card, part } = await runShard({
        ...options,
        shard: {
          spec: shard,
          ...(history ? { durations: durationsFrom(history.db, history.repository) } : {}),
        },
      }));
    } else card = await runGate(options);
  } finally {
    progress?.clear();
  }
  // The shard's outcomes and the suite runs it saw: what `patchgate merge` (and its --history) reads.
  const runsText = part ? `${JSON.stringify(testRuns)}\n` : '';
  const runsRef = { file: PART_RUNS_FILE, sha256: createHash('sha256').update(runsText).digest('hex') };
  await publishReports(io, folder, card, artifacts, reporters, [
    // Plain JSON, keys in the order the layers wrote them: the merge writes their reports from it again.
    ...(part
      ? [
          { name: PART_FILE, content: `${JSON.stringify({ ...part, testRuns: runsRef })}\n` },
          { name: PART_RUNS_FILE, content: runsText },
        ]
      : []),
  ]);
  if (history && !shard) {
    const id = await writeRun(
      history.db,
      runFromCheck({
        repository: history.repository,
        recordedAt: (deps.now ? deps.now() : new Date()).toISOString(),
        card,
        runs: testRuns,
        artifacts,
        ...(ciRun !== undefined ? { ciRun } : {}),
      }),
    );
    if (!values.quiet)
      io.stderr.write(
        `patchgate: run ${id} written to the run history (${history.where}) as ${history.repository}\n`,
      );
  }
  return exitCodeFor(card);
}
