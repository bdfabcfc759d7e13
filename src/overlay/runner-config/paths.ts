/**
 * From a name in a runner's configuration to the repository paths the
 * runner may load for it. A module path written without an extension is
 * every file a resolver would try (vite tries `.mjs` before `.ts`, jest its
 * `moduleFileExtensions`, Node `.js` then `.json`), and `./x.js` is also the
 * `./x.ts` TypeScript ESM means: all of them are the instrument, so a head
 * that adds `setup.js` next to the base's `setup.ts` cannot slip in first.
 */
import { isOutside, joinRepo } from './js-value.js';
import type { BaseFiles } from './types.js';

const EXTENSIONS = '{js,mjs,cjs,jsx,ts,mts,cts,tsx,json,node}';

/** Globs of every file a module path may resolve to. */
export function moduleGlobs(repoPath: string, files: BaseFiles): string[] {
  if (repoPath === '' || isOutside(repoPath)) return [];
  const esc = escapeGlob(repoPath);
  const out = [esc, `${esc}.${EXTENSIONS}`, `${esc}/index.${EXTENSIONS}`];
  const swapped = repoPath.replace(/\.([cm]?)js(x?)$/, '.$1ts$2');
  if (swapped !== repoPath) out.push(escapeGlob(swapped));
  // A folder the base has is a package the runner loads whole (its package.json says which file).
  if (files.isDir(repoPath)) out.push(`${esc}/**`);
  return out;
}

/** picomatch's special characters, escaped: a path from a configuration is a path, not a pattern. */
export function escapeGlob(p: string): string {
  return p.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

/** A string that names a file rather than a package: relative, absolute, `<rootDir>`, or worked out from a location. */
export function isPathLike(value: string, resolved: boolean | undefined): boolean {
  return resolved === true || /^(\.{1,2}(\/|$)|\/|<rootDir>)/.test(value);
}

/**
 * The repository path a string names, relative to `root` (the runner's root
 * folder). `<rootDir>` is jest's spelling of the root. Undefined for a path
 * outside the repository.
 */
export function repoPathOf(value: string, resolved: boolean | undefined, root: string): string | undefined {
  if (resolved) return isOutside(value) ? undefined : value;
  const v = value.replace(/^<rootDir>/, '.');
  if (v.startsWith('/')) return undefined;
  const p = joinRepo(root, v);
  return isOutside(p) ? undefined : p;
}

/** A glob relative to `root` as a repository glob (`!` negations are the caller's business). */
export function repoGlobOf(glob: string, root: string): string | undefined {
  const g = glob.replace(/^<rootDir>\/?/, '').replace(/^\.\//, '');
  if (g.startsWith('/') || g.startsWith('../')) return undefined;
  if (root === '') return g;
  return `${escapeGlob(root)}/${g}`;
}
