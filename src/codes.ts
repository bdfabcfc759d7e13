/**
 * Stable reason codes. A code's meaning never changes once released; users
 * grep for them, document them and configure on them. `patchgate explain
 * CODE` prints the text below.
 */
export const REASON_CODES = {
  CONTRACT_TOUCHED:
    'The patch added, modified, deleted or renamed a human-owned contract path (the config, a contract file it names, or a protected glob such as CI workflows). Contract edits go through a separate, human-reviewed commit.',
  CONTRACT_MISSING:
    'A contract file that the base config names does not exist in the base revision, so the rule it carries cannot be checked. Restore or create it in a human commit.',
  FIXTURE_CHANGED:
    "The raw bytes of a locked fixture differ from the digest in the base FIXTURE_LOCK.json. Accepted only when the lock's override variable is set by a human job; the override is then listed on the scorecard.",
  FIXTURE_MISSING:
    'A fixture named in the base FIXTURE_LOCK.json is gone from the head. Always rejects, even with an override.',
  FIXTURE_ADDED:
    'A file under a fixture root is not named by the base lock. Recorded, not a pass: a human must lock it with `patchgate lock` in a separate commit.',
  FIXTURE_DIGEST_MISMATCH:
    "The canonical-JSON digest of a fixture (Python's json.dumps with sort_keys and compact separators, then SHA-256) differs from its digest file in the base.",
  ZERO_HIT:
    'A property that no perturbation of its fixture can fail. It is decoration, and can never be frozen.',
  FALSE_CLAIM: 'A property claims a fixture field, but perturbing that field never changes its outcome.',
  UNCLAIMED_HIT:
    'Perturbing a field the property does not claim changes its outcome. Reported so the claim set can be corrected.',
  HIT_SURFACE_SHRANK:
    'A property hits fewer fixture fields on the head than on the base: the patch weakened it.',
  PROPERTY_SET_CHANGED: 'A property exists on one side only. A new property earns nothing until it has hits.',
  FLAKE_UNCLASSIFIED:
    'Retries under an unchanged fixture digest disagree and no valid ledger row names the cause.',
  LEDGER_UNKNOWN_CAUSE: 'A flake ledger row names a cause class outside the allowed set.',
  LEDGER_EXPIRED: 'A flake ledger row has expired. The property runs unfrozen.',
  LEDGER_DIGEST_MISMATCH: "A flake ledger row's fixture digest does not match the lock.",
  LEDGER_FREEZE_HITS:
    'A flake ledger row asks to freeze the hit scorer (freeze_hits: true). Hits are not freezable.',
  LEDGER_EXTERNAL_IO_INVALID:
    'An EXTERNAL_IO freeze for a property whose claimed fields all live in the lock: the I/O does not belong there.',
  LEDGER_CLOCK_CAP: 'More than one active CLOCK freeze for one property. Fix the property instead.',
  LEDGER_NO_ACTION: 'A flake ledger row has no action. A freeze without a next step is a skip.',
  SEED_FAILED:
    'A seed recorded on the base tape fails on the head (through its generator, its recorded path or its stored counterexample), no longer runs (skipped, xfailed), or names a property that no longer exists: renaming does not escape the tape.',
  SEED_DROPPED:
    "A seed recorded on the base tape is missing on the head's tape, or lost its stored counterexample or path. Seeds only grow.",
  MIN_EXAMPLES_LOWERED: "A property's min_examples is lower on the head's tape than on the base's.",
  MIN_EXAMPLES_NOT_MET:
    'A property actually ran fewer examples than its floor, counted by the runner (fast-check: the run the property declares; Hypothesis: its statistics), never read from configuration.',
  UNKNOWN_FAILURE_SIGNATURE: 'A test failed with a signature that no freeze row covers.',
  UNFROZEN_SKIP: 'A test was skipped or xfailed without a matching freeze row. A skip is a fail.',
  SIGNATURE_ROW_DELETED: 'A freeze row present on the base is gone from the head.',
  NEW_FLAKE:
    'A test stable on the base flakes on the head: the patch introduced nondeterminism. Never freezable.',
  PREEXISTING_FLAKE_UNFROZEN: 'A test flaky on both sides without an unexpired, owned freeze row.',
  REGRESSION:
    "A test of the base passes on the base but fails or is skipped on the head's code, run with the base's own tests and runner config (the overlay revision). The head's edits to its tests cannot hide it; a signature row covers it as usual, and a human job may accept it with tests.overrideTokenEnv.",
  TEST_VANISHED:
    "A test of the base passes on the base but did not run at all on the head's code with the base's tests (a collection or import error, or dropped from the run). A test cannot vanish.",
  TOOLCHAIN_CHANGED:
    'The patch changes the test toolchain: the version or source of a test runner, assertion or property library (manifest, lockfile, requirements), a committed node_modules or vendored copy, or a file that hooks installs or interpreter start-up. A human reviews it in its own commit, or a human job accepts it with tests.overrideTokenEnv.',
  PRODUCTION_REACHES_TESTS:
    'Production code the patch changed imports the test runner or test-side code, or asks whether it runs under test (VITEST, PYTEST_CURRENT_TEST, sys.modules). Code under test must not see or steer the tests that judge it.',
  CLAIMS_EMPTY:
    'The claims layer is on, but the base has no claim matrix file, or its matrix files hold no claim. An empty matrix binds nothing, so it is never a pass.',
  CLAIM_UNBOUND:
    'A claim in the base matrix leaves a cell empty: its fixture, its property or its freeze rule. An empty cell is a merge blocker, whatever the suite says.',
  CLAIM_FIXTURE_MISSING:
    "A claim's fixture is not a file on the head, or is not locked (in the base FIXTURE_LOCK.json or fixtures.canonical), so no bytes a human checked back the claim.",
  CLAIM_PROPERTY_MISSING:
    "A claim's property did not fill its cell in this run: not found, not passing, written by the patch itself, an example test that ran no generated inputs, or a patchgate property with zero hits (it has no failure mode).",
  CLAIM_FREEZE_MISSING:
    "A claim's freeze id is not an entry of the base freeze-window ledger (or names another ledger file than claims.ledger).",
  CLAIM_FIXTURE_UNREVIEWED:
    "A claim's fixture is not locked in the base: it was born in this patch (dumped by the code under review) or its head bytes are not the locked ones. It is not evidence until a human locks it in a separate commit.",
  CLAIM_UNCOVERED_CHANGE:
    "A production hunk of the patch is covered by no claim's `covers` (with claims.coverage on). Warning by default; write a claim for the behaviour it adds.",
  CLAIM_STATEMENT_WEAK:
    'A claim sentence names no bound ("never", "always", "at most", "maps to", "stable", a comparison) or only restates a function name. Warning by default (claims.statements). Rewrite it to name the forbidden outcome.',
  FREEZE_BLOCKED:
    "A claim's freeze entry in the base ledger is blocked: its check failed inside the recorded window. It cannot vote green until a human runs `patchgate freeze reopen ID --reason TEXT --owner WHO` in a separate commit; retries and later passes never clear it.",
  CHECK_TIMEOUT:
    "A property's check did not return within the per-check timeout and was stopped. The property cannot be scored; a hang is never a pass.",
  BASELINE_FAIL: 'A property fails on its own locked fixture; hits mean nothing until it passes there.',
  TESTS_TIMEOUT:
    'A run of the test command did not finish within tests.timeoutMs and was killed with everything it started. A run that never finished is no evidence (verdict error); the finding carries the last lines of its output and its log files.',
  TESTS_NO_REPORT:
    'A run of the test command wrote no JUnit report (it crashed before reporting, or the command does not write one where the preset expects it). No report is never read as "no failures" (verdict error).',
  TESTS_RUN_FAILED:
    "A run of the test command ran no test: the runner stopped with a usage or collection error, or the suite is empty. A run that ran nothing is never evidence that a test passed, or that it does not exist (verdict error); the finding carries the runner's own error lines.",
  JUNIT_INVALID:
    'A JUnit report could not be read: not well-formed XML, not JUnit, or unsafe (a DOCTYPE, which could pull in external entities). A report that cannot be read is never evidence (verdict error); the finding names the file, line and column.',
  SETUP_FAILED:
    'The tests.setup command (e.g. npm ci) could not start, failed or timed out in a temporary worktree, so its tests cannot run (verdict error). The finding carries the first and last lines of its output; fix the install, or the setup command in the base config.',
  SANDBOX_UNAVAILABLE:
    'Head code could not run in the bubblewrap sandbox (bubblewrap missing, or user namespaces disabled as on Ubuntu 24.04). Outside CI it is recorded as a warning; under CI=true it is an error verdict and no head code runs, unless the base config sets sandbox.allowUnsandboxed.',
  RESOURCE_LIMIT:
    'A head process hit a cap of the sandbox (memory, file size, process count or wall time) and was stopped. A run that was stopped is never a pass; the finding names the cap and what was observed.',
  CONTRACT_WRITTEN:
    'Head code wrote into a contract file or a locked fixture of its own checkout while it ran (a test that rewrites its golden file back to the expected output). The gate judged the bytes read before any head code ran; the write is reported so a human sees the test is not checking what it claims.',
  CONFIG_INVALID:
    'The config or a contract file could not be read or is invalid. The gate cannot decide (verdict error).',
  INTERNAL_ERROR:
    'The gate itself failed (a layer threw, a worker crashed). The verdict is error, never accept.',
} as const;

export type ReasonCode = keyof typeof REASON_CODES;

export function isReasonCode(code: string): code is ReasonCode {
  return Object.hasOwn(REASON_CODES, code);
}
