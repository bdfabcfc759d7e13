import { pushAll } from './arrays.js';
/**
 * Word wrapping for what a person reads in a terminal: help text, the report
 * table. Lines break between words; a single word longer than the width is the
 * only thing ever broken inside, since it cannot fit any other way.
 */

/** The width the CLI's output fits: help, the terminal report, the progress line. */
export const TERMINAL_WIDTH = 100;

export interface WrapOptions {
  /** Total width of every output line, indentation included. */
  width: number;
  /** Leading spaces of the first line (default 0). */
  indent?: number;
  /** Leading spaces of every following line (default: `indent`). */
  hanging?: number;
}

/**
 * `text` as lines no wider than `width` (in UTF-16 code units: what the CLI
 * prints is ASCII or close to it). Runs of spaces collapse to one, newlines
 * are kept as line breaks, and every line carries its indentation.
 */
export function wrapWords(text: string, opts: WrapOptions): string[] {
  const indent = opts.indent ?? 0;
  const hanging = opts.hanging ?? indent;
  const out: string[] = [];
  for (const [i, para] of text.split('\n').entries()) {
    const first = i === 0 ? indent : hanging;
    pushAll(out, wrapLine(para, opts.width, first, hanging));
  }
  return out;
}

function wrapLine(text: string, width: number, first: number, hanging: number): string[] {
  const words = text.split(/ +/).filter((w) => w !== '');
  const lines: string[] = [];
  let pad = first;
  let line = '';
  const room = () => Math.max(1, width - pad);
  const flush = () => {
    lines.push(' '.repeat(pad) + line);
    line = '';
    pad = hanging;
  };
  for (let word of words) {
    if (line !== '' && line.length + 1 + word.length <= room()) {
      line += ` ${word}`;
      continue;
    }
    if (line !== '') flush();
    // Only a word wider than the whole line is cut, where the line ends.
    while (word.length > room()) {
      line = word.slice(0, room());
      word = word.slice(room());
      flush();
    }
    line = word;
  }
  if (line !== '' || lines.length === 0) lines.push(' '.repeat(pad) + line);
  return lines;
}

/**
 * `text` shortened to at most `max` characters at a word boundary, with `…`
 * when something was left out. A first word longer than `max` is the one case
 * cut inside a word.
 */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(1, max - 1);
  const head = text.slice(0, room + 1);
  const space = head.lastIndexOf(' ');
  const kept = space > 0 ? head.slice(0, space).trimEnd() : text.slice(0, room);
  return `${kept}…`;
}
