import { parseArgs } from 'node:util';
import { maxOf, pushAll } from '../util/arrays.js';
import { TERMINAL_WIDTH, wrapWords } from '../util/wrap.js';
import type { CliIO } from './io.js';
import { usage } from './usage.js';

/**
 * One spec per command and subcommand: the parser's options and the help text
 * both come from it, so `--help` cannot drift from what the command accepts.
 * This module and the specs (./specs.ts) import nothing heavy: `patchgate
 * --help` must not load the pipeline.
 */

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean | readonly string[];
  /** The value's name in usage and help, e.g. `REV` (string options; default `VALUE`). */
  placeholder?: string;
  /** Shown bare in the usage line rather than in brackets (the command checks it). */
  required?: boolean;
  /** Left out of the usage line (still in the options list). */
  hideInUsage?: boolean;
  description: string;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  multiple?: boolean;
}

export interface CommandSpec {
  /** The words after `patchgate`: `check`, `ledger add`. */
  name: string;
  /** One line, for the command list of `patchgate --help`. */
  summary: string;
  /** The usage line after `patchgate NAME`; generated from options and positionals when absent. */
  usage?: string;
  /** Paragraphs (blank-line separated) printed after the usage; indented lines are kept as they are. */
  description?: string;
  options: Readonly<Record<string, OptionSpec>>;
  positionals?: readonly PositionalSpec[];
}

/** A command with subcommands (`ledger add`): its help lists them. */
export interface GroupSpec {
  name: string;
  summary: string;
  description?: string;
  subcommands: readonly CommandSpec[];
}

const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'print this help and exit' };

type ValueOf<O extends OptionSpec> = O['type'] extends 'boolean' ? boolean : string;
type HasDefault<O> = O extends { default: string | boolean | readonly string[] } ? true : false;

/** What parsing a spec's options gives: options with a default are always present. */
export type OptionValues<Opts extends Readonly<Record<string, OptionSpec>>> = {
  -readonly [K in keyof Opts as HasDefault<Opts[K]> extends true ? K : never]: Opts[K] extends {
    multiple: true;
  }
    ? ValueOf<Opts[K]>[]
    : ValueOf<Opts[K]>;
} & {
  -readonly [K in keyof Opts as HasDefault<Opts[K]> extends true ? never : K]?: Opts[K] extends {
    multiple: true;
  }
    ? ValueOf<Opts[K]>[]
    : ValueOf<Opts[K]>;
};

export interface Parsed<S extends CommandSpec> {
  values: OptionValues<S['options']>;
  positionals: string[];
}

/** The options object `node:util` parseArgs takes, derived from the spec (with `--help`/`-h` added). */
export function parseArgsOptions(spec: CommandSpec) {
  const options: Record<
    string,
    { type: 'string' | 'boolean'; short?: string; multiple?: boolean; default?: string | boolean | string[] }
  > = {};
  for (const [name, o] of Object.entries({ ...spec.options, help: HELP_OPTION })) {
    options[name] = {
      type: o.type,
      ...(o.short !== undefined ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
      ...(o.default !== undefined
        ? { default: typeof o.default === 'object' ? [...o.default] : o.default }
        : {}),
    };
  }
  return options;
}

function parseRaw(spec: CommandSpec, args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: parseArgsOptions(spec),
      strict: true,
      allowPositionals: spec.positionals !== undefined && spec.positionals.length > 0,
    });
  } catch (err) {
    // parseArgs throws TypeErrors with an ERR_PARSE_ARGS_* code for unknown or malformed flags.
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
      throw usage(`${spec.name}: ${(err as Error).message}`, spec.name);
    throw err;
  }
}

/**
 * Parses `args` by the spec. With `--help` (or `-h`) it prints the command's
 * help to stdout and returns undefined: the command then returns 0.
 * Unknown or malformed flags are usage errors pointing at the help.
 */
export function parseCommand<S extends CommandSpec>(
  spec: S,
  args: readonly string[],
  io: Pick<CliIO, 'stdout'>,
): Parsed<S> | undefined {
  const { values, positionals } = parseRaw(spec, args);
  if (values.help === true) {
    io.stdout.write(renderCommandHelp(spec));
    return undefined;
  }
  delete values.help;
  return { values: values as OptionValues<S['options']>, positionals };
}

/**
 * Whether `args` ask for help, read the way the parser reads them (an option's
 * value that happens to be `--help` is a value). Never throws: a malformed
 * command line that also asks for help gets the help.
 */
export function wantsHelp(spec: CommandSpec, args: readonly string[]): boolean {
  const { tokens } = parseArgs({
    args: [...args],
    options: parseArgsOptions(spec),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  return tokens.some((t) => t.kind === 'option' && t.name === 'help');
}

// ---- help text ----

const WIDTH = TERMINAL_WIDTH;
/** The options column never grows past this; a longer flag puts its description on the next line. */
const MAX_LEFT = 30;

function flagText(name: string, o: OptionSpec): string {
  return o.type === 'string' ? `--${name} ${o.placeholder ?? 'VALUE'}` : `--${name}`;
}

/** `[--head REV]`, `--base REV`, `[--only ID]...`. */
function usageToken(name: string, o: OptionSpec): string {
  const t = flagText(name, o);
  const shown = o.required ? t : `[${t}]`;
  return o.multiple ? `${shown}...` : shown;
}

export function usageLine(spec: CommandSpec): string {
  if (spec.usage !== undefined) return `patchgate ${spec.name} ${spec.usage}`.trimEnd();
  const parts = [`patchgate ${spec.name}`];
  for (const p of spec.positionals ?? []) {
    const t = p.multiple ? `${p.name}...` : p.name;
    parts.push(p.required ? t : `[${t}]`);
  }
  const entries = Object.entries(spec.options).filter(([, o]) => !o.hideInUsage);
  for (const [name, o] of entries.filter(([, o]) => o.required)) parts.push(usageToken(name, o));
  for (const [name, o] of entries.filter(([, o]) => !o.required)) parts.push(usageToken(name, o));
  return parts.join(' ');
}

/** Tokens of a usage line, wrapped so a bracketed option is never split across lines. */
function wrapUsage(line: string, prefix: string, name: string): string[] {
  const tokens = line.match(/\[[^\]]*\](?:\.\.\.)?|\S+/g) ?? [];
  const hanging = prefix.length + `patchgate ${name} `.length;
  const glued = tokens.map((t) => t.replaceAll(' ', '\u00a0'));
  return wrapWords(prefix + glued.join(' '), { width: WIDTH, hanging: Math.min(hanging, 40) }).map((l) =>
    l.replaceAll('\u00a0', ' '),
  );
}

function defaultText(o: OptionSpec): string | undefined {
  if (o.default === undefined || o.default === false) return undefined;
  if (typeof o.default === 'object') return o.default.length > 0 ? o.default.join(', ') : undefined;
  return String(o.default);
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const left = `${o.short ? `-${o.short}, ` : '    '}${flagText(name, o)}`;
    const def = defaultText(o);
    const extra = [o.multiple ? 'repeatable' : undefined, def !== undefined ? `default: ${def}` : undefined]
      .filter((x) => x !== undefined)
      .join('; ');
    return { left, text: extra === '' ? o.description : `${o.description} (${extra})` };
  });
  const col =
    Math.min(
      MAX_LEFT,
      maxOf(
        rows.map((r) => r.left.length),
        0,
      ),
    ) + 4;
  const lines: string[] = [];
  for (const r of rows) {
    const head = `  ${r.left}`;
    if (head.length + 2 <= col) {
      const body = wrapWords(r.text, { width: WIDTH, indent: col, hanging: col });
      lines.push(head + (body[0] ?? '').slice(head.length));
      pushAll(lines, body.slice(1));
    } else {
      lines.push(head);
      pushAll(lines, wrapWords(r.text, { width: WIDTH, indent: col }));
    }
  }
  return lines;
}

/** Paragraphs reflowed to the width; lines that start with spaces (commands, lists) keep their indent. */
export function renderParagraphs(text: string, indent = 0): string[] {
  const out: string[] = [];
  for (const para of text.trim().split(/\n\s*\n/)) {
    if (out.length > 0) out.push('');
    let prose: string[] = [];
    const flushProse = () => {
      if (prose.length > 0) pushAll(out, wrapWords(prose.join(' '), { width: WIDTH, indent }));
      prose = [];
    };
    for (const line of para.split('\n')) {
      const lead = /^ */.exec(line)?.[0].length ?? 0;
      if (lead > 0) {
        flushProse();
        const bullet = /^ *[-*] /.test(line) ? 2 : 4;
        pushAll(
          out,
          wrapWords(line.trim(), { width: WIDTH, indent: indent + lead, hanging: indent + lead + bullet }),
        );
      } else prose.push(line.trim());
    }
    flushProse();
  }
  return out;
}

export function renderCommandHelp(spec: CommandSpec): string {
  const lines = [...wrapWords(`patchgate ${spec.name}: ${spec.summary}`, { width: WIDTH, hanging: 2 }), ''];
  pushAll(lines, wrapUsage(usageLine(spec), 'Usage: ', spec.name));
  if (spec.description) pushAll(lines, ['', ...renderParagraphs(spec.description)]);
  const positionals = spec.positionals ?? [];
  if (positionals.length > 0) {
    lines.push('', 'Arguments:');
    const col =
      Math.min(
        MAX_LEFT,
        maxOf(
          positionals.map((p) => p.name.length + 2),
          0,
        ),
      ) + 4;
    for (const p of positionals) {
      const head = `  ${p.name}`;
      const body = wrapWords(p.description, { width: WIDTH, indent: col });
      pushAll(
        lines,
        head.length + 2 <= col
          ? [head + (body[0] ?? '').slice(head.length), ...body.slice(1)]
          : [head, ...body],
      );
    }
  }
  pushAll(lines, ['', 'Options:', ...optionLines({ ...spec.options, help: HELP_OPTION })]);
  return `${lines.join('\n')}\n`;
}

export function renderGroupHelp(group: GroupSpec): string {
  const lines = [...wrapWords(`patchgate ${group.name}: ${group.summary}`, { width: WIDTH, hanging: 2 }), ''];
  pushAll(lines, wrapUsage(`patchgate ${group.name} SUBCOMMAND [options]`, 'Usage: ', group.name));
  if (group.description) pushAll(lines, ['', ...renderParagraphs(group.description)]);
  pushAll(lines, ['', 'Subcommands:', ...commandList(group.subcommands)]);
  lines.push('', `Run \`patchgate ${group.name} SUBCOMMAND --help\` for its options.`);
  return `${lines.join('\n')}\n`;
}

/** `  name   summary` rows, summaries wrapped under their column. */
export function commandList(specs: readonly { name: string; summary: string }[]): string[] {
  const col =
    Math.min(
      MAX_LEFT,
      maxOf(
        specs.map((s) => s.name.length + 2),
        0,
      ),
    ) + 4;
  const lines: string[] = [];
  for (const s of specs) {
    const head = `  ${s.name}`;
    const body = wrapWords(s.summary, { width: WIDTH, indent: col });
    pushAll(
      lines,
      head.length + 2 <= col
        ? [head + (body[0] ?? '').slice(head.length), ...body.slice(1)]
        : [head, ...body],
    );
  }
  return lines;
}
