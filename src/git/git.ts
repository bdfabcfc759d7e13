import { InputError } from '../errors.js';
import type { Exec, ExecResult } from '../util/exec.js';

/**
 * Thin wrapper over the git binary. Every call goes through the injected
 * `Exec`, so nothing else in the core spawns git on its own.
 */
export class Git {
  constructor(
    private readonly exec: Exec,
    readonly cwd: string,
    private readonly signal?: AbortSignal,
  ) {}

  at(cwd: string): Git {
    return new Git(this.exec, cwd, this.signal);
  }

  /** The same runner without the abort signal, for cleanup after an abort. */
  detached(): Git {
    return new Git(this.exec, this.cwd);
  }

  /** Runs git and returns the raw result; never throws on a non-zero exit. */
  async try(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<ExecResult> {
    // -c core.quotepath=off keeps non-ASCII paths readable in any non -z output.
    return this.exec('git', ['-c', 'core.quotepath=off', ...args], {
      cwd: this.cwd,
      env,
      signal: this.signal,
    });
  }

  /** Runs git and returns trimmed stdout; a non-zero exit is an input error naming the command. */
  async out(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
    const r = await this.try(args, env);
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
