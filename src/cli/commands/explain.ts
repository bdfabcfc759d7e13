import { isReasonCode, REASON_CODES, type ReasonCode } from '../../codes.js';
import { maxOf } from '../../util/arrays.js';
import { editDistance } from '../../util/edit-distance.js';
import { cutAtWord, TERMINAL_WIDTH, wrapWords } from '../../util/wrap.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { EXPLAIN } from '../specs.js';
import { usage } from '../usage.js';

/**
 * The codes someone typing `wanted` most likely meant: those containing it,
 * or closest by edit distance; failing both, those sharing a word with it.
 * At most `max`.
 */
export function nearestCodes(wanted: string, max = 3): ReasonCode[] {
  const w = wanted.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  const codes = Object.keys(REASON_CODES) as ReasonCode[];
  const byScore = (xs: { code: ReasonCode; score: number }[]) =>
    xs
      .sort((a, b) => a.score - b.score || (a.code < b.code ? -1 : 1))
      .slice(0, max)
      .map((s) => s.code);
  const limit = Math.max(3, Math.floor(w.length / 3));
  const close = codes
    .map((code) => ({ code, score: w.length >= 3 && code.includes(w) ? 0 : editDistance(w, code) }))
    .filter((s) => s.score <= limit);
  if (close.length > 0) return byScore(close);
  const words = w.split('_').filter((x) => x.length >= 4);
  return byScore(
    codes
      .filter((code) => words.some((x) => code.includes(x)))
      .map((code) => ({ code, score: editDistance(w, code) })),
  );
}

/** The full explanation of one code, wrapped to the terminal width. */
export function explainText(code: ReasonCode): string {
  const e = REASON_CODES[code];
  const field = (label: string, text: string) =>
    wrapWords(text, { width: TERMINAL_WIDTH, indent: 8 }).map((l, i) =>
      i === 0 ? `  ${label.padEnd(6)}${l.slice(8)}` : l,
    );
  return `${[code, ...field('What', e.meaning), ...field('Why', e.why), ...field('Next', e.next)].join('\n')}\n`;
}

/** Every code with the first sentence of its meaning, one line each. */
export function codeList(): string {
  const codes = Object.keys(REASON_CODES) as ReasonCode[];
  const col =
    maxOf(
      codes.map((c) => c.length),
      0,
    ) + 2;
  const lines = codes.map((code) => {
    const first = REASON_CODES[code].meaning.split(/(?<=\.)\s/)[0] ?? '';
    return `${code.padEnd(col)}${cutAtWord(first, TERMINAL_WIDTH - col)}`;
  });
  return `${lines.join('\n')}\n\nRun \`patchgate explain CODE\` for what a code means, why, and how to resolve it.\n`;
}

export async function explainCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(EXPLAIN, args, io);
  if (!parsed) return 0;
  const [given, ...extra] = parsed.positionals;
  if (extra.length > 0)
    throw usage('explain takes one reason code, e.g. `patchgate explain FIXTURE_CHANGED`');
  if (given === undefined) {
    io.stdout.write(codeList());
    return 0;
  }
  const code = given.toUpperCase();
  if (!isReasonCode(code)) {
    const near = nearestCodes(given);
    throw usage(
      `unknown reason code '${given}'${near.length > 0 ? `; did you mean ${near.join(', ')}?` : ''} (\`patchgate explain\` lists them all)`,
    );
  }
  io.stdout.write(explainText(code));
  return 0;
}
