import { detectIsolation } from './isolation.js';
import { type Limits, Sandbox } from './sandbox.js';

export interface SandboxSettings {
  readOnly?: readonly string[];
  limits?: Partial<Limits>;
}

/** Detects what isolation this machine offers and opens the door head code goes through. */
export async function openSandbox(
  searchPath: string | undefined,
  settings: SandboxSettings = {},
): Promise<Sandbox> {
  return new Sandbox(await detectIsolation(searchPath), settings);
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
