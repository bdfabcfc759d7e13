/**
 * Failures of the test-running layer. errors.ts belongs to the core and its
 * ErrorCode union has no room for these yet, so they carry their own stable
 * codes and the same `kind` split (`input`: the user's config or repository
 * must change; `internal`: ours) for the CLI to map to an exit code.
 */
export type TestRunErrorCode =
  /** `tests.preset` names no preset; the message lists the valid ones. */
  | 'UNKNOWN_PRESET'
  /** The test command cannot be built: missing, empty, misplaced `{tests}`, no way to find a report… */
  | 'COMMAND_INVALID'
  /** A subset of tests was asked for but the command has no `{tests}` argument. */
  | 'SUBSET_UNSUPPORTED'
  /** The test command could not be started at all (not found, not executable, bad cwd). */
  | 'SPAWN_FAILED'
  /** The worktree setup command could not start, exited non-zero, or timed out. */
  | 'SETUP_FAILED'
  /** A test run did not finish within `tests.timeoutMs`. */
  | 'TESTS_TIMEOUT'
  /** A test run wrote no JUnit report. */
  | 'TESTS_NO_REPORT'
  /** A test run ran no test: a usage error, a collection error, an empty suite. */
  | 'TESTS_RUN_FAILED'
  /** A run (the setup command's included) hit a cap of the sandbox (memory, tmpfs, disk, file size) and was stopped. */
  | 'RESOURCE_LIMIT'
  /** A command given network could not have it: the sandbox's user-mode networking failed; nothing ran. */
  | 'SANDBOX_NETWORK_UNAVAILABLE'
  /** Something of the checkout replaced, bypassed or ran before the gate's instruments in the test process. */
  | 'INSTRUMENT_SHADOWED'
  /** A run of head code broke (no report, no test, a timeout, a failed setup) where the base's same run works. */
  | 'HEAD_RUN_BROKEN';

export class TestRunError extends Error {
  readonly code: TestRunErrorCode;
  readonly kind = 'input' as const;
  /** Machine-readable facts (command, exit code, log paths…) for the scorecard. */
  readonly details: Record<string, unknown>;

  constructor(
    code: TestRunErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TestRunError';
    this.code = code;
    this.details = details;
  }
}
