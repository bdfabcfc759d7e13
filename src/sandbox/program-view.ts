/**
 * Which file a program name runs as, on this machine and in the sandbox. The
 * sandbox shows only some folders (the system's, the gate's package, the
 * checkout, `sandbox.readOnly`): a PATH entry under a home folder (a pyenv
 * shim, a virtualenv, nvm's node) is not there, so the same name finds
 * another program further down PATH, or none, and the run fails with
 * `No module named pytest` far from its cause. This says it before anything
 * runs.
 */
import { accessSync, constants as fsConstants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ProgramView {
  program: string;
  /** What this machine's PATH finds (the PATH entry's own path, not its link target). */
  host?: string;
  /** What the sandbox's PATH finds: the first entry whose file the sandbox can see. */
  sandbox?: string;
  /** Folders to make readable (`sandbox.readOnly`) for the host's program to run in the sandbox. */
  hidden: string[];
}

function executable(p: string): boolean {
  try {
    accessSync(p, fsConstants.X_OK);
    return !statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The folder an install lives in: the parent of its `bin` (or pyenv's `shims`), else the program's folder. */
function installRoot(file: string): string {
  const dir = path.dirname(file);
  return ['bin', 'shims', 'sbin'].includes(path.basename(dir)) ? path.dirname(dir) : dir;
}

/**
 * `program` as the host and the sandbox resolve it on `searchPath`.
 * `visible` says whether the sandbox sees a host path at the same place. A
 * name with a slash other than an absolute path is relative to the checkout,
 * which the sandbox always sees: it is the same file on both sides.
 */
export function programView(
  program: string,
  searchPath: string | undefined,
  visible: (p: string) => boolean,
): ProgramView {
  const seen = (p: string) => visible(p) && visible(real(p));
  if (program.includes('/') && !path.isAbsolute(program)) return { program, hidden: [] };
  const candidates = path.isAbsolute(program)
    ? [program]
    : (searchPath ?? '')
        .split(':')
        .filter((d) => path.isAbsolute(d))
        .map((d) => path.join(d, program));
  const found = candidates.filter(executable);
  const host = found[0];
  const sandbox = found.find(seen);
  const hidden =
    host === undefined || seen(host)
      ? []
      : [...new Set([installRoot(host), installRoot(real(host))])].filter((d) => !visible(d));
  return {
    program,
    ...(host !== undefined ? { host } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
    hidden,
  };
}
