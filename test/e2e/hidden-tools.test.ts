/**
 * A package manager installed under a prefix the sandbox does not show (pnpm
 * in ~/.local/share/pnpm, a node under ~/.nvm) fails inside it with
 * `setpriv: failed to execute pnpm: No such file or directory` or `env:
 * 'node': No such file or directory`. The gate says which program, which
 * setting and which folder before any head code runs, whether the config
 * names the program, a `sh -c` script does, or a script's `#!` line; and the
 * fix it names works. Real tools (shell scripts) on PATH, the built CLI, the
 * real sandbox.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

function tool(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, text);
  chmodSync(p, 0o755);
  return p;
}

/** A home folder with pnpm installed the way its installer does it: ~/.local/share/pnpm/pnpm. */
function homeWithPnpm(): { home: string; pnpmHome: string; pnpm: string } {
  const home = path.join(tempDir('pg-hidden-'), 'home');
  const pnpmHome = path.join(home, '.local/share/pnpm');
  // Stands in for pnpm: `pnpm install` leaves a mark in the checkout, which a test then needs.
  const pnpm = tool(
    pnpmHome,
    'pnpm',
    '#!/bin/sh\n[ "$1" = install ] && echo installed > .installed\nexit 0\n',
  );
  return { home, pnpmHome, pnpm };
}

function repo(tests: Record<string, unknown>, sandbox?: Record<string, unknown>): GitDir {
  const r = GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, ...tests },
      signatures: {},
      ...(sandbox ? { sandbox } : {}),
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n.installed\n',
    'src/calc.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py':
      'import os\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_installed():\n    assert os.path.exists(".installed")\n',
  });
  r.git('checkout', '-q', '-b', 'agent');
  r.write({ 'src/calc.py': '# sums\ndef add(a, b):\n    return a + b\n' });
  r.commit('agent: a comment');
  return r;
}

async function judge(r: GitDir, env: Record<string, string>) {
  const out = tempDir('pg-hidden-out-');
  const res = await runCli(['check', '--base', 'main', '--head', 'agent', '--out', out], { cwd: r.dir, env });
  return { ...res, card: readScorecard(out, res) };
}

const SYSTEM = '/usr/local/bin:/usr/bin:/bin';
const SETUP = ['sh', '-c', 'pnpm install --frozen-lockfile'];

describe('a tool under a prefix the sandbox hides', { timeout: 180_000 }, () => {
  it('is an error before any head code runs, naming the setting, the command, the hidden folder and the fix', async () => {
    const { home, pnpmHome, pnpm } = homeWithPnpm();
    const r = await judge(repo({ setup: SETUP }), { HOME: home, PATH: `${pnpmHome}:${SYSTEM}` });
    expect(r.code).toBe(2);
    expect(r.card.verdict).toBe('error');
    const hidden = r.card.findings.filter((f) => f.code === 'PROGRAM_HIDDEN');
    expect(hidden).toHaveLength(1);
    expect(hidden[0]).toMatchObject({
      severity: 'error',
      evidence: {
        setting: 'tests.setup',
        command: SETUP,
        via: 'the sh -c script',
        program: 'pnpm',
        host: pnpm,
        hidden: [pnpmHome],
      },
    });
    expect(hidden[0]?.message).toContain(
      `tests.setup runs "pnpm" (through the sh -c script of ${JSON.stringify(SETUP)})`,
    );
    expect(String(hidden[0]?.evidence.next)).toContain(`add ${JSON.stringify(pnpmHome)} to sandbox.readOnly`);
    expect(String(hidden[0]?.evidence.next)).toContain('system-wide');
    // Nothing ran: no setup that failed, no run without a report.
    expect(r.card.findings.map((f) => f.code)).not.toContain('SETUP_FAILED');
    expect(r.card.findings.map((f) => f.code)).not.toContain('TESTS_NO_REPORT');
    expect(r.card.layers.find((l) => l.name === 'signatures')).toMatchObject({
      status: 'skipped',
      reason: 'a program the config runs is not in the sandbox (see PROGRAM_HIDDEN)',
    });
  });

  it('runs, and is accepted, once the base config lists that folder in sandbox.readOnly as the error says', async () => {
    const { home, pnpmHome } = homeWithPnpm();
    const r = await judge(repo({ setup: SETUP }, { readOnly: [pnpmHome] }), {
      HOME: home,
      PATH: `${pnpmHome}:${SYSTEM}`,
    });
    expect(r.card.findings.map((f) => `${f.code}: ${f.message.slice(0, 200)}`)).toEqual([]);
    expect(r.card.verdict).toBe('accept');
    expect(r.code, r.stderr).toBe(0);
  });

  it("is the same error when the tool is visible but its #! line's interpreter is not (a node under ~/.nvm)", async () => {
    const { home } = homeWithPnpm();
    const nvmBin = path.join(home, '.nvm/versions/node/v20.11.0/bin');
    tool(nvmBin, 'pgnode', '#!/bin/sh\nexit 0\n');
    // A pnpm of the system's kind, in a folder the config makes visible, run by whichever node PATH finds.
    const tools = path.join(tempDir('pg-hidden-tools-'), 'bin');
    const pnpm = tool(tools, 'pnpm', '#!/usr/bin/env pgnode\nrequire("pnpm");\n');
    const r = await judge(repo({ setup: ['pnpm', 'install'] }, { readOnly: [tools] }), {
      HOME: home,
      PATH: `${nvmBin}:${tools}:${SYSTEM}`,
    });
    expect(r.code).toBe(2);
    expect(r.card.verdict).toBe('error');
    const f = r.card.findings.find((x) => x.code === 'PROGRAM_HIDDEN');
    expect(f).toMatchObject({
      evidence: {
        setting: 'tests.setup',
        program: 'pgnode',
        host: path.join(nvmBin, 'pgnode'),
        hidden: [path.dirname(nvmBin)],
        scripts: [pnpm],
        line: '#!/usr/bin/env pgnode',
      },
    });
    expect(f?.message).toContain(
      `tests.setup runs "pnpm" as ${pnpm}, a script whose first line (#!/usr/bin/env pgnode) runs "pgnode"`,
    );
    expect(r.card.findings.map((x) => x.code)).not.toContain('SETUP_FAILED');
  });

  it('refuses a baseline the same way, before its suite runs', async () => {
    const { home, pnpmHome } = homeWithPnpm();
    const r = repo({ setup: SETUP });
    r.git('checkout', '-q', 'main');
    const res = await runCli(['baseline', '--today', '2026-12-01'], {
      cwd: r.dir,
      env: { HOME: home, PATH: `${pnpmHome}:${SYSTEM}` },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^patchgate: error: tests\.setup runs "pnpm" \(through the sh -c script/);
    expect(res.stderr).toContain('is not in its view) and finds no other: the baseline ran nothing');
    expect(res.stderr).toContain(`add ${JSON.stringify(pnpmHome)} to sandbox.readOnly`);
    expect(res.stderr).not.toContain('SETUP_FAILED');
    expect(r.git('status', '--porcelain')).toBe('');
  });
});
