/** What counts as test machinery, and as sniffing the test run, for the reach check's two parsers. */
import { importCandidates } from '../../util/import-candidates.js';

/**
 * The kinds of reach, stable names users see as `evidence.shape`. The first
 * group steers the tests; the rest sniff the runtime, the one way production
 * code can pass every test and still ship broken: it answers the test run
 * rather than the user.
 */
export const REACH_SHAPES = [
  'test-import',
  'patches-runtime',
  'exit',
  'exit-hook',
  'test-global',
  'runner-variable',
  'command-line',
  'runtime-version',
  'process-context',
  'module-registry',
  'call-stack',
  'environment',
  'global-scope',
  'computed-import',
  'computed-code',
  'runtime-internals',
  'escape',
] as const;
export type ReachShape = (typeof REACH_SHAPES)[number];

/** One reach in one file. `what` reads after "production code …". */
export interface Reach {
  line: number;
  shape: ReachShape;
  what: string;
  /** What it names (a module, a call, a runtime path), for the evidence and to match it against the base's copy. */
  detail: string;
  /**
   * A read an entry point may make (the command line, interpreter flags, the
   * process it runs in) with no test runner's name in sight: reported only
   * outside the files the base declares as entry points.
   */
  entryOk?: boolean;
  /** The test runner's name the read is compared with, when that is what gave it away. */
  word?: string;
}

/**
 * A module a file loads by a constant name, for the entry-point check: a
 * JavaScript specifier (`import … from spec`, `require(spec)`), or a Python
 * load as `level|module|name`.
 */
export interface Load {
  line: number;
  spec: string;
}

/**
 * A test runner's name (or a test file's) where the runtime's identity is
 * read: `process.argv.some(a => a.includes('vitest'))`, a stack frame in
 * `x.test.ts`, `'pytest' in sys.argv[0]`. Bounded so `majestic` is not
 * `jest`. Shared with the Python reader, which compiles the same source.
 */
export const RUNNER_WORD_SOURCE =
  '(?<![a-z0-9])(?:vitest|jest|mocha|jasmine|ava|pytest|py\\.test|_pytest|hypothesis|unittest|nose2?|tinypool|vite-node|conftest|pluggy|xdist|node:test|--test)(?![a-z0-9])' +
  '|\\.(?:test|spec)(?:\\.|$)|(?<![a-z0-9])test_|_test\\.py|__tests__';
const RUNNER_WORD = new RegExp(RUNNER_WORD_SOURCE, 'i');
/** What an environment value is compared with to ask "is this the test run": `NODE_ENV === 'test'`. */
const TEST_MODE = /^\s*test(?:ing)?\s*$/i;

/**
 * A variable whose name says "the tests are running" (`TESTING`, `IS_TEST`, `TEST_MODE`, `RUNNING_TESTS`):
 * set by a test setup, never by a user, so production code that reads it asks whether it runs under test.
 * Names that merely start with TEST (`TEST_DATABASE_URL`) are configuration, not this. Shared with the
 * Python reader.
 */
export const TEST_FLAG_SOURCE =
  '^(?:(?:is|in|under|running|run|unit|e2e)_?)*tests?(?:ing)?(?:_?(?:mode|env|run|ing|ing_mode))?$';
const TEST_FLAG = new RegExp(TEST_FLAG_SOURCE, 'i');

export function isTestFlag(variable: string): boolean {
  return TEST_FLAG.test(variable);
}

/** The runner's name in `text`, if any; `env` adds the bare word `test` (an environment value compared with it). */
export function runnerWord(text: string, env = false): string | undefined {
  const m = RUNNER_WORD.exec(text);
  if (m) return m[0];
  return env && TEST_MODE.test(text) ? text.trim() : undefined;
}

/** The sentence a shape reads as, after "production code"; `detail` names the runtime path or call. */
export function reachText(shape: ReachShape, detail: string): string {
  switch (shape) {
    case 'command-line':
      return `reads the command line or interpreter flags (${detail})`;
    case 'runtime-version':
      return `decides on the runtime's version or build (${detail})`;
    case 'process-context':
      return `asks which process or thread it runs in (${detail})`;
    case 'module-registry':
      return `looks into the module registry (${detail})`;
    case 'call-stack':
      return `inspects the call stack or the tracer (${detail})`;
    case 'environment':
      return `reads the environment by a computed or enumerated name (${detail})`;
    case 'runner-variable':
      return `reads the test runner variable ${detail}`;
    case 'test-global':
      return `touches the test runner's global ${detail}`;
    case 'global-scope':
      return `reads the global scope by a computed or hidden name (${detail})`;
    case 'computed-import':
      return `imports a module by a computed name (${detail})`;
    case 'computed-code':
      return `evaluates code the gate cannot read (${detail})`;
    case 'runtime-internals':
      return `reads the runtime's internals (${detail})`;
    case 'escape':
      return `hands the runtime object ${detail} to code the check cannot follow`;
    case 'patches-runtime':
      return `patches the runtime (${detail})`;
    case 'exit':
      return `calls ${detail} (the runner would stop before it reports)`;
    case 'exit-hook':
      return `registers an exit or audit hook (${detail})`;
    case 'test-import':
      return `imports ${detail}`;
  }
}

/** The human next step, per shape; the override sentence is added where the finding is made. */
export function reachNext(shape: ReachShape): string {
  switch (shape) {
    case 'test-import':
      return 'move test-only code to the test side (tests.paths in the base config), or inject what it needed';
    case 'command-line':
    case 'process-context':
    case 'escape':
      return 'read the command line (or the process) in an entry point the base declares (package.json bin, __main__.py, console_scripts, or under a `__main__` / `require.main === module` guard) and pass production code what it needs as a parameter';
    case 'exit':
    case 'exit-hook':
      return 'return or throw instead, and let the entry point decide how the process ends';
    default:
      return 'remove the check: production code must behave the same under test as for its users; pass the setting it needs as a parameter or a documented option';
  }
}

const JS_TEST_MODULES = [
  /^vitest(\/|$)/,
  /^@vitest\//,
  /^jest(\/|$)/,
  /^@jest\//,
  /^expect$/,
  /^mocha$/,
  /^chai(\/|$)/,
  /^node:test$/,
  /^fast-check$/,
  /^@fast-check\//,
  /^patchgate(\/|$)/,
];
const PY_TEST_MODULES =
  /^(pytest\w*|_pytest|py\.test|hypothesis|_hypothesis_\w+|pluggy|xdist|conftest|unittest|nose2?|patchgate_\w+)(\.|$)/;

/** A module specifier, classified: a test tool, test-side code, or nothing to say. */
export function classifyJsImport(
  file: string,
  spec: string,
  isTestPath: (p: string) => boolean,
): string | undefined {
  if (JS_TEST_MODULES.some((r) => r.test(spec))) return `imports the test module '${spec}'`;
  if (!spec.startsWith('.')) return undefined;
  return importCandidates(file, spec).some(isTestPath) ? `imports test-side code '${spec}'` : undefined;
}

export function classifyPyImport(module: string, isTestPath: (p: string) => boolean): string | undefined {
  if (PY_TEST_MODULES.test(module)) return `imports the test module '${module}'`;
  const asPath = module.replace(/\./g, '/');
  // `tests.helpers` as a repository path, and under a src layout.
  for (const prefix of ['', 'src/'])
    if (isTestPath(`${prefix}${asPath}.py`) || isTestPath(`${prefix}${asPath}/__init__.py`))
      return `imports test-side code '${module}'`;
  return undefined;
}
