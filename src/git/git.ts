import { InputError } from '../errors.js';
import { type Exec, type ExecResult, execFileBuffer } from './exec.js';

/**
 * Settings every git command of ours runs with, whatever the repository's
 * `.git/config` says: in working-tree mode that file is the patch's to write,
 * so no hook, fsmonitor daemon or external diff it names may run.
 */
const SAFETY = [
  '-c',
  'core.quotepath=off',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'diff.external=',
  '-c',
  'core.untrackedCache=false',
];

/** The variables git may see from the gate's environment: enough to find itself and the user's identity. */
const PASS_THROUGH = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'SYSTEMROOT',
  'GIT_CONFIG_GLOBAL',
];

export function gitEnvFrom(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of PASS_THROUGH) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * Thin wrapper over the git binary. Every call goes through the injected
 * `Exec`, so nothing else in the core spawns git on its own, and none of the
 * gate's other variables (override tokens, GIT_DIR and friends) reach it.
 */
export class Git {
  constructor(
    private readonly exec: Exec,
    readonly cwd: string,
    /** The run's abort signal: the processes the checkouts stream through (cat-file, fast-import) stop on it too. */
    readonly signal?: AbortSignal,
    private readonly baseEnv: Readonly<Record<string, string>> = {},
  ) {}

  /** A Git for the gate's environment `env` (only PATH, HOME, locale are kept). */
  static forEnv(
    exec: Exec,
    cwd: string,
    env: Readonly<Record<string, string | undefined>>,
    signal?: AbortSignal,
  ): Git {
    return new Git(exec, cwd, signal, gitEnvFrom(env));
  }

  at(cwd: string): Git {
    return new Git(this.exec, cwd, this.signal, this.baseEnv);
  }

  /** The same runner without the abort signal, for cleanup after an abort. */
  detached(): Git {
    return new Git(this.exec, this.cwd, undefined, this.baseEnv);
  }

  /** The `-c` settings every command runs with. */
  safetyArgs(): string[] {
    return [...SAFETY];
  }

  /** The environment every command runs with, plus `extra`. */
  env(extra: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
    const out: Record<string, string> = { ...this.baseEnv };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
    return out;
  }

  /** Runs git and returns the raw result; never throws on a non-zero exit. */
  async try(
    args: readonly string[],
    extraEnv?: Readonly<Record<string, string | undefined>>,
    input?: string,
  ): Promise<ExecResult> {
    return this.exec('git', [...SAFETY, ...args], {
      cwd: this.cwd,
      env: this.env(extraEnv),
      signal: this.signal,
      ...(input !== undefined ? { input } : {}),
    });
  }

  /** Runs git and returns stdout as bytes; a non-zero exit is an input error naming the command. */
  async tryBuffer(args: readonly string[], input: string): Promise<Buffer> {
    const r = await execFileBuffer('git', [...SAFETY, ...args], {
      cwd: this.cwd,
      env: this.env(),
      signal: this.signal,
      input,
    });
    if (r.code !== 0) {
      throw new InputError(
        'GIT_FAILED',
        `git ${args.join(' ')} failed (exit ${r.code}): ${r.stderr.trim()}`,
        {
          args: [...args],
          exitCode: r.code,
        },
      );
    }
    return r.stdout;
  }

  /** Runs git and returns trimmed stdout; a non-zero exit is an input error naming the command. */
  async out(
    args: readonly string[],
    extraEnv?: Readonly<Record<string, string | undefined>>,
    input?: string,
  ): Promise<string> {
    const r = await this.try(args, extraEnv, input);
    if (r.code !== 0) {
      throw new InputError(
        'GIT_FAILED',
        `git ${args.join(' ')} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`,
        {
          args: [...args],
          exitCode: r.code,
        },
      );
    }
    return r.stdout.replace(/\n$/, '');
  }
}
