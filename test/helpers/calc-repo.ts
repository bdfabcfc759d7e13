import { type Files, GitDir } from './gitdir.js';

/**
 * The smallest pytest repository a gate test needs: `src/calc.py` with one
 * passing test, the signatures layer on with an empty freeze file, fixtures
 * off. `config` keys replace the default config's keys; `files` are added.
 */
export function calcRepo(opts: { config?: Record<string, unknown>; files?: Files } = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      signatures: {},
      ...opts.config,
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/calc.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n',
    ...opts.files,
  });
}
