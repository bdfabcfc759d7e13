import { parse as shellParse } from 'shell-quote';

/**
 * One shell command line as words, split at `&&`, `||`, `;` and `|`; globs
 * kept as their pattern and `$NAME` left as written, so a command reads the
 * same whichever environment later runs it.
 */
export function shellCommands(text: string): string[][] {
  const out: string[][] = [[]];
  for (const tok of shellParse(text, (name) => `$${name}`)) {
    if (typeof tok === 'string') (out[out.length - 1] as string[]).push(tok);
    else if ('op' in tok && tok.op === 'glob') (out[out.length - 1] as string[]).push(tok.pattern);
    else if ('op' in tok) out.push([]);
  }
  return out.filter((c) => c.length > 0);
}
