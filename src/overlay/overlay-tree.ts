/**
 * The overlay revision: the head's tree with every test-side path taken from
 * the base. Head-only test files are left out; a base test file the head
 * deleted or changed is back as the base has it; mixed config files get the
 * base's test sections. The base's checks then judge the head's code.
 *
 * Built from git's objects into a tree object (a throw-away index), so it is
 * checked out like any other revision and costs nothing when the head did
 * not touch its tests (the overlay is then the head's own tree).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PatchgateConfig } from '../config/schema.js';
import type { Git } from '../git/git.js';
import { loadTypescript, requireTypescript } from '../util/typescript.js';
import { decodeStrict, readBlobs, type TreeFiles, treeFiles } from './revision-files.js';
import { readRunnerFiles } from './runner-config/index.js';
import type { NamedPath, SharedImport, UnreadValue } from './runner-config/types.js';
import { mergeSections } from './sections.js';
import { type TestSide, testSideFor } from './test-side.js';

interface Entry {
  mode: string;
  sha: string;
}

const JS_FILE = /\.[cm]?[jt]sx?$/;

export interface OverlayTree {
  tree: string;
  /** True when the overlay is the head's own tree (the patch left the test side alone). */
  sameAsHead: boolean;
  /** Test-side paths the overlay takes from the base where the head differs: changed, deleted or renamed away. */
  restored: string[];
  /** Test-side paths only the head has, which the overlay leaves out. */
  headOnly: string[];
  /** Mixed files whose test sections were taken from the base. */
  merged: string[];
  /** Mixed files a copy of which did not parse: the overlay has the base's copy whole, and why. */
  fromBase: { path: string; reason: string }[];
  /**
   * Every test-side path the overlay holds as the base has it, and every
   * merged file: what head code must not write while the base's tests run.
   */
  testSide: string[];
}

/** The overlay, and what the base's runner configuration said the test side holds. */
export interface Overlay extends OverlayTree {
  named: readonly NamedPath[];
  unread: readonly UnreadValue[];
  shared: readonly SharedImport[];
}

/** The module specifiers (not relative paths) the base's test-side JavaScript and TypeScript files import. */
async function testSpecifiers(base: TreeFiles, side: TestSide): Promise<string[]> {
  const ts = await loadTypescript();
  const files = base.paths.filter(
    (p) => JS_FILE.test(p) && side.isTestPath(p) && !p.includes('node_modules/'),
  );
  const out = new Set<string>();
  for (const text of (await base.readMany(files)).values())
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles)
      if (!fileName.startsWith('.') && !fileName.startsWith('/')) out.add(fileName);
  return [...out].sort();
}

export async function buildOverlayTree(
  git: Git,
  baseCommit: string,
  headTree: string,
  side: TestSide,
  baseFiles?: TreeFiles,
): Promise<OverlayTree> {
  const [baseT, headT] = await Promise.all([
    baseFiles ?? treeFiles(git, baseCommit),
    treeFiles(git, headTree),
  ]);
  // A submodule is an entry like a file (the base's where it is test side, the head's elsewhere):
  // without it the overlay's checkout has no folder there and its fixtures read as missing.
  const base = new Map([...baseT.shas, ...baseT.gitlinks]);
  const head = new Map([...headT.shas, ...headT.gitlinks]);
  const result = new Map<string, Entry>();
  const restored: string[] = [];
  const headOnly: string[] = [];
  const merged: string[] = [];
  const fromBase: { path: string; reason: string }[] = [];
  for (const [p, e] of head) {
    if (!side.isTestPath(p)) result.set(p, e);
    else if (!base.has(p)) headOnly.push(p);
  }
  const testSide: string[] = [];
  for (const [p, e] of base) {
    if (!side.isTestPath(p)) continue;
    testSide.push(p);
    const h = head.get(p);
    if (!h || h.sha !== e.sha || h.mode !== e.mode) restored.push(p);
    result.set(p, e);
  }
  // A committed node_modules is never checked out: nothing in it is split.
  // Only files are split: a gitlink has no text.
  const mixed = [...new Set([...baseT.shas.keys(), ...headT.shas.keys()])]
    .filter((p) => side.ruleFor(p) && !p.split('/').includes('node_modules'))
    .sort();
  const blobs = await readBlobs(
    git,
    mixed.flatMap((p) => [base.get(p)?.sha, head.get(p)?.sha]).filter((s): s is string => s !== undefined),
  );
  let specifiers: Promise<string[]> | undefined;
  for (const p of mixed) {
    const rule = side.ruleFor(p);
    const b = base.get(p);
    const h = head.get(p);
    if (!rule || (b && h && b.sha === h.sha)) continue;
    const text = (e: Entry | undefined) =>
      e ? decodeStrict(blobs.get(e.sha) ?? Buffer.alloc(0)) : undefined;
    const [bText, hText] = [text(b), text(h)];
    let out: { text: string | undefined; fromBase?: string };
    if (b && bText === undefined) out = { text: undefined, fromBase: "the base's copy is not UTF-8 text" };
    else if (h && hText === undefined)
      out = { text: bText, fromBase: "the head's copy is not UTF-8 text: nothing of it may reach the tests" };
    else {
      if (rule.entries && rule.entries.length > 0) specifiers ??= testSpecifiers(baseT, side);
      out = mergeSections(rule, bText, hText, {
        ...(rule.kind === 'jsonc' ? { ts: await loadTypescript() } : {}),
        ...(rule.entries && rule.entries.length > 0 ? { specifiers: await specifiers } : {}),
      });
    }
    if (out.fromBase) fromBase.push({ path: p, reason: out.fromBase });
    // A base copy that is not text: the base's very bytes.
    if (b && bText === undefined) {
      result.set(p, b);
      if (h?.sha !== b.sha) merged.push(p);
      continue;
    }
    if (out.text === undefined) {
      if (h) {
        result.delete(p);
        merged.push(p);
      }
      continue;
    }
    const sha = await git.out(['hash-object', '-w', '--no-filters', '--stdin'], {}, out.text);
    if (h?.sha === sha) continue;
    result.set(p, { mode: h?.mode ?? b?.mode ?? '100644', sha });
    merged.push(p);
  }
  const sameAsHead = restored.length === 0 && headOnly.length === 0 && merged.length === 0;
  const guarded = [...testSide, ...merged].sort();
  if (sameAsHead)
    return { tree: headTree, sameAsHead, restored, headOnly, merged, fromBase, testSide: guarded };
  const dir = await mkdtemp(path.join(tmpdir(), 'patchgate-index-'));
  const index = { GIT_INDEX_FILE: path.join(dir, 'index') };
  try {
    const lines = [...result].map(([p, e]) => `${e.mode} ${e.sha}\t${p}`);
    if (lines.length > 0)
      await git.out(['update-index', '-z', '--index-info'], index, `${lines.join('\0')}\0`);
    const tree = await git.out(['write-tree'], index);
    return {
      tree,
      sameAsHead: false,
      restored: restored.sort(),
      headOnly: headOnly.sort(),
      merged: merged.sort(),
      fromBase,
      testSide: guarded,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The test side the overlay uses: the config's globs plus what the base's runner configuration names. */
export async function overlayTestSide(
  git: Git,
  baseCommit: string,
  config: PatchgateConfig,
  configFile: string,
): Promise<{ side: TestSide; files: TreeFiles; unread: UnreadValue[]; shared: SharedImport[] }> {
  const files = await treeFiles(git, baseCommit);
  const globsOnly = testSideFor(config);
  const runner = await readRunnerFiles({
    files,
    config,
    configFile,
    ts: requireTypescript,
    isTestSide: globsOnly.isTestPath,
  });
  return { side: testSideFor(config, runner.named), files, unread: runner.unread, shared: runner.shared };
}

/** The overlay the pipeline runs the base's checks on. */
export async function buildOverlay(
  git: Git,
  baseCommit: string,
  headTree: string,
  config: PatchgateConfig,
  configFile: string,
): Promise<Overlay> {
  const { side, files, unread, shared } = await overlayTestSide(git, baseCommit, config, configFile);
  const tree = await buildOverlayTree(git, baseCommit, headTree, side, files);
  return { ...tree, named: side.named, unread, shared };
}
