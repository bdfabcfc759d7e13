import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { memoryIO } from './cli-io.js';

export type Files = Record<string, string | Buffer | null | { symlink: string }>;

// A dir made inside a test lives until that test ends; one made in a beforeAll (a fixture several tests
// share, e.g. one gate run whose scorecard they each assert on) lives until the file ends: removing it
// after the first test would leave the others reading a deleted repository.
const madeInTest: string[] = [];
const madeForFile: string[] = [];
let inTest = false;
beforeEach(() => {
  inTest = true;
});
afterEach(() => {
  inTest = false;
  for (const dir of madeInTest.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  for (const dir of madeForFile.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp dir removed after the current test, or after the file when made outside a test (a beforeAll). */
export function tempDir(prefix = 'pg-test-'): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  (inTest ? madeInTest : madeForFile).push(dir);
  return dir;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** A real git repository in a temp dir, with helpers to write files and commit. */
export class GitDir {
  constructor(readonly dir: string) {}

  static create(files: Files = {}, message = 'initial'): GitDir {
    const dir = tempDir('pg-repo-');
    const g = new GitDir(dir);
    g.git('init', '-q', '-b', 'main');
    g.git('config', 'user.name', 'Test');
    g.git('config', 'user.email', 'test@example.com');
    g.git('config', 'commit.gpgsign', 'false');
    if (Object.keys(files).length > 0) {
      g.write(files);
      g.commit(message);
    }
    return g;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, {
      cwd: this.dir,
      env: { ...process.env, ...GIT_ENV },
      encoding: 'utf8',
    }).trim();
  }

  /** Writes files (null deletes, {symlink} links). */
  write(files: Files): this {
    for (const [rel, content] of Object.entries(files)) {
      const abs = path.join(this.dir, rel);
      if (content === null) {
        rmSync(abs, { recursive: true, force: true });
        continue;
      }
      mkdirSync(path.dirname(abs), { recursive: true });
      if (typeof content === 'object' && !Buffer.isBuffer(content)) {
        rmSync(abs, { force: true });
        symlinkSync(content.symlink, abs);
      } else writeFileSync(abs, content);
    }
    return this;
  }

  commit(message: string): string {
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.head();
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  path(rel = '.'): string {
    return path.join(this.dir, rel);
  }

  /** Worktrees git knows about besides the main one. */
  extraWorktrees(): string[] {
    return this.git('worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice('worktree '.length))
      .filter((p) => p !== this.dir);
  }
}

/** patchgate temp dirs left behind in the system temp folder, or in the one a child was given as TMPDIR. */
export function leftoverTempDirs(dir: string = tmpdir()): string[] {
  return readdirSync(dir).filter((n) => /^patchgate-/.test(n));
}

export const CLI = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A user to run a child as (through setpriv), e.g. a gate that is not root. */
export interface RunAs {
  uid: number;
  gid: number;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Run the built CLI as this user (a child process through setpriv). */
  as?: RunAs;
  /** Spawn the built CLI even when it could run in this process: for tests of the binary itself. */
  spawn?: boolean;
}

/**
 * Runs a patchgate command as a user's CI would, with the environment a
 * spawned CLI gets (this process's, PATH narrowed to the system's, `env`
 * over it). By default the command runs in this test process: `main` is
 * the function the binary calls, it reads nothing of the process but the
 * CliIO it is given (only src/cli/bin.ts touches `process`), and every
 * process a check starts (git, the sandbox, the runners) is still a real
 * child. That spares each check a Node start and the load of the bundle,
 * a third of a check's own CPU. The built binary is spawned instead when
 * asked (`spawn`), when the command must run as another user, or when the
 * environment changes what Node itself reads from the process (TMPDIR, for
 * os.tmpdir()). PATCHGATE_TEST_CLI=spawn spawns it for every test (the
 * suite as it ran before this path; bench/suite compares the two).
 */
export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  const env = { NO_COLOR: '1', GITHUB_STEP_SUMMARY: '', ...opts.env };
  const processWide = 'TMPDIR' in env && env.TMPDIR !== process.env.TMPDIR;
  if (opts.spawn || opts.as || processWide || process.env.PATCHGATE_TEST_CLI === 'spawn')
    return runNode(CLI, args, { cwd: opts.cwd, env, ...(opts.as ? { as: opts.as } : {}) });
  return runMain(args, { cwd: opts.cwd, env: childEnv(env) });
}

/** Spawns the built CLI (`dist/cli/bin.js`), for tests of the binary: its exit code, its streams, its signals. */
export function runCliProcess(args: string[], opts: Omit<CliOptions, 'spawn'>): Promise<CliResult> {
  return runCli(args, { ...opts, spawn: true });
}

async function runMain(
  argv: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  const { main } = await import('../../src/cli/main.js');
  const { io, out, err } = memoryIO(opts.cwd, opts.env);
  // What the spawned binary would see as process.argv[1]: hints print `node dist/cli/bin.js …` alike.
  const code = await main({ ...io, argv, pid: process.pid, script: CLI });
  return { code, stdout: out(), stderr: err() };
}

/**
 * This machine's PATH without its home-folder entries (a pyenv shim, cargo):
 * the programs the CLI runs are then the ones its sandbox runs, so no test
 * depends on how the developer's shell is set up. The interpreter test sets
 * its own PATH to play that case.
 */
const SYSTEM_PATH = (process.env.PATH ?? '/usr/bin:/bin')
  .split(':')
  .filter((d) => /^\/(usr|bin|sbin|opt)(\/|$)/.test(d))
  .join(':');

/** The environment a child of this test process gets: this one's, PATH narrowed, `env` over it, `undefined` removed. */
function childEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const merged: Record<string, string | undefined> = { ...process.env, PATH: SYSTEM_PATH, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return merged as Record<string, string>;
}

/** Runs a Node script to completion, collecting its output; `undefined` env values are removed. */
export function runNode(
  script: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; as?: RunAs },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = childEnv(opts.env);
    const [file, argv] = opts.as
      ? [
          'setpriv',
          [
            `--reuid=${opts.as.uid}`,
            `--regid=${opts.as.gid}`,
            '--clear-groups',
            process.execPath,
            script,
            ...args,
          ],
        ]
      : [process.execPath, [script, ...args]];
    const child = spawn(file, argv, {
      cwd: opts.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
