import picomatch from 'picomatch';
import { switchOf } from '../../config/layers-on.js';
import { CONFIG_FILE_NAMES } from '../../config/load.js';
import type { Change } from '../../git/changes.js';
import { acceptedByHuman } from '../override.js';
import type { Finding, Layer, LayerContext, NamedContract, Override } from '../types.js';

const LAYER = 'contracts';

function protectedReason(
  p: string,
  named: Map<string, string>,
  globs: { glob: string; role: string; match: (p: string) => boolean }[],
) {
  const role = named.get(p);
  if (role) return { role };
  const hit = globs.find((g) => g.match(p));
  return hit ? { role: hit.role, glob: hit.glob } : undefined;
}

/**
 * Runs first. A patch that edits the rules it is judged by is rejected
 * whatever the later layers say, and those findings are never hidden.
 */
export const contractsLayer: Layer = {
  name: LAYER,
  enabled: switchOf(LAYER),
  contractFiles: () => [],
  async run(ctx: LayerContext) {
    const findings: Finding[] = [];
    const named = new Map<string, string>();
    for (const c of ctx.contracts) if (!c.glob && !named.has(c.path)) named.set(c.path, c.role);
    // Any config candidate is protected, so a patch cannot shadow the base config with a new format.
    for (const name of CONFIG_FILE_NAMES) if (!named.has(name)) named.set(name, 'config');
    const globs = [
      // A contract glob (the claim matrix) protects every file it matches, a new one included.
      ...ctx.contracts
        .filter((c) => c.glob)
        .map((c) => ({ glob: c.path, role: c.role, match: picomatch(c.path, { dot: true }) })),
      ...ctx.config.contracts.protect.map((glob) => ({
        glob,
        role: 'contracts.protect',
        match: picomatch(glob, { dot: true }),
      })),
    ];

    // A human commit may touch contracts (a maintainer editing a CI workflow): a human job says so with a token.
    const variable = ctx.config.contracts.overrideTokenEnv;
    const overridden = ctx.overrides.active(variable);
    const overrides: Override[] = [];
    const touched = (change: Change) => {
      const reason =
        protectedReason(change.path, named, globs) ??
        (change.from ? protectedReason(change.from, named, globs) : undefined);
      if (!reason) return;
      const what =
        change.kind === 'renamed'
          ? `renamed ${change.from} → ${change.path}`
          : `${change.kind} ${change.path}`;
      const f: Finding = {
        code: 'CONTRACT_TOUCHED',
        layer: LAYER,
        severity: 'reject',
        message: `the patch ${what}, a human-owned contract path (${reason.role}${'glob' in reason ? ` ${reason.glob}` : ''}); contract edits belong in a separate human commit, which a human job accepts by setting ${variable}`,
        evidence: {
          path: change.path,
          ...(change.from ? { from: change.from } : {}),
          change: change.kind,
          ...reason,
          override: variable,
          next: `land the contract change in its own human commit; the job that checks it sets ${variable}`,
        },
      };
      findings.push(overridden ? acceptedByHuman(f, change.path, variable, overrides) : f);
    };
    ctx.changes.forEach(touched);

    const contracts: NamedContract[] = [{ path: ctx.configFile, role: 'config' }, ...ctx.contracts];
    const seen = new Set<string>();
    for (const c of contracts) {
      // A glob that matches nothing is its layer's to report (CLAIMS_EMPTY), with what to write.
      if (c.glob || seen.has(c.path)) continue;
      seen.add(c.path);
      if (!ctx.snapshot.base.has(c.path)) {
        findings.push({
          code: 'CONTRACT_MISSING',
          layer: LAYER,
          severity: 'reject',
          message: `${c.path} (named by ${c.role} in ${ctx.configFile}) does not exist in the base revision, so its rules cannot be checked`,
          evidence: { path: c.path, role: c.role, revision: 'base' },
        });
      }
    }
    return { findings, overrides };
  },
};
