import path from 'node:path';

const SUFFIXES = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '/index.ts', '/index.js'];

/**
 * The repository paths a relative import `spec` in `file` may name, in the
 * order a TypeScript or Node resolver would try them: as written, with each
 * extension, as a folder's index, and `./x.js` as the `./x.ts` ESM
 * TypeScript means by it. Read only: no resolver runs.
 */
export function importCandidates(file: string, spec: string): string[] {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  const out = SUFFIXES.map((s) => target + s);
  if (/\.[cm]?js$/.test(target)) out.push(target.replace(/\.([cm]?)js$/, '.$1ts'));
  return out;
}
