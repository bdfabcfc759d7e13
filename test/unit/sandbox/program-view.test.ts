/**
 * Which file a program name runs as in the sandbox, against this machine's
 * PATH: a folder the sandbox does not show is skipped, as bubblewrap's own
 * lookup skips a folder that does not exist in its root.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { programView } from '../../../src/sandbox/program-view.js';
import { tempDir } from '../../helpers/gitdir.js';

function tool(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
  return p;
}

/** A home folder's pyenv (hidden) and a system folder (visible), each with a python3. */
function machine() {
  const root = tempDir('pg-pv-');
  const home = path.join(root, 'home/.pyenv');
  const system = path.join(root, 'usr/bin');
  const visible = (p: string) => p.startsWith(`${path.join(root, 'usr')}/`);
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
});
