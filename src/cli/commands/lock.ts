import { loadConfig } from '../../config/load.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { relockFixtures } from '../../layers/fixtures/relock.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { LOCK } from '../specs.js';

export async function lockCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(LOCK, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const repoRoot = await findRepoRoot(Git.forEnv(execFile, io.cwd, io.env, io.signal));
  const { config, file } = await loadConfig(repoRoot, undefined, { signal: io.signal });
  const dryRun = values['dry-run'];
  const result = await relockFixtures({ repoRoot, config, owner: values.owner, dryRun });
  if (result.changes.length === 0 && result.canonical.length === 0) {
    io.stdout.write(`${result.lockFile} is up to date (config ${file})\n`);
    return 0;
  }
  for (const c of result.changes) {
    const detail =
      c.kind === 'changed'
        ? `${c.from?.slice(0, 12)} → ${c.to?.slice(0, 12)}`
        : (c.to ?? c.from ?? '').slice(0, 12);
    io.stdout.write(`${c.kind.padEnd(8)} ${c.path}  ${detail}  (owner ${c.owner})\n`);
  }
  for (const c of result.canonical)
    io.stdout.write(
      `digest   ${c.digestFile}  ${c.from?.slice(0, 12) ?? '(new)'} → ${c.to.slice(0, 12)}  (${c.file})\n`,
    );
  if (dryRun) {
    io.stdout.write('\n--dry-run: nothing written\n');
    return 1;
  }
  const files = [result.lockFile, ...result.canonical.map((c) => c.digestFile)];
  io.stdout.write(
    `\nwrote ${files.join(', ')}. This is the human path: commit it on its own, never inside an agent's diff:\n  git add ${files.join(' ')} && git commit -m "patchgate: re-lock fixtures"\n`,
  );
  return 0;
}
