/**
 * Ready-made test commands, and the expansion of a configured command into an
 * argv. Two placeholders exist:
 *
 * - `{junit}`: the absolute path the JUnit report must be written to. It is
 *   replaced wherever it appears, inside an argument (`--outputFile={junit}`)
 *   or an environment value (`JEST_JUNIT_OUTPUT_FILE={junit}`).
 * - `{tests}`: a subset of tests, expanded into zero or more arguments by the
 *   preset's `subsetArgs`. It must be a whole argument; without a subset it is
 *   removed.
 *
 * Any other braces are left alone: they are the command's business.
 *
 * Runners that select by name (vitest, jest, node:test) still report the tests
 * left out, as skipped. A caller reading a subset run must look only at the
 * ids it asked for, never count the others' skips.
 *
 * pytest is never given tests or files on its command line: pytest collects
 * whatever it is handed there, outside `testpaths`, `python_files`,
 * `norecursedirs` and `collect_ignore` alike, so a subset run would collect a
 * `bench/test_x.py` the project's own configuration leaves out. The preset
 * says `selectsInProcess` instead: the subset becomes a `selection` the
 * gate's `patchgate_select` plugin applies after pytest's own collection.
 */
import { pushAll } from '../../util/arrays.js';
import { formatCommand } from '../harness/protocol.js';
import { TestRunError } from './errors.js';

/** One test as a JUnit report names it. */
export interface TestIdParts {
  /** The enclosing `<testsuite name>`. */
  suite: string;
  /** The `<testcase classname>`. */
  classname: string;
  /** The `<testcase name>`. */
  name: string;
  /** The `<testcase file>`, when the runner writes one. */
  file?: string;
}

export interface TestPreset {
  name: string;
  /** argv with placeholders; empty for `generic`, which takes the user's command. */
  command: string[];
  /** Added to the (already scrubbed) environment; values may use `{junit}`. */
  env?: Record<string, string>;
  /**
   * For runners that choose their report location themselves: a glob,
   * relative to the command's cwd, of the report file(s) read after the run
   * instead of `{junit}`.
   */
  junitFrom?: string;
  /** The arguments that take the place of `{tests}` to run only these tests. */
  subsetArgs(ids: TestIdParts[]): string[];
  /** The repo-relative file a test lives in, when the runner's ids tell; the JUnit `file` attribute otherwise. */
  testFile?(id: TestIdParts): string | undefined;
  /** The arguments that take the place of `{tests}` to run every test of these files, when the runner can. */
  fileArgs?(files: string[]): string[];
  /**
   * The arguments that take the place of `{tests}` to list every test without
   * running one (the base's inventory): pytest's `--collect-only` (the guard
   * plugin records what was collected), or a name filter that matches nothing
   * for runners that report what they left out as skipped.
   */
  collectArgs?: readonly string[];
  /**
   * The runner is told its subset by the gate's plugin, never on its command
   * line (pytest: see the module comment). `{tests}` then expands to nothing
   * for a subset, and `resolveTestCommand` returns the `selection`.
   */
  selectsInProcess?: boolean;
  /**
   * The runner stops reading options at its first positional argument (node:
   * a later `--test-name-pattern` would be taken for a test file). The
   * subset's flags then go before the test paths `args` names, and a subset
   * of files replaces those paths.
   */
  flagsBeforePaths?: boolean;
  /**
   * The arguments that end the run at its first failing test, for a run whose
   * question is only whether some test fails (the mutation probe's mutant: one
   * failing test is a kill). A `selectsInProcess` runner is told in its
   * selection instead.
   */
  failFastArgs?: readonly string[];
}

/** A regular expression no test name matches (an empty lookahead never succeeds). */
const MATCHES_NOTHING = '(?!)';

export interface TestCommandConfig {
  /** A preset name; with `command` too, the command replaces the preset's but keeps its env, subset syntax and report location. */
  preset?: string;
  /** argv with placeholders. Alone, it is the `generic` preset. */
  command?: string[];
  /** Overrides the preset's `junitFrom`: a glob relative to the cwd naming the report(s) the command writes. */
  junit?: string;
  /** Extra arguments, inserted where `{tests}` is (before it), or at the end of a command without it. */
  args?: readonly string[];
}

/** What a `selectsInProcess` runner must run: node ids (relative to the checkout) and whole files. */
export interface TestSelection {
  nodeids: string[];
  files: string[];
  /** End the run at the first selected test that fails (see `failFastArgs`). */
  stop?: boolean;
}

export interface ResolvedTestCommand {
  argv: string[];
  /** Only the variables the preset adds; the caller merges them over the scrubbed environment. */
  env: Record<string, string>;
  /** Set when the report is collected from the cwd rather than written to `junitPath`. */
  junitFrom?: string;
  /** For a subset of a `selectsInProcess` preset: what the gate's plugin keeps of the runner's own collection. */
  selection?: TestSelection;
}

export const JUNIT_PLACEHOLDER = '{junit}';
export const TESTS_PLACEHOLDER = '{tests}';

/** JavaScript and RE2 (Go) agree on these metacharacters; escaping only them stays valid under the `u` flag too. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** `^(?:a|b)$`: an anchored alternation, so `adds` never also selects `adds twice`. */
function anchoredAlternation(patterns: string[], group = '(?:'): string {
  return `^${group}${unique(patterns).join('|')})$`;
}

/**
 * Vitest's JUnit name joins describe blocks and the test with ` > `, while
 * `-t` matches them joined with a single space. A literal ` > ` inside a
 * title cannot be told from a separator, so either spelling is accepted.
 */
function vitestNamePattern(name: string): string {
  return name.trim().split(' > ').map(escapeRegExp).join('(?: > | )');
}

/**
 * pytest's JUnit writer turns the node id `tests/test_x.py::TestY::test_z[p]`
 * into classname `tests.test_x.TestY` and name `test_z[p]` (the path's `/`
 * become `.`, `.py` is dropped, classes are appended). Going back:
 *
 * - with the `file` attribute (pytest writes it under `junit_family=xunit1`),
 *   the module is that file and whatever the classname has after the file's
 *   dotted form are classes;
 * - without it, trailing classname segments that start with an upper-case
 *   letter are classes (pytest collects `Test*` classes; test modules are
 *   lower-case by convention) and the rest is the module path.
 *
 * The id is relative to pytest's rootdir, which is the checkout's root when
 * the command runs there. A directory with a dot in its name, or a
 * `junit_prefix`, cannot be recovered without `file`.
 */
export function pytestNodeId(id: TestIdParts): string {
  const name = id.name;
  if (id.file !== undefined && id.file !== '') {
    const file = id.file.replace(/\\/g, '/');
    const dotted = file.replace(/\.py$/, '').split('/').join('.');
    if (id.classname === dotted || id.classname.startsWith(`${dotted}.`)) {
      const classes = id.classname.slice(dotted.length).split('.').filter(Boolean);
      return [file, ...classes, name].join('::');
    }
  }
  const segments = id.classname.split('.').filter(Boolean);
  if (segments.length === 0) return name;
  let cut = segments.length;
  while (cut > 1 && /^[A-Z]/.test(segments[cut - 1]!)) cut--;
  const file = `${segments.slice(0, cut).join('/')}.py`;
  return [file, ...segments.slice(cut), name].join('::');
}

/**
 * nextest filterset strings end at `)` or `,` and treat `\` as an escape, so
 * those three are escaped; control characters use their escapes.
 */
function nextestString(text: string): string {
  return text
    .replace(/[\\),]/g, '\\$&')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
}

/**
 * Surefire selects `Class#method`; JUnit 5 and parameterized runners report
 * `method()`, `method(int)[1]` or `method[0]`, so the method is cut at the
 * first `(` or `[` (every parameter set of it then runs). A name that is not
 * a Java identifier after that (a display name) cannot be selected by
 * method: the whole class runs instead.
 */
function surefireMethod(name: string): string | undefined {
  const method = name.trim().split(/[([]/)[0] ?? '';
  return /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(method) ? method : undefined;
}

function surefireSelection(ids: TestIdParts[]): string {
  const byClass = new Map<string, Set<string> | 'all'>();
  for (const id of ids) {
    const method = surefireMethod(id.name);
    const current = byClass.get(id.classname);
    if (method === undefined || current === 'all') byClass.set(id.classname, 'all');
    else if (current === undefined) byClass.set(id.classname, new Set([method]));
    else current.add(method);
  }
  return [...byClass]
    .map(([cls, methods]) => (methods === 'all' ? cls : `${cls}#${[...methods].join('+')}`))
    .join(',');
}

const presets: TestPreset[] = [
  {
    name: 'vitest',
    // `--no`: a runner missing from the checkout must fail, never be fetched from the registry mid-gate.
    command: [
      'npx',
      '--no',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=junit',
      '--outputFile.junit={junit}',
      '{tests}',
    ],
    subsetArgs: (ids) => ['-t', anchoredAlternation(ids.map((id) => vitestNamePattern(id.name)))],
    // Vitest's JUnit classname is the test file, relative to the project root.
    testFile: (id) => id.file ?? (id.classname !== '' ? id.classname : undefined),
    // Positional filters match a file's path; an exact relative path selects that file.
    fileArgs: (files) => unique(files),
    collectArgs: ['-t', MATCHES_NOTHING],
    failFastArgs: ['--bail=1'],
  },
  {
    name: 'jest',
    command: ['npx', '--no', 'jest', '--ci', '--reporters=default', '--reporters=jest-junit', '{tests}'],
    // jest-junit's default name is `{classname} {title}`: describe blocks and title joined by spaces, which is what `-t` matches.
    env: { JEST_JUNIT_OUTPUT_FILE: '{junit}', JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true' },
    subsetArgs: (ids) => ['-t', anchoredAlternation(ids.map((id) => escapeRegExp(id.name.trim())))],
    collectArgs: ['-t', MATCHES_NOTHING],
    failFastArgs: ['--bail=1'],
  },
  {
    name: 'mocha',
    // mocha-junit-reporter leaves pending tests out unless asked, and skips are what freezes are about.
    command: [
      'npx',
      '--no',
      'mocha',
      '--reporter',
      'mocha-junit-reporter',
      '--reporter-options',
      'mochaFile={junit},includePending=true',
      '{tests}',
    ],
    // The reporter's name is the test's fullTitle(), which is what --grep matches.
    subsetArgs: (ids) => ['--grep', anchoredAlternation(ids.map((id) => escapeRegExp(id.name.trim())))],
  },
  {
    name: 'node-test',
    // Node's own runner (Node 20.13 or later): the spec reporter for the log, its JUnit reporter for the gate.
    command: [
      'node',
      '--test',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=junit',
      '--test-reporter-destination={junit}',
      '{tests}',
    ],
    // Node 20 matches the pattern against each test's own name (the JUnit name; a suite that matches runs all of
    // its tests) and reports the tests it leaves out as skipped.
    subsetArgs: (ids) => [
      `--test-name-pattern=${anchoredAlternation(ids.map((id) => escapeRegExp(id.name)))}`,
    ],
    // Positional arguments are the test files to run instead of the ones node finds itself.
    fileArgs: (files) => unique(files),
    collectArgs: [`--test-name-pattern=${MATCHES_NOTHING}`],
    flagsBeforePaths: true,
  },
  {
    name: 'pytest',
    // Node ids, and so JUnit classnames, are relative to the rootdir; pinning it to the checkout keeps ids the
    // same in every run. No test or file is ever passed on the command line (see the module comment): with
    // none, pytest collects what the project's configuration says (`testpaths` and the rest).
    command: [
      'python3',
      '-m',
      'pytest',
      '--rootdir=.',
      '--junitxml={junit}',
      '-p',
      'no:cacheprovider',
      '-q',
      '{tests}',
    ],
    subsetArgs: (ids) => unique(ids.map(pytestNodeId)),
    selectsInProcess: true,
    testFile: (id) => {
      const nodeid = pytestNodeId(id);
      return nodeid.includes('::') ? nodeid.slice(0, nodeid.indexOf('::')) : undefined;
    },
    fileArgs: (files) => unique(files),
    collectArgs: ['--collect-only', '-q'],
  },
  {
    name: 'go',
    command: ['gotestsum', '--junitfile', '{junit}', '--', './...', '{tests}'],
    // `go test -run` matches each `/`-separated level separately; selecting the top-level test runs all its subtests.
    subsetArgs: (ids) => [
      '-run',
      anchoredAlternation(
        ids.map((id) => escapeRegExp(id.name.split('/')[0] ?? id.name)),
        '(',
      ),
    ],
  },
  {
    name: 'cargo-nextest',
    // The repository's .config/nextest.toml must define `[profile.ci.junit] path = "junit.xml"`; nextest then writes
    // the report under target/ (CARGO_TARGET_DIR moves it). Fail-fast would leave the remaining tests unreported.
    command: ['cargo', 'nextest', 'run', '--profile', 'ci', '--no-fail-fast', '{tests}'],
    junitFrom: 'target/nextest/ci/junit.xml',
    subsetArgs: (ids) => ['-E', unique(ids.map((id) => `test(=${nextestString(id.name)})`)).join(' | ')],
  },
  {
    name: 'maven',
    // One report per test class, per module; --fail-at-end lets every module run and report.
    command: ['mvn', '-B', '-q', '--fail-at-end', 'test', '{tests}'],
    junitFrom: '**/target/surefire-reports/TEST-*.xml',
    // Modules without any of the selected classes must not fail the build.
    subsetArgs: (ids) => [`-Dtest=${surefireSelection(ids)}`, '-Dsurefire.failIfNoSpecifiedTests=false'],
  },
  {
    name: 'generic',
    command: [],
    // A custom command gets each test's JUnit name as one argument; it knows its own naming.
    subsetArgs: (ids) => unique(ids.map((id) => id.name)),
  },
];

export const TEST_PRESETS: ReadonlyMap<string, TestPreset> = new Map(presets.map((p) => [p.name, p]));

/** The file a test of this preset lives in, or undefined when its id does not say. */
export function testFileOf(presetName: string | undefined, id: TestIdParts): string | undefined {
  const preset = TEST_PRESETS.get(presetName ?? 'generic');
  const file = preset?.testFile ? preset.testFile(id) : id.file;
  return file === undefined || file === '' ? undefined : file.replace(/\\/g, '/');
}

/** Whether a preset can run every test of given files (`fileArgs`). */
export function canSelectFiles(presetName: string | undefined): boolean {
  return TEST_PRESETS.get(presetName ?? 'generic')?.fileArgs !== undefined;
}

/**
 * Whether a run of some tests had better name them than their files: where
 * the runner selects node ids itself (pytest, with files and ids in one
 * selection), or cannot select files at all. A name filter (vitest's `-t`)
 * still loads every test file, and cannot be combined with a file subset.
 */
export function namesBeatFiles(presetName: string | undefined): boolean {
  const preset = TEST_PRESETS.get(presetName ?? 'generic');
  return preset?.selectsInProcess === true || preset?.fileArgs === undefined;
}

export function presetNames(): string[] {
  return [...TEST_PRESETS.keys()];
}

/**
 * A `junitFrom` glob must stay inside the checkout: it names files that are
 * deleted before each run and copied out after it.
 */
export function checkJunitGlob(glob: string): void {
  const trimmed = glob.trim();
  const parts = trimmed.split(/[\\/]/);
  if (trimmed === '' || trimmed.startsWith('/') || /^[A-Za-z]:/.test(trimmed) || parts.includes('..')) {
    throw new TestRunError(
      'COMMAND_INVALID',
      `the JUnit report location ${JSON.stringify(glob)} must be a glob relative to the checkout, without ".."`,
      { junit: glob },
    );
  }
}

/**
 * The argv and environment to run, with placeholders expanded. Throws
 * TestRunError: UNKNOWN_PRESET (listing the valid ones), COMMAND_INVALID
 * (no command, `{tests}` inside an argument, no way to find the report) or
 * SUBSET_UNSUPPORTED (a subset asked of a command without `{tests}`; the
 * caller may run the whole suite instead).
 */
export function resolveTestCommand(
  config: TestCommandConfig,
  opts: { junitPath: string; tests?: TestIdParts[]; files?: string[]; collect?: boolean; failFast?: boolean },
): ResolvedTestCommand {
  const presetName = config.preset ?? 'generic';
  const preset = TEST_PRESETS.get(presetName);
  if (preset === undefined) {
    throw new TestRunError(
      'UNKNOWN_PRESET',
      `unknown test preset ${JSON.stringify(presetName)}; valid presets: ${presetNames().join(', ')}`,
      { preset: presetName, valid: presetNames() },
    );
  }
  const template = testCommandTemplate({ command: config.command }, preset);
  const args = config.args ?? [];
  if (template.length === 0 || template[0] === '') {
    throw new TestRunError(
      'COMMAND_INVALID',
      config.command === undefined
        ? `the ${preset.name} preset needs a test command: set the command as an argv array`
        : 'the test command is empty: give the program and its arguments as an array',
      { preset: preset.name },
    );
  }
  for (const arg of config.args ?? []) {
    if (arg.includes(TESTS_PLACEHOLDER) || arg.includes(JUNIT_PLACEHOLDER)) {
      throw new TestRunError(
        'COMMAND_INVALID',
        `tests.args extend the command and cannot hold ${TESTS_PLACEHOLDER} or ${JUNIT_PLACEHOLDER}, found in ${JSON.stringify(arg)}`,
        { args: config.args },
      );
    }
  }
  for (const arg of template) {
    if (arg !== TESTS_PLACEHOLDER && arg.includes(TESTS_PLACEHOLDER)) {
      throw new TestRunError(
        'COMMAND_INVALID',
        `${TESTS_PLACEHOLDER} must be a whole argument of the test command, found in ${JSON.stringify(arg)}`,
        { command: template },
      );
    }
  }
  if (opts.tests !== undefined && opts.tests.length === 0) {
    // An empty selection is a caller bug: expanding it to "no filter" would silently run everything.
    throw new RangeError('resolveTestCommand: a subset must name at least one test; omit `tests` to run all');
  }

  const fill = (text: string): string => text.split(JUNIT_PLACEHOLDER).join(opts.junitPath);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(preset.env ?? {})) env[key] = fill(value);
  const writesJunit =
    template.some((a) => a.includes(JUNIT_PLACEHOLDER)) ||
    Object.values(preset.env ?? {}).some((v) => v.includes(JUNIT_PLACEHOLDER));
  if (writesJunit && config.junit !== undefined) {
    throw new TestRunError(
      'COMMAND_INVALID',
      `the test command writes its report to ${JUNIT_PLACEHOLDER} and also names a report location (${JSON.stringify(config.junit)}); keep one`,
      { command: template, junit: config.junit },
    );
  }
  const junitFrom = writesJunit ? undefined : (config.junit ?? preset.junitFrom);
  if (!writesJunit && junitFrom === undefined) {
    throw new TestRunError(
      'COMMAND_INVALID',
      `the test command \`${formatCommand(template)}\` writes no JUnit report patchgate can find: put ${JUNIT_PLACEHOLDER} where the report path goes, or name the file(s) it writes with \`junit\``,
      { command: template },
    );
  }
  if (junitFrom !== undefined) checkJunitGlob(junitFrom);

  const hasTests = template.includes(TESTS_PLACEHOLDER);
  const wantsSubset = opts.tests !== undefined || opts.files !== undefined;
  if (opts.collect && (preset.collectArgs === undefined || !hasTests)) {
    throw new TestRunError(
      'SUBSET_UNSUPPORTED',
      `the test command \`${formatCommand(template)}\` cannot list its tests without running them`,
      { command: template },
    );
  }
  if (wantsSubset && !hasTests && !preset.selectsInProcess) {
    throw new TestRunError(
      'SUBSET_UNSUPPORTED',
      `the test command \`${formatCommand(template)}\` has no ${TESTS_PLACEHOLDER} argument, so it cannot run a subset of tests`,
      { command: template },
    );
  }
  if (opts.files !== undefined && (opts.files.length === 0 || preset.fileArgs === undefined)) {
    throw new RangeError(
      'resolveTestCommand: files need a preset that can select them, and at least one file',
    );
  }
  // A listing of some files only (a shard's share of the base's tests) selects them as a run would.
  if (preset.selectsInProcess && wantsSubset && (!opts.collect || opts.tests === undefined)) {
    const selection: TestSelection = {
      nodeids: opts.tests === undefined ? [] : preset.subsetArgs(opts.tests),
      files: opts.files === undefined ? [] : unique(opts.files),
      ...(opts.failFast && !opts.collect ? { stop: true } : {}),
    };
    const argv = expand(
      template,
      [...args, ...(opts.collect ? (preset.collectArgs ?? []) : [])],
      fill,
      hasTests,
    );
    return { argv, env, selection, ...(junitFrom === undefined ? {} : { junitFrom }) };
  }
  const subset =
    opts.collect && preset.collectArgs
      ? [
          ...preset.collectArgs,
          ...(opts.files !== undefined && preset.fileArgs ? preset.fileArgs(opts.files) : []),
        ]
      : opts.files !== undefined && preset.fileArgs
        ? preset.fileArgs(opts.files)
        : opts.tests === undefined
          ? []
          : preset.subsetArgs(opts.tests);
  const failFast = opts.failFast && !opts.collect ? (preset.failFastArgs ?? []) : [];
  let expansion = [...args, ...failFast, ...subset];
  if (preset.flagsBeforePaths) {
    const flags = [...args.filter((a) => a.startsWith('-')), ...failFast];
    const paths = args.filter((a) => !a.startsWith('-'));
    expansion = opts.files !== undefined ? [...flags, ...subset] : [...flags, ...subset, ...paths];
  }
  const argv = expand(template, expansion, fill, hasTests);
  return junitFrom === undefined ? { argv, env } : { argv, env, junitFrom };
}

/** The template with `{tests}` replaced by `expansion` (appended when the command has no `{tests}`). */
function expand(
  template: readonly string[],
  expansion: readonly string[],
  fill: (arg: string) => string,
  hasTests: boolean,
): string[] {
  const argv = template.flatMap((arg) => (arg === TESTS_PLACEHOLDER ? [...expansion] : [fill(arg)]));
  return hasTests ? argv : pushAll(argv, expansion);
}

/**
 * The command as configured, placeholders still in: the user's `command` or
 * the preset's, with `args` where `{tests}` is (just before it), or at the
 * end of a command without `{tests}`. The overlay reads this too, so a plugin
 * `args` loads is test side like one the command names.
 */
export function testCommandTemplate(
  config: Pick<TestCommandConfig, 'command' | 'args'>,
  preset: Pick<TestPreset, 'command'> | undefined,
): string[] {
  const template = [...(config.command ?? preset?.command ?? [])];
  const args = config.args ?? [];
  if (args.length === 0) return template;
  const at = template.indexOf(TESTS_PLACEHOLDER);
  const out = at < 0 ? template : template.slice(0, at);
  pushAll(out, args);
  if (at >= 0) pushAll(out, template.slice(at));
  return out;
}
