/**
 * Python test files, read by Python's own `ast`: `patchgate_test_edits.py`
 * parses the committed text of every file (copied into a private folder,
 * never the checkout head code could have rewritten) in one sandboxed
 * `python3 -I -S` process, with nothing of the repository importable.
 */

import { parsePythonTexts } from '../../runners/harness/python-parse.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { shippedPythonFile } from '../../util/package-root.js';
import type { FileFacts, FileReading } from './model.js';

export const PYTHON_TEST_EDITS_PATH: string = shippedPythonFile('patchgate_test_edits.py');

export interface PythonFactsOptions {
  sandbox: Sandbox;
  logDir: string;
  signal?: AbortSignal;
  python?: string;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Every text's facts, keyed as given; the parser's own answer, with its lists made sure of. */
export async function pythonFacts(
  texts: ReadonlyMap<string, string>,
  opts: PythonFactsOptions,
): Promise<Map<string, FileReading>> {
  const out = new Map<string, FileReading>();
  if (texts.size === 0) return out;
  const answer = await parsePythonTexts({
    sandbox: opts.sandbox,
    logDir: opts.logDir,
    label: 'test-edits-python',
    script: PYTHON_TEST_EDITS_PATH,
    python: opts.python ?? 'python3',
    ...(opts.signal ? { signal: opts.signal } : {}),
    texts,
  });
  for (const key of texts.keys()) {
    const a = answer[key] as Record<string, unknown> | undefined;
    if (!a || typeof a !== 'object') {
      out.set(key, { ok: false, error: 'the Python parser gave no answer for this file', line: 0 });
      continue;
    }
    if (typeof a.error === 'string') {
      out.set(key, { ok: false, error: a.error, line: typeof a.line === 'number' ? a.line : 0 });
      continue;
    }
    const facts: FileFacts = {
      units: list(a.units).map((u) => {
        const unit = u as Record<string, unknown>;
        return {
          ...(unit as unknown as FileFacts['units'][number]),
          marks: list(unit.marks),
          asserts: list(unit.asserts),
          explicit: list(unit.explicit),
          generators: list(unit.generators),
          assumes: list(unit.assumes),
          body: list(unit.body),
        } as FileFacts['units'][number];
      }),
      hooks: list(a.hooks) as FileFacts['hooks'],
      mocks: list(a.mocks) as FileFacts['mocks'],
      excludes: list(a.excludes) as FileFacts['excludes'],
      marks: list(a.marks) as FileFacts['marks'],
      ...(a.examples && typeof a.examples === 'object'
        ? { examples: a.examples as FileFacts['examples'] }
        : {}),
    };
    out.set(key, { ok: true, facts });
  }
  return out;
}
