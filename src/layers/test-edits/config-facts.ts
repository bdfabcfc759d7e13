/**
 * What a runner's configuration file selects: the entries of the lists that
 * include or exclude tests. vitest, jest and mocha configurations are read
 * as data by js-value (the TypeScript compiler's AST, never run); pytest's
 * by the TOML and INI readers the overlay's split uses. An entry the head
 * adds to an exclude list, or takes out of an include list, drops tests from
 * the run.
 */
import path from 'node:path';
import { parse as shellParse } from 'shell-quote';
import type TS from 'typescript';
import { IniParseError, parseIni } from '../../config/ini-sections.js';
import {
  getKey,
  JEST_CONFIGS,
  MOCHA_CONFIGS,
  VITEST_CONFIGS,
} from '../../overlay/runner-config/js-runners.js';
import { JsConfigReader, type JsValue } from '../../overlay/runner-config/js-value.js';
import { parseToml, TomlParseError } from '../../overlay/toml-sections.js';
import type { ExcludeEntry, FileReading } from './model.js';

const PYTEST_INI = new Set(['pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg']);
const PYTEST_TOML = new Set(['pytest.toml', '.pytest.toml', 'pyproject.toml']);
const JS_CONFIGS = new Set([
  ...VITEST_CONFIGS,
  ...JEST_CONFIGS,
  ...MOCHA_CONFIGS.filter((f) => !/\.ya?ml$/.test(f)),
]);
const WORKSPACE = /^vitest\.(workspace|projects)\.[cm]?[jt]s(on)?$/;

/** Keys of the JavaScript runners: `exclude` lists drop what they match, `include` lists keep only it. */
const JS_KEYS: { key: string; sense: ExcludeEntry['sense'] }[] = [
  { key: 'test.exclude', sense: 'exclude' },
  { key: 'exclude', sense: 'exclude' },
  { key: 'testPathIgnorePatterns', sense: 'exclude' },
  { key: 'modulePathIgnorePatterns', sense: 'exclude' },
  { key: 'ignore', sense: 'exclude' },
  { key: 'test.include', sense: 'include' },
  { key: 'include', sense: 'include' },
  { key: 'testMatch', sense: 'include' },
  { key: 'testRegex', sense: 'include' },
  { key: 'roots', sense: 'include' },
  { key: 'spec', sense: 'include' },
];
/** pytest's options that select tests. */
const PYTEST_LISTS: { key: string; sense: ExcludeEntry['sense'] }[] = [
  { key: 'testpaths', sense: 'include' },
  { key: 'python_files', sense: 'include' },
  { key: 'python_classes', sense: 'include' },
  { key: 'python_functions', sense: 'include' },
  { key: 'norecursedirs', sense: 'exclude' },
];
/** Command-line options (in `addopts`) that drop tests or plugins: each with its value. */
const DROPPING = new Set(['--ignore', '--ignore-glob', '--deselect', '-k', '-m', '-p']);

/** Whether the gate reads this file's include and exclude lists. */
export function isRunnerConfig(file: string): boolean {
  const name = path.posix.basename(file);
  return (
    PYTEST_INI.has(name) ||
    PYTEST_TOML.has(name) ||
    JS_CONFIGS.has(name) ||
    WORKSPACE.test(name) ||
    name === 'package.json'
  );
}

export function configFacts(ts: typeof TS, file: string, text: string): FileReading {
  const name = path.posix.basename(file);
  try {
    const excludes =
      PYTEST_INI.has(name) || PYTEST_TOML.has(name) ? pytestEntries(name, text) : jsEntries(ts, file, text);
    return { ok: true, facts: { units: [], hooks: [], mocks: [], excludes, marks: [] } };
  } catch (err) {
    if (err instanceof TomlParseError || err instanceof IniParseError)
      return { ok: false, error: err.message, line: 0 };
    throw err;
  }
}

function strings(v: JsValue | undefined): { value: string; line: number }[] {
  if (!v) return [];
  if (v.kind === 'string') return [{ value: v.value, line: v.line }];
  if (v.kind === 'array') return v.items.flatMap(strings);
  if (v.kind === 'either') return v.options.flatMap(strings);
  if (v.kind === 'code' || v.kind === 'literal') return [];
  if (v.kind === 'unknown') return [{ value: v.text, line: v.line }];
  return [];
}

function jsEntries(ts: typeof TS, file: string, text: string): ExcludeEntry[] {
  const root = new JsConfigReader(ts, file, text).exported();
  const prefix = path.posix.basename(file) === 'package.json' ? ['jest.', 'mocha.'] : [''];
  const out: ExcludeEntry[] = [];
  for (const p of prefix)
    for (const { key, sense } of JS_KEYS)
      for (const s of strings(getKey(root, p + key)))
        out.push({ key: p + key, value: s.value, line: s.line, sense });
  return out;
}

function words(value: string): string[] {
  return shellParse(value, (n) => `$${n}`).flatMap((t) =>
    typeof t === 'string' ? [t] : 'op' in t && t.op === 'glob' ? [t.pattern] : [],
  );
}

function pytestEntries(name: string, text: string): ExcludeEntry[] {
  const options = new Map<string, { values: string[]; line: number }>();
  if (PYTEST_TOML.has(name)) {
    const doc = parseToml(text);
    const tool = doc.tool as Record<string, unknown> | undefined;
    const pytest = (name === 'pyproject.toml' ? tool?.pytest : doc.pytest) as
      | Record<string, unknown>
      | undefined;
    const lines = text.split(/\r?\n/);
    for (const t of [pytest, pytest?.ini_options as Record<string, unknown> | undefined]) {
      if (!t || typeof t !== 'object') continue;
      for (const [k, v] of Object.entries(t)) {
        const values =
          typeof v === 'string'
            ? [v]
            : Array.isArray(v)
              ? v.filter((x): x is string => typeof x === 'string')
              : [];
        // TOML keeps no positions: the first line that names the key.
        const line = lines.findIndex((l) => l.includes(k)) + 1;
        options.set(k, { values, line: line > 0 ? line : 1 });
      }
    }
  } else {
    for (const s of parseIni(text)) {
      if (s.name !== 'pytest' && s.name !== 'tool:pytest') continue;
      for (const [k, v] of s.values) options.set(k, { values: [v], line: s.keyLines.get(k) ?? s.line });
    }
  }
  const out: ExcludeEntry[] = [];
  for (const { key, sense } of PYTEST_LISTS) {
    const o = options.get(key);
    if (o) for (const w of o.values.flatMap(words)) out.push({ key, value: w, line: o.line, sense });
  }
  const addopts = options.get('addopts');
  if (addopts) {
    const args = addopts.values.flatMap(words);
    args.forEach((a, i) => {
      const eq = a.indexOf('=');
      const opt =
        a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a.startsWith('-p') && a.length > 2 ? '-p' : a;
      if (!DROPPING.has(opt)) return;
      const value = a === opt ? args[i + 1] : a.startsWith('--') ? a.slice(eq + 1) : a.slice(2);
      if (value !== undefined)
        out.push({ key: `addopts ${opt}`, value, line: addopts.line, sense: 'exclude' });
    });
  }
  return out;
}
