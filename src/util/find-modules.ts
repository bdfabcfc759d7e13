import { readdir } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { byCodePoint } from './compare.js';

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/** Repo-relative files in a checkout matching any of the globs, sorted, never inside .git or node_modules. */
export async function findModules(root: string, globs: readonly string[]): Promise<string[]> {
  if (globs.length === 0) return [];
  const match = picomatch([...globs], { dot: true });
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(child);
      } else if (e.isFile() && match(child)) out.push(child);
    }
  };
  await walk('');
  return out.sort(byCodePoint);
}
