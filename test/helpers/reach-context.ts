import { configSchema, type PatchgateConfigInput } from '../../src/config/schema.js';
import type { Change } from '../../src/git/changes.js';
import type { LayerContext } from '../../src/layers/types.js';
import { tempDir } from './gitdir.js';
import { testSandbox } from './sandbox.js';

export type Texts = Record<string, string>;

/**
 * The part of a LayerContext the toolchain and reach checks read: the
 * changes, the config, each revision's committed text (in-memory maps), and
 * for the Python parser the real sandbox (whose environment head code
 * gets), a log dir and the abort signal. The changes are derived from the two maps, as git would list
 * them.
 */
export async function reachContext(
  base: Texts,
  head: Texts,
  config: PatchgateConfigInput = { tests: { preset: 'vitest' } },
): Promise<LayerContext> {
  const changes: Change[] = [];
  for (const p of [...new Set([...Object.keys(base), ...Object.keys(head)])].sort()) {
    if (!(p in base)) changes.push({ kind: 'added', path: p });
    else if (!(p in head)) changes.push({ kind: 'deleted', path: p });
    else if (base[p] !== head[p]) changes.push({ kind: 'modified', path: p });
  }
  const revision = (texts: Texts) => ({ readCommitted: async (file: string) => texts[file] });
  // A test double: the functions under test use only these fields of the context.
  return {
    changes,
    config: configSchema.parse(config),
    base: revision(base),
    head: revision(head),
    sandbox: await testSandbox(),
    logDir: tempDir('pg-reach-'),
    signal: new AbortController().signal,
  } as unknown as LayerContext;
}
