import { detectIsolation } from './isolation.js';
import { type Limits, Sandbox } from './sandbox.js';

export interface SandboxSettings {
  readOnly?: readonly string[];
  limits?: Partial<Limits>;
}

/**
 * Detects what isolation this machine offers (bubblewrap and its helpers on
 * the host's PATH) and opens the door head code goes through. `hostEnv` is
 * the gate's environment: the sandbox alone decides what of it head code sees.
 */
export async function openSandbox(
  hostEnv: Readonly<Record<string, string | undefined>>,
  settings: SandboxSettings = {},
): Promise<Sandbox> {
  return new Sandbox(await detectIsolation(hostEnv.PATH), { ...settings, hostEnv });
}

/** The base config's `sandbox.limits` (in MiB) as byte limits. */
export function limitsFromConfig(l: {
  memoryMb: number;
  processes: number;
  fileMb: number;
  diskMb: number;
}): Limits {
  return {
    memoryBytes: l.memoryMb * 1024 ** 2,
    processes: l.processes,
    fileBytes: l.fileMb * 1024 ** 2,
    diskBytes: l.diskMb * 1024 ** 2,
  };
}
