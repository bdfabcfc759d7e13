/**
 * Text the patch wrote (test names, failure messages, runner output, paths)
 * as it may be shown to a person: on a terminal, in a CI log, in summary.md,
 * in report.html. Three classes of character and sequence are never passed
 * through as they are:
 *
 * - control characters: C0 (but newline and tab), DEL and C1. ESC and its
 *   8-bit twin CSI (U+009B) start terminal escape sequences that move the
 *   cursor, rewrite what was printed, retitle the window or hide text; CR
 *   and backspace overwrite a line on screen;
 * - characters that change how a line reads without being visible: the bidi
 *   embeddings, overrides, isolates and marks (U+061C, U+200E, U+200F,
 *   U+202A–U+202E, U+2066–U+2069), which reorder what a reviewer reads
 *   (Trojan Source), the line and paragraph separators, and the zero-width
 *   characters that make two different names look the same;
 * - GitHub Actions workflow commands: a runner reading a job's output runs
 *   `::command::` when it starts a line (after spaces) and the legacy
 *   `##[command]` anywhere in one, so a test name could raise annotations,
 *   mask words in the log or stop the gate's own annotations.
 *
 * Each such character is written as its `\uXXXX` escape (a workflow
 * command's first character too), so the reviewer sees that something was
 * there and what. The escape is also JSON's: a JSON text passed through
 * {@link displayText} still parses to the same value.
 */

/** What is never shown raw: C0 but \t and \n, DEL, C1, bidi controls and marks, separators, zero-width characters. */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
/** A workflow command at the start of a line, after any whitespace the runner trims. */
const COMMAND_AT_LINE_START = /^(\s*):(?=:)/gm;
/** The same after the colour codes a line of ours may start with (a log viewer that drops them shows the rest). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: our own colour codes are what it skips
const COMMAND_AFTER_COLOUR = /^((?:\s|\u001b\[[0-9;]*m)*):(?=:)/gm;
/** The legacy command prefix, which the runner finds anywhere in a line. */
const LEGACY_COMMAND = /##\[/g;

function escapeChar(c: string): string {
  return `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`;
}

/** Whether `s` holds anything the three rules above rewrite: most text does not, and one test is cheaper than three replaces. */
const ANY_REWRITE = new RegExp(`${UNSAFE.source}|##\\[|${COMMAND_AT_LINE_START.source}`, 'm');

/** `s` with every unsafe character and every workflow command written as `\uXXXX`; newlines and tabs kept. */
export function displayText(s: string): string {
  if (!ANY_REWRITE.test(s)) return s;
  return s
    .replace(UNSAFE, escapeChar)
    .replace(LEGACY_COMMAND, '##\\u005b')
    .replace(COMMAND_AT_LINE_START, '$1\\u003a');
}

/**
 * Only the workflow-command part of {@link displayText}, for output that is
 * already display-safe piece by piece but was laid out afterwards: wrapping
 * can start a line with a word the patch wrote. Leaves the output's own
 * escape sequences (colours) alone.
 */
export function noWorkflowCommands(text: string): string {
  return text.replace(LEGACY_COMMAND, '##\\u005b').replace(COMMAND_AFTER_COLOUR, '$1\\u003a');
}

/** Whether `s` is shown as it is. */
export function isDisplaySafe(s: string): boolean {
  return displayText(s) === s;
}
