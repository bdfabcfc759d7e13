/**
 * The programs a configured command starts past its launchers (env, a shell's
 * -c script): each is looked up as the sandbox will, so it must be found.
 * What a script only decides when it runs is never guessed at.
 */
import { describe, expect, it } from 'vitest';
import { launchedPrograms, scriptCommands } from '../../../src/layers/program-launchers.js';

const PATH = '/home/u/.local/share/pnpm:/usr/bin';
const names = (argv: string[]) => launchedPrograms(argv, PATH).map((p) => p.program);

describe('launchedPrograms', () => {
  it('is the program itself when nothing launches another', () => {
    expect(launchedPrograms(['pnpm', 'test'], PATH)).toEqual([{ program: 'pnpm', searchPath: PATH }]);
  });

  it('looks past env, its options and assignments, on the PATH it sets', () => {
    expect(launchedPrograms(['/usr/bin/env', '-u', 'CI', 'FORCE_COLOR=0', 'pnpm', 'test'], PATH)).toEqual([
      { program: '/usr/bin/env', searchPath: PATH },
      { program: 'pnpm', searchPath: PATH, via: 'env' },
    ]);
    expect(launchedPrograms(['env', 'PATH=/opt/tools/bin', 'pnpm'], PATH)[1]).toEqual({
      program: 'pnpm',
      searchPath: '/opt/tools/bin',
      via: 'env',
    });
    expect(names(['env', '-S', 'pnpm run test'])).toEqual(['env', 'pnpm']);
  });

  it("reads a shell's -c script, alone or in a group of options, and each command of it", () => {
    expect(launchedPrograms(['sh', '-c', 'pnpm install --frozen-lockfile && pnpm test'], PATH)).toEqual([
      { program: 'sh', searchPath: PATH },
      { program: 'pnpm', searchPath: PATH, via: 'the sh -c script' },
    ]);
    expect(names(['bash', '-euo', 'pipefail', '-c', 'cd pkg; corepack enable | tee log; pytest -q'])).toEqual(
      ['bash', 'corepack', 'tee', 'pytest'],
    );
    expect(names(['bash', '-ec', 'exec tox -e py'])).toEqual(['bash', 'tox']);
  });

  it('runs no script a shell is handed as a file (the checkout has it)', () => {
    expect(names(['sh', 'scripts/test.sh'])).toEqual(['sh']);
  });

  it('follows a shell inside env inside a shell', () => {
    expect(names(['sh', '-c', "env CI=1 bash -c 'uv run pytest'"])).toEqual(['sh', 'env', 'bash', 'uv']);
  });
});

describe('scriptCommands', () => {
  const programs = (script: string) => scriptCommands(script).map((c) => c.argv[0]);

  it('takes the first word of every simple command, past assignments, reserved words and redirections', () => {
    expect(
      programs('FOO=1 pnpm build 2>&1 >out.log; if make check; then echo ok; fi\n{ nox -s tests; } || true'),
    ).toEqual(['pnpm', 'make', 'nox']);
    expect(programs('for f in tests/*.py; do python3 "$f"; done')).toEqual(['python3']);
    expect(programs('# pnpm is not run here\nnpm ci # nor here: pnpm')).toEqual(['npm']);
  });

  it('names nothing an expansion decides: a variable, a command substitution, a glob', () => {
    expect(programs('$RUNNER test; "$(which pnpm)" test; `echo pnpm` x; ./*/bin/tool')).toEqual([]);
  });

  it('leaves builtins and a `command -v` probe alone, and takes what exec, command and nohup run', () => {
    expect(programs('cd x && test -f a && command -v pnpm || exec pnpm i; nohup deno task')).toEqual([
      'pnpm',
      'deno',
    ]);
  });

  it('uses the PATH a command sets for itself, and stops once the script sets its own', () => {
    expect(scriptCommands('PATH=/opt/bin pnpm test')).toEqual([{ argv: ['pnpm', 'test'], path: '/opt/bin' }]);
    expect(programs('PATH=$HOME/bin:$PATH tool')).toEqual([]);
    expect(programs('npm ci; export PATH="$PWD/node_modules/.bin:$PATH"; vitest run')).toEqual(['npm']);
    expect(programs('npm ci; PATH=/opt/x/bin; tool')).toEqual(['npm']);
  });

  it('reads quoted words as the shell does: single quotes literally, double quotes unless they expand', () => {
    expect(scriptCommands(`'pnpm' "run" 'x y'`)).toEqual([{ argv: ['pnpm', 'run', 'x y'] }]);
    expect(programs('"$TOOL" run')).toEqual([]);
  });
});
