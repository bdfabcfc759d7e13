/**
 * The files the base declares as entry points: where reading the command line
 * is what the code is for. A test imports library code; it runs an entry
 * point, if at all, as a program with the arguments the test chose. Only the
 * base decides: a patch cannot make a file an entry point by declaring it.
 *
 * JavaScript: a `bin` target of the nearest package.json, or a file whose
 * base copy starts with `#!`. Python: `__main__.py`, a module the base's
 * pyproject.toml, setup.cfg or setup.py names as a console script, or a file
 * whose base copy starts with `#!`. (Code under a `__main__` or
 * `require.main === module` guard is judged by the parsers themselves.)
 */
import path from 'node:path';
import type { LayerContext } from '../types.js';

/** `bin` of a package.json: a path, or names to paths. */
function binTargets(manifest: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(manifest);
  } catch {
    // An unreadable manifest declares nothing: no exemption (fail closed).
    return [];
  }
  if (data === null || typeof data !== 'object') return [];
  const bin = (data as { bin?: unknown }).bin;
  if (typeof bin === 'string') return [bin];
  if (bin !== null && typeof bin === 'object')
    return Object.values(bin).filter((v): v is string => typeof v === 'string');
  return [];
}

/** The nearest package.json above `file` in the base, and the folder it sits in. */
async function nearestManifest(
  ctx: LayerContext,
  file: string,
  cache: Map<string, string | undefined>,
): Promise<{ dir: string; text: string } | undefined> {
  for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
    const at = dir === '.' ? 'package.json' : `${dir}/package.json`;
    if (!cache.has(at)) cache.set(at, await ctx.base.readCommitted(at));
    const text = cache.get(at);
    if (text !== undefined) return { dir: dir === '.' ? '' : dir, text };
    if (dir === '.' || dir === '/' || dir === '') return undefined;
  }
}

function isPythonScriptModule(file: string, modules: readonly string[]): boolean {
  const stem = file.replace(/\.py$/, '').replace(/\/__init__$/, '');
  return modules.some((m) => {
    const asPath = m.replace(/\./g, '/');
    return stem === asPath || stem.endsWith(`/${asPath}`);
  });
}

/** Which of `files` (with their base copies) the base declares as entry points. */
export async function entryPoints(
  ctx: LayerContext,
  files: readonly { path: string; base: string | undefined }[],
  scriptModules: readonly string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  const manifests = new Map<string, string | undefined>();
  for (const f of files) {
    if (f.base?.startsWith('#!')) out.add(f.path);
    if (f.path.endsWith('.py')) {
      if (path.posix.basename(f.path) === '__main__.py' || isPythonScriptModule(f.path, scriptModules))
        out.add(f.path);
      continue;
    }
    const manifest = await nearestManifest(ctx, f.path, manifests);
    if (!manifest) continue;
    for (const bin of binTargets(manifest.text))
      if (path.posix.normalize(path.posix.join(manifest.dir, bin)) === f.path) out.add(f.path);
  }
  return out;
}
