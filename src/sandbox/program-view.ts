/**
 * Which file a program name runs as, on this machine and in the sandbox. The
 * sandbox shows only some folders (the system's, the gate's package, the
 * checkout, `sandbox.readOnly`): a PATH entry under a home folder (a pyenv
 * shim, a virtualenv, nvm's node) is not there, so the same name finds
 * another program further down PATH, or none, and the run fails with
 * `No module named pytest` far from its cause. This says it before anything
 * runs.
 */
import {
  accessSync,
  closeSync,
  constants as fsConstants,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import path from 'node:path';

export interface ProgramView {
  program: string;
  /** What this machine's PATH finds (the PATH entry's own path, not its link target). */
  host?: string;
  /** What the sandbox's PATH finds: the first entry whose file the sandbox can see. */
  sandbox?: string;
  /** Folders to make readable (`sandbox.readOnly`) for the host's program to run in the sandbox. */
  hidden: string[];
  /**
   * The file the sandbox runs is a script, and the interpreter its `#!` line
   * names resolves otherwise in the sandbox (or not at all): set only then.
   * A pnpm or npx of the system's is `#!/usr/bin/env node`, and a node under
   * a home folder (nvm) is not in the sandbox.
   */
  interpreter?: InterpreterView;
}

export interface InterpreterView extends ProgramView {
  /** The script whose first line names the interpreter. */
  script: string;
  /** That line, as written. */
  line: string;
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

/** The interpreter a script's `#!` line names, as a program name and the PATH `env` would use; or none. */
export function shebangProgram(
  file: string,
  searchPath: string | undefined,
): { program: string; searchPath: string | undefined; line: string } | undefined {
  let head: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      head = Buffer.alloc(256);
      head = head.subarray(0, readSync(fd, head, 0, 256, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (head[0] !== 0x23 || head[1] !== 0x21) return undefined;
  const nl = head.indexOf(10);
  const line = head
    .subarray(0, nl < 0 ? head.length : nl)
    .toString('utf8')
    .replace(/\r$/, '');
  const [interpreter, ...args] = line
    .slice(2)
    .trim()
    .split(/[ \t]+/);
  if (interpreter === undefined || interpreter === '' || !path.isAbsolute(interpreter)) return undefined;
  if (path.basename(interpreter) !== 'env') return { program: interpreter, searchPath, line };
  // `#!/usr/bin/env [-S] [NAME=VALUE…] program …`: env looks the program up on the script's PATH.
  let p = searchPath;
  for (const a of args) {
    if (a === '-S' || (a.startsWith('-') && a.length > 1)) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
      if (a.startsWith('PATH=')) p = a.slice(5);
      continue;
    }
    return { program: a, searchPath: p, line };
  }
  return undefined;
}

/** How deep `#!` lines are followed: a script run by a script run by… stops here. */
const MAX_INTERPRETERS = 4;

/**
 * `program` as the host and the sandbox resolve it on `searchPath`.
 * `visible` says whether the sandbox sees a host path at the same place. A
 * name with a slash other than an absolute path is relative to the checkout,
 * which the sandbox always sees: it is the same file on both sides. When
 * the file the sandbox runs is a script, its interpreter is looked up the
 * same way (`interpreter`, when it differs).
 */
export function programView(
  program: string,
  searchPath: string | undefined,
  visible: (p: string) => boolean,
  depth = 0,
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
  const view: ProgramView = {
    program,
    ...(host !== undefined ? { host } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
    hidden,
  };
  const named =
    sandbox !== undefined && depth < MAX_INTERPRETERS ? shebangProgram(sandbox, searchPath) : undefined;
  if (named !== undefined && sandbox !== undefined) {
    const inner = programView(named.program, named.searchPath, visible, depth + 1);
    if ((inner.host !== undefined && inner.host !== inner.sandbox) || inner.interpreter !== undefined)
      view.interpreter = { ...inner, script: sandbox, line: named.line };
  }
  return view;
}
