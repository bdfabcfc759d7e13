import { diffHunks, type Hunk } from '../git/hunks.js';
import type { FlakeHistory } from '../layers/flake-history.js';
import { overrideTokens } from '../layers/override.js';
import type { ProgressReport } from '../layers/progress.js';
import type { Revision } from '../layers/types.js';
import { type TreeFiles, treeFiles } from '../overlay/revision-files.js';
import type { Rules } from './rules.js';
import type { SharedContext } from './run-layers.js';
import type { Runtime } from './runtime.js';
import type { Workspace } from './workspace.js';

export interface ContextOptions {
  /** Read for its override tokens only; a layer never sees it. */
  env: Readonly<Record<string, string | undefined>>;
  today: string;
  signal: AbortSignal;
  progress?: ProgressReport;
  flakeHistory?: FlakeHistory;
}

/** What every layer is given: the revisions, the rules, the door, and nothing of the gate's own environment. */
export function layerContext(ws: Workspace, rules: Rules, rt: Runtime, o: ContextOptions): SharedContext {
  const { revs, checkouts, headTree } = ws;
  const revision = (side: Revision['side'], commit: string, root: string, treeish: string): Revision => ({
    side,
    commit,
    root,
    readCommitted: ws.committedText(treeish),
    missingSubmodules: checkouts.missingSubmodules(root),
  });
  let hunksP: Promise<readonly Hunk[]> | undefined;
  const { overlay } = rt;
  let overlayFilesP: Promise<TreeFiles> | undefined;
  return {
    config: rules.config,
    configFile: rules.configFile,
    base: revision('base', revs.baseCommit, ws.baseRoot, revs.baseCommit),
    head: { ...revision('head', revs.head.commit, ws.headRoot, headTree), tree: ws.headFiles },
    overlay: {
      ...revision('head', overlay.tree, rt.overlayRoot, overlay.tree),
      tree: () => {
        overlayFilesP ??= treeFiles(ws.repo, overlay.tree);
        return overlayFilesP;
      },
      sameAsHead: overlay.sameAsHead,
      restored: overlay.restored,
      headOnly: overlay.headOnly,
      merged: overlay.merged,
      fromBase: overlay.fromBase,
      named: overlay.named,
      unread: overlay.unread,
      shared: overlay.shared,
    },
    changes: rules.changes,
    contracts: rules.contracts,
    overrides: overrideTokens(o.env),
    today: o.today,
    logDir: rt.logDir,
    ...(rt.tests ? { tests: rt.tests } : {}),
    ...(o.flakeHistory ? { flakeHistory: o.flakeHistory } : {}),
    ...(rt.slice ? { shard: rt.slice } : {}),
    snapshot: rules.snapshot,
    hunks: () => {
      hunksP ??= diffHunks(ws.repo, revs.baseCommit, headTree).then((d) => d.hunks);
      return hunksP;
    },
    sandbox: rt.sandbox,
    signal: o.signal,
    ...(o.progress ? { progress: o.progress } : {}),
  };
}
