import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

/** The file list `npm publish` would ship, from npm itself. */
function packed(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
}

describe('the npm package', () => {
  const files = packed();
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    main: string;
    types: string;
    exports: Record<string, Record<string, string> | string>;
  };

  it('ships a LICENSE, the README, the action and the Python files its runners load', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'action.yml',
        'src/runners/harness/python/patchgate_harness.py',
        'src/runners/harness/python/patchgate_seeds.py',
        'src/runners/harness/python/patchgate_census.py',
        'src/runners/harness/python/patchgate_reach.py',
        'src/runners/harness/python/patchgate_claims.py',
        'src/runners/harness/python/patchgate_guard.py',
        'src/runners/harness/python/boot/sitecustomize.py',
      ]),
    );
  });

  it('ships no source map pointing at files it does not ship, no __pycache__, no tests', () => {
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.includes('__pycache__') || f.endsWith('.pyc'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('test/') || f.endsWith('.test.js'))).toEqual([]);
  });

  it('ships every file package.json points at', () => {
    const exported = Object.values(pkg.exports).flatMap((e) =>
      typeof e === 'string' ? [e] : Object.values(e),
    );
    for (const target of [...Object.values(pkg.bin), pkg.main, pkg.types, ...exported])
      expect(files, target).toContain(target.replace(/^\.\//, ''));
  });
});
