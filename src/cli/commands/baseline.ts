import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isJsRepository } from '../../config/detect.js';
import { loadConfig } from '../../config/load.js';
import { installedSchemaRef } from '../../config/schema-files.js';
import { InputError } from '../../errors.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot, resolveCommit } from '../../git/revisions.js';
import { writeFileAtomic } from '../atomic-write.js';
import { type BaselineFlowResult, prepareBaseline } from '../baseline-flow.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { shellCommand } from '../shell-quote.js';
import { BASELINE } from '../specs.js';

async function readText(abs: string): Promise<string | undefined> {
  try {
    return await readFile(abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError('FILE_UNREADABLE', `cannot read ${abs}: ${(err as Error).message}`, { file: abs });
  }
}

/** The lines that end every baseline: the rows are a human's to review and commit; the baseline never commits. */
export function reviewCommitLines(result: BaselineFlowResult, extra: readonly string[] = []): string[] {
  const files = [...extra, ...result.writes.map((w) => w.file)];
  const n = result.plan.signatureRows.length + result.plan.stabilityRows.length;
  return [
    '',
    'Review every row (is each failure or skip really known, and who owns it?), then commit them in a human commit of their own, never inside an agent diff:',
    `  ${shellCommand(['git', 'add', ...files])} && ${shellCommand(['git', 'commit', '-m', `patchgate: baseline of ${result.commit.slice(0, 12)}: freeze ${n} pre-existing failure(s) and skip(s)`])}`,
  ];
}

/** `patchgate baseline`: freeze what the main branch already fails or skips (human-only). */
export async function baselineCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(BASELINE, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const git0 = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const repoRoot = await findRepoRoot(git0);
  const git = git0.at(repoRoot);
  const { config, file: configFile } = await loadConfig(repoRoot, undefined, { signal: io.signal });

  // The rules the rows are for are the revision's: a config edited in the working tree is not them yet.
  const commit = await resolveCommit(git, values.rev, 'rev');
  const committed = await git.try(['cat-file', 'blob', `${commit}:${configFile}`]);
  const notes: string[] = [];
  if (committed.code !== 0) {
    notes.push(
      `note: ${values.rev} has no committed ${configFile} yet: the baseline uses the working tree's; commit it together with the rows`,
    );
  } else if (committed.stdout !== (await readText(path.join(repoRoot, configFile)))) {
    throw new InputError(
      'BASELINE_REFUSED',
      `the working tree's ${configFile} differs from the one committed in ${values.rev}: the baseline freezes what ${values.rev} fails under its own rules; commit or revert the config edit first`,
      { file: configFile, rev: values.rev },
    );
  }
  const js = await isJsRepository(repoRoot);
  const result = await prepareBaseline({
    io,
    git,
    config,
    flags: {
      rev: values.rev,
      runs: values.runs,
      days: values.days,
      maxRows: values['max-rows'],
      ...(values.expires !== undefined ? { expires: values.expires } : {}),
      ...(values.owner !== undefined ? { owner: values.owner } : {}),
      ...(values.today !== undefined ? { today: values.today } : {}),
    },
    readFile: (file) => readText(path.join(repoRoot, file)),
    schemaFor: (schemaFile, file) => (js ? installedSchemaRef(file, schemaFile) : undefined),
  });
  const out = (line: string) => io.stdout.write(`${line}\n`);
  for (const n of notes) out(n);
  for (const w of result.writes) {
    await mkdir(path.dirname(path.join(repoRoot, w.file)), { recursive: true });
    await writeFileAtomic(path.join(repoRoot, w.file), w.text, w.file);
  }
  for (const line of result.lines) out(line);
  if (result.writes.length > 0) for (const line of reviewCommitLines(result)) out(line);
  return 0;
}
