import type { PatchgateConfig } from '../config/schema.js';
import { HOW_TO_ENABLE, type Isolation } from '../sandbox/isolation.js';
import type { NetworkStatus } from '../sandbox/sandbox.js';
import type { Finding } from './types.js';

/** What the scorecard records of the isolation head code ran under. */
export interface IsolationRecord {
  mode: 'bwrap' | 'process';
  user?: 'separate' | 'same';
  reason?: string;
}

export function describeIsolation(i: Isolation): IsolationRecord {
  return { mode: i.mode, ...(i.user ? { user: i.user } : {}), ...(i.reason ? { reason: i.reason } : {}) };
}

/**
 * Head code without a sandbox. Outside CI it is recorded (a developer's own
 * machine, their own patch); under CI=true it is an error verdict unless the
 * base config says `sandbox.allowUnsandboxed`, because there the patch is a
 * stranger's and the job holds secrets.
 */
export function unsandboxedFinding(
  i: Isolation,
  allowed: boolean,
  env: Readonly<Record<string, string | undefined>>,
): Finding | undefined {
  if (i.mode !== 'process') return undefined;
  const ci = env.CI === 'true' || env.CI === '1';
  const fatal = ci && !allowed;
  return {
    code: 'SANDBOX_UNAVAILABLE',
    layer: 'gate',
    severity: fatal ? 'error' : 'warn',
    message: fatal
      ? `head code would run without a sandbox under CI: ${i.reason ?? 'bubblewrap is unavailable'}. Nothing of the head was run. To enable the sandbox: ${HOW_TO_ENABLE}; or set sandbox.allowUnsandboxed in the base config to accept plain child processes`
      : `head code ran in plain child processes (scrubbed environment, own process group), not in a sandbox: ${i.reason ?? 'bubblewrap is unavailable'}`,
    evidence: {
      isolation: 'process',
      ci,
      allowUnsandboxed: allowed,
      next: HOW_TO_ENABLE,
    },
  };
}

/**
 * The base config's keys that give head processes network, among the layers
 * that will run: the install (`tests.setupNetwork`, when there is a setup
 * command) and the opted-in layers.
 */
export function networkSettings(config: PatchgateConfig, enabled: (layer: string) => boolean): string[] {
  const out: string[] = [];
  const tests = config.tests;
  if (tests !== undefined) {
    if (tests.setupNetwork && (tests.setup?.length ?? 0) > 0) out.push('tests.setupNetwork');
    if (tests.network) out.push('tests.network');
  }
  if (config.seeds?.network && enabled('seeds')) out.push('seeds.network');
  if (config.hits?.network && enabled('hits')) out.push('hits.network');
  return out;
}

/**
 * Head code the base config gives network, on a machine where the sandbox
 * cannot give it any (slirp4netns missing or failing). It never falls back to
 * the host's network namespace: it runs with no network. Outside CI that is
 * recorded (the install or a test that needs the network will say so); under
 * CI=true it is an error verdict before any head code runs, since a run that
 * cannot be what the config asked for decides nothing.
 */
export function networkFinding(
  status: NetworkStatus,
  settings: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Finding | undefined {
  if (status.available || settings.length === 0) return undefined;
  const ci = env.CI === 'true' || env.CI === '1';
  const which = settings.join(', ');
  return {
    code: 'SANDBOX_NETWORK_UNAVAILABLE',
    layer: 'gate',
    severity: ci ? 'error' : 'warn',
    message: ci
      ? `the base config gives head code network (${which}), but the sandbox cannot give it any here: ${status.reason}. Head code never gets the host's network, so nothing of the head was run. To fix: ${status.next}`
      : `the base config gives head code network (${which}), but the sandbox cannot give it any here: ${status.reason}. Head code ran with no network (never the host's); an install or a test that needs it fails. To fix: ${status.next}`,
    evidence: { settings: [...settings], reason: status.reason, ci, network: 'none', next: status.next },
  };
}
