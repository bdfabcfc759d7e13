/**
 * What `patchgate init` can tell about a repository from its files alone:
 * where its fixtures live and how its tests run. Every detection carries the
 * reason it was made, so init can print it; anything it cannot justify from
 * a file it leaves out and says what to set instead.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pushAll } from '../util/arrays.js';
import { byCodePoint } from '../util/compare.js';
import { shellCommands } from '../util/shell-commands.js';
import { NODE_VALUE_FLAGS } from './node-flags.js';
import { NO_PRESET, type RunnerName } from './runner-command.js';
import {
  pytestRequirementLine,
  type RunnerUse,
  readNoxfile,
  readRunnerHints,
  readTox,
  requirementIncludes,
} from './runner-sources.js';
import type { PatchgateConfigInput } from './schema.js';

type TestsInput = NonNullable<PatchgateConfigInput['tests']>;

/** Folders never searched for fixtures: installed dependencies, build output, tool caches. */
export const FIXTURE_SEARCH_SKIP = [
  'node_modules',
  'vendor',
  'dist',
  'build',
  'target',
  'venv',
  '__pycache__',
  'site-packages',
] as const;

/**
 * Names of fixture folders, in the order init lists them. `under` restricts
 * a name to folders whose parent is one of those (a `data` folder is only
 * fixtures inside a test folder).
 */
const FIXTURE_NAMES: readonly { name: string; under?: readonly string[] }[] = [
  { name: 'testdata' },
  { name: 'test-data' },
  { name: 'test_data' },
  { name: 'fixtures', under: ['test', 'tests', 'spec', '__tests__'] },
  { name: 'data', under: ['test', 'tests', 'spec'] },
  { name: '__fixtures__' },
  { name: 'test_fixtures' },
  { name: 'test-fixtures' },
  { name: 'fixtures' },
  { name: 'golden' },
  { name: 'goldens' },
  { name: '__snapshots__' },
  { name: 'snapshots' },
];

/** The folder names init recognizes, for messages. */
export const FIXTURE_FOLDER_NAMES: readonly string[] = [
  ...new Set(FIXTURE_NAMES.map((n) => (n.under ? `${n.under[0]}/${n.name}` : n.name))),
];

export interface Detection {
  /** The value found: a path, a preset, a command. */
  value: string;
  /** Why, as a phrase init prints: `found vitest in devDependencies`. */
  reason: string;
}

function rankOf(rel: string): number | undefined {
  const parts = rel.split('/');
  const name = parts[parts.length - 1] ?? '';
  const parent = parts[parts.length - 2];
  const i = FIXTURE_NAMES.findIndex(
    (n) => n.name === name && (n.under === undefined || (parent !== undefined && n.under.includes(parent))),
  );
  return i < 0 ? undefined : i;
}

async function hasFile(abs: string): Promise<boolean> {
  const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (e.isFile()) return true;
    if (e.isDirectory() && (await hasFile(path.join(abs, e.name)))) return true;
  }
  return false;
}

/**
 * Fixture folders at any depth, by name (see FIXTURE_FOLDER_NAMES), never
 * inside hidden folders (.git, .venv, .tox…) or FIXTURE_SEARCH_SKIP, and
 * never inside another fixture folder (it is locked with it). Empty folders
 * lock nothing and are left out. Sorted by how typical the name is, then by
 * depth and path.
 */
export async function detectFixtureRoots(repoRoot: string): Promise<Detection[]> {
  const found: { rel: string; rank: number }[] = [];
  const walk = async (rel: string): Promise<void> => {
    const abs = rel === '' ? repoRoot : path.join(repoRoot, rel);
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (e.name.startsWith('.') || (FIXTURE_SEARCH_SKIP as readonly string[]).includes(e.name)) continue;
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      const rank = rankOf(child);
      if (rank !== undefined) {
        if (await hasFile(path.join(repoRoot, child))) found.push({ rel: child, rank });
        continue;
      }
      await walk(child);
    }
  };
  await walk('');
  found.sort(
    (a, b) =>
      a.rank - b.rank || a.rel.split('/').length - b.rel.split('/').length || byCodePoint(a.rel, b.rel),
  );
  return found.map(({ rel }) => {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    return { value: rel, reason: `a folder named ${name}` };
  });
}

/** What init learned about the tests: the section to write (when justified), and what it could not decide. */
export interface TestsDetection {
  /** The `tests` section, when a runner was found and nothing contradicts it. */
  tests?: TestsInput;
  /** Why each value of `tests` was chosen, keyed like the config (`tests.preset`, `tests.setup`…). */
  reasons: { key: string; value: string; reason: string }[];
  /** What init could not decide, with what to set instead. */
  notes: string[];
  /**
   * When no `tests` section could be justified: the one a human most likely
   * wants, for the lines init and validate print (the first of several
   * runners found, else the language's usual runner, else a command to fill in).
   */
  suggestion?: TestsInput;
}

async function readText(abs: string): Promise<string | undefined> {
  return readFile(abs, 'utf8').catch(() => undefined);
}

async function isFile(abs: string): Promise<boolean> {
  return stat(abs).then(
    (s) => s.isFile(),
    () => false,
  );
}

interface Candidate {
  preset: TestsInput['preset'];
  reason: string;
  setup?: { argv: string[]; reason: string };
  env?: { name: string; value: string; reason: string };
  /** `tests.args`: what the repository's own test command adds to the preset's. */
  args?: { argv: string[]; reason: string };
  notes: string[];
}

const JS_RUNNERS = ['vitest', 'jest', 'mocha'] as const;

/** The reporter package a JS preset writes its JUnit report with, when it is not the runner itself. */
const JS_REPORTER: Partial<Record<(typeof JS_RUNNERS)[number], string>> = {
  jest: 'jest-junit',
  mocha: 'mocha-junit-reporter',
};

interface PackageJson {
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  packageManager?: unknown;
}

function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

const JS_LOCKFILES: readonly { file: string; manager: string }[] = [
  { file: 'package-lock.json', manager: 'npm' },
  { file: 'npm-shrinkwrap.json', manager: 'npm' },
  { file: 'pnpm-lock.yaml', manager: 'pnpm' },
  { file: 'yarn.lock', manager: 'yarn' },
  { file: 'bun.lock', manager: 'bun' },
  { file: 'bun.lockb', manager: 'bun' },
];

async function jsSetup(
  repoRoot: string,
  pkg: PackageJson,
  notes: string[],
): Promise<{ argv: string[]; reason: string } | undefined> {
  // A package with no dependencies (a node:test suite often has none) has nothing to install.
  if (Object.keys({ ...asRecord(pkg.dependencies), ...asRecord(pkg.devDependencies) }).length === 0)
    return undefined;
  const present: { file: string; manager: string }[] = [];
  for (const l of JS_LOCKFILES) if (await isFile(path.join(repoRoot, l.file))) present.push(l);
  const declared = typeof pkg.packageManager === 'string' ? pkg.packageManager : undefined;
  const declaredName = declared?.split('@')[0];
  const managers = [...new Set(present.map((l) => l.manager))];
  let manager: string;
  let reason: string;
  if (managers.length === 1) {
    manager = managers[0] as string;
    reason = `found ${present.map((l) => l.file).join(' and ')}`;
  } else if (managers.length > 1 && declaredName !== undefined && managers.includes(declaredName)) {
    manager = declaredName;
    reason = `package.json's packageManager is ${declared}`;
  } else if (managers.length > 1) {
    notes.push(
      `found the lockfiles of ${managers.join(' and ')} (${present.map((l) => l.file).join(', ')}) and no packageManager in package.json to choose between them, so tests.setup is not set; set it to the install command of the one you use, e.g. ["npm", "ci"]`,
    );
    return undefined;
  } else {
    notes.push(
      'found no lockfile (package-lock.json, pnpm-lock.yaml, yarn.lock, bun.lock), so tests.setup is not set and the base revision has no dependencies installed to run its tests with; commit a lockfile and set tests.setup (e.g. ["npm", "ci"])',
    );
    return undefined;
  }
  switch (manager) {
    case 'npm':
      return { argv: ['npm', 'ci'], reason };
    case 'pnpm':
      return { argv: ['pnpm', 'install', '--frozen-lockfile'], reason };
    case 'bun':
      return { argv: ['bun', 'install', '--frozen-lockfile'], reason };
    default: {
      // Yarn 2 and later replaced --frozen-lockfile with --immutable.
      const version = declaredName === 'yarn' ? Number(declared?.split('@')[1]?.split('.')[0]) : Number.NaN;
      const berry = version >= 2 || (await isFile(path.join(repoRoot, '.yarnrc.yml')));
      return berry
        ? {
            argv: ['yarn', 'install', '--immutable'],
            reason: `${reason} (Yarn 2 or later: ${version >= 2 ? `packageManager ${declared}` : 'found .yarnrc.yml'})`,
          }
        : { argv: ['yarn', 'install', '--frozen-lockfile'], reason };
    }
  }
}

/**
 * What `npm test` runs: `scripts.test`, followed through `npm run NAME` (and
 * pnpm's, yarn's and bun's spelling) when that is all it does, a few levels
 * deep. `via` names the scripts passed through, for the reason init prints.
 */
function testScript(scripts: Record<string, unknown>): { text: string; via: string[] } | undefined {
  const via: string[] = [];
  let name = 'test';
  for (let depth = 0; depth < 4; depth++) {
    const text = scripts[name];
    if (typeof text !== 'string') return undefined;
    via.push(name);
    const only = shellCommands(text);
    const m = only.length === 1 ? /^(?:npm|pnpm|yarn|bun)$/.test(only[0]?.[0] ?? '') && only[0] : undefined;
    const words = m ? m.slice(1) : [];
    const next = words[0] === 'run' || words[0] === 'run-script' ? words[1] : words[0];
    if (!m || next === undefined || words.length > (words[0] === next ? 1 : 2) || next === name)
      return { text, via };
    if (typeof scripts[next] !== 'string') return { text, via };
    name = next;
  }
  return undefined;
}

/** The preset writes these itself (its reporters), and a gate run never watches. */
const NODE_PRESET_FLAGS = new Set(['--test', '--test-reporter', '--test-reporter-destination', '--watch']);

/**
 * The `node --test …` command of a script, if it runs one: what it adds to
 * the node-test preset's own command (flags such as `--import tsx`, and the
 * test paths it names), and what init cannot carry over (a glob node 20
 * would not expand itself, a build step before it).
 */
function nodeTestCommand(
  text: string,
  where = 'scripts.test',
  commands: readonly string[][] = shellCommands(text),
): { args: string[]; notes: string[]; command: string } | undefined {
  const at = commands.findIndex((c) => {
    const i = c.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    return c[i] === 'node' && c.includes('--test');
  });
  const words = commands[at];
  if (words === undefined) return undefined;
  const notes: string[] = [];
  const first = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  const assignments = words.slice(0, first);
  if (assignments.length > 0)
    notes.push(
      `${where} sets ${assignments.join(' ')} for node --test; add it to tests.env if the tests need it`,
    );
  if (at > 0)
    notes.push(
      `${where} runs \`${commands
        .slice(0, at)
        .map((c) => c.join(' '))
        .join(' && ')}\` before node --test; if the tests need it (a build), add it to tests.setup`,
    );
  const args: string[] = [];
  const rest = words.slice(first + 1);
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i] as string;
    const eq = w.indexOf('=');
    const flag = w.startsWith('-') && eq > 0 ? w.slice(0, eq) : w;
    const takesNext = NODE_VALUE_FLAGS.has(flag) && eq < 0;
    const value = takesNext ? rest[++i] : undefined;
    if (NODE_PRESET_FLAGS.has(flag)) continue;
    if (!w.startsWith('-') && /[*?[\]{}]/.test(w)) {
      notes.push(
        `${where} names the test files as the glob ${JSON.stringify(w)}, which the shell expands and node 20 does not, so it is left out of tests.args: node --test finds its test files itself (*.test.js, test/ folders…); if that is not what you run, list the files or folders in tests.args`,
      );
      continue;
    }
    // One word per flag: node-test puts the subset's flags before the test paths, telling them apart by the `-`.
    args.push(value !== undefined ? `${w}=${value}` : w);
  }
  return { args, notes, command: words.join(' ') };
}

/** Test files of the repository that import node:test (for a package.json without scripts.test). */
async function importsNodeTest(repoRoot: string): Promise<string | undefined> {
  const TEST_FILE = /(?:^|[./_-])test(?:s)?\.[cm]?[jt]s$|^test[-_].*\.[cm]?[jt]s$/;
  const IMPORT = /(?:from\s*|require\(\s*|import\(\s*)['"]node:test['"]/;
  let seen = 0;
  const walk = async (rel: string, inTests: boolean): Promise<string | undefined> => {
    const entries = await readdir(path.join(repoRoot, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => byCodePoint(a.name, b.name))) {
      if (seen > 500) return undefined;
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name.startsWith('.') || (FIXTURE_SEARCH_SKIP as readonly string[]).includes(e.name)) continue;
        const found = await walk(child, inTests || e.name === 'test' || e.name === 'tests');
        if (found) return found;
      } else if (e.isFile() && /\.[cm]?[jt]s$/.test(e.name) && (inTests || TEST_FILE.test(e.name))) {
        seen++;
        const text = await readText(path.join(repoRoot, child));
        if (text !== undefined && IMPORT.test(text)) return child;
      }
    }
    return undefined;
  };
  return walk('', false);
}

/** package.json, parsed; a sentence when it is not valid JSON. */
async function readPackageJson(repoRoot: string): Promise<PackageJson | string | undefined> {
  const text = await readText(path.join(repoRoot, 'package.json'));
  if (text === undefined) return undefined;
  try {
    return asRecord(JSON.parse(text)) as PackageJson;
  } catch (err) {
    return `package.json is not valid JSON (${(err as Error).message}), so its test runner is unknown`;
  }
}

type JsRunner = (typeof JS_RUNNERS)[number] | 'node-test';

/** The candidate for a JavaScript runner already chosen: its reporter, its arguments, the install command. */
async function jsCandidate(
  repoRoot: string,
  pkg: PackageJson,
  runner: JsRunner,
  reason: string,
  nodeTest?: { args: string[]; notes: string[]; command: string; where: string },
  /** The runner was named by a command outside package.json, which then has to install it. */
  requireDependency = false,
): Promise<Candidate | string> {
  const deps = { ...asRecord(pkg.dependencies), ...asRecord(pkg.devDependencies) };
  const notes: string[] = [];
  const reporter = runner === 'node-test' ? undefined : JS_REPORTER[runner];
  if (reporter !== undefined && !(reporter in deps)) {
    return `${reason}, but the ${runner} preset writes its JUnit report with ${reporter}, which package.json does not list, so tests is not set; install it (npm install --save-dev ${reporter}) and run \`patchgate init --force\` again`;
  }
  if (requireDependency && runner !== 'node-test' && !(runner in deps)) {
    return `${reason}, but package.json does not list ${runner} in its dependencies or devDependencies, so the gate's checkouts would not have it installed and tests is not set; add it (npm install --save-dev ${runner}) and run \`patchgate init --force\` again`;
  }
  if (runner === 'node-test')
    notes.push(
      "the node-test preset reads node's own JUnit reporter, which needs Node 20.13 or later where `patchgate check` runs",
    );
  let args: Candidate['args'];
  if (nodeTest) {
    pushAll(notes, nodeTest.notes);
    if (nodeTest.args.length > 0)
      args = {
        argv: nodeTest.args,
        reason: `what ${nodeTest.where} adds to node --test (\`${nodeTest.command}\`)`,
      };
  }
  const setup = await jsSetup(repoRoot, pkg, notes);
  return { preset: runner, reason, ...(setup ? { setup } : {}), ...(args ? { args } : {}), notes };
}

async function detectJs(repoRoot: string): Promise<Candidate[] | string | undefined> {
  const pkg = await readPackageJson(repoRoot);
  if (pkg === undefined || typeof pkg === 'string') return pkg;
  const scripts = asRecord(pkg.scripts);
  const found = testScript(scripts);
  const script = found?.text;
  const scriptName = found ? `scripts.${found.via.join(' → scripts.')}` : 'scripts.test';
  const deps = { ...asRecord(pkg.dependencies), ...asRecord(pkg.devDependencies) };
  const depWhere = (name: string) =>
    name in asRecord(pkg.devDependencies) ? 'devDependencies' : 'dependencies';
  let runner: JsRunner | undefined;
  let reason = '';
  const nodeTest = script === undefined ? undefined : nodeTestCommand(script, scriptName);
  const inScript = [
    ...(script === undefined ? [] : JS_RUNNERS.filter((r) => new RegExp(`\\b${r}\\b`).test(script))),
    ...(nodeTest ? (['node-test'] as const) : []),
  ];
  const inDeps = JS_RUNNERS.filter((r) => r in deps);
  if (inScript.length === 1) {
    runner = inScript[0];
    reason = `${scriptName} runs ${runner === 'node-test' ? 'node --test' : runner} (${JSON.stringify(script)})`;
  } else if (inScript.length === 0 && inDeps.length === 1) {
    runner = inDeps[0];
    reason = `found ${runner} in ${depWhere(runner as string)}`;
  } else if (inScript.length > 1 || inDeps.length > 1) {
    const names = inScript.length > 1 ? inScript : inDeps;
    return `package.json names more than one test runner (${names.join(', ')}), so tests.preset is not set; set it to the one your tests run with`;
  } else if (script === undefined) {
    const file = await importsNodeTest(repoRoot);
    if (file === undefined) return undefined;
    runner = 'node-test';
    reason = `${file} imports node:test and package.json has no scripts.test`;
  } else {
    return `${scriptName} (${JSON.stringify(script)}) runs none of vitest, jest, mocha, node --test, so tests is not set; set tests.command to the test command as argv, with {junit} where it writes a JUnit XML report`;
  }
  if (runner === undefined) return undefined;
  const c = await jsCandidate(
    repoRoot,
    pkg,
    runner,
    reason,
    nodeTest ? { ...nodeTest, where: scriptName } : undefined,
  );
  return typeof c === 'string' ? c : [c];
}

/** The first `[section]` of an INI/TOML text, and whether it sets `key`. */
function iniSection(text: string, section: string): { found: boolean; sets: (key: string) => boolean } {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `[${section}]`);
  if (start < 0) return { found: false, sets: () => false };
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^\s*\[/.test(l)) break;
    body.push(l);
  }
  return { found: true, sets: (key) => body.some((l) => new RegExp(`^\\s*${key}\\s*=`).test(l)) };
}

/** The Python packages and modules directly under src/ (a src layout), if any. */
async function srcLayout(repoRoot: string): Promise<string[]> {
  const src = path.join(repoRoot, 'src');
  const entries = await readdir(src, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    if (e.isFile() && e.name.endsWith('.py')) out.push(`src/${e.name}`);
    else if (e.isDirectory() && (await isFile(path.join(src, e.name, '__init__.py'))))
      out.push(`src/${e.name}/__init__.py`);
  }
  return out.sort(byCodePoint);
}

/** The requirement files a repository declares its test dependencies in, in the order init reads them. */
async function requirementFiles(repoRoot: string): Promise<string[]> {
  const top = await readdir(repoRoot).catch(() => [] as string[]);
  const nested = (await readdir(path.join(repoRoot, 'requirements')).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.txt') || f.endsWith('.in'))
    .sort(byCodePoint)
    .map((f) => `requirements/${f}`);
  const named = top.filter((f) => /^requirements[-_].+\.(?:txt|in)$/.test(f)).sort(byCodePoint);
  const first = [
    'requirements-dev.txt',
    'requirements-test.txt',
    'test-requirements.txt',
    'dev-requirements.txt',
  ];
  const ordered = [
    ...first.filter((f) => top.includes(f)),
    ...named.filter((f) => !first.includes(f)),
    ...nested,
    ...['requirements.txt'].filter((f) => top.includes(f)),
  ];
  return ordered;
}

/** Where a requirements file (or one it includes with `-r`, one level down) names pytest. */
async function pytestInRequirements(
  repoRoot: string,
  file: string,
  seen: Set<string>,
  depth = 0,
): Promise<string | undefined> {
  if (seen.has(file) || depth > 2) return undefined;
  seen.add(file);
  const text = await readText(path.join(repoRoot, file));
  if (text === undefined) return undefined;
  const line = pytestRequirementLine(text);
  if (line !== undefined) return `found pytest in ${file}:${line}`;
  for (const inc of requirementIncludes(text)) {
    const rel = path.posix.normalize(path.posix.join(path.posix.dirname(file), inc));
    if (rel.startsWith('..') || path.posix.isAbsolute(rel)) continue;
    const found = await pytestInRequirements(repoRoot, rel, seen, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Where tox.ini's `deps` or noxfile.py's `session.install(…)` install pytest. */
async function pytestInTaskFiles(repoRoot: string, seen: Set<string>): Promise<string | undefined> {
  const tox = await readText(path.join(repoRoot, 'tox.ini'));
  if (tox !== undefined) {
    let file: ReturnType<typeof readTox> | undefined;
    try {
      file = readTox(tox);
    } catch {
      // runner-sources notes the parse error once, with its line.
    }
    for (const s of file?.sections ?? []) {
      if (s.name === undefined || (s.name !== 'testenv' && !s.name.startsWith('testenv:'))) continue;
      const deps = s.values.get('deps');
      const keyLine = s.keyLines.get('deps');
      if (deps === undefined || keyLine === undefined) continue;
      const lines = deps.split('\n');
      const at = lines.findIndex((l) => pytestRequirementLine(l) !== undefined);
      if (at >= 0) {
        // The value's lines follow its key; count the source lines to the one that holds it.
        const src = s.lines.findIndex((l, i) => i >= keyLine - s.line && l.includes(lines[at] as string));
        return `found pytest in tox.ini:${src < 0 ? keyLine : s.line + src} ([${s.name}] deps)`;
      }
      for (const l of lines) {
        const inc = /^\s*-r\s*(\S+)/.exec(l)?.[1]?.replace(/^\{toxinidir\}\//, '');
        if (inc === undefined) continue;
        const found = await pytestInRequirements(repoRoot, path.posix.normalize(inc), seen);
        if (found) return `${found} (the [${s.name}] deps of tox.ini include it)`;
      }
    }
  }
  const nox = await readText(path.join(repoRoot, 'noxfile.py'));
  if (nox !== undefined) {
    const call = readNoxfile(nox).installs.find((c) =>
      c.args.some((a) => pytestRequirementLine(a) !== undefined),
    );
    if (call) return `noxfile.py:${call.line} installs pytest (\`${call.text}\`)`;
  }
  return undefined;
}

interface PytestConfig {
  /** Why pytest: its configuration section, or where it is declared. */
  reason?: string;
  setsPythonpath: boolean;
}

async function pytestConfig(repoRoot: string): Promise<PytestConfig> {
  const pyproject = await readText(path.join(repoRoot, 'pyproject.toml'));
  const setupCfg = await readText(path.join(repoRoot, 'setup.cfg'));
  const pytestIni = await readText(path.join(repoRoot, 'pytest.ini'));
  const toxIni = await readText(path.join(repoRoot, 'tox.ini'));
  const sections: { file: string; section: string; text: string | undefined }[] = [
    { file: 'pytest.ini', section: 'pytest', text: pytestIni },
    { file: 'pyproject.toml', section: 'tool.pytest.ini_options', text: pyproject },
    { file: 'setup.cfg', section: 'tool:pytest', text: setupCfg },
    { file: 'tox.ini', section: 'pytest', text: toxIni },
  ];
  let reason: string | undefined;
  let setsPythonpath = false;
  for (const s of sections) {
    if (s.text === undefined) continue;
    const sec = iniSection(s.text, s.section);
    // pytest.ini is pytest's whatever it holds; the shared files only with pytest's section.
    if (!sec.found && s.file !== 'pytest.ini') continue;
    reason ??= sec.found ? `found [${s.section}] in ${s.file}` : `found ${s.file}`;
    if (sec.sets('pythonpath')) setsPythonpath = true;
  }
  if (reason === undefined && pyproject !== undefined) {
    const requirement = /(^|["'\s,[])pytest([<>=~!;\s"',\]]|$)/m;
    const m = requirement.exec(pyproject);
    if (m) reason = `found pytest in pyproject.toml:${lineOf(pyproject, m.index + (m[1] ?? '').length)}`;
  }
  if (reason === undefined) {
    const seen = new Set<string>();
    for (const f of await requirementFiles(repoRoot)) {
      reason = await pytestInRequirements(repoRoot, f, seen);
      if (reason) break;
    }
    reason ??= await pytestInTaskFiles(repoRoot, seen);
  }
  if (reason === undefined) {
    for (const f of ['conftest.py', 'tests/conftest.py', 'test/conftest.py']) {
      if (await isFile(path.join(repoRoot, f))) {
        reason = `found ${f} (a pytest plugin file)`;
        break;
      }
    }
  }
  return { ...(reason !== undefined ? { reason } : {}), setsPythonpath };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The pytest candidate for a reason already found: the install notes and the src layout's PYTHONPATH. */
async function pythonCandidate(
  repoRoot: string,
  reason: string,
  setsPythonpath: boolean,
): Promise<Candidate> {
  const notes: string[] = [];
  const pytestCmd =
    '"python", "-m", "pytest", "--rootdir=.", "--junitxml={junit}", "-p", "no:cacheprovider", "-q", "{tests}"';
  if (await isFile(path.join(repoRoot, 'poetry.lock'))) {
    notes.push(
      `found poetry.lock: the pytest preset runs \`python3 -m pytest\` with the interpreter on PATH and installs nothing. If the tests need Poetry's environment, set tests.setup to ["poetry", "install", "--no-interaction"] and tests.command to ["poetry", "run", ${pytestCmd}] (keep "preset": "pytest" for its report and test selection)`,
    );
  } else if (await isFile(path.join(repoRoot, 'uv.lock'))) {
    notes.push(
      `found uv.lock: the pytest preset runs \`python3 -m pytest\` with the interpreter on PATH and installs nothing. If the tests need uv's environment, set tests.setup to ["uv", "sync", "--frozen"] and tests.command to ["uv", "run", ${pytestCmd}] (keep "preset": "pytest" for its report and test selection)`,
    );
  } else {
    const reqs = await requirementFiles(repoRoot);
    if (reqs.length > 0)
      notes.push(
        `found ${reqs.join(', ')}: the pytest preset installs nothing, so the interpreter on PATH must already have what the tests import (install it in the CI job before \`patchgate check\`)`,
      );
  }
  const layout = await srcLayout(repoRoot);
  const env =
    layout.length > 0 && !setsPythonpath
      ? {
          name: 'PYTHONPATH',
          value: 'src',
          reason: `found ${layout.join(', ')}: a src layout, and no pytest pythonpath setting, so the tests import it from src`,
        }
      : undefined;
  return { preset: 'pytest', reason, ...(env ? { env } : {}), notes };
}

async function detectPython(repoRoot: string): Promise<Candidate[] | undefined> {
  const cfg = await pytestConfig(repoRoot);
  if (cfg.reason === undefined) return undefined;
  return [await pythonCandidate(repoRoot, cfg.reason, cfg.setsPythonpath)];
}

async function detectOthers(repoRoot: string, notes: string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  if (await isFile(path.join(repoRoot, 'go.mod'))) {
    out.push({
      preset: 'go',
      reason: 'found go.mod',
      notes: [
        'the go preset runs gotestsum (go install gotest.tools/gotestsum@latest), which must be on PATH where `patchgate check` runs',
      ],
    });
  }
  if (await isFile(path.join(repoRoot, 'Cargo.toml'))) {
    const nextest = await readText(path.join(repoRoot, '.config/nextest.toml'));
    if (nextest !== undefined && iniSection(nextest, 'profile.ci.junit').found) {
      out.push({
        preset: 'cargo-nextest',
        reason: 'found Cargo.toml and [profile.ci.junit] in .config/nextest.toml',
        notes: [],
      });
    } else {
      notes.push(
        'found Cargo.toml, but the cargo-nextest preset needs a JUnit report: add `[profile.ci.junit]` with `path = "junit.xml"` to .config/nextest.toml, then set tests.preset to "cargo-nextest"',
      );
    }
  }
  if (await isFile(path.join(repoRoot, 'pom.xml'))) {
    out.push({ preset: 'maven', reason: 'found pom.xml', notes: [] });
  }
  for (const f of ['build.gradle', 'build.gradle.kts']) {
    if (await isFile(path.join(repoRoot, f))) {
      notes.push(
        `found ${f}: there is no Gradle preset; set tests.command to the test command as argv (e.g. ["./gradlew", "test"]) and, if its reports are not at {junit}, keep them under build/test-results`,
      );
      break;
    }
  }
  return out;
}

/** A command as init prints it: one line, capped. */
function shown(command: string): string {
  const one = command.replace(/\s+/g, ' ').trim();
  return one.length > 100 ? `${one.slice(0, 99)}…` : one;
}

/** Where a runner use was found, hop by hop: `` `make test` (.github/workflows/ci.yml:12, step "Test") → `pytest` (Makefile:3) ``. */
export function formatChain(use: RunnerUse): string {
  return use.chain
    .map((s, i) => {
      const label = i === 0 && use.label !== undefined ? `, step ${JSON.stringify(use.label)}` : '';
      return `\`${shown(s.command)}\` (${s.file}:${s.line}${label})`;
    })
    .join(' → ');
}

const RUNNER_WORDS: Record<RunnerName, string> = {
  pytest: 'pytest',
  vitest: 'vitest',
  jest: 'jest',
  mocha: 'mocha',
  'node-test': 'node --test',
  go: 'go test',
  'cargo-nextest': 'cargo nextest',
  maven: 'mvn test',
  'cargo-test': 'cargo test',
  gradle: 'gradle test',
  unittest: 'python -m unittest',
};

/** What each runner without a preset needs instead. */
const NO_PRESET_HINT: Partial<Record<RunnerName, string>> = {
  'cargo-test':
    'the cargo-nextest preset runs the same tests and writes JUnit: add `[profile.ci.junit]` with `path = "junit.xml"` to .config/nextest.toml and set tests.preset to "cargo-nextest"',
  gradle:
    'set tests.command to the test command as argv (e.g. ["./gradlew", "test"]); its JUnit reports stay under build/test-results',
  unittest:
    'pytest runs unittest test cases and writes JUnit: set tests.preset to "pytest" (pytest must be installed where `patchgate check` runs)',
};

/** pytest options whose next word is their value, and those of them the gate carries over from the project's command. */
const PYTEST_VALUE_FLAGS = new Set([
  '-m',
  '-k',
  '--ignore',
  '--ignore-glob',
  '--deselect',
  '-c',
  '-p',
  '-n',
  '-o',
  '-r',
  '-W',
  '--rootdir',
  '--junitxml',
  '--junit-xml',
  '--cov',
  '--cov-report',
  '--cov-config',
  '--confcutdir',
  '--basetemp',
  '--maxfail',
  '--tb',
  '--durations',
  '--dist',
  '--numprocesses',
  '--log-level',
  '--timeout',
  '--import-mode',
]);
const PYTEST_KEPT = new Set(['-m', '-k', '--ignore', '--ignore-glob', '--deselect', '--import-mode']);

/**
 * What the project's own pytest command adds that the gate should run with
 * too: the test paths it names (that exist) and its selection (-m, -k,
 * --ignore, --deselect). Everything else is left out and named: stopping
 * early (-x, --maxfail) would leave tests unreported, and the gate writes its
 * own report, picks its own rootdir and runs without coverage.
 */
async function pytestArgs(
  repoRoot: string,
  words: readonly string[],
): Promise<{ args: string[]; dropped: string[] }> {
  const args: string[] = [];
  const dropped: string[] = [];
  const rest = words.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i] as string;
    if (w === '') continue;
    if (w.startsWith('-')) {
      const eq = w.indexOf('=');
      const flag = eq > 0 ? w.slice(0, eq) : w;
      const value = eq < 0 && PYTEST_VALUE_FLAGS.has(flag) ? rest[++i] : undefined;
      const kept = PYTEST_KEPT.has(flag);
      const list = kept ? args : dropped;
      list.push(w);
      if (value !== undefined) list.push(value);
      continue;
    }
    const clean = w.replace(/\/+$/, '');
    const inside = clean !== '' && !clean.startsWith('/') && !clean.split('/').includes('..');
    const target = clean.split('::')[0] as string;
    if (
      inside &&
      (await stat(path.join(repoRoot, target)).then(
        () => true,
        () => false,
      ))
    )
      args.push(w);
    else dropped.push(w);
  }
  return { args, dropped };
}

/** The candidate for a runner a command names, when no manifest made one; a sentence when it cannot be. */
async function candidateFor(
  repoRoot: string,
  runner: RunnerName,
  reason: string,
  use: RunnerUse,
  setsPythonpath: boolean,
): Promise<Candidate | string> {
  switch (runner) {
    case 'pytest':
      return pythonCandidate(repoRoot, reason, setsPythonpath);
    case 'vitest':
    case 'jest':
    case 'mocha':
    case 'node-test': {
      const pkg = await readPackageJson(repoRoot);
      if (typeof pkg === 'string') return pkg;
      const where = use.chain[use.chain.length - 1]?.file ?? 'the command';
      const nodeTest =
        runner === 'node-test' ? nodeTestCommand(use.words.join(' '), where, [use.words]) : undefined;
      if (pkg === undefined) {
        if (runner !== 'node-test')
          return `${reason}, but there is no package.json to install ${runner} from, so tests is not set; add ${runner} to a package.json's devDependencies with a lockfile and run \`patchgate init --force\` again`;
        return jsCandidate(repoRoot, {}, runner, reason, nodeTest ? { ...nodeTest, where } : undefined);
      }
      return jsCandidate(repoRoot, pkg, runner, reason, nodeTest ? { ...nodeTest, where } : undefined, true);
    }
    case 'go':
      return {
        preset: 'go',
        reason,
        notes: [
          'the go preset runs gotestsum (go install gotest.tools/gotestsum@latest), which must be on PATH where `patchgate check` runs',
        ],
      };
    case 'cargo-nextest': {
      const nextest = await readText(path.join(repoRoot, '.config/nextest.toml'));
      if (nextest === undefined || !iniSection(nextest, 'profile.ci.junit').found)
        return `${reason}, but the cargo-nextest preset needs a JUnit report: add \`[profile.ci.junit]\` with \`path = "junit.xml"\` to .config/nextest.toml, then set tests.preset to "cargo-nextest"`;
      return { preset: 'cargo-nextest', reason, notes: [] };
    }
    case 'maven':
      return { preset: 'maven', reason, notes: [] };
    default:
      return `${reason}, which has no preset, so tests is not set; ${NO_PRESET_HINT[runner] ?? 'set tests.command to the test command as argv, with {junit} where it writes a JUnit XML report'}`;
  }
}

/** The runner a repository's language usually has, from its files alone: for the lines a human fills in. */
async function usualRunner(repoRoot: string): Promise<string | undefined> {
  for (const f of ['pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'noxfile.py'])
    if (await isFile(path.join(repoRoot, f))) return 'pytest';
  // Python modules at the top or under src/ or tests/: pytest is the runner such a repository usually gets.
  for (const dir of ['', 'src', 'tests', 'test']) {
    const names = await readdir(path.join(repoRoot, dir)).catch(() => [] as string[]);
    if (names.some((n) => n.endsWith('.py'))) return 'pytest';
  }
  if (await isFile(path.join(repoRoot, 'package.json'))) return 'node-test';
  return undefined;
}

/** The runners of a list of uses, each with the first use that names it, in order. */
function byRunner(uses: readonly RunnerUse[]): Map<RunnerName, RunnerUse> {
  const out = new Map<RunnerName, RunnerUse>();
  for (const u of uses) if (!out.has(u.runner)) out.set(u.runner, u);
  return out;
}

/**
 * The test runner of a repository. In order of strength:
 *
 * 1. the CI workflows' test steps (`.github/workflows/*.yml` `run:` lines,
 *    `.gitlab-ci.yml` `script:`), followed through `npm test`, `make`, `tox`
 *    and `nox` to the command they stand for: how the project really runs
 *    its tests; it chooses among the manifests' runners, or names one they
 *    do not;
 * 2. the manifests: package.json (what `npm test` runs: vitest, jest, mocha
 *    or `node --test`; then the dependencies; then test files importing
 *    node:test; the lockfile gives the install command), pytest's
 *    configuration files or its declaration (pyproject.toml, requirement
 *    files, tox.ini deps, noxfile installs), go.mod, Cargo.toml (with a
 *    nextest JUnit profile), pom.xml;
 * 3. the task files' commands (tox.ini `commands`, noxfile.py
 *    `session.run`, Makefile test targets): they name a runner the manifests
 *    do not, or choose between two.
 *
 * Two runners at the same strength are a choice for a human: nothing is
 * written then, and the notes say what was found where.
 */
export async function detectTests(repoRoot: string): Promise<TestsDetection> {
  const notes: string[] = [];
  const candidates: Candidate[] = [];
  const js = await detectJs(repoRoot);
  if (typeof js === 'string') notes.push(js);
  else if (js) pushAll(candidates, js);
  const py = await detectPython(repoRoot);
  if (py) pushAll(candidates, py);
  pushAll(candidates, await detectOthers(repoRoot, notes));
  const hints = await readRunnerHints(repoRoot);
  pushAll(notes, hints.notes);
  const setsPythonpath = (await pytestConfig(repoRoot)).setsPythonpath;

  let chosen: Candidate | undefined;
  let use: RunnerUse | undefined;
  // The runner a command names, with the manifest's candidate for it when there is one; a sentence when it cannot be.
  const pick = async (runner: RunnerName, u: RunnerUse, tier: string): Promise<void> => {
    const where = `${tier} runs ${RUNNER_WORDS[runner]}: ${formatChain(u)}`;
    const manifest = candidates.find((c) => c.preset === runner);
    if (manifest) {
      chosen = { ...manifest, reason: `${manifest.reason}; ${where}` };
    } else {
      const c = await candidateFor(repoRoot, runner, where, u, setsPythonpath);
      if (typeof c === 'string') {
        notes.push(c);
        return;
      }
      chosen = c;
    }
    use = u;
    const others = candidates.filter((c) => c.preset !== runner);
    if (others.length > 0)
      notes.push(
        `also found ${others.map((c) => `${c.preset} (${c.reason})`).join(' and ')}; the gate runs ${RUNNER_WORDS[runner]}, which ${tier} runs; if the gate should run another, set tests.preset`,
      );
  };

  // 1. The CI test steps, when they agree on one runner (or pick one of the manifests').
  const ci = byRunner(hints.ci);
  const ciPreset = [...ci.keys()].filter((r) => !NO_PRESET.has(r));
  const ciInManifests = ciPreset.filter((r) => candidates.some((c) => c.preset === r));
  const ciChoice =
    ciPreset.length === 1 ? ciPreset[0] : ciInManifests.length === 1 ? ciInManifests[0] : undefined;
  let decided = false;
  if (ciChoice !== undefined) {
    await pick(ciChoice, ci.get(ciChoice) as RunnerUse, 'the CI test step');
    decided = true;
  } else if (ciPreset.length > 1)
    notes.push(
      `the CI workflows run more than one test runner (${[...ci.entries()].map(([r, u]) => `${RUNNER_WORDS[r]}: ${formatChain(u)}`).join('; ')}), so they do not choose one`,
    );
  else if (ci.size > 0 && candidates.length === 0) {
    const [runner, u] = [...ci.entries()][0] as [RunnerName, RunnerUse];
    notes.push(
      `the CI test step runs ${RUNNER_WORDS[runner]}: ${formatChain(u)}, which has no preset; ${NO_PRESET_HINT[runner] ?? ''}`,
    );
    decided = true;
  }

  // 2. and 3. The manifests; the task files' commands where those find none or several.
  if (!decided) {
    const cmds = byRunner(hints.commands);
    const only = candidates.length === 1 ? (candidates[0] as Candidate) : undefined;
    const confirming = only?.preset !== undefined ? cmds.get(only.preset as RunnerName) : undefined;
    if (only && confirming) {
      // A task file that runs the manifest's runner says how: its paths and selection become tests.args.
      await pick(only.preset as RunnerName, confirming, confirming.chain[0]?.file ?? 'a task file');
    } else if (only) {
      chosen = only;
    } else {
      const among =
        candidates.length > 1
          ? [...cmds.keys()].filter((r) => candidates.some((c) => c.preset === r))
          : [...cmds.keys()].filter((r) => !NO_PRESET.has(r));
      if (among.length === 1) {
        const r = among[0] as RunnerName;
        const u = cmds.get(r) as RunnerUse;
        await pick(r, u, u.chain[0]?.file ?? 'a task file');
      } else if (candidates.length > 1) {
        notes.push(
          `found more than one test runner (${candidates.map((c) => `${c.preset}: ${c.reason}`).join('; ')}), so tests is not set; set tests.preset (or tests.command) to the one the gate should run`,
        );
      } else if (among.length > 1) {
        notes.push(
          `the task files run more than one test runner (${among.map((r) => `${RUNNER_WORDS[r]}: ${formatChain(cmds.get(r) as RunnerUse)}`).join('; ')}), so tests is not set; set tests.preset (or tests.command) to the one the gate should run`,
        );
      } else if (cmds.size > 0) {
        const [runner, u] = [...cmds.entries()][0] as [RunnerName, RunnerUse];
        notes.push(
          `${u.chain[0]?.file ?? 'a task file'} runs ${RUNNER_WORDS[runner]}: ${formatChain(u)}, which has no preset; ${NO_PRESET_HINT[runner] ?? ''}`,
        );
      }
    }
  }

  if (chosen === undefined) {
    if (notes.length === 0)
      notes.push(
        'found no test runner (package.json, pyproject.toml, setup.cfg, pytest.ini, tox.ini, noxfile.py, requirement files, Makefile test targets, CI workflows, go.mod, Cargo.toml, pom.xml, test files importing node:test)',
      );
    const named = [...hints.ci, ...hints.commands].find((u) => !NO_PRESET.has(u.runner))?.runner;
    const preset = candidates[0]?.preset ?? named ?? (await usualRunner(repoRoot));
    return {
      reasons: [],
      notes,
      suggestion: preset
        ? { preset: preset as TestsInput['preset'] }
        : { command: ['YOUR-TEST-COMMAND', '--junit-output={junit}'] },
    };
  }
  const c: Candidate = chosen;
  pushAll(notes, c.notes);
  // The project's own command says what the preset's leaves out: its test paths and selection.
  if (use !== undefined && c.preset === 'pytest' && !c.args) {
    const { args, dropped } = await pytestArgs(repoRoot, use.words);
    const at = use.chain[use.chain.length - 1];
    const from = at ? `${at.file}:${at.line}` : 'the command';
    if (args.length > 0)
      c.args = {
        argv: args,
        reason: `what \`${shown(use.words.join(' '))}\` (${from}) adds to the preset's pytest command`,
      };
    if (dropped.length > 0)
      notes.push(
        `left out of tests.args what ${from} also passes pytest (${dropped.join(' ')}): the gate writes its own report and needs every test's outcome, so it never stops early; add an option to tests.args if the tests need it`,
      );
  }
  const reasons: TestsDetection['reasons'] = [
    { key: 'tests.preset', value: c.preset ?? '', reason: c.reason },
  ];
  const tests: TestsInput = { preset: c.preset };
  if (c.setup) {
    tests.setup = c.setup.argv;
    reasons.push({ key: 'tests.setup', value: c.setup.argv.join(' '), reason: c.setup.reason });
  }
  if (c.env) {
    tests.env = { [c.env.name]: c.env.value };
    reasons.push({ key: `tests.env.${c.env.name}`, value: c.env.value, reason: c.env.reason });
  }
  if (c.args) {
    tests.args = c.args.argv;
    reasons.push({ key: 'tests.args', value: c.args.argv.join(' '), reason: c.args.reason });
  }
  return { tests, reasons, notes };
}

/** Whether the repository is a JavaScript package (a package.json at its root): `node_modules/patchgate` can exist. */
export async function isJsRepository(repoRoot: string): Promise<boolean> {
  return isFile(path.join(repoRoot, 'package.json'));
}
