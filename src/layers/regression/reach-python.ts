/**
 * Python reach, from Python's own `ast`: `patchgate_reach.py` parses the
 * committed text of each file (copied into a private folder, never the
 * checkout head code could have rewritten) in the sandbox, under `-I -S` so
 * nothing from the repository is importable. One process for every file.
 */
import type { Change } from '../../git/changes.js';
import { shippedPythonFile } from '../../runners/harness/python-adapter.js';
import { parsePythonTexts } from '../../runners/harness/python-parse.js';
import type { LayerContext } from '../types.js';
import { classifyPyImport, type Reach } from './reach-rules.js';

export const PYTHON_REACH_PATH: string = shippedPythonFile('patchgate_reach.py');

const KIND_TEXT: Record<string, (detail: string) => string> = {
  'sys-modules': (d) => `patches sys.modules (${d})`,
  builtins: (d) => `replaces builtins (${d})`,
  exit: (d) => `calls ${d} (the runner would stop before it reports)`,
  'exit-handler': (d) => `registers an exit or audit hook (${d})`,
  'pytest-env': (d) => `reads the pytest variable ${d}`,
};

type Answer = Record<string, { hits?: [number, string, string][]; error?: string }>;

export async function pythonReach(
  ctx: LayerContext,
  files: { change: Change; head: string | undefined; base: string | undefined }[],
  isTestPath: (p: string) => boolean,
): Promise<Map<string, { head: Reach[]; base: Reach[] }>> {
  const texts = new Map<string, string>();
  for (const f of files) {
    for (const side of ['head', 'base'] as const) {
      const text = f[side];
      if (text !== undefined) texts.set(`${side}\u241f${f.change.path}`, text);
    }
  }
  const answer = (await parsePythonTexts({
    sandbox: ctx.sandbox,
    logDir: ctx.logDir,
    label: 'reach-python',
    script: PYTHON_REACH_PATH,
    python: 'python3',
    env: ctx.env,
    signal: ctx.signal,
    texts,
  })) as Answer;
  const out = new Map<string, { head: Reach[]; base: Reach[] }>();
  for (const f of files) {
    const entry = { head: [] as Reach[], base: [] as Reach[] };
    for (const side of ['head', 'base'] as const) {
      const a = answer[`${side}\u241f${f.change.path}`];
      // A file Python cannot parse cannot be imported either: the test run reports it, not this check.
      for (const [line, kind, detail] of a?.hits ?? []) {
        const what = kind === 'import' ? classifyPyImport(detail, isTestPath) : KIND_TEXT[kind]?.(detail);
        if (what) entry[side].push({ line, what, detail });
      }
    }
    out.set(f.change.path, entry);
  }
  return out;
}
