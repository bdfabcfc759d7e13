import picomatch from 'picomatch';
import { DEFAULT_CONTRACT_BYTES } from '../config/contract-file.js';
import { ContractSnapshot } from '../config/contract-snapshot.js';
import { CONFIG_FILE_NAMES, loadConfig } from '../config/load.js';
import type { PatchgateConfig } from '../config/schema.js';
import { type Change, changedPaths } from '../git/changes.js';
import type { Git } from '../git/git.js';
import { listTree } from '../git/tree.js';
import type { Layer, NamedContract } from '../layers/types.js';
import type { Workspace } from './workspace.js';

/**
 * Everything the layers judge by, read from git's objects before any head
 * code runs: the base's config, what the patch changed, the contract files
 * the enabled layers name, and one frozen snapshot of them per revision.
 */
export interface Rules {
  readonly config: PatchgateConfig;
  /** Repo-relative path of the base config file. */
  readonly configFile: string;
  readonly changes: readonly Change[];
  /** Every contract file the enabled layers name, with the base's matches of their globs. */
  readonly contracts: readonly NamedContract[];
  /** The paths both snapshots hold: the config, the named contracts, and the head's extra glob matches. */
  readonly snapshotPaths: readonly string[];
  readonly snapshot: { readonly base: ContractSnapshot; readonly head: ContractSnapshot };
  /** The layers of the pipeline this config turns on, in order. */
  readonly enabled: readonly Layer[];
  /** Whether a layer of that name is on. */
  isEnabled(name: string): boolean;
}

/** The base is the source of truth: the head's config is only ever compared against it. */
export async function readRules(
  ws: Workspace,
  pipeline: readonly Layer[],
  signal: AbortSignal,
): Promise<Rules> {
  const { repo, revs, headTree } = ws;
  const baseLabel = `the base revision ${revs.baseCommit.slice(0, 12)}`;
  const configs = await ContractSnapshot.read(
    repo,
    revs.baseCommit,
    CONFIG_FILE_NAMES,
    baseLabel,
    DEFAULT_CONTRACT_BYTES,
  );
  const { config, file: configFile } = await loadConfig(configs, baseLabel, {
    signal,
    moduleRoot: ws.baseRoot,
  });
  const changes = await changedPaths(repo, revs.baseCommit, headTree);
  const enabled = pipeline.filter((l) => l.enabled(config));
  const named: NamedContract[] = enabled.flatMap((l) => l.contractFiles(config));
  const globbed = await expandContractGlobs(repo, revs.baseCommit, headTree, named);
  const contracts: NamedContract[] = [...named, ...globbed.base];
  const snapshotPaths = [
    configFile,
    ...CONFIG_FILE_NAMES,
    ...contracts.filter((c) => !c.glob).map((c) => c.path),
    ...globbed.headOnly,
  ];
  const limit = config.limits.contractBytes;
  const snapshot = {
    base: await ContractSnapshot.read(repo, revs.baseCommit, snapshotPaths, baseLabel, limit),
    head: await ContractSnapshot.read(repo, headTree, snapshotPaths, 'the head', limit),
  };
  const names = new Set(enabled.map((l) => l.name));
  return {
    config,
    configFile,
    changes,
    contracts,
    snapshotPaths,
    snapshot,
    enabled,
    isEnabled: (name) => names.has(name),
  };
}

/**
 * The files contract globs match: the base's become named contracts (read,
 * and missing-checked by their readers), the head's extra ones are frozen too
 * so a layer can tell what the patch added.
 */
async function expandContractGlobs(
  repo: Git,
  baseCommit: string,
  headTree: string,
  named: readonly NamedContract[],
): Promise<{ base: NamedContract[]; headOnly: string[] }> {
  const globs = named.filter((c) => c.glob);
  if (globs.length === 0) return { base: [], headOnly: [] };
  const matchers = globs.map((g) => ({ role: g.role, match: picomatch(g.path, { dot: true }) }));
  const blobs = async (treeish: string) =>
    (await listTree(repo, treeish)).filter((e) => e.type === 'blob').map((e) => e.path);
  const [baseFiles, headFiles] = await Promise.all([blobs(baseCommit), blobs(headTree)]);
  const base: NamedContract[] = [];
  for (const p of baseFiles) {
    const m = matchers.find((x) => x.match(p));
    if (m) base.push({ path: p, role: m.role });
  }
  const onBase = new Set(base.map((c) => c.path));
  const headOnly = headFiles.filter((p) => !onBase.has(p) && matchers.some((x) => x.match(p)));
  return { base, headOnly };
}
