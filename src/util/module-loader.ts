import { createRequire } from 'node:module';
import path from 'node:path';
import { createJiti, type Jiti } from 'jiti';
import { runningTree } from './package-root.js';

/**
 * Loads TypeScript and JavaScript modules without a build step. `patchgate`
 * resolves to this very package: a temporary worktree has no node_modules of
 * its own, yet its config and property modules import from us.
 */
export function createModuleLoader(options: {
  cache: boolean;
  alias?: Record<string, string>;
  /** The module `patchgate` resolves to: the whole library (`index`, for configs) or `define` (property modules). */
  entry?: 'index' | 'define';
}): Jiti {
  const self = path.join(runningTree(), options.entry ?? 'index');
  // The engine is ours too: a `fast-check` the patch committed or installed is never what runs.
  const fastCheck = createRequire(import.meta.url).resolve('fast-check');
  return createJiti(import.meta.url, {
    moduleCache: options.cache,
    fsCache: false,
    interopDefault: true,
    alias: { 'fast-check': fastCheck, ...options.alias, patchgate: self },
  });
}
