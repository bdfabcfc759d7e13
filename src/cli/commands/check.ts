import { appendFile, mkdir, writeFile } from 'node:fs/promises';
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
import { usage } from '../usage.js';

export const DEFAULT_OUT = '.patchgate/out';

export async function checkCommand(args: string[], io: CliIO, hooks?: GateHooks): Promise<number> {
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
    logDir: path.join(out, 'tests'),
    signal: io.signal,
    excludeFromHead: [out],
    hooks: {
      ...hooks,
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
  await mkdir(out, { recursive: true });
  const markdown = renderMarkdown(card);
  await writeFile(path.join(out, 'scorecard.json'), stableStringify(card));
  await writeFile(path.join(out, 'summary.md'), markdown);
  for (const a of artifacts) await writeFile(path.join(out, a.name), a.content);
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
