/**
 * Config files that hold both sides: `pyproject.toml` and `setup.cfg`
 * configure the package and pytest, `package.json` the package and its test
 * runner, `tsconfig.json` the compiler and the module resolution the tests'
 * imports go through. The overlay takes such a file from the head with its
 * test parts replaced by the base's, so a patch can change its dependencies'
 * metadata but not how the base's tests are run. Each format is read by a
 * real parser of that format (TOML 1.0, iniconfig's INI, JSON, JSONC), never
 * split by lines, and a copy that does not parse carries nothing past the
 * split: the overlay then has the base's copy whole.
 */
import picomatch from 'picomatch';
import type TS from 'typescript';
import { IniParseError, mergeIniSections } from '../config/ini-sections.js';
import { JsonParseError, type JsonSplit, mergeJsonSections, parseJsonObject } from './json-sections.js';
import { mergeTomlSections, TomlParseError } from './toml-sections.js';

/** One kind of mixed file and what in it belongs to the tests. */
export interface SectionRule {
  /** The file name (a glob over the name alone); the rule applies in every folder. */
  name: string;
  kind: 'toml' | 'ini' | 'json' | 'jsonc';
  /**
   * toml/json: dotted keys whose whole value is the tests' (toml: a trailing
   * `*` matches every key of that table starting so). ini: section names (a
   * trailing `*` matches any rest).
   */
  sections: readonly string[];
  /** json: dotted keys of alias maps split entry by entry (see json-sections). */
  entries?: readonly string[];
}

export const SECTION_RULES: readonly SectionRule[] = [
  {
    name: 'pyproject.toml',
    kind: 'toml',
    sections: [
      // pytest's own tables (`ini_options`, pytest 9's native `[tool.pytest]`) and its plugins' (`pytest_env`…).
      'tool.pytest*',
      'tool.hypothesis*',
      // coverage.py runs inside the test process under pytest-cov, and its `plugins` are code it imports.
      'tool.coverage',
      // Entry points pytest and Hypothesis load by themselves once a setup step installs the project.
      'project.entry-points.pytest11',
      'project.entry-points.hypothesis',
      'tool.poetry.plugins.pytest11',
      'tool.poetry.plugins.hypothesis',
    ],
  },
  { name: 'setup.cfg', kind: 'ini', sections: ['tool:pytest', 'pytest', 'coverage:*'] },
  { name: 'tox.ini', kind: 'ini', sections: ['pytest', 'coverage:*'] },
  {
    name: 'package.json',
    kind: 'json',
    sections: [
      'jest',
      'vitest',
      'mocha',
      'ava',
      'c8',
      'nyc',
      'babel',
      'scripts.test',
      'scripts.pretest',
      'scripts.posttest',
    ],
    entries: ['imports'],
  },
  {
    name: '{tsconfig,jsconfig}*.json',
    kind: 'jsonc',
    sections: ['extends', 'compilerOptions.baseUrl', 'compilerOptions.rootDirs'],
    entries: ['compilerOptions.paths'],
  },
];

const matchers = SECTION_RULES.map((r) => ({ rule: r, test: picomatch(r.name, { dot: true }) }));

/** The rule that splits this repository path, if it is a mixed file. */
export function sectionRuleFor(path: string): SectionRule | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return matchers.find((m) => m.test(name))?.rule;
}

export interface MergedFile {
  /** The overlay's copy; undefined for no file. */
  text: string | undefined;
  /** Set when a copy did not parse: why the overlay has the base's copy whole (or, without one, none). */
  fromBase?: string;
}

export interface MergeOptions {
  /** Module specifiers the base's test side imports (alias maps); undefined: unknown, every entry is the base's. */
  specifiers?: readonly string[] | undefined;
  /** The TypeScript compiler, which reads tsconfig's JSONC (needed for `jsonc` rules). */
  ts?: typeof TS;
}

function parseErrorText(err: unknown): string | undefined {
  if (err instanceof TomlParseError) return `is not valid TOML (${err.message})`;
  if (err instanceof IniParseError) return `is refused by pytest's INI reader (${err.message})`;
  if (err instanceof JsonParseError) return `is not a JSON object (${err.reason})`;
  return undefined;
}

function mergeText(rule: SectionRule, base: string, head: string, opts: MergeOptions): string {
  if (rule.kind === 'toml') return mergeTomlSections(rule.sections, base, head);
  if (rule.kind === 'ini') return mergeIniSections(rule.sections, base, head);
  const ts = rule.kind === 'jsonc' ? opts.ts : undefined;
  if (rule.kind === 'jsonc' && !ts) throw new Error('internal: a jsonc rule needs the TypeScript compiler');
  const split: JsonSplit = { sections: rule.sections, entries: rule.entries ?? [] };
  const empty = (t: string) => (t === '' ? {} : parseJsonObject(t, ts));
  return mergeJsonSections(split, empty(base), empty(head), head, opts.specifiers);
}

/**
 * The overlay's copy of a mixed file: the head's, with the test parts the
 * base has (and none of the head's own). A side without the file counts as
 * an empty one; undefined text when neither side has test parts to keep.
 */
export function mergeSections(
  rule: SectionRule,
  base: string | undefined,
  head: string | undefined,
  opts: MergeOptions = {},
): MergedFile {
  if (base === undefined && head === undefined) return { text: undefined };
  // A base copy that cannot be read has no test parts to give: the overlay runs what the base runs.
  if (base !== undefined) {
    try {
      mergeText(rule, base, '', opts);
    } catch (err) {
      const why = parseErrorText(err);
      if (why === undefined) throw err;
      return {
        text: base,
        fromBase: `the base's copy ${why}, so it cannot be split: the overlay has it whole`,
      };
    }
  }
  try {
    const text = mergeText(rule, base ?? '', head ?? '', opts);
    // Nothing of the tests' to add to a file the head does not have: no file.
    return { text: head === undefined && text === '' ? undefined : text };
  } catch (err) {
    const why = parseErrorText(err);
    if (why === undefined) throw err;
    return {
      text: base,
      fromBase: `the head's copy ${why}: nothing of it may reach the tests, so the overlay has the base's copy${base === undefined ? ' (none)' : ''}`,
    };
  }
}
