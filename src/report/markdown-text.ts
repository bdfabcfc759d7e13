import { displayText } from '../util/display-text.js';

/**
 * Text in summary.md, which GitHub renders as GitHub-flavoured Markdown in a
 * pull request and a job summary. Anything the patch wrote (a test name, a
 * failure message, a path, a ref, an evidence value) goes in a code span:
 * inside one, no renderer makes a link, an image, raw HTML, an autolink
 * (`https://…`, `www.…`, an email), and GitHub makes no @mention, #123
 * reference or :emoji:. Backslash escapes would not do: GitHub's autolinker,
 * mention and reference filters read the rendered text, after the escapes
 * are gone.
 *
 * A code span is broken out of by a longer backtick run than its fence (so
 * the fence is longer than any run inside), by a line break (so there is
 * none: `↵` shows where one was) and, in a table row, by an unescaped `|`,
 * which ends the cell before code spans are even looked for (so every pipe
 * is `\|`, and a run of backslashes before it is doubled, so that it cannot
 * escape the escape: cmark-gfm and micromark both then end with one `|`).
 */

/** Where a line break in the text was. */
const BREAK = ' ↵ ';

/**
 * `s` as a code span that shows its text and nothing else. `table: true`
 * (the default) for a table cell. The text is display-safe first (controls,
 * bidi overrides and workflow commands escaped, as on a terminal).
 */
export function mdCode(s: string, { table = true }: { table?: boolean } = {}): string {
  let t = displayText(s).replace(/\r?\n/g, BREAK);
  if (table) t = t.replace(/(\\*)\|/g, (_m, slashes: string) => `${slashes}${slashes}\\|`);
  if (t === '') return '(empty)';
  let longest = 0;
  for (const run of t.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  // A span that starts or ends with a backtick needs a space to keep it off the fence; one that starts and
  // ends with a space would lose one of each to the renderer's stripping, so it gets its own.
  const pad =
    t.startsWith('`') || t.endsWith('`') || (t.startsWith(' ') && t.endsWith(' ') && t.trim() !== '')
      ? ' '
      : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * Our own words (a layer's reason, a code's next step) as Markdown text:
 * every character that could start Markdown syntax inside a line is
 * backslash-escaped and line breaks become `<br>`, so the sentence shows as
 * written even in a table cell. (`#` only means something at a line's start,
 * where none of these strings goes.)
 */
export function mdProse(s: string): string {
  return (
    displayText(s)
      .replace(/[\\`*[\]<>!|&~]/g, '\\$&')
      // An underscore inside a word (UNFROZEN_SKIP) is never emphasis in GFM; one at a word's edge can be.
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
      .replace(/\r?\n/g, '<br>')
  );
}
