import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { type Files, GitDir } from './gitdir.js';
import { repoRoot } from './shared.js';

/** Every file of an example folder as on disk, but for the names in `skip` (at any depth). */
export function exampleFiles(
  dir: string,
  skip: readonly string[] = ['patches', '__pycache__', '.hypothesis'],
  prefix = '',
): Files {
  const files: Files = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.includes(entry.name)) continue;
    const rel = prefix + entry.name;
    if (entry.isDirectory()) Object.assign(files, exampleFiles(path.join(dir, entry.name), skip, `${rel}/`));
    else files[rel] = readFileSync(path.join(dir, entry.name));
  }
  return files;
}

/**
 * A vitest project with the signatures layer on, using this repository's
 * installed vitest (a symlinked node_modules, which git ignores).
 */
export function vitestRepo(files: Files = {}): GitDir {
  const repo = GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'vitest' },
      signatures: {},
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    'package.json':
      '{"name": "t", "private": true, "type": "module", "devDependencies": {"vitest": "4.0.15"}}\n',
    'package-lock.json': '{"name": "t", "lockfileVersion": 3, "packages": {}}\n',
    '.gitignore': 'node_modules\n.patchgate\n',
    ...files,
  });
  symlinkSync(path.join(repoRoot, 'node_modules'), repo.path('node_modules'));
  return repo;
}
