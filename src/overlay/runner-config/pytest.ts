/**
 * The modules the base's pytest configuration loads and the test files it
 * declares: plugins named by `-p` (in `addopts`, the test command,
 * `PYTEST_ADDOPTS`), by `PYTEST_PLUGINS` and by `pytest_plugins` in the
 * base's conftest files, resolved on every folder Python may import them
 * from (the root, `pythonpath`, `PYTHONPATH` in `tests.env`, each conftest's
 * base folder); the `-c` file; and `python_files` patterns under
 * `testpaths`. Read with the same TOML and INI readers the split uses.
 */
import path from 'node:path';
import { parse as shellParse } from 'shell-quote';
import { IniParseError, parseIni } from '../../config/ini-sections.js';
import { parseToml, TomlParseError } from '../toml-sections.js';
import type { Collector } from './collector.js';
import { escapeGlob } from './paths.js';

const INI_FILES = ['pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg'];
const TOML_FILES = ['pytest.toml', '.pytest.toml', 'pyproject.toml'];
const CATCH_ALL = new Set(['*', '*.py', '**/*.py']);

interface Option {
  value: string | string[];
  file: string;
  line: number;
}

/** The line a TOML key is written on: the first line naming it (TOML keeps no positions). */
function tomlLine(text: string, key: string): number {
  const i = text.split(/\r?\n/).findIndex((l) => l.includes(key));
  return i < 0 ? 1 : i + 1;
}

function words(value: string | string[]): string[] {
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string');
  return shellParse(value, (n) => `$${n}`).flatMap((t) =>
    typeof t === 'string' ? [t] : 'op' in t && t.op === 'glob' ? [t.pattern] : [],
  );
}

const listOf = (v: unknown): string[] | string | undefined =>
  typeof v === 'string'
    ? v
    : Array.isArray(v)
      ? v.filter((x): x is string => typeof x === 'string')
      : undefined;

/** pytest's options from one config file: `[pytest]` / `[tool:pytest]` / `[tool.pytest.ini_options]` / `[tool.pytest]`. */
async function optionsOf(file: string, out: Collector): Promise<Map<string, Option>> {
  const options = new Map<string, Option>();
  const text = await out.files.read(file);
  if (text === undefined) return options;
  const name = path.posix.basename(file);
  try {
    if (name.endsWith('.toml')) {
      const doc = parseToml(text);
      const tool = doc.tool as Record<string, unknown> | undefined;
      const pytest = (name === 'pyproject.toml' ? tool?.pytest : doc.pytest) as
        | Record<string, unknown>
        | undefined;
      const tables = [pytest, pytest?.ini_options as Record<string, unknown> | undefined];
      for (const t of tables) {
        if (!t || typeof t !== 'object') continue;
        for (const [k, v] of Object.entries(t)) {
          const value = listOf(v);
          if (value !== undefined) options.set(k, { value, file, line: tomlLine(text, k) });
        }
      }
    } else {
      for (const s of parseIni(text)) {
        if (s.name !== 'pytest' && s.name !== 'tool:pytest') continue;
        for (const [k, v] of s.values) options.set(k, { value: v, file, line: s.keyLines.get(k) ?? s.line });
      }
    }
  } catch (err) {
    // A file pytest refuses stops the base's run too; it names nothing here.
    if (!(err instanceof TomlParseError || err instanceof IniParseError)) throw err;
  }
  return options;
}

/** `pytest_plugins = "x"` / `["a", "b"]` at a conftest's top level, read as the Python literal it must be. */
export function conftestPlugins(
  text: string,
): { names: string[]; line: number } | { unread: string; line: number } | undefined {
  const m = /^pytest_plugins\s*(?::[^=\n]*)?\+?=\s*/m.exec(text);
  if (!m) return undefined;
  const line = text.slice(0, m.index).split('\n').length;
  let i = m.index + m[0].length;
  const names: string[] = [];
  const open = text[i];
  const close = open === '[' ? ']' : open === '(' ? ')' : undefined;
  if (close) i++;
  for (;;) {
    // Whitespace, commas, comments and (inside brackets) line breaks between the names.
    while (
      i < text.length &&
      (/[ \t,]/.test(text[i] as string) || (close && /[\r\n\\]/.test(text[i] as string)) || text[i] === '#')
    ) {
      if (text[i] === '#') while (i < text.length && text[i] !== '\n') i++;
      else i++;
    }
    if (close && text[i] === close) return { names, line };
    const s = /^[rRuU]?("""|'''|"|')/.exec(text.slice(i));
    if (!s) {
      if (!close && names.length > 0 && (i >= text.length || /[\r\n;]/.test(text[i] as string)))
        return { names, line };
      const rest = text.slice(
        m.index,
        text.indexOf('\n', m.index) < 0 ? undefined : text.indexOf('\n', m.index),
      );
      return { unread: rest.trim(), line };
    }
    const quote = s[1] as string;
    const start = i + s[0].length;
    const end = text.indexOf(quote, start);
    if (end < 0) return { unread: text.slice(m.index, m.index + 80).trim(), line };
    names.push(text.slice(start, end));
    i = end + quote.length;
    if (!close) return { names, line };
  }
}

/** Folders Python imports a conftest's modules from: its first folder upward that is not a package. */
function conftestBase(file: string, has: (p: string) => boolean): string {
  let dir = path.posix.dirname(file).replace(/^\.$/, '');
  while (dir !== '' && has(`${dir}/__init__.py`)) dir = path.posix.dirname(dir).replace(/^\.$/, '');
  return dir;
}

export interface PytestInputs {
  /** The test command's arguments after `pytest` (each command that runs pytest). */
  args: string[][];
  env: Readonly<Record<string, string>>;
  /** Where the command and env are written (the base config file). */
  configFile: string;
}

export async function pytestFiles(inputs: PytestInputs, out: Collector): Promise<void> {
  const files = out.files;
  const configFiles = [...TOML_FILES, ...INI_FILES].filter((f) => files.has(f));
  // `-c FILE` replaces the discovered file.
  for (const args of inputs.args)
    args.forEach((a, i) => {
      const v = a === '-c' || a === '--config-file' ? args[i + 1] : /^--config-file=(.+)$/.exec(a)?.[1];
      if (v && !v.startsWith('/')) {
        const p = path.posix.normalize(v);
        out.name(escapeGlob(p), inputs.configFile, 1, `tests.command ${a.split('=')[0]}`);
        configFiles.unshift(p);
      }
    });
  // pytest reads one of these files, the first that configures it; every one of them counts here.
  const all = await Promise.all(configFiles.map((f) => optionsOf(f, out)));
  const option = (key: string) => all.map((o) => o.get(key)).filter((o): o is Option => o !== undefined);

  const argLists: { args: string[]; file: string; line: number; key: string }[] = [
    ...inputs.args.map((args) => ({ args, file: inputs.configFile, line: 1, key: 'tests.command' })),
  ];
  for (const addopts of option('addopts'))
    argLists.push({ args: words(addopts.value), file: addopts.file, line: addopts.line, key: 'addopts' });
  if (inputs.env.PYTEST_ADDOPTS)
    argLists.push({
      args: words(inputs.env.PYTEST_ADDOPTS),
      file: inputs.configFile,
      line: 1,
      key: 'tests.env.PYTEST_ADDOPTS',
    });

  const plugins: { name: string; file: string; line: number; key: string }[] = [];
  for (const { args, file, line, key } of argLists)
    args.forEach((a, i) => {
      const v =
        a === '-p'
          ? args[i + 1]
          : a.startsWith('-p') && a.length > 2
            ? a.slice(2).replace(/^=/, '')
            : undefined;
      if (v && !v.startsWith('no:')) plugins.push({ name: v, file, line, key: `${key} -p` });
    });
  for (const name of (inputs.env.PYTEST_PLUGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean))
    plugins.push({ name, file: inputs.configFile, line: 1, key: 'tests.env.PYTEST_PLUGINS' });

  const roots = new Set<string>(['']);
  for (const pythonpath of option('pythonpath'))
    for (const p of words(pythonpath.value)) roots.add(path.posix.normalize(p).replace(/^\.$/, ''));
  for (const p of (inputs.env.PYTHONPATH ?? '').split(':').filter(Boolean))
    roots.add(path.posix.normalize(p).replace(/^\.$/, ''));
  for (const f of files.paths) {
    if (path.posix.basename(f) !== 'conftest.py') continue;
    roots.add(conftestBase(f, (p) => files.has(p)));
    const found = conftestPlugins((await files.read(f)) ?? '');
    if (found && 'unread' in found)
      out.unread.push({
        file: f,
        line: found.line,
        key: 'pytest_plugins',
        value: found.unread,
        why: 'pytest_plugins is not a literal list of module names',
      });
    else if (found)
      for (const name of found.names)
        plugins.push({ name, file: f, line: found.line, key: 'pytest_plugins' });
  }

  for (const p of plugins) {
    if (!/^[A-Za-z_][\w.]*$/.test(p.name)) continue;
    const rel = p.name.split('.').join('/');
    for (const root of roots) {
      if (root.startsWith('/') || root.startsWith('..')) continue;
      const at = escapeGlob(root === '' ? rel : `${root}/${rel}`);
      for (const g of [`${at}.py`, `${at}/**`, `${at}.*.so`]) out.name(g, p.file, p.line, p.key);
    }
  }

  const testpaths = option('testpaths');
  for (const pythonFiles of option('python_files')) {
    const listed = testpaths
      .flatMap((t) => words(t.value))
      .map((t) => path.posix.normalize(t).replace(/\/$/, ''));
    const under = listed.length > 0 ? listed : [''];
    for (const pattern of words(pythonFiles.value)) {
      if (CATCH_ALL.has(pattern)) continue;
      for (const t of under) {
        if (t.startsWith('/') || t.startsWith('..')) continue;
        const prefix = t === '' || t === '.' ? '' : `${escapeGlob(t)}/`;
        out.name(
          pattern.includes('/') ? `${prefix}${pattern}` : `${prefix}**/${pattern}`,
          pythonFiles.file,
          pythonFiles.line,
          'python_files',
        );
      }
    }
  }
}
