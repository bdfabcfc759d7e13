import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Hunk, parseUnifiedDiff } from '../../src/git/hunks.js';
import { tempDir } from './gitdir.js';

/** Lines joined as a file: each ends with a newline. */
export const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** The -U0 hunks between two inline texts, from git itself, named `file`. */
export function hunksOf(file: string, base: string, head: string): Hunk[] {
  const dir = tempDir('pg-cand-');
  writeFileSync(path.join(dir, 'base'), base);
  writeFileSync(path.join(dir, 'head'), head);
  const r = spawnSync('git', ['diff', '--no-index', '-U0', '--no-color', 'base', 'head'], {
    cwd: dir,
    encoding: 'utf8',
  });
  return parseUnifiedDiff(r.stdout).hunks.map((h) => ({ ...h, file }));
}
