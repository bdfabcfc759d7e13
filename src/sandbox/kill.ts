import type { ChildProcess } from 'node:child_process';

/** POSIX children get their own process group, killed as a whole. */
export const OWN_PROCESS_GROUP = process.platform !== 'win32';

/**
 * Sends `signal` to the child's process group (or to the child alone where
 * groups do not exist). Safe to call at any time: a group that is already
 * gone is not an error.
 */
export function killTree(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    process.kill(OWN_PROCESS_GROUP ? -pid : pid, signal);
  } catch {
    // ESRCH: nothing left to kill
  }
  if (OWN_PROCESS_GROUP && child.exitCode === null && child.signalCode === null) {
    // The group may be gone while the leader lingers (it left the group); kill it directly too.
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
