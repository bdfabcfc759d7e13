/**
 * The gate's instruments inside a pytest process. The head's code and the
 * gate's plugins share one interpreter there, so what decides is who loads
 * first, from where:
 *
 * - `boot/sitecustomize.py` is first on `PYTHONPATH`; Python imports it at
 *   start-up, before anything of the checkout is importable
 *   (`PYTHONSAFEPATH=1`), and it imports pytest with its JUnit writer,
 *   Hypothesis and the gate's plugins then, so no module the patch wrote can
 *   stand in for them; it puts the checkout back after the standard library.
 * - Plugin autoload is off in every run; `patchgate_guard` registers only the
 *   entry points of distributions outside the checkout (or in a dependency
 *   folder the gate installed and sealed): a `*.dist-info` the patch committed
 *   is never honoured.
 * - The loader reports what it loaded, from where, with each plugin's
 *   SHA-256, on a descriptor it closes before any code of the checkout runs;
 *   `checkGuard` compares that with the gate's own files. The guard's
 *   end-of-session report (modules of the checkout that took the name of a
 *   standard-library or toolchain module, what was collected) is written
 *   later, where head code could reach it: a tripwire, not proof.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { shippedPythonFile } from '../../util/package-root.js';

export const GUARD_MODULE = 'patchgate_guard';
/** The file the guard plugin writes in the run's io folder at the end of the session. */
export const GUARD_REPORT = 'guard.json';
/** The descriptor the loader writes its start-up manifest to: the sandbox's fourth stdio slot. */
export const GUARD_FD = 3;

const BOOT_DIR = path.dirname(shippedPythonFile(path.join('boot', 'sitecustomize.py')));
const PLUGIN_DIR = path.dirname(shippedPythonFile(`${GUARD_MODULE}.py`));

export interface GuardSpec {
  /** The checkout pytest runs in. */
  root: string;
  /** Dependency folders inside `root` the gate installed and sealed: their distributions may declare plugins. */
  trusted: readonly string[];
  /** Where the guard plugin writes its report (in the run's io folder). */
  report: string;
  /** The gate's plugins this run loads besides the guard (`patchgate_census`, `patchgate_seeds`). */
  plugins: readonly string[];
  /** Of `plugins`, those loaded through `PYTEST_ADDOPTS`; the rest are on the command line already. */
  addopts: readonly string[];
}

/** The environment that loads the guard (and `spec.plugins`) into any pytest started with it. */
export function guardEnv(env: Readonly<Record<string, string>>, spec: GuardSpec): Record<string, string> {
  const addopts = [env.PYTEST_ADDOPTS, ...[GUARD_MODULE, ...spec.addopts].map((m) => `-p ${m}`)]
    .filter(Boolean)
    .join(' ');
  return {
    PYTHONPATH: [BOOT_DIR, PLUGIN_DIR, env.PYTHONPATH].filter(Boolean).join(path.delimiter),
    PYTHONSAFEPATH: '1',
    // A usercustomize in the sandbox's HOME would run before the tests, as head code could have written it.
    PYTHONNOUSERSITE: '1',
    PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1',
    PYTEST_ADDOPTS: addopts,
    PATCHGATE_GUARD_FD: String(GUARD_FD),
    PATCHGATE_GUARD_ROOT: spec.root,
    PATCHGATE_GUARD_TRUSTED: spec.trusted.join(path.delimiter),
    PATCHGATE_GUARD_REPORT: spec.report,
    PATCHGATE_GUARD_MODULES: [GUARD_MODULE, ...spec.plugins].join(','),
  };
}

/** One thing the gate's instruments saw that they must not have. */
export interface InstrumentProblem {
  /** What is wrong, in words, for the finding. */
  what: string;
  module?: string;
  /** Where the gate expected it, and what it found. */
  expected?: string;
  found?: string;
  /** A checkout file, repository-relative. */
  file?: string;
}

export interface CollectedTest {
  nodeid: string;
  classname: string;
  name: string;
}

export interface GuardResult {
  /** Evidence that something of the checkout stood in for an instrument. */
  problems: InstrumentProblem[];
  /** The loader's own failure (a gate or environment problem, never the patch's alone). */
  loaderError?: string;
  /** Whether the start-up manifest arrived. */
  started: boolean;
  /** Every selected test, when the guard's report was written. */
  collected?: CollectedTest[];
  /** Entry points the guard refused, with where they were declared. */
  refused: { name: string; dist: string; location: string }[];
}

const startManifest = z.object({
  schema: z.literal('patchgate/guard-start@1'),
  preloaded: z.array(z.string()).default([]),
  toolchain: z.record(z.string(), z.string()).default({}),
  modules: z.record(z.string(), z.object({ file: z.string(), sha256: z.string() })).default({}),
  error: z.string().optional(),
});

const entryPoint = z.object({ name: z.string(), value: z.string(), dist: z.string(), location: z.string() });
const guardReport = z.object({
  schema: z.literal('patchgate/guard@1'),
  plugins: z.object({ loaded: z.array(entryPoint), refused: z.array(entryPoint) }),
  shadowed: z.array(z.object({ module: z.string(), file: z.string() })),
  collected: z.array(z.object({ nodeid: z.string(), classname: z.string(), name: z.string() })).optional(),
});

const digests = new Map<string, { file: string; sha256: string }>();

/** The gate's own copy of a plugin: its real path and SHA-256 (read once; head code cannot write it). */
function ownPlugin(name: string): { file: string; sha256: string } {
  let d = digests.get(name);
  if (!d) {
    const file = realpathSync(shippedPythonFile(`${name}.py`));
    d = { file, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
    digests.set(name, d);
  }
  return d;
}

function inside(file: string, root: string): boolean {
  return file === root || file.startsWith(root + path.sep);
}

export interface CheckGuardOptions {
  spec: GuardSpec;
  /** What the run wrote on the guard descriptor; undefined when nothing arrived. */
  manifest: string | undefined;
  /** Whether the manifest must arrive: the command is the gate's own, which starts Python with this env. */
  required: boolean;
  /** Whether a repository path is test side: a test-side module shadowing a name is the base's on the overlay. */
  isTestPath(file: string): boolean;
}

/**
 * What the loader and the guard reported, checked against the gate's own
 * files. A missing manifest is a problem only where the gate started Python
 * itself (`required`): a custom command may not pass the environment on.
 */
export async function checkGuard(opts: CheckGuardOptions): Promise<GuardResult> {
  const root = realpathSync(opts.spec.root);
  const problems: InstrumentProblem[] = [];
  const result: GuardResult = { problems, started: false, refused: [] };
  const parsed = parseJson(opts.manifest, startManifest);
  if (parsed === undefined) {
    if (opts.required)
      problems.push({
        what:
          opts.manifest === undefined || opts.manifest === ''
            ? "the gate's loader never reported: something ran before it, or took its descriptor"
            : "the gate's loader report is not what the loader writes",
      });
  } else {
    result.started = true;
    if (parsed.error !== undefined) result.loaderError = parsed.error;
    for (const name of parsed.preloaded)
      problems.push({ what: `${name} was already imported when the gate's loader started`, module: name });
    for (const [name, file] of Object.entries(parsed.toolchain)) {
      if (inside(file, root) || inside(safeRealpath(file), root))
        problems.push({
          what: `${name} was loaded from the checkout, not from the installed toolchain`,
          module: name,
          found: file,
          file: path.relative(root, safeRealpath(file)).split(path.sep).join('/'),
        });
    }
    for (const name of [GUARD_MODULE, ...opts.spec.plugins]) {
      const own = ownPlugin(name);
      const got = parsed.modules[name];
      if (parsed.error !== undefined && got === undefined) continue;
      if (got === undefined)
        problems.push({ what: `the gate's plugin ${name} was not loaded`, module: name, expected: own.file });
      else if (got.file !== own.file || got.sha256 !== own.sha256)
        problems.push({
          what: `the gate's plugin ${name} was loaded from ${got.file} (sha256 ${got.sha256.slice(0, 12)}), not from the gate's own copy`,
          module: name,
          expected: `${own.file} (sha256 ${own.sha256.slice(0, 12)})`,
          found: `${got.file} (sha256 ${got.sha256.slice(0, 12)})`,
        });
    }
  }
  const report = parseJson(await readFile(opts.spec.report, 'utf8').catch(() => undefined), guardReport);
  if (report) {
    for (const s of report.shadowed) {
      if (opts.isTestPath(s.file)) continue;
      problems.push({
        what: `the module ${s.module} was loaded from the checkout's ${s.file}, taking the name of a standard-library or test-toolchain module`,
        module: s.module,
        file: s.file,
      });
    }
    result.refused = report.plugins.refused.map(({ name, dist, location }) => ({ name, dist, location }));
    if (report.collected) result.collected = report.collected;
  }
  return result;
}

function safeRealpath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function parseJson<T>(text: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** The problems in one sentence each, for a finding's message. */
export function describeProblems(problems: readonly InstrumentProblem[]): string {
  return problems.map((p) => p.what).join('; ');
}
