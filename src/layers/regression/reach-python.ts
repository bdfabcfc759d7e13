/**
 * Python reach, from Python's own `ast`: `patchgate_reach.py` parses the
 * committed text of each file (copied into a private folder, never the
 * checkout head code could have rewritten) in the sandbox, under `-I -S` so
 * nothing from the repository is importable. One process for every file; the
 * base's packaging manifests ride along, so the same process names the
 * modules the base declares as console scripts.
 */
import type { Change } from '../../git/changes.js';
import { parsePythonTexts } from '../../runners/harness/python-parse.js';
import { shippedPythonFile } from '../../util/package-root.js';
import type { LayerContext } from '../types.js';
import {
  classifyPyImport,
  type Load,
  REACH_SHAPES,
  type Reach,
  type ReachShape,
  RUNNER_WORD_SOURCE,
  reachText,
  TEST_FLAG_SOURCE,
} from './reach-rules.js';

export const PYTHON_REACH_PATH: string = shippedPythonFile('patchgate_reach.py');

/** The base's manifests that can declare console scripts. */
export const PYTHON_MANIFESTS = ['pyproject.toml', 'setup.cfg', 'setup.py'] as const;

const ENTRY_KEY = 'entry\u241fmodules';

/** The parser's own kinds, older than the shapes; the rest are shape names. */
const KINDS: Record<string, (detail: string) => { shape: ReachShape; what: string }> = {
  'sys-modules': (d) => ({ shape: 'patches-runtime', what: `patches sys.modules (${d})` }),
  builtins: (d) => ({ shape: 'patches-runtime', what: `replaces builtins (${d})` }),
  exit: (d) => ({ shape: 'exit', what: reachText('exit', d) }),
  'exit-handler': (d) => ({ shape: 'exit-hook', what: reachText('exit-hook', d) }),
  'pytest-env': (d) => ({ shape: 'runner-variable', what: `reads the pytest variable ${d}` }),
};

type Hit = [number, string, string, boolean?, (string | null)?, (string | null)?];
type FileAnswer = { hits?: Hit[]; error?: string; unread?: string };

export interface PythonReach {
  /** Each file's reaches, and the modules it loads by name (`level|module|name`), per side. */
  perFile: Map<string, { head: Reach[]; base: Reach[]; loads: { head: Load[]; base: Load[] } }>;
  /** Dotted modules the base's manifests name as console scripts (`pkg.cli`). */
  scriptModules: string[];
}

function toReach(hit: Hit, isTestPath: (p: string) => boolean): Reach | undefined {
  const [line, kind, detail, entryOk, word, via] = hit;
  let base: { shape: ReachShape; what: string } | undefined;
  if (kind === 'import') {
    const what = classifyPyImport(detail, isTestPath);
    base = what ? { shape: 'test-import', what } : undefined;
  } else if (kind === 'modules-key') {
    // Looking a test module up (sys.modules, find_spec, importlib.metadata) asks whether the runner is loaded.
    const what = classifyPyImport(detail, isTestPath);
    base = what
      ? {
          shape: 'module-registry',
          what: `looks for ${what.replace(/^imports /, '')} in the module registry`,
        }
      : undefined;
  } else if (KINDS[kind]) {
    base = KINDS[kind](detail);
  } else if ((REACH_SHAPES as readonly string[]).includes(kind)) {
    base = { shape: kind as ReachShape, what: reachText(kind as ReachShape, detail) };
  }
  if (!base) return undefined;
  if (typeof via === 'string') base.what = `${base.what} (in code ${via} evaluates)`;
  const out: Reach = { line, shape: base.shape, what: base.what, detail };
  if (typeof word === 'string') {
    out.word = word;
    out.what = `${base.what}, compared with '${word}'`;
  } else if (entryOk) out.entryOk = true;
  return out;
}

export async function pythonReach(
  ctx: LayerContext,
  files: { change: Change; head: string | undefined; base: string | undefined }[],
  isTestPath: (p: string) => boolean,
): Promise<PythonReach> {
  const texts = new Map<string, string>();
  for (const f of files) {
    for (const side of ['head', 'base'] as const) {
      const text = f[side];
      if (text !== undefined) texts.set(`${side}\u241f${f.change.path}`, text);
    }
  }
  const manifests: Record<string, string> = {};
  for (const m of PYTHON_MANIFESTS) {
    const text = await ctx.base.readCommitted(m);
    if (text !== undefined) manifests[m] = text;
  }
  const answer = (await parsePythonTexts({
    sandbox: ctx.sandbox,
    logDir: ctx.logDir,
    label: 'reach-python',
    script: PYTHON_REACH_PATH,
    python: 'python3',
    signal: ctx.signal,
    texts,
    settings: { words: RUNNER_WORD_SOURCE, testFlag: TEST_FLAG_SOURCE, manifests },
  })) as Record<string, FileAnswer | string[] | undefined>;
  const perFile: PythonReach['perFile'] = new Map();
  for (const f of files) {
    const entry = {
      head: [] as Reach[],
      base: [] as Reach[],
      loads: { head: [] as Load[], base: [] as Load[] },
    };
    for (const side of ['head', 'base'] as const) {
      const a = answer[`${side}\u241f${f.change.path}`] as FileAnswer | undefined;
      // A file Python cannot parse cannot be imported either: the test run reports it, not this check.
      for (const hit of a?.hits ?? []) {
        if (hit[1] === 'load') {
          entry.loads[side].push({ line: hit[0], spec: hit[2] });
          continue;
        }
        const r = toReach(hit, isTestPath);
        if (r) entry[side].push(r);
      }
      // The reader parsed the file but could not walk it: fail closed.
      if (typeof a?.unread === 'string')
        entry[side].push({
          line: 1,
          shape: 'computed-code',
          what: `cannot be read to the end by the gate's parser (${a.unread}): what it does is unknown`,
          detail: `unread (${a.unread})`,
        });
    }
    perFile.set(f.change.path, entry);
  }
  const modules = answer[ENTRY_KEY];
  return {
    perFile,
    scriptModules: Array.isArray(modules) ? modules.filter((m): m is string => typeof m === 'string') : [],
  };
}
