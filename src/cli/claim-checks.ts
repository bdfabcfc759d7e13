import { readFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { loadConfig } from '../config/load.js';
import type { PatchgateConfig } from '../config/schema.js';
import { parseClaimMatrix } from '../contracts/claim-matrix.js';
import type { Git } from '../git/git.js';
import { parseFreezeRef, parsePropertyRef } from '../layers/claims/cells.js';

/** The working tree's config, or undefined when the repository has none (commands then use defaults). */
async function workingConfig(root: string, signal: AbortSignal): Promise<PatchgateConfig | undefined> {
  try {
    return (await loadConfig(root, undefined, { signal })).config;
  } catch (err) {
    if ((err as { code?: string }).code === 'CONFIG_NOT_FOUND') return undefined;
    throw err;
  }
}

/** `claims.ledger` of the working tree's config, when it has a claims section. */
export async function configuredLedger(root: string, signal: AbortSignal): Promise<string | undefined> {
  return (await workingConfig(root, signal))?.claims?.ledger;
}

/**
 * Which tests vote for each freeze id: the property cells of the claims bound
 * to it that name a test. Read from the working tree's matrix, which on the
 * main branch (where `patchgate record` runs) is the reviewed one.
 */
export async function claimChecks(
  git: Git,
  root: string,
  signal: AbortSignal,
): Promise<Map<string, string[]>> {
  const config = await workingConfig(root, signal);
  const cfg = config?.claims;
  const out = new Map<string, string[]>();
  if (!cfg) return out;
  const match = picomatch(cfg.matrix, { dot: true });
  const listed = await git.out(['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  const files = listed.split('\0').filter((p) => p !== '' && match(p));
  const texts = await Promise.all(
    files.map(async (file) => ({ file, text: await readFile(path.join(root, file), 'utf8') })),
  );
  for (const claim of parseClaimMatrix(texts).claims) {
    if (!claim.freeze || !claim.property) continue;
    const freeze = parseFreezeRef(claim.freeze, cfg.ledger);
    const property = parsePropertyRef(claim.property);
    if (!freeze.ok || property.kind !== 'test') continue;
    const list = out.get(freeze.id) ?? [];
    if (!list.includes(property.id)) list.push(property.id);
    out.set(freeze.id, list);
  }
  return out;
}
