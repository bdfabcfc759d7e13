/**
 * Which file a program name runs as in the sandbox, against this machine's
 * PATH: a folder the sandbox does not show is skipped, as bubblewrap's own
 * lookup skips a folder that does not exist in its root.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { programView, shebangProgram } from '../../../src/sandbox/program-view.js';
import { tempDir } from '../../helpers/gitdir.js';

function tool(dir: string, name: string, text = '#!/bin/sh\nexit 0\n'): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, text);
  chmodSync(p, 0o755);
  return p;
}

/** A home folder's pyenv (hidden) and a system folder (visible), each with a python3. */
function machine() {
  const root = tempDir('pg-pv-');
  const home = path.join(root, 'home/.pyenv');
  const system = path.join(root, 'usr/bin');
  // The fake system folder, and the real one the tools' `#!/bin/sh` lives in.
  const visible = (p: string) => p.startsWith(`${path.join(root, 'usr')}/`) || /^\/(usr|bin)\//.test(p);
  const shim = tool(path.join(home, 'shims'), 'python3');
  const sys = tool(system, 'python3');
  tool(path.join(home, 'shims'), 'onlyhere');
  return { root, home, system, visible, shim, sys };
}

describe('programView', () => {
  it('names the program further down PATH that the sandbox runs instead, and the folder it cannot see', () => {
    const { home, system, visible, shim, sys } = machine();
    expect(programView('python3', `${path.join(home, 'shims')}:${system}`, visible)).toEqual({
      program: 'python3',
      host: shim,
      sandbox: sys,
      hidden: [home],
    });
  });

  it('finds none in the sandbox when the only one is hidden', () => {
    const { home, system, visible } = machine();
    expect(programView('onlyhere', `${path.join(home, 'shims')}:${system}`, visible)).toEqual({
      program: 'onlyhere',
      host: path.join(home, 'shims/onlyhere'),
      hidden: [home],
    });
  });

  it('is the same file on both sides when the first one is visible', () => {
    const { home, system, visible, sys } = machine();
    expect(programView('python3', `${system}:${path.join(home, 'shims')}`, visible)).toEqual({
      program: 'python3',
      host: sys,
      sandbox: sys,
      hidden: [],
    });
  });

  it('counts a visible link to a hidden file as hidden, naming both installs', () => {
    const { root, home, visible, shim } = machine();
    const venv = path.join(root, 'usr/venv/bin');
    mkdirSync(venv, { recursive: true });
    symlinkSync(shim, path.join(venv, 'py'));
    expect(programView('py', venv, visible)).toEqual({
      program: 'py',
      host: path.join(venv, 'py'),
      hidden: [home],
    });
  });

  it('leaves a checkout-relative program alone, and looks up an absolute one as it is', () => {
    const { home, system, visible, shim } = machine();
    expect(programView('./run.sh', system, visible)).toEqual({ program: './run.sh', hidden: [] });
    expect(programView(shim, system, visible)).toEqual({ program: shim, host: shim, hidden: [home] });
  });

  it("follows a script's #!/usr/bin/env line to an interpreter the sandbox cannot see (nvm's node)", () => {
    const { root, system, visible } = machine();
    const nvm = path.join(root, 'home/.nvm/versions/node/v20/bin');
    const node = tool(nvm, 'pgnode', '\x7fELF');
    const pnpm = tool(system, 'pnpm', '#!/usr/bin/env pgnode\nrequire("pnpm");\n');
    expect(programView('pnpm', `${nvm}:${system}`, visible)).toEqual({
      program: 'pnpm',
      host: pnpm,
      sandbox: pnpm,
      hidden: [],
      interpreter: {
        program: 'pgnode',
        host: node,
        hidden: [path.join(root, 'home/.nvm/versions/node/v20')],
        script: pnpm,
        line: '#!/usr/bin/env pgnode',
      },
    });
  });

  it('follows an absolute #! interpreter, and says nothing when the sandbox runs the same one', () => {
    const { home, system, visible, sys } = machine();
    const hiddenPy = path.join(home, 'versions/3.12/bin/python3.12');
    tool(path.dirname(hiddenPy), 'python3.12', '\x7fELF');
    const script = tool(system, 'tox', `#!${hiddenPy}\nimport tox\n`);
    expect(programView('tox', system, visible).interpreter).toEqual({
      program: hiddenPy,
      host: hiddenPy,
      hidden: [path.join(home, 'versions/3.12')],
      script,
      line: `#!${hiddenPy}`,
    });
    const fine = tool(system, 'fine', `#!${sys}\n`);
    expect(programView('fine', system, visible)).toEqual({
      program: 'fine',
      host: fine,
      sandbox: fine,
      hidden: [],
    });
  });
});

describe('shebangProgram', () => {
  it('reads env -S and a PATH env sets, and nothing from a file that is no script', () => {
    const dir = tempDir('pg-shebang-');
    expect(shebangProgram(tool(dir, 'a', '#!/usr/bin/env -S node --no-warnings\n'), '/p')).toEqual({
      program: 'node',
      searchPath: '/p',
      line: '#!/usr/bin/env -S node --no-warnings',
    });
    expect(shebangProgram(tool(dir, 'b', '#!/usr/bin/env PATH=/opt/bin deno\r\n'), '/p')).toMatchObject({
      program: 'deno',
      searchPath: '/opt/bin',
    });
    expect(shebangProgram(tool(dir, 'c', '\x7fELF\x02'), '/p')).toBeUndefined();
    expect(shebangProgram(tool(dir, 'd', '#! relative/interp\n'), '/p')).toBeUndefined();
    expect(shebangProgram(path.join(dir, 'missing'), '/p')).toBeUndefined();
  });
});
