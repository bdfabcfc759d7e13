import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { runFromCheck, type SideRun } from '../../history/run.js';
import { writeRun } from '../../history/write.js';
import type { TestOutcome } from '../../junit/model.js';
import { mergeShards, shardLogs } from '../../pipeline.js';
import { parsePartTestRuns, parseShardPart, type ShardPart } from '../../steps/shard-part.js';
import { exitCodeFor } from '../exit-codes.js';
import { openRepoHistory } from '../history-store.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { OutFolder, type OutFs, PART_FILE } from '../out-folder.js';
import { ciRunOf, publishReports, resolveReporters } from '../publish.js';
import { MERGE } from '../specs.js';
import { usage } from '../usage.js';

/** A part holds every test outcome of its shard; past this it is not one patchgate wrote. */
const MAX_PART_BYTES = 256 * 1024 * 1024;

export interface MergeDeps {
  outFs?: OutFs;
  now?(): Date;
}

interface ReadPart {
  source: string;
  /** The folder the part was written into (its logs are under tests/shard-K there). */
  folder: string;
  part: ShardPart;
}

export async function mergeCommand(
  args: string[],
  io: CliIO,
  _hooks?: unknown,
  deps: MergeDeps = {},
): Promise<number> {
  const parsed = parseCommand(MERGE, args, io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const reporters = resolveReporters(values.reporter, values.json, 'merge');
  const ciRun = ciRunOf(values, 'merge');
  const out = path.resolve(io.cwd, values.out);
  const parts = await Promise.all(positionals.map((given) => readPart(io.cwd, given)));
  for (const p of parts)
    if (samePath(p.folder, out))
      throw usage(
        `merge: --out ${values.out} is where the part ${p.source} lies, and the out folder is emptied first; write the merged reports elsewhere`,
      );
  // The store is opened before anything is written: a history that cannot take the run is found first.
  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const history = values.history ? await openRepoHistory(io, git, await findRepoRoot(git)) : undefined;
  try {
    const result = await mergeShards(parts.map((p) => ({ source: p.source, part: p.part })));
    const folder = new OutFolder(out, deps.outFs);
    await folder.clear();
    await Promise.all(
      result.parts.map((p) => {
        const index = p.part.shard.index;
        const from = parts.find((r) => r.source === p.source) as ReadPart;
        return folder.copyLogs(path.join(from.folder, shardLogs(index)), undefined, `shard-${index}`);
      }),
    );
    await publishReports(io, folder, result.card, result.artifacts, reporters);
    if (history) {
      const runs: SideRun[] = (
        await Promise.all(
          result.parts.map((p) => readTestRuns(io.cwd, parts.find((r) => r.source === p.source) as ReadPart)),
        )
      ).flat();
      const id = await writeRun(
        history.db,
        runFromCheck({
          repository: history.repository,
          recordedAt: (deps.now ? deps.now() : new Date()).toISOString(),
          card: result.card,
          runs,
          artifacts: result.artifacts,
          ...(ciRun !== undefined ? { ciRun } : {}),
        }),
      );
      if (!values.quiet)
        io.stderr.write(
          `patchgate: run ${id} written to the run history (${history.where}) as ${history.repository}\n`,
        );
    }
    return exitCodeFor(result.card);
  } finally {
    await history?.db.close();
  }
}

/** The suite runs a part names (only `--history` needs them), checked against the digest the part gives. */
async function readTestRuns(cwd: string, read: ReadPart): Promise<SideRun[]> {
  const ref = read.part.testRuns;
  if (ref === undefined)
    throw new InputError(
      'SHARD_PART_INVALID',
      `${read.source}: names no suite runs, which merge --history records; merge the parts of one \`patchgate check --shard\` run`,
      { file: read.source },
    );
  const file = path.join(read.folder, ref.file);
  const shown = path.relative(cwd, file) || file;
  let text: string;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > MAX_PART_BYTES)
      throw new Error(`${st.size} bytes, more than a part may be (${MAX_PART_BYTES})`);
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(
      'SHARD_PART_INVALID',
      `${shown}: cannot read it (${(err as Error).message}); ${read.source} names it as its suite runs, which merge --history records`,
      { file: shown },
    );
  }
  return parsePartTestRuns(text, shown, ref.sha256).map((r) => ({
    side: r.side,
    tests: r.tests as TestOutcome[],
  }));
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}

/** A folder holding part.json, or the file itself; anything else is bad input naming it. */
async function readPart(cwd: string, given: string): Promise<ReadPart> {
  const abs = path.resolve(cwd, given);
  let file = abs;
  try {
    if ((await stat(abs)).isDirectory()) file = path.join(abs, PART_FILE);
  } catch {
    throw new InputError(
      'SHARD_PART_INVALID',
      `${given}: no such file or folder; give each shard's out folder (with ${PART_FILE}) or its ${PART_FILE}`,
      { file: given },
    );
  }
  let text: string;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > MAX_PART_BYTES)
      throw new InputError(
        'SHARD_PART_INVALID',
        `${path.relative(cwd, file) || file}: ${st.size} bytes, more than a part may be (${MAX_PART_BYTES})`,
        { file },
      );
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(
      'SHARD_PART_INVALID',
      `${path.relative(cwd, file) || file}: cannot read it (${(err as Error).message}); a shard's \`patchgate check --shard I/N --out DIR\` writes DIR/${PART_FILE}`,
      { file },
    );
  }
  const shown = path.relative(cwd, file) || file;
  return { source: shown, folder: path.dirname(file), part: parseShardPart(text, shown) };
}
