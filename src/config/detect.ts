/**
 * What `patchgate init` can tell about a repository from its files alone:
 * where its fixtures live and how its tests run. Every detection carries the
 * reason it was made, so init can print it; anything it cannot justify from
 * a file it leaves out and says what to set instead.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as shellParse } from 'shell-quote';
import { pushAll } from '../util/arrays.js';
import { byCodePoint } from '../util/compare.js';
import { NODE_VALUE_FLAGS } from './node-flags.js';
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

/** One line of a script as shell words, split at `&&`, `||`, `;` and `|`; globs kept as their pattern. */
function scriptCommands(text: string): string[][] {
  const out: string[][] = [[]];
  for (const tok of shellParse(text, (name) => `$${name}`)) {
    if (typeof tok === 'string') (out[out.length - 1] as string[]).push(tok);
    else if ('op' in tok && tok.op === 'glob') (out[out.length - 1] as string[]).push(tok.pattern);
    else if ('op' in tok) out.push([]);
  }
  return out.filter((c) => c.length > 0);
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
    const only = scriptCommands(text);
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
function nodeTestCommand(text: string): { args: string[]; notes: string[]; command: string } | undefined {
  const commands = scriptCommands(text);
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
      `scripts.test sets ${assignments.join(' ')} for node --test; add it to tests.env if the tests need it`,
    );
  if (at > 0)
    notes.push(
      `scripts.test runs \`${commands
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
        `scripts.test names the test files as the glob ${JSON.stringify(w)}, which the shell expands and node 20 does not, so it is left out of tests.args: node --test finds its test files itself (*.test.js, test/ folders…); if that is not what you run, list the files or folders in tests.args`,
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

async function detectJs(repoRoot: string): Promise<Candidate[] | string | undefined> {
  const text = await readText(path.join(repoRoot, 'package.json'));
  if (text === undefined) return undefined;
  let pkg: PackageJson;
  try {
    pkg = asRecord(JSON.parse(text)) as PackageJson;
  } catch (err) {
    return `package.json is not valid JSON (${(err as Error).message}), so its test runner is unknown`;
  }
  const scripts = asRecord(pkg.scripts);
  const found = testScript(scripts);
  const script = found?.text;
  const scriptName = found ? `scripts.${found.via.join(' → scripts.')}` : 'scripts.test';
  const deps = { ...asRecord(pkg.dependencies), ...asRecord(pkg.devDependencies) };
  const depWhere = (name: string) =>
    name in asRecord(pkg.devDependencies) ? 'devDependencies' : 'dependencies';
  let runner: (typeof JS_RUNNERS)[number] | 'node-test' | undefined;
  let reason = '';
  const nodeTest = script === undefined ? undefined : nodeTestCommand(script);
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
  const notes: string[] = [];
  const reporter = runner === 'node-test' ? undefined : JS_REPORTER[runner];
  if (reporter !== undefined && !(reporter in deps)) {
    return `${reason}, but the ${runner} preset writes its JUnit report with ${reporter}, which package.json does not list, so tests is not set; install it (npm install --save-dev ${reporter}) and run \`patchgate init --force\` again`;
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
        reason: `what ${scriptName} adds to node --test (\`${nodeTest.command}\`)`,
      };
  }
  const setup = await jsSetup(repoRoot, pkg, notes);
  return [{ preset: runner, reason, ...(setup ? { setup } : {}), ...(args ? { args } : {}), notes }];
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

async function detectPython(repoRoot: string): Promise<Candidate[] | undefined> {
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
  if (reason === undefined) {
    const requirement = /(^|["'\s,[])pytest([<>=~!;\s"',\]]|$)/m;
    if (pyproject !== undefined && requirement.test(pyproject)) reason = 'found pytest in pyproject.toml';
    else {
      for (const f of ['requirements-dev.txt', 'requirements-test.txt', 'requirements.txt']) {
        const t = await readText(path.join(repoRoot, f));
        if (t !== undefined && /^\s*pytest\b/m.test(t)) {
          reason = `found pytest in ${f}`;
          break;
        }
      }
    }
  }
  if (reason === undefined) {
    for (const f of ['conftest.py', 'tests/conftest.py', 'test/conftest.py']) {
      if (await isFile(path.join(repoRoot, f))) {
        reason = `found ${f} (a pytest plugin file)`;
        break;
      }
    }
  }
  if (reason === undefined) return undefined;
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
  } else if (await isFile(path.join(repoRoot, 'requirements.txt'))) {
    notes.push(
      'found requirements.txt: the pytest preset installs nothing, so the interpreter on PATH must already have what the tests import (install it in the CI job before `patchgate check`)',
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
  return [{ preset: 'pytest', reason, ...(env ? { env } : {}), notes }];
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

/**
 * The test runner of a repository, from its manifests: package.json
 * (what `npm test` runs: vitest, jest, mocha or `node --test`; then the
 * dependencies; then test files importing node:test; the lockfile gives the
 * install command), pytest's configuration files, go.mod, Cargo.toml
 * (with a nextest JUnit profile), pom.xml. Two runners from different
 * manifests are a choice for a human: nothing is written then.
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
  if (candidates.length === 0) {
    if (notes.length === 0)
      notes.push(
        'found no test runner (package.json, pyproject.toml, setup.cfg, pytest.ini, tox.ini, go.mod, Cargo.toml, pom.xml, test files importing node:test), so the tests layers stay off; add a `tests` section (preset or command) to turn them on',
      );
    return { reasons: [], notes };
  }
  if (candidates.length > 1) {
    notes.push(
      `found more than one test runner (${candidates.map((c) => `${c.preset}: ${c.reason}`).join('; ')}), so tests is not set; set tests.preset (or tests.command) to the one the gate should run`,
    );
    return { reasons: [], notes };
  }
  const c = candidates[0] as Candidate;
  pushAll(notes, c.notes);
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
