import { treeFiles } from '../overlay/revision-files.js';
import type { NamedPath } from '../overlay/runner-config/types.js';
import { testSideFor } from '../overlay/test-side.js';
import type { SessionShard } from '../runners/tests/session.js';
import { commandSelectsFiles, shardableTestFiles } from '../runners/tests/shard-files.js';
import { planTestFiles, type RecordedDurations, ShardSlice, type ShardSpec } from '../shard/plan.js';
import type { Rules } from './rules.js';
import type { Workspace } from './workspace.js';

/**
 * Mean durations per test file from trusted runs recorded before `before`
 * (the base commit's date): every shard of one run reads the same ones.
 */
export type DurationSource = (
  files: readonly string[],
  before: string,
) => Promise<RecordedDurations | undefined>;

/** A sharded run's request: which shard this is, and where recorded durations come from. */
export interface ShardRequest {
  spec: ShardSpec;
  durations?: DurationSource;
}

/**
 * The plan of a sharded run, from what every shard reads alike: the test
 * files of both trees (the base config's split and the runner's naming), the
 * runner's ability to select files, and the durations recorded before the
 * base was committed.
 */
export async function planShard(
  ws: Workspace,
  rules: Rules,
  named: readonly NamedPath[],
  req: ShardRequest,
): Promise<ShardSlice> {
  const tests = rules.config.tests;
  const total = req.spec.total;
  if (!tests) return new ShardSlice(req.spec, planTestFiles([], total));
  const side = testSideFor(rules.config, named);
  const [base, head] = await Promise.all([treeFiles(ws.repo, ws.revs.baseCommit), ws.headFiles()]);
  const files = shardableTestFiles(tests.preset, [...base.paths, ...head.paths], side.isTestPath);
  const selects = files !== undefined && commandSelectsFiles(tests);
  if (!selects) return new ShardSlice(req.spec, planTestFiles(files ?? [], total, undefined, false));
  const before = (await ws.repo.out(['show', '-s', '--format=%cI', ws.revs.baseCommit])).trim();
  const durations = req.durations ? await req.durations(files, new Date(before).toISOString()) : undefined;
  return new ShardSlice(req.spec, planTestFiles(files, total, durations));
}

/** What the test session of this shard runs. */
export function sessionShard(slice: ShardSlice): SessionShard {
  return {
    files: slice.testFiles,
    mode: slice.plan.by === 'suite' ? (slice.runsSuite ? 'whole' : 'none') : 'files',
    ownsFile: (file) => slice.owns('test-file', file),
  };
}
