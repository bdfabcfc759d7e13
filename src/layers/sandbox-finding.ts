import { HOW_TO_ENABLE, type Isolation } from '../sandbox/isolation.js';
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
