/**
 * The stability probe's scope for this run: the inputs `probeScope` needs,
 * read from the layer context (the head's committed tree, the base's
 * configuration and runner files), and what to do when they cannot be read.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { asPatchgateError } from '../../errors.js';
import type { Change } from '../../git/changes.js';
import type { TreeFiles } from '../../overlay/revision-files.js';
import { testSideFor } from '../../overlay/test-side.js';
import { parsePythonTexts } from '../../runners/harness/python-parse.js';
import { canSelectFiles, testFileOf } from '../../runners/tests/presets.js';
import type { SuiteRun } from '../../runners/tests/session.js';
import { shippedPythonFile } from '../../util/package-root.js';
import { requireTypescript } from '../../util/typescript.js';
import { toolchainFindings } from '../regression/toolchain.js';
import type { LayerContext } from '../types.js';
import { PYTHON_CHANGED_NAMES_PATH } from './changed-names.js';
import { type ProbeScope, probeScope } from './probe-scope.js';

export const PYTHON_IMPORTS_PATH: string = shippedPythonFile('patchgate_imports.py');

/** npm runs these on `npm ci` / `npm install`, so the files they name run before any test. */
const INSTALL_SCRIPTS = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

async function installScripts(ctx: LayerContext): Promise<{ text: string; where: string }[]> {
  const text = await ctx.base.readCommitted('package.json');
  if (text === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  const scripts = isObject(json) && isObject(json.scripts) ? json.scripts : {};
  return INSTALL_SCRIPTS.flatMap((name) => {
    const v = scripts[name];
    return typeof v === 'string' ? [{ text: v, where: `package.json scripts.${name}` }] : [];
  });
}

/**
 * Whether the head's checkout has a dependency folder (`node_modules`, a
 * virtualenv): installed by a setup step or lent from the user's working
 * tree, whose installed packages follow its lockfile. A folder head code made
 * only makes the probe count manifests.
 */
async function hasDependencyFolder(root: string, dirs: readonly string[]): Promise<boolean> {
  for (const dir of dirs)
    if (
      await lstat(path.join(root, dir)).then(
        () => true,
        () => false,
      )
    )
      return true;
  return false;
}

/** Whether the base's packaging maps package names to folders of other names (setuptools' `package_dir`). */
async function mapsPackageDirs(ctx: LayerContext): Promise<boolean> {
  for (const f of ['setup.py', 'setup.cfg', 'pyproject.toml']) {
    const text = await ctx.base.readCommitted(f);
    if (text !== undefined && /package[-_]dir/.test(text)) return true;
  }
  return false;
}

/** The test files of a run, or undefined (with one test that says no file) when some test's id does not say. */
export function testFilesOf(
  preset: string | undefined,
  run: SuiteRun,
): { files: string[] | undefined; unmapped?: string } {
  const files = new Set<string>();
  for (const t of run.tests) {
    const f = testFileOf(preset, t);
    if (f === undefined) return { files: undefined, unmapped: t.id };
    files.add(f);
  }
  return { files: [...files] };
}

/**
 * Which test files of `first` can reach what the patch changed. `within`
 * narrows it: another tree to follow imports in (the overlay's, whose test
 * files are the base's) and only some of the changes.
 */
export async function scopeOfPatch(
  ctx: LayerContext,
  first: SuiteRun,
  layer: string,
  within: { tree?: () => Promise<TreeFiles>; changes?: readonly Change[] } = {},
): Promise<ProbeScope> {
  const changes = within.changes ?? ctx.changes;
  const tree = within.tree ?? ctx.head.tree;
  const tests = ctx.config.tests;
  const preset = tests?.preset ?? 'generic';
  const { files: testFiles, unmapped } = testFilesOf(tests?.preset, first);
  const canSelect =
    canSelectFiles(tests?.preset) && (tests?.command === undefined || tests.command.includes('{tests}'));
  const fallback = (why: string): ProbeScope => ({
    mode: 'all',
    reasons: [why],
    probed: [...new Set(testFiles ?? [])].sort().map((file) => ({ file, why: [], reasons: 0 })),
    notProbed: [],
    changes: changes.map((c) => ({ path: c.path, kind: 'data' as const })),
  });
  if (!tree) return fallback("the head's committed tree is not available to read imports from");
  let n = 0;
  try {
    return await probeScope({
      files: await tree(),
      changes,
      testFiles,
      ...(unmapped !== undefined ? { unmapped } : {}),
      canSelectFiles: canSelect,
      preset,
      isTestPath: testSideFor(ctx.config, ctx.overlay.named).isTestPath,
      named: ctx.overlay.named,
      toolchain: [...new Set((await toolchainFindings(ctx, layer)).map((f) => String(f.evidence.path)))],
      commands: [
        ...(tests?.setup ? [{ text: tests.setup.join(' '), where: 'tests.setup' }] : []),
        ...(await installScripts(ctx)),
      ],
      lockfiles: new Set([...(tests?.reuse.lockfiles ?? []), ...(tests?.reuse.manifests ?? [])]),
      packageDirMapped: await mapsPackageDirs(ctx),
      ts: requireTypescript,
      parsePython: (texts) =>
        parsePythonTexts({
          sandbox: ctx.sandbox,
          logDir: ctx.logDir,
          label: `${layer}-imports-${++n}`,
          script: PYTHON_IMPORTS_PATH,
          python: 'python3',
          signal: ctx.signal,
          texts,
        }),
      readBase: (p) => ctx.base.readCommitted(p),
      diffPython: (texts, modules) =>
        parsePythonTexts({
          sandbox: ctx.sandbox,
          logDir: ctx.logDir,
          label: `${layer}-changed-names`,
          script: PYTHON_CHANGED_NAMES_PATH,
          python: 'python3',
          signal: ctx.signal,
          texts,
          settings: { modules },
        }),
      installs:
        tests?.setup !== undefined || (await hasDependencyFolder(ctx.head.root, tests?.reuse.dirs ?? [])),
      signal: ctx.signal,
    });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // Fail closed: a scope the gate could not read is every test.
    return fallback(
      `the gate could not read the import graph: ${asPatchgateError(err).message.split('\n')[0]}`,
    );
  }
}
