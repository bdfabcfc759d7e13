/**
 * Every failure the gate can report has a class and a stable code. `kind`
 * decides the exit code at the CLI: `input` problems are the user's to fix
 * (exit 2), `internal` ones are ours (exit 3). Neither is ever an accept.
 */
export type ErrorKind = 'input' | 'internal';

export type ErrorCode =
  | 'USAGE'
  | 'CONFIG_INVALID'
  | 'CONFIG_NOT_FOUND'
  | 'CONTRACT_INVALID'
  | 'NOT_A_REPO'
  | 'UNKNOWN_REVISION'
  | 'SHALLOW_HISTORY'
  | 'NO_COMMON_HISTORY'
  | 'GIT_FAILED'
  | 'PATH_OUTSIDE_REPO'
  | 'PATH_INVALID'
  | 'SYMLINK_LOOP'
  | 'FILE_UNREADABLE'
  | 'FILE_TOO_LARGE'
  | 'FIXTURE_ROOT_MISSING'
  | 'JUNIT_INVALID'
  | 'ALREADY_EXISTS'
  | 'BASELINE_REFUSED'
  | 'ABORTED'
  | 'INTERNAL_ERROR'
  | 'OUTPUT_WRITE_FAILED'
  // Codes of the run history (src/history/): a store that cannot be opened, one the head could have
  // written, and one a newer patchgate migrated.
  | 'HISTORY_UNAVAILABLE'
  | 'HISTORY_UNSAFE'
  | 'HISTORY_INCOMPATIBLE'
  // A file given to `patchgate merge` that is no shard part.
  | 'SHARD_PART_INVALID'
  // Codes of the test-runner module (src/runners/tests/errors.ts), input errors too.
  | 'UNKNOWN_PRESET'
  | 'COMMAND_INVALID'
  | 'SUBSET_UNSUPPORTED'
  | 'SPAWN_FAILED'
  | 'SETUP_FAILED'
  | 'TESTS_NO_REPORT'
  | 'TESTS_TIMEOUT'
  | 'TESTS_RUN_FAILED'
  | 'RESOURCE_LIMIT'
  | 'SANDBOX_NETWORK_UNAVAILABLE'
  | 'INSTRUMENT_SHADOWED'
  | 'HEAD_RUN_BROKEN';

export class PatchgateError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  /** Machine-readable facts (file, line, field…) carried into the scorecard. */
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    kind: ErrorKind,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.kind = kind;
    this.details = details;
  }
}

/** Bad input: a file, a flag, a revision or a repository state the user must fix. */
export class InputError extends PatchgateError {
  constructor(
    code: Exclude<ErrorCode, 'INTERNAL_ERROR'>,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, 'input', message, details, options);
  }
}

/** One problem in a config or contract file, located as precisely as we can. */
export interface Problem {
  file: string;
  /** Dotted path of the field, e.g. `fixtures.roots[0]`; empty for the whole document. */
  path: string;
  line?: number;
  column?: number;
  message: string;
}

export function formatProblem(p: Problem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/**
 * A config or contract file with one or more problems. Parsing collects every
 * problem before throwing, so users fix a file in one pass.
 */
export class ContractFileError extends InputError {
  readonly problems: Problem[];
  constructor(code: 'CONFIG_INVALID' | 'CONTRACT_INVALID', problems: Problem[]) {
    const head = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    const file = problems[0]?.file ?? 'unknown file';
    super(
      code,
      `${file} is invalid (${head}):\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
      {
        problems: problems.map((p) => ({ ...p })),
      },
    );
    this.problems = problems;
  }
}

export class InternalError extends PatchgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INTERNAL_ERROR', 'internal', message, {}, options);
  }
}

/**
 * Anything thrown that is not ours is an internal error: fail closed. Errors
 * from our own modules that declare themselves input errors (a stable `code`
 * and `kind: 'input'`) keep that meaning.
 */
export function asPatchgateError(err: unknown): PatchgateError {
  if (err instanceof PatchgateError) return err;
  const e = err as { code?: unknown; kind?: unknown; message?: unknown; details?: unknown };
  if (err instanceof Error && e.kind === 'input' && typeof e.code === 'string') {
    const details = e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : {};
    return new PatchgateError(e.code as ErrorCode, 'input', err.message, details, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new InternalError(message, { cause: err });
}
