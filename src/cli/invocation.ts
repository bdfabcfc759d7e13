import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { CliIO } from './io.js';
import { shellCommand } from './shell-quote.js';

/** What the process was started with, as far as the printed hints need it. */
export interface InvocationFacts {
  /** The script node ran (`process.argv[1]`): npm's bin links keep their own path here. */
  script: string | undefined;
  /** The same path with every symlink resolved, when it could be. */
  realScript: string | undefined;
  cwd: string;
  /** The PATH entries, in order. */
  path: readonly string[];
  /** npx's `--package` spec (npm sets `npm_config_package`), when there was one. */
  npxPackage?: string | undefined;
}

export type InvocationKind = 'local' | 'global' | 'npx' | 'path' | 'unknown';

export interface Invocation {
  kind: InvocationKind;
  /** The words that start patchgate again the way this process was started. */
  argv: readonly string[];
  /** `argv` quoted for a POSIX shell, to be followed by a subcommand in a printed hint. */
  command: string;
}

function invocation(kind: InvocationKind, argv: readonly string[]): Invocation {
  return { kind, argv, command: shellCommand(argv) };
}

const slashes = (p: string) => p.replaceAll('\\', '/');

/** npx keeps what it fetched under `<cache>/_npx/<hash>/node_modules`: a package that is not the project's. */
const NPX_CACHE = /\/_npx\/[0-9a-f]+\/node_modules\//;

/**
 * The bin link npm writes into a project's `node_modules/.bin`, or the bin
 * itself in the project's `node_modules` (pnpm's store folder included):
 * group 1 is the project.
 */
const IN_NODE_MODULES =
  /^(.*?)\/node_modules\/(?:\.bin\/patchgate|(?:\.pnpm\/[^/]+\/node_modules\/)?patchgate\/dist\/cli\/bin\.js)$/;

function within(dir: string, cwd: string): boolean {
  const d = dir === '' ? '/' : dir;
  const rel = path.posix.relative(d, cwd);
  return rel === '' || (!rel.startsWith('..') && !path.posix.isAbsolute(rel));
}

/**
 * How patchgate was started, so a hint prints a command that starts the same
 * copy again: `npx patchgate` for the dependency of the project the user is
 * in (npx finds it in an enclosing `node_modules/.bin`), `patchgate` for a
 * link in a PATH folder (a global install), npx's fetch again for a copy in
 * npx's cache, and otherwise `node` with the bin's own path, which works
 * wherever the user is. A process started without a script (a test driving
 * `main` in-process) gets the bare name.
 */
export function detectInvocation(facts: InvocationFacts): Invocation {
  const { script, realScript } = facts;
  if (script === undefined || script === '') return invocation('unknown', ['patchgate']);
  const seen = [script, ...(realScript ? [realScript] : [])].map(slashes);
  if (seen.some((p) => NPX_CACHE.test(p)))
    return invocation(
      'npx',
      facts.npxPackage
        ? ['npx', '--yes', `--package=${facts.npxPackage}`, 'patchgate']
        : ['npx', '--yes', 'patchgate'],
    );
  const cwd = slashes(facts.cwd);
  for (const p of seen) {
    const project = IN_NODE_MODULES.exec(p)?.[1];
    if (project !== undefined && within(project, cwd)) return invocation('local', ['npx', 'patchgate']);
  }
  const dir = path.posix.dirname(seen[0] ?? '');
  if (
    path.posix.basename(seen[0] ?? '') === 'patchgate' &&
    facts.path.some((entry) => entry !== '' && path.posix.resolve(slashes(entry)) === dir)
  )
    return invocation('global', ['patchgate']);
  return invocation('path', ['node', realScript ?? script]);
}

/** {@link detectInvocation} for this process: its script's real path is read from disk. */
export async function invocationOf(io: CliIO): Promise<Invocation> {
  const script = io.script;
  const realScript = script ? await realpath(script).catch(() => undefined) : undefined;
  return detectInvocation({
    script,
    realScript,
    cwd: io.cwd,
    path: (io.env.PATH ?? '').split(path.delimiter),
    npxPackage: io.env.npm_config_package || undefined,
  });
}
