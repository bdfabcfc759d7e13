/**
 * A program the config runs that this machine finds in a folder the sandbox
 * does not show (a pyenv shim, a virtualenv under a home folder): the gate
 * says which program ran instead, or that none can, before any head code
 * runs. Real pytest in the real sandbox, a temp repository, the built CLI.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

/** A home-folder install the sandbox cannot see, with the programs named in it. */
function hiddenInstall(names: string[]): { root: string; bin: string } {
  const root = path.join(tempDir('pg-home-'), '.pyenv');
  const bin = path.join(root, 'shims');
  mkdirSync(bin, { recursive: true });
  for (const name of names) {
    writeFileSync(path.join(bin, name), '#!/bin/sh\nPG_VIA_SHIM=1 exec /usr/bin/python3 "$@"\n');
    chmodSync(path.join(bin, name), 0o755);
  }
  return { root, bin };
}

function repo(
  tests: Record<string, unknown>,
  sandbox?: Record<string, unknown>,
  files: Record<string, string> = {},
): GitDir {
  const r = GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { env: { PYTHONPATH: 'src' }, ...tests },
      ...(sandbox ? { sandbox, signatures: {} } : {}),
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/calc.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n',
    ...files,
  });
  r.git('checkout', '-q', '-b', 'agent');
  r.write({ 'src/calc.py': '# sums\ndef add(a, b):\n    return a + b\n' });
  r.commit('agent: a comment');
  return r;
}

async function judge(r: GitDir, bin: string) {
  const out = tempDir('pg-interp-out-');
  const res = await runCli(['check', '--base', 'main', '--head', 'agent', '--out', out], {
    cwd: r.dir,
    env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin` },
  });
  return { ...res, card: readScorecard(out, res) };
}

describe('the interpreter the sandbox runs', { timeout: 180_000 }, () => {
  it('warns that the system python3 ran instead of a hidden pyenv shim, naming both and the folder to mount', async () => {
    const home = hiddenInstall(['python3']);
    const r = await judge(repo({ preset: 'pytest' }), home.bin);
    expect(r.code, r.stderr).toBe(0);
    const f = r.card.findings.find((x) => x.code === 'PROGRAM_SUBSTITUTED');
    expect(f).toMatchObject({
      severity: 'warn',
      evidence: {
        setting: 'tests.preset (pytest)',
        program: 'python3',
        host: path.join(home.bin, 'python3'),
        sandbox: '/usr/bin/python3',
        hidden: [home.root],
      },
    });
    expect(String(f?.evidence.next)).toContain('sandbox.readOnly');
  });

  it('says nothing once the base config makes the install readable, and runs it', async () => {
    const home = hiddenInstall(['python3']);
    // The shim marks the runs it starts; a test that requires the mark fails under the system python3, and the
    // signatures layer rejects a failure no row covers.
    const shimmed = {
      'tests/test_via.py':
        "import os\n\n\ndef test_via():\n    assert os.environ.get('PG_VIA_SHIM') == '1'\n",
    };
    const r = await judge(repo({ preset: 'pytest' }, { readOnly: [home.root] }, shimmed), home.bin);
    expect(r.code, r.stderr).toBe(0);
    expect(r.card.findings.map((f) => f.code)).not.toContain('PROGRAM_SUBSTITUTED');
  });

  it('is an error verdict, before any head code runs, when the only one is hidden', async () => {
    const home = hiddenInstall(['pgpython']);
    const r = await judge(
      repo({
        command: ['pgpython', '-m', 'pytest', '-p', 'no:cacheprovider', '--junitxml={junit}', '{tests}'],
      }),
      home.bin,
    );
    expect(r.code).toBe(2);
    expect(r.card.verdict).toBe('error');
    const f = r.card.findings.find((x) => x.code === 'PROGRAM_HIDDEN');
    expect(f).toMatchObject({
      severity: 'error',
      evidence: {
        setting: 'tests.command',
        program: 'pgpython',
        host: path.join(home.bin, 'pgpython'),
        hidden: [home.root],
      },
    });
    expect(String(f?.evidence.next)).toContain(JSON.stringify(home.root));
    expect(r.card.findings.map((x) => x.code)).not.toContain('TESTS_NO_REPORT');
  });
});
