/**
 * Our own Python readers (the reach check, claim candidates) parse committed
 * text with Python's `ast`. The texts are copied into a private io folder —
 * never the checkout head code could have rewritten — and one sandboxed
 * `python -I -S SCRIPT request.json answer.json` reads them all, with nothing
 * from the repository importable. The answer is one JSON object keyed as the
 * request was.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { runLogged } from '../tests/run-tests.js';

export interface PythonParseOptions {
  sandbox: Sandbox;
  /** Receives the io folder (`<label>.io`) and the parser's logs. */
  logDir: string;
  label: string;
  /** The shipped script (see `shippedPythonFile`). */
  script: string;
  python: string;
  signal?: AbortSignal;
  /** Key → Python source text. */
  texts: ReadonlyMap<string, string>;
  /** Whatever else the script reads, as JSON (`request.settings`). */
  settings?: Readonly<Record<string, unknown>>;
}

/** Throws when the parser gives no answer at all (interpreter missing, killed); per-file problems are in the answer. */
export async function parsePythonTexts(opts: PythonParseOptions): Promise<Record<string, unknown>> {
  const io = path.join(opts.logDir, `${opts.label}.io`);
  await rm(io, { recursive: true, force: true });
  await mkdir(io, { recursive: true });
  const request: Record<string, string> = {};
  let n = 0;
  for (const [key, text] of opts.texts) {
    const file = path.join(io, `${++n}.py`);
    await writeFile(file, text);
    request[key] = file;
  }
  const requestFile = path.join(io, 'request.json');
  const answerFile = path.join(io, 'answer.json');
  await writeFile(requestFile, JSON.stringify({ files: request, settings: opts.settings ?? {} }));
  await opts.sandbox.grant(io);
  const run = await runLogged({
    sandbox: opts.sandbox,
    cwd: io,
    writable: [io],
    argv: [opts.python, '-I', '-S', opts.script, requestFile, answerFile],
    env: {},
    timeoutMs: 60_000,
    outDir: opts.logDir,
    label: opts.label,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  let answer: unknown;
  try {
    answer = JSON.parse(await readFile(answerFile, 'utf8'));
  } catch {
    answer = undefined;
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    throw new Error(
      `the Python parser (${opts.python} ${opts.script}) exited with ${run.exitCode} and gave no answer; see ${run.stderrFile}`,
    );
  return answer as Record<string, unknown>;
}
