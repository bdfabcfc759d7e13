/**
 * What a command line a repository runs its tests with invokes: a CI step's
 * `run:` line, a tox `commands` line, a Makefile recipe line, a package.json
 * script. The words are read the way a shell splits them, the wrappers that
 * only choose an environment (`npx`, `uv run`, `python -m`, `coverage run
 * -m`, `env X=1`…) are looked through, and the commands that stand for other
 * commands (`npm test`, `make test`, `tox -e py`, `nox -s tests`) are
 * returned as what to follow, for the caller to resolve in the file that
 * defines them.
 */

/** The runners init can write a preset for, and the ones it can only name. */
export type RunnerName =
  | 'pytest'
  | 'vitest'
  | 'jest'
  | 'mocha'
  | 'node-test'
  | 'go'
  | 'cargo-nextest'
  | 'maven'
  | 'cargo-test'
  | 'gradle'
  | 'unittest';

/** Runners with no preset: init says what to set instead of writing a `tests` section. */
export const NO_PRESET: ReadonlySet<RunnerName> = new Set(['cargo-test', 'gradle', 'unittest']);

export type Recognized =
  /** `words` is the whole command from the runner's own name on (`pytest tests -x`, `node --test test/`). */
  | { kind: 'runner'; runner: RunnerName; words: string[] }
  /** A script of package.json, by name. */
  | { kind: 'script'; name: string }
  /** Makefile targets (empty: the default goal). */
  | { kind: 'make'; targets: string[] }
  /** tox environments (empty: every env of env_list, or all of them). */
  | { kind: 'tox'; envs: string[] }
  /** nox sessions (empty: every session). */
  | { kind: 'nox'; sessions: string[] };

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const PYTHON = /^(?:python(?:\d+(?:\.\d+)?)?|py|pypy3?|\{envpython\}|\$PYTHON|\$\{PYTHON\}|\$\(PYTHON\))$/;

/** The last path segment of a word: `.venv/bin/pytest` and `{envbindir}/pytest` are pytest. */
function base(word: string): string {
  return word.slice(Math.max(word.lastIndexOf('/'), word.lastIndexOf('\\')) + 1);
}

/** The words after leading options of a wrapper, skipping `valueFlags`' values. */
function afterFlags(words: string[], valueFlags: ReadonlySet<string> = new Set()): string[] {
  let i = 0;
  while (i < words.length && (words[i] as string).startsWith('-')) {
    const w = words[i] as string;
    if (w === '--') return words.slice(i + 1);
    i += valueFlags.has(w) ? 2 : 1;
  }
  return words.slice(i);
}

/** `tox -e a,b` / `nox -s a b` option values. */
function optionValues(words: string[], flags: readonly string[], split: RegExp): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    for (const f of flags) {
      if (w === f && words[i + 1] !== undefined) {
        for (let j = i + 1; j < words.length && !(words[j] as string).startsWith('-'); j++) {
          for (const v of (words[j] as string).split(split)) if (v !== '') out.push(v);
          if (f === '-e' || f === '--env') break;
        }
      } else if (w.startsWith(`${f}=`)) {
        for (const v of w.slice(f.length + 1).split(split)) if (v !== '') out.push(v);
      }
    }
  }
  return out;
}

const MAVEN_PHASES = new Set(['test', 'verify', 'install', 'package', 'integration-test']);
const UV_VALUE = new Set([
  '--with',
  '--python',
  '-p',
  '--extra',
  '--group',
  '--package',
  '--project',
  '--env-file',
]);
const PYTHON_VALUE = new Set(['-W', '-X']);
const COVERAGE_VALUE = new Set(['--rcfile', '--source', '--omit', '--include', '--context', '--data-file']);

/**
 * What one command (shell words, as `shellCommands` gives them) runs, or
 * undefined when it runs none of the runners or forwarders init knows.
 */
export function recognize(input: readonly string[], depth = 0): Recognized | undefined {
  let words = [...input];
  while (words.length > 0 && ASSIGNMENT.test(words[0] as string)) words = words.slice(1);
  const head = words[0];
  if (head === undefined || depth > 6) return undefined;
  const rest = words.slice(1);
  const name = base(head);
  const again = (w: string[]) => recognize(w, depth + 1);
  switch (name) {
    case 'env':
      return again(afterFlags(rest));
    case 'time':
    case 'exec':
    case 'xvfb-run':
    case 'nice':
      return again(afterFlags(rest));
    case 'npx':
    case 'bunx':
    case 'pnpx':
      return again(afterFlags(rest, new Set(['-p', '--package'])));
    case 'uvx':
    case 'pipx':
      return again(afterFlags(rest[0] === 'run' ? rest.slice(1) : rest, UV_VALUE));
    case 'uv':
    case 'poetry':
    case 'pipenv':
    case 'pdm':
    case 'rye':
    case 'hatch':
      return rest[0] === 'run' ? again(afterFlags(rest.slice(1), UV_VALUE)) : undefined;
    case 'coverage':
      return rest[0] === 'run' ? pythonModule(rest.slice(1), COVERAGE_VALUE, depth) : undefined;
    case 'pytest':
    case 'py.test':
      return { kind: 'runner', runner: 'pytest', words: ['pytest', ...rest] };
    case 'vitest':
      // `vitest bench` runs benchmarks, not tests.
      return rest[0] === 'bench' ? undefined : { kind: 'runner', runner: 'vitest', words };
    case 'jest':
    case 'mocha':
      return { kind: 'runner', runner: name, words };
    case 'node':
      return rest.includes('--test') ? { kind: 'runner', runner: 'node-test', words } : undefined;
    case 'gotestsum':
      return { kind: 'runner', runner: 'go', words };
    case 'go':
      return rest[0] === 'test' ? { kind: 'runner', runner: 'go', words } : undefined;
    case 'cargo':
      if (rest[0] === 'nextest') return { kind: 'runner', runner: 'cargo-nextest', words };
      return rest[0] === 'test' ? { kind: 'runner', runner: 'cargo-test', words } : undefined;
    case 'mvn':
    case 'mvnw':
      return rest.some((w) => MAVEN_PHASES.has(w)) ? { kind: 'runner', runner: 'maven', words } : undefined;
    case 'gradle':
    case 'gradlew':
      return rest.some((w) => w === 'test' || w === 'check' || w.endsWith(':test'))
        ? { kind: 'runner', runner: 'gradle', words }
        : undefined;
    case 'npm': {
      const r = afterFlags(rest);
      if (r[0] === 'test' || r[0] === 't' || r[0] === 'tst') return { kind: 'script', name: 'test' };
      if ((r[0] === 'run' || r[0] === 'run-script') && r[1] !== undefined)
        return { kind: 'script', name: r[1] };
      if (r[0] === 'exec') return again(afterFlags(r.slice(1)));
      return undefined;
    }
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const r = afterFlags(rest, new Set(['--filter', '-F', '--cwd', '-C', '--dir']));
      if (r[0] === undefined) return undefined;
      if (r[0] === 'run' || r[0] === 'run-script')
        return r[1] === undefined ? undefined : { kind: 'script', name: r[1] };
      if (r[0] === 'exec' || r[0] === 'dlx') return again(afterFlags(r.slice(1)));
      // `bun test` is bun's own runner, which has no preset; `pnpm test` and `yarn test` are the script.
      if (name === 'bun') return undefined;
      if (r[0] === 'test' || r[0] === 't') return { kind: 'script', name: 'test' };
      // `yarn vitest` / `pnpm vitest` run a binary of the package when no script has that name.
      return again(r) ?? (r[0].startsWith('-') ? undefined : { kind: 'script', name: r[0] });
    }
    case 'make':
    case 'gmake': {
      // Another folder's or file's Makefile is not the one at the root.
      if (rest.some((w) => w === '-C' || w === '-f' || w.startsWith('--directory') || w.startsWith('--file')))
        return undefined;
      return {
        kind: 'make',
        targets: rest.filter((w) => !w.startsWith('-') && !ASSIGNMENT.test(w)),
      };
    }
    case 'tox':
      return { kind: 'tox', envs: optionValues(rest, ['-e', '--env'], /,/) };
    case 'nox':
      return { kind: 'nox', sessions: optionValues(rest, ['-s', '--session', '--sessions'], /[,\s]/) };
    default:
      break;
  }
  if (PYTHON.test(name) || PYTHON.test(head)) return pythonModule(rest, PYTHON_VALUE, depth);
  return undefined;
}

const MODULE_RUNNERS: Record<string, RunnerName> = {
  pytest: 'pytest',
  'py.test': 'pytest',
  unittest: 'unittest',
};

/**
 * `python -m pytest …` and `coverage run -m pytest …`: the module after the
 * interpreter's options, as the runner it is (`python -m tox` is tox). A
 * script path (`python run_tests.py`) runs nothing init can name.
 */
function pythonModule(
  words: string[],
  valueFlags: ReadonlySet<string>,
  depth: number,
): Recognized | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (w === '-m' || (w.startsWith('-m') && w.length > 2 && !w.startsWith('--'))) {
      const mod = w === '-m' ? words[i + 1] : w.slice(2);
      const after = words.slice(w === '-m' ? i + 2 : i + 1);
      if (mod === undefined) return undefined;
      const runner = MODULE_RUNNERS[mod];
      if (runner !== undefined) return { kind: 'runner', runner, words: [mod, ...after] };
      if (mod === 'tox' || mod === 'nox') return recognize([mod, ...after], depth + 1);
      return undefined;
    }
    if (!w.startsWith('-')) return undefined;
    if (valueFlags.has(w)) i++;
  }
  return undefined;
}
