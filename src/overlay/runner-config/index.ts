/**
 * Asks the base's runner configuration which files it loads into the test
 * process, so those join the test side however they are named: a setup
 * file in `config/`, a reporter in `tools/`, a conftest plugin in `src/`.
 * Static reading only: a value the gate cannot read is reported (unread),
 * never guessed at.
 */
import type TS from 'typescript';
import type { PatchgateConfig } from '../../config/schema.js';
import { TEST_PRESETS, testCommandTemplate } from '../../runners/tests/presets.js';
import { classify } from './classify.js';
import { Collector } from './collector.js';
import { CommandReader } from './command.js';
import {
  BABEL_CONFIGS,
  getKey,
  JEST_CONFIGS,
  JsRunnerConfigs,
  MOCHA_CONFIGS,
  VITEST_CONFIGS,
} from './js-runners.js';
import { JsConfigReader } from './js-value.js';
import { escapeGlob } from './paths.js';
import { pytestFiles } from './pytest.js';
import type { BaseFiles, RunnerFiles } from './types.js';

export type { NamedPath, RunnerFiles, SharedImport, UnreadValue } from './types.js';

const JS_PRESETS = new Set(['vitest', 'jest', 'mocha', 'generic']);

export interface RunnerFilesInput {
  files: BaseFiles & { readMany(paths: readonly string[]): Promise<Map<string, string>> };
  config: PatchgateConfig;
  /** The base config file's name, where the test command and env are written. */
  configFile: string;
  /** The TypeScript compiler, asked for only when a JavaScript configuration or module is read. */
  ts: () => typeof TS;
  /** The test side as the globs alone say. */
  isTestSide: (path: string) => boolean;
}

export async function readRunnerFiles(input: RunnerFilesInput): Promise<RunnerFiles> {
  const { files, config, configFile, ts } = input;
  const tests = config.tests;
  if (!tests) return { named: [], unread: [], shared: [] };
  const preset = tests.preset ?? 'generic';
  const out = new Collector(files);
  const js = new JsRunnerConfigs(ts, out);
  const scripts = async (name: string) => {
    const text = await files.read('package.json');
    if (text === undefined) return undefined;
    const v = getKey(new JsConfigReader(ts(), 'package.json', text).exported(), `scripts.${name}`);
    return v?.kind === 'string' ? { text: v.value, line: v.line } : undefined;
  };
  const commands = new CommandReader(out, js, scripts);
  const argv = testCommandTemplate(tests, TEST_PRESETS.get(preset)).filter(
    (w) => w !== '{tests}' && !w.includes('{junit}'),
  );
  await commands.command(argv, { file: configFile, line: 1, key: 'tests.command' });
  if (tests.env.NODE_OPTIONS)
    commands.nodeOptions(tests.env.NODE_OPTIONS, {
      file: configFile,
      line: 1,
      key: 'tests.env.NODE_OPTIONS',
    });

  const first = (names: readonly string[]) => names.find((n) => files.has(n));
  if (preset === 'vitest') {
    const main = first(VITEST_CONFIGS);
    if (main) await js.vitest(main, '');
  }
  if (preset === 'jest') {
    const main = first(JEST_CONFIGS);
    if (main) await js.jest(main);
    else await js.packageJson('package.json', ['jest']);
  }
  if (preset === 'mocha') {
    const main = first(MOCHA_CONFIGS);
    if (main) await js.mocha(main);
    await js.packageJson('package.json', ['mocha']);
  }
  if (JS_PRESETS.has(preset)) {
    for (const b of BABEL_CONFIGS) if (files.has(b)) await js.babel(b);
    await js.packageJson('package.json', ['babel']);
  }
  if (preset === 'pytest' || commands.pytestArgs.length > 0)
    await pytestFiles({ args: commands.pytestArgs, env: tests.env, configFile }, out);

  // The runner's own files: what its configurations read, and the instruments they name.
  const configuration = new Set<string>(js.modulesRead);
  for (const n of out.named)
    if (files.has(n.path.replace(/\\(.)/g, '$1'))) configuration.add(n.path.replace(/\\(.)/g, '$1'));
  const { instruments, shared } = await classify(
    ts,
    files,
    out.candidates,
    configuration,
    input.isTestSide,
    (p) => files.readMany(p),
  );
  for (const c of instruments) out.name(escapeGlob(c.path), c.from, c.line, c.key);
  return { named: dedupe(out.named), unread: out.unread, shared };
}

function dedupe<T extends { path: string; from: string; key: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = `${i.path}\u0000${i.from}\u0000${i.key}\u0000${JSON.stringify((i as { except?: unknown }).except ?? null)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
