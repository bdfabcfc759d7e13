import { stat } from 'node:fs/promises';
import path from 'node:path';
import { formatValidation, validateContracts } from '../../contracts/validate.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { TERMINAL_WIDTH, wrapWords } from '../../util/wrap.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { VALIDATE } from '../specs.js';

async function isFile(abs: string): Promise<boolean> {
  return stat(abs).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** `patchgate validate`: the working tree's config and contract files, read as the gate reads the base's. */
export async function validateCommand(args: string[], io: CliIO): Promise<number> {
  if (!parseCommand(VALIDATE, args, io)) return 0;
  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const root = await findRepoRoot(git);
  const repo = git.at(root);
  const result = await validateContracts(root, {
    signal: io.signal,
    // What `check` takes as the working tree: tracked files still there, and untracked files not ignored.
    listFiles: async () => {
      const listed = await repo.out(['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
      const files = [...new Set(listed.split('\0').filter((p) => p !== ''))];
      const present = await Promise.all(files.map((f) => isFile(path.join(root, f))));
      return files.filter((_, i) => present[i]);
    },
  });
  const say = (text: string, indent = 0) => {
    for (const l of wrapWords(text, { width: TERMINAL_WIDTH, indent, hanging: indent === 0 ? 2 : indent }))
      io.stdout.write(`${l}\n`);
  };
  // A config that runs no tests is valid, and the most consequential thing to know about it: said first.
  if (result.testsOff) {
    io.stdout.write(`${result.testsOff.headline}\n`);
    say(result.testsOff.detail, 2);
    for (const line of result.testsOff.lines) io.stdout.write(`    ${line}\n`);
    say(result.testsOff.next, 2);
  }
  for (const note of result.notes) say(`note: ${note}`);
  const lines = formatValidation(result);
  if (lines.length > 0) {
    for (const line of lines) io.stdout.write(`${line}\n`);
    const files = new Set(result.problems.map((p) => p.file)).size;
    io.stdout.write(
      `\n${lines.length} problem${lines.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}; \`patchgate check\` would stop on ${lines.length === 1 ? 'it' : 'them'} once committed. Fix ${lines.length === 1 ? 'it' : 'them'} and run \`patchgate validate\` again.\n`,
    );
    return EXIT.input;
  }
  const n = result.files.filter((f) => f.status === 'ok').length;
  io.stdout.write(`ok: ${n} file${n === 1 ? '' : 's'}\n`);
  return 0;
}
