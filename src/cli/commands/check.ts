import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveToday } from '../../freeze/model.js';
import type { Artifact } from '../../layers/types.js';
import { type GateHooks, runGate } from '../../pipeline.js';
import { renderMarkdown } from '../../report/markdown.js';
import { stableStringify } from '../../report/stable-json.js';
import { renderTerminal } from '../../report/terminal.js';
import { exitCodeFor } from '../exit-codes.js';
import { type CliIO, useColor } from '../io.js';
import { OutFolder, type OutFs } from '../out-folder.js';
import { usage } from '../usage.js';

export const DEFAULT_OUT = '.patchgate/out';

export interface CheckDeps {
  /** The file operations behind the out folder; a test makes them fail. */
  outFs?: OutFs;
}

export async function checkCommand(
  args: string[],
  io: CliIO,
  hooks?: GateHooks,
  deps: CheckDeps = {},
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      out: { type: 'string', default: DEFAULT_OUT },
      json: { type: 'boolean', default: false },
      today: { type: 'string' },
      'all-layers': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.base)
    throw usage('check needs --base REV (the branch the patch targets, e.g. --base origin/main)');
  const out = path.resolve(io.cwd, values.out);
  const folder = new OutFolder(out, deps.outFs);
  // A file an earlier run left must never sit beside this run's scorecard.
  await folder.clear();
  // CI injects today; the repository never supplies it (a frozen clock in the repo is an oracle the agent can edit).
  const { today } = resolveToday(values.today, io.env);
  const artifacts: Artifact[] = [];
  const progress = io.stderr.isTTY === true && !values.json;
  const card = await runGate({
    cwd: io.cwd,
    base: values.base,
    head: values.head,
    env: io.env,
    today,
    allLayers: values['all-layers'],
    ...(io.pid !== undefined ? { ownerPid: io.pid } : {}),
    signal: io.signal,
    excludeFromHead: [out],
    hooks: {
      ...hooks,
      // Head processes wrote their logs where only they and the gate could; now that all of them are gone, the gate copies them out.
      onLogs: async (dir) => {
        await folder.copyLogs(dir);
        await hooks?.onLogs?.(dir);
      },
      onArtifact: async (artifact) => {
        artifacts.push(artifact);
        await hooks?.onArtifact?.(artifact);
      },
      onLayerStart: async (name) => {
        if (progress) io.stderr.write(`patchgate: running ${name}…\n`);
        await hooks?.onLayerStart?.(name);
      },
    },
  });
  const markdown = renderMarkdown(card);
  await folder.publish([
    ...artifacts,
    { name: 'summary.md', content: markdown },
    { name: 'scorecard.json', content: stableStringify(card) },
  ]);
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) await appendFile(stepSummary, markdown);
  if (values.json) io.stdout.write(stableStringify(card));
  else {
    io.stdout.write(renderTerminal(card, { color: useColor(io) }));
    const shown = path.relative(io.cwd, out);
    const where = shown === '' ? '.' : shown.startsWith('..') ? out : shown;
    io.stdout.write(`\nreports: ${where}/scorecard.json, summary.md\n`);
  }
  return exitCodeFor(card);
}
