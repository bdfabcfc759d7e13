/**
 * Why base tests did not run on the head's code, in the runner's words. A
 * test file that fails to import is reported by the runner as one failure of
 * the file itself, not of its tests: pytest writes a testcase named after the
 * module (`tests.test_a`, classname empty) with `collection failure` and the
 * traceback, and stops the whole session there; vitest writes a testcase
 * named after the file with `Cannot find module …` or `Failed to load url …`.
 * Those failures name the module that is missing; the tests that vanished
 * are named with them.
 */
import { assertionText } from '../../junit/assertion-text.js';
import type { TestOutcome } from '../../junit/model.js';

export interface LoadFailure {
  /** The test file that did not load, when the report says. */
  file?: string;
  /** The report's id of the failure. */
  test: string;
  /** The runner's own words: `ModuleNotFoundError: No module named 'x'`. */
  text: string;
}

const MODULE = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/;

/** The failures of a run that are a test file failing to load, not a test failing. */
export function loadFailures(
  run: readonly TestOutcome[],
  isBaseTest: (id: string) => boolean,
): LoadFailure[] {
  const out: LoadFailure[] = [];
  for (const t of run) {
    if (t.status !== 'error' && t.status !== 'failed') continue;
    if (isBaseTest(t.id)) continue;
    const f = t.failures[0];
    const text = f ? assertionText(f) : t.status;
    // pytest: the module's dotted name, no class.
    if (t.classname === '' && MODULE.test(t.name)) {
      out.push({ file: `${t.name.split('.').join('/')}.py`, test: t.id, text });
      continue;
    }
    // vitest, jest and others: a testcase named after its file.
    const file = t.file ?? (t.classname !== '' ? t.classname : undefined);
    if (
      file !== undefined &&
      (t.name === file ||
        t.name === '' ||
        /Cannot find (module|package)|Failed to load url|failed to import|ImportError|SyntaxError/.test(text))
    )
      out.push({ file, test: t.id, text });
  }
  return out;
}

export interface VanishCause {
  text: string;
  file?: string;
  test: string;
  /** The test's own file failed to load; false: another file's failure stopped the whole run. */
  own: boolean;
}

/**
 * What stopped a vanished test of `file`: its own file's load failure, else,
 * for a runner that stops the session at the first one (pytest, without
 * `--continue-on-collection-errors`), that one.
 */
export function causeFor(
  file: string | undefined,
  failures: readonly LoadFailure[],
  stopsAtFirst: boolean,
): VanishCause | undefined {
  const own = failures.find((f) => f.file !== undefined && f.file === file);
  if (own) return { text: own.text, ...(own.file ? { file: own.file } : {}), test: own.test, own: true };
  const other = stopsAtFirst ? failures[0] : undefined;
  return other
    ? { text: other.text, ...(other.file ? { file: other.file } : {}), test: other.test, own: false }
    : undefined;
}
