/**
 * Python reach, from Python's own `ast`: `patchgate_reach.py` parses the
 * committed text of each file (copied into a private folder, never the
 * checkout head code could have rewritten) in the sandbox, under `-I -S` so
 * nothing from the repository is importable. One process for every file.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Change } from '../../git/changes.js';
import { shippedPythonFile } from '../../runners/harness/python-adapter.js';
import { runLogged } from '../../runners/tests/run-tests.js';
import { scrubbedEnv } from '../../util/scrub-env.js';
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
  const io = path.join(ctx.logDir, 'reach-python.io');
  await rm(io, { recursive: true, force: true });
  await mkdir(io, { recursive: true });
  const request: Record<string, string> = {};
  let n = 0;
  for (const f of files) {
    for (const side of ['head', 'base'] as const) {
      const text = f[side];
      if (text === undefined) continue;
      const file = path.join(io, `${++n}.py`);
      await writeFile(file, text);
      request[`${side}\u241f${f.change.path}`] = file;
    }
  }
  const requestFile = path.join(io, 'request.json');
  const answerFile = path.join(io, 'answer.json');
  await writeFile(requestFile, JSON.stringify({ files: request }));
  await ctx.sandbox.grant(io);
  const run = await runLogged({
    sandbox: ctx.sandbox,
    cwd: io,
    writable: [io],
    argv: ['python3', '-I', '-S', PYTHON_REACH_PATH, requestFile, answerFile],
    env: scrubbedEnv(ctx.env),
    timeoutMs: 60_000,
    outDir: ctx.logDir,
    label: 'reach-python',
    signal: ctx.signal,
  });
  let answer: Answer;
  try {
    answer = JSON.parse(await readFile(answerFile, 'utf8')) as Answer;
  } catch {
    throw new Error(
      `the Python parser (${PYTHON_REACH_PATH}) exited with ${run.exitCode} and gave no answer; see ${run.stderrFile}`,
    );
  }
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
