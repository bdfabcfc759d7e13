import { TERMINAL_WIDTH, wrapWords } from '../util/wrap.js';
import { commandList } from './options.js';
import { COMMANDS, isGroup } from './specs.js';

/** `patchgate --help`: every command and subcommand with its one-line summary, from the same specs the parser uses. */
export function renderTopHelp(): string {
  const rows = COMMANDS.flatMap((c) => (isGroup(c) ? c.subcommands : [c]));
  const lines = [
    'patchgate: a merge gate for patches written by coding agents',
    '',
    'Usage: patchgate COMMAND [options]',
    '       patchgate COMMAND --help    (or patchgate help COMMAND): the options of a command',
    '       patchgate --version',
    '',
    'Commands:',
    ...commandList(rows),
    '',
    ...wrapWords('Exit codes: 0 accept, 1 reject, 2 bad input or usage, 3 internal error.', {
      width: TERMINAL_WIDTH,
    }),
    ...wrapWords(
      'Environment: NO_COLOR disables colour; GITHUB_STEP_SUMMARY receives summary.md; CI_DATE (or --today) is the date freezes expire against, never read from the repository.',
      { width: TERMINAL_WIDTH, hanging: 2 },
    ),
  ];
  return `${lines.join('\n')}\n`;
}
