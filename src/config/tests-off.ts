/**
 * What init and validate say about a config without a `tests` section: the
 * layers that run the repository's tests (regression, test-edits,
 * signatures, stability) are off, so a patch that breaks every test is
 * judged on its contracts and fixtures alone. That is never said in a note
 * among others: it is the first line, with the lines to paste that turn the
 * layers on.
 */
import { stringify } from 'yaml';
import type { PatchgateConfigInput } from './schema.js';

type TestsInput = NonNullable<PatchgateConfigInput['tests']>;

/** `a`, `a and b`, `a, b and c`. */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** The first line: the same words from init and validate, so a human (or a grep) finds one sentence. */
export function testsOffHeadline(layersOn: readonly string[]): string {
  return `warning: the test layers are off, so the gate judges only ${listWords(layersOn)}`;
}

/** JSON on one line with a space after each `:` and `,`, as a human writes it. */
function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/**
 * The lines that turn the test layers on, for a config file of this name:
 * the `tests` section and the two freeze-file layers that judge its runs
 * (their files at the defaults). JSON and TypeScript configs take the same
 * two lines inside their top-level object; YAML needs one line a key.
 */
export function testsOnLines(configFile: string, suggestion: TestsInput): string[] {
  if (/\.ya?ml$/.test(configFile))
    return [
      `tests: ${stringify(suggestion, { collectionStyle: 'flow' }).trim()}`,
      'signatures: {}',
      'stability: {}',
    ];
  return [`"tests": ${oneLine(suggestion)},`, '"signatures": {}, "stability": {},'];
}

/** After the lines: what the human does next. */
export const TESTS_ON_NEXT =
  'then run `patchgate validate`: it says how to create the two freeze files they turn on (flake_signatures.json and stability_freeze.json), which start empty. Set "preset" to the runner the tests use (vitest, jest, mocha, node-test, pytest, go, cargo-nextest, maven), or "command" to the test command as argv with {junit} where it writes a JUnit XML report.';
