/**
 * The programs a configured command starts, past the launchers in front of
 * them: `env [NAME=VALUE…] pnpm test` starts pnpm, and `sh -c "pnpm install
 * && pnpm test"` starts sh and then pnpm twice. The pre-flight looks each one
 * up as the sandbox will (program-finding.ts): a pnpm under a home folder is
 * hidden from the sandbox whether the config names it or a shell script does.
 *
 * A script is read, not run: only the words a simple command starts with,
 * that no expansion can change. A command whose program or PATH comes from
 * an expansion (`$TOOL`, `PATH=$HOME/bin:$PATH tool`), a builtin, a reserved
 * word or a `command -v` probe names nothing; once a script assigns PATH,
 * nothing after it is looked up (which PATH it has then is the script's
 * business). What is named is looked up; what is not is left to the run.
 */
import path from 'node:path';

export interface LaunchedProgram {
  program: string;
  /** The PATH it is looked up on: the command's own, or one an `env PATH=…` or `PATH=… cmd` sets. */
  searchPath: string | undefined;
  /** How the command reaches it when the config does not name it first: `env`, `the sh -c script`. */
  via?: string;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox-sh']);

/** Words a shell runs itself, or that say a command starts next: never a program to look up. */
const BUILTINS = new Set([
  '.',
  ':',
  '[',
  '[[',
  'alias',
  'break',
  'builtin',
  'cd',
  'continue',
  'declare',
  'echo',
  'eval',
  'exit',
  'export',
  'false',
  'getopts',
  'hash',
  'local',
  'printf',
  'pwd',
  'read',
  'readonly',
  'return',
  'set',
  'shift',
  'source',
  'test',
  'trap',
  'true',
  'type',
  'typeset',
  'ulimit',
  'umask',
  'unalias',
  'unset',
  'wait',
]);

/** Reserved words that come before the command they govern. */
const LEADING_WORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'time', '{']);

/** Reserved words that start a command whose next words are not a program (`for x in …`, `case $x in`). */
const NOT_A_COMMAND = new Set(['for', 'case', 'select', 'function', 'fi', 'done', 'esac', '}', ']]', 'in']);

const MAX_DEPTH = 4;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A word that names a program as it is (no expansion, glob or quote left in it). */
const PLAIN = /^[A-Za-z0-9_@%+,.:/=-]+$/;

/**
 * `argv`'s program and the ones it launches, each once, in the order they
 * first start, `argv[0]` first. `searchPath` is the PATH of the command's
 * environment.
 */
export function launchedPrograms(argv: readonly string[], searchPath: string | undefined): LaunchedProgram[] {
  const out: LaunchedProgram[] = [];
  for (const p of launched(argv, searchPath, undefined, 0))
    if (!out.some((o) => o.program === p.program && o.searchPath === p.searchPath)) out.push(p);
  return out;
}

function launched(
  argv: readonly string[],
  searchPath: string | undefined,
  via: string | undefined,
  depth: number,
): LaunchedProgram[] {
  const [program] = argv;
  if (program === undefined || program === '' || depth > MAX_DEPTH) return [];
  const self: LaunchedProgram = { program, searchPath, ...(via !== undefined ? { via } : {}) };
  const name = path.basename(program);
  if (name === 'env') {
    const inner = envCommand(argv.slice(1), searchPath);
    return inner === undefined ? [self] : [self, ...launched(inner.argv, inner.searchPath, 'env', depth + 1)];
  }
  if (SHELLS.has(name)) {
    const script = shellScript(argv.slice(1));
    if (script === undefined) return [self];
    const found = scriptCommands(script).flatMap((cmd) =>
      launched(cmd.argv, cmd.path ?? searchPath, `the ${name} -c script`, depth + 1),
    );
    return [self, ...found];
  }
  return [self];
}

/** What `env` runs, and on which PATH; undefined when it runs nothing or says so in a way not read here. */
function envCommand(
  args: readonly string[],
  searchPath: string | undefined,
): { argv: string[]; searchPath: string | undefined } | undefined {
  let p = searchPath;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') return { argv: args.slice(i + 1), searchPath: p };
    if (a === '-S' || a === '--split-string') {
      const rest = args[i + 1];
      return rest === undefined
        ? undefined
        : envCommand([...rest.split(/\s+/).filter(Boolean), ...args.slice(i + 2)], p);
    }
    if (a.startsWith('-S') && a.length > 2)
      return envCommand([...a.slice(2).split(/\s+/).filter(Boolean), ...args.slice(i + 1)], p);
    if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') {
      i++;
      continue;
    }
    if (a === '-i' || a === '--ignore-environment' || a === '-') {
      // No PATH: the program must be found some other way, which is env's own lookup of an empty PATH.
      p = undefined;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (ASSIGNMENT.test(a)) {
      if (a.startsWith('PATH=')) p = a.slice('PATH='.length);
      continue;
    }
    return { argv: args.slice(i), searchPath: p };
  }
  return undefined;
}

/** The script of `sh -c SCRIPT` (options before it, `-c` alone or in a group such as `-ec`). */
function shellScript(args: readonly string[]): string | undefined {
  let wantsScript = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-o' || a === '+o' || a === '-O' || a === '+O') {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(a)) {
      if (a.startsWith('-') && a.includes('c')) wantsScript = true;
      // `-euo pipefail`: an o (or O) in a group takes the option name after it.
      if (/[oO]/.test(a)) i++;
      continue;
    }
    if (a === '--') continue;
    if (a.startsWith('--')) continue;
    // The first operand: the script when -c was given, a script file otherwise (which is the checkout's).
    return wantsScript ? a : undefined;
  }
  return undefined;
}

interface Word {
  text: string;
  /** An expansion or a glob is in this word: what it says is only known when it runs. */
  dynamic: boolean;
}

/** The simple commands of a shell script, as words; separators and redirections are dropped. */
function scriptWords(script: string): Word[][] {
  const commands: Word[][] = [];
  let words: Word[] = [];
  let text = '';
  let dynamic = false;
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push({ text, dynamic });
    text = '';
    dynamic = false;
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    if (c === '\\') {
      inWord = true;
      text += script[i + 1] ?? '';
      i++;
      continue;
    }
    if (c === "'") {
      // Literal: no expansion inside single quotes.
      const end = script.indexOf("'", i + 1);
      inWord = true;
      text += script.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? script.length : end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < script.length && script[j] !== '"') j += script[j] === '\\' ? 2 : 1;
      const inner = script.slice(i + 1, j);
      inWord = true;
      if (/[$`]/.test(inner)) dynamic = true;
      text += inner.replace(/\\(["\\$`])/g, '$1');
      i = j;
      continue;
    }
    if (c === '$' || c === '`' || c === '*' || c === '?' || c === '[' || (c === '~' && !inWord)) {
      // `$(` and backticks hold commands of their own; the word they sit in is not known, and neither is
      // what they run (looked up by nobody here: it is rare, and a guess would be worse).
      inWord = true;
      dynamic = true;
      if (c === '$' && script[i + 1] === '(') {
        let depth = 0;
        let j = i + 1;
        for (; j < script.length; j++) {
          if (script[j] === '(') depth++;
          else if (script[j] === ')' && --depth === 0) break;
        }
        i = j;
      } else if (c === '`') {
        const end = script.indexOf('`', i + 1);
        i = end < 0 ? script.length : end;
      } else text += c;
      continue;
    }
    if (c === '#' && !inWord) {
      const nl = script.indexOf('\n', i);
      i = nl < 0 ? script.length : nl - 1;
      continue;
    }
    if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      endCommand();
      continue;
    }
    if (c === '<' || c === '>') {
      // A redirection: the word it is glued to (2>, >&2) and its target are no command words.
      const before = /^\d*$/.test(text) && inWord;
      if (before || !inWord) {
        text = '';
        inWord = false;
      } else endWord();
      let j = i + 1;
      while (script[j] === '>' || script[j] === '&' || script[j] === '|') j++;
      while (script[j] === ' ' || script[j] === '\t') j++;
      while (j < script.length && !/[\s;&|()<>]/.test(script[j] as string)) j++;
      i = j - 1;
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      continue;
    }
    inWord = true;
    text += c;
  }
  endCommand();
  return commands;
}

/** The commands of `script` whose program is named as it is, with the PATH each runs on if it sets one. */
export function scriptCommands(script: string): { argv: string[]; path?: string }[] {
  const out: { argv: string[]; path?: string }[] = [];
  for (const words of scriptWords(script)) {
    let i = 0;
    let ownPath: string | undefined;
    let unknownPath = false;
    while (i < words.length) {
      const w = words[i] as Word;
      if (ASSIGNMENT.test(w.text) && !w.text.startsWith('=')) {
        if (w.text.startsWith('PATH=')) {
          if (w.dynamic) unknownPath = true;
          else ownPath = w.text.slice('PATH='.length);
        }
        i++;
        continue;
      }
      if (!w.dynamic && LEADING_WORDS.has(w.text)) {
        i++;
        continue;
      }
      break;
    }
    const first = words[i];
    // A PATH assigned on its own (`PATH=…; tool`, `export PATH=…`) holds for the rest of the script.
    if (first === undefined) {
      if (ownPath !== undefined || unknownPath) return out;
      continue;
    }
    if (
      !first.dynamic &&
      first.text === 'export' &&
      words.slice(i + 1).some((w) => w.text.startsWith('PATH='))
    )
      return out;
    if (unknownPath || first.dynamic || NOT_A_COMMAND.has(first.text) || BUILTINS.has(first.text)) continue;
    let rest = words.slice(i);
    if (first.text === 'exec' || first.text === 'command' || first.text === 'nohup') {
      rest = rest.slice(1);
      // `command -v tool` asks whether it exists; it does not run it.
      if (rest[0] === undefined || rest[0].text.startsWith('-')) continue;
    }
    const argv: string[] = [];
    for (const w of rest) {
      if (w.dynamic) break;
      argv.push(w.text);
    }
    const [program] = argv;
    if (program === undefined || !PLAIN.test(program) || BUILTINS.has(program)) continue;
    out.push({ argv, ...(ownPath !== undefined ? { path: ownPath } : {}) });
  }
  return out;
}
