/**
 * Stable reason codes. A code's meaning never changes once released; users
 * grep for them, document them and configure on them. `patchgate explain
 * CODE` prints, per code, what it means, why it blocks (or only warns), and
 * the human path to resolve it, with the exact command or variable where
 * there is one. This module imports nothing: the CLI reads it on its own.
 */
export interface CodeExplanation {
  /** What the finding says happened. */
  meaning: string;
  /** Why that rejects (or warns, or leaves the gate unable to decide). */
  why: string;
  /** What a person does about it: the command, the variable, the file to fix. */
  next: string;
}

const FREEZE_ROW_NEXT =
  'Fix the row in a human commit of its own, or remove it; the gate reads the base copy.';

export const REASON_CODES = {
  CONTRACT_TOUCHED: {
    meaning:
      'The patch added, modified, deleted or renamed a human-owned contract path: the config, a contract file it names, or a protected glob such as CI workflows (contracts.protect).',
    why: 'A patch must never change the rules it is judged by. Contract edits go through a separate, human-reviewed commit.',
    next: "Take the contract change out of the agent's patch and land it in its own human commit. The job that checks that human commit accepts it by setting the variable contracts.overrideTokenEnv names (default PATCHGATE_CONTRACTS_OVERRIDE); the override is listed on the scorecard. Run `patchgate validate` on the edit first.",
  },
  CONTRACT_MISSING: {
    meaning:
      'A contract file that the base config names does not exist in the base revision, so the rule it carries cannot be checked.',
    why: 'A rule that cannot be read is never a pass (fail closed).',
    next: 'Create the file (or restore it) in a human commit, or remove its key from the config; `patchgate validate` lists every missing file with how to create it.',
  },
  FIXTURE_CHANGED: {
    meaning: 'The raw bytes of a locked fixture differ from its digest in the base FIXTURE_LOCK.json.',
    why: "Rewriting a golden file to match new output hides a behaviour change; the lock is the human's record of the expected bytes.",
    next: "If the change is intended, a human job sets the variable named by the lock's override_token_env (FIXTURE_OVERRIDE by default) and the finding becomes a warning, listed under overrides; then re-lock with `patchgate lock` in a human commit. Otherwise restore the fixture and fix the code.",
  },
  FIXTURE_MISSING: {
    meaning: 'A fixture named in the base FIXTURE_LOCK.json is gone from the head.',
    why: 'Deleting a fixture removes the evidence it carries. Always rejects, even with an override.',
    next: 'Restore the fixture. To retire it, a human removes it and runs `patchgate lock` in a commit of its own.',
  },
  FIXTURE_ADDED: {
    meaning: 'A file under a fixture root is not named by the base lock.',
    why: 'Recorded as a warning, not a pass: bytes no human locked are not evidence yet.',
    next: 'A human locks it with `patchgate lock` in a separate commit (`git add FIXTURE_LOCK.json && git commit`).',
  },
  FIXTURE_DIGEST_MISMATCH: {
    meaning:
      "The canonical-JSON digest of a fixture (Python's json.dumps with sort_keys and compact separators, then SHA-256) differs from its digest file in the base (fixtures.canonical).",
    why: 'The values of the fixture changed, whatever the formatting: the locked expectation moved.',
    next: 'Restore the fixture. If the change is intended, a human runs `patchgate lock` (which rewrites the digest file) in a human commit.',
  },
  ZERO_HIT: {
    meaning: 'A property that no perturbation of its locked fixture can fail.',
    why: 'A check that can never fail proves nothing: it is decoration, and can never be frozen.',
    next: 'Make the property assert on the fixture fields it claims, so that perturbing them fails it; see hit_report.head.json for what was tried.',
  },
  FALSE_CLAIM: {
    meaning: 'A property claims a fixture field, but perturbing that field never changes its outcome.',
    why: 'The claim overstates what the property checks.',
    next: 'Assert on the field in the property, or drop it from the claims.',
  },
  UNCLAIMED_HIT: {
    meaning: 'Perturbing a field the property does not claim changes its outcome.',
    why: 'A warning only: the claim set understates what the property checks.',
    next: "Add the field to the property's claims.",
  },
  HIT_SURFACE_SHRANK: {
    meaning: 'A property hits fewer fixture fields (or operators) on the head than on the base.',
    why: 'The patch weakened a check: inputs that used to fail it no longer do.',
    next: 'Restore what the property or the code under test checked; the finding lists the lost paths and operators, and hit_report.base.json / hit_report.head.json hold both sides.',
  },
  PROPERTY_SET_CHANGED: {
    meaning:
      'A property exists on one side only: removed or renamed on the head (rejects), or new on the head (a warning).',
    why: 'Removing or renaming a property weakens the gate; a new property earns nothing until it has hits.',
    next: 'Restore the removed property (renaming does not escape the base). A new one needs no action.',
  },
  FLAKE_UNCLASSIFIED: {
    meaning:
      'Runs of a property under an unchanged fixture digest disagree, and no valid ledger row names the cause.',
    why: 'A flaky property cannot be scored: its hits mean nothing.',
    next: 'Fix the nondeterminism, or a human freezes it with a cause class: `patchgate ledger add --property NAME --cause CLASS --owner WHO --expires YYYY-MM-DD --action TEXT`, committed on its own.',
  },
  LEDGER_UNKNOWN_CAUSE: {
    meaning:
      'A flake ledger row names a cause class outside the allowed set (CLOCK, HASH_ORDER, FLOAT_ULP, EXTERNAL_IO).',
    why: 'An unclassified freeze is a skip.',
    next: `${FREEZE_ROW_NEXT} \`patchgate ledger add\` only writes allowed classes.`,
  },
  LEDGER_EXPIRED: {
    meaning: 'A flake ledger row has expired. The property runs unfrozen.',
    why: 'A freeze is a debt with a date; after it the flake counts again.',
    next: 'Fix the property, or a human adds a new row with a later --expires: `patchgate ledger add ...`.',
  },
  LEDGER_DIGEST_MISMATCH: {
    meaning:
      "A flake ledger row's fixture digest does not match the lock's digest of the property's fixture.",
    why: 'The fixture changed since the freeze was granted, so the freeze no longer describes this flake.',
    next: 'A human re-freezes against the current lock: `patchgate ledger add --property NAME ...` takes the digest from the lock.',
  },
  LEDGER_FREEZE_HITS: {
    meaning: 'A flake ledger row asks to freeze the hit scorer (freeze_hits: true).',
    why: 'Hits are not freezable: a frozen scorer would accept any property.',
    next: `Remove freeze_hits from the row. ${FREEZE_ROW_NEXT}`,
  },
  LEDGER_EXTERNAL_IO_INVALID: {
    meaning: 'An EXTERNAL_IO freeze for a property whose claimed fields all live in the lock.',
    why: 'A property that only reads locked bytes does no external I/O: the cause is wrong.',
    next: `Find the real cause (or fix the property). ${FREEZE_ROW_NEXT}`,
  },
  LEDGER_CLOCK_CAP: {
    meaning: 'More than one active CLOCK freeze for one property.',
    why: 'A second clock flake means the property needs fixing, not another freeze.',
    next: 'Make the property independent of the clock (inject it), then remove the extra rows.',
  },
  LEDGER_NO_ACTION: {
    meaning: 'A flake ledger row has no action.',
    why: 'A freeze without a next step is a skip.',
    next: `Write what will fix the property in the row's action. ${FREEZE_ROW_NEXT}`,
  },
  SEED_FAILED: {
    meaning:
      'A seed recorded on the base tape fails on the head (through its generator, its recorded path or its stored counterexample), no longer runs (skipped, xfailed), or names a property that no longer exists.',
    why: 'The tape holds bugs found once; replaying them is how they stay fixed. Renaming or skipping does not escape the tape.',
    next: 'Fix the code until the seed passes: replay the counterexample in the evidence. A new counterexample found by `patchgate explore` is recorded with `patchgate seeds add ID --seed S ...`; seeds are never removed.',
  },
  SEED_DROPPED: {
    meaning:
      "A seed recorded on the base tape is missing on the head's tape, or lost its stored counterexample or path.",
    why: 'Seeds only grow: a dropped seed is a bug allowed back.',
    next: "Restore the tape's rows from the base; add seeds with `patchgate seeds add`.",
  },
  MIN_EXAMPLES_LOWERED: {
    meaning: "A property's min_examples is lower on the head's tape than on the base's.",
    why: 'Fewer examples is a weaker check; the floor only rises.',
    next: 'Restore min_examples on the tape. A human raises it with `patchgate seeds add ID --seed S --min-examples N`.',
  },
  MIN_EXAMPLES_NOT_MET: {
    meaning:
      'A property actually ran fewer examples than its floor, counted by the runner (fast-check: the run the property declares; Hypothesis: its statistics), never read from configuration.',
    why: 'Lowering numRuns or max_examples, or filtering the generator, weakens the check below what was agreed.',
    next: "Restore the property's example count (numRuns, max_examples) or loosen its filter so it generates at least min_examples.",
  },
  UNKNOWN_FAILURE_SIGNATURE: {
    meaning: 'A test failed with a signature that no freeze row covers.',
    why: 'A failure is a fail unless a human froze that exact signature.',
    next: 'Fix the test or the code. If it is a known failure, a human freezes it: `patchgate signatures add --from REPORT.xml --test ID --owner WHO --expires YYYY-MM-DD --action TEXT`, committed on its own. When adopting patchgate on a suite that already fails, `patchgate baseline` on the main branch writes a row for every such failure, for review.',
  },
  UNFROZEN_SKIP: {
    meaning: 'A test was skipped or xfailed without a matching freeze row.',
    why: 'A skip is a fail: a skipped test proves nothing.',
    next: 'Remove the skip. A skip the patch added to a test the base runs is never frozen: the finding says so, and the fix is to restore the test. A skip that was already there and is deliberate is frozen by a human: `patchgate signatures add --from REPORT.xml --test ID --owner WHO --expires YYYY-MM-DD --action TEXT`. When adopting patchgate on a suite that already skips, `patchgate baseline` on the main branch writes a row for every such skip, for review.',
  },
  SIGNATURE_ROW_DELETED: {
    meaning: 'A freeze row present on the base is gone from the head.',
    why: 'Freeze files are contracts: removing a row changes the rules.',
    next: 'Restore the row; a human retires it in a commit of its own.',
  },
  NEW_FLAKE: {
    meaning: 'A test stable on the base flakes on the head.',
    why: 'The patch introduced nondeterminism. Never freezable.',
    next: 'Find what the patch made nondeterministic (time, ordering, randomness, I/O) and fix it; the evidence lists each run.',
  },
  PREEXISTING_FLAKE_UNFROZEN: {
    meaning: 'A test flaky on both sides without an unexpired, owned freeze row.',
    why: 'A known flake is accepted only while a human owns it.',
    next: 'Fix the flake, or a human adds an unexpired row with owner and action to the stability freeze (stability.freeze, default stability_freeze.json) in a commit of its own.',
  },
  KILL_SURFACE_SHRANK: {
    meaning:
      "Mutants of a function the patch touched that the base's tests killed on the base's code survive on the head's code: the same edit of the same code, the same trusted tests, and they no longer notice.",
    why: 'The patch made the trusted tests blind to code they used to check (a value that compares equal to anything, an error swallowed behind a fallback). A green suite over blind tests proves nothing.',
    next: "Read the mutants in the evidence: each is a change of the head's code that the listed base tests used to catch. Remove what hides it (a catch-all handler, an always-equal value), or, if the tests really should not see it, change the tests in a human commit of their own.",
  },
  CHANGED_CODE_UNSEEN: {
    meaning:
      "A function the patch changed or added in which no mutant is killed by any of the base's tests on the head's code (the mutation probe); also when no base test reaches its file.",
    why: "Only the patch's own tests, if any, exercise the new behaviour: nothing a human reviewed checks it. A warning by default (new code often comes with only its own tests); `mutation.unseen: reject` blocks on it.",
    next: "Review the function and the surviving mutants in the evidence; a human adds tests that see it (in a commit of their own, so they become the base's), or accepts the warning.",
  },
  MUTATION_PROBE_DEFEATED: {
    meaning:
      "The mutation probe could not change the head's code as it does the base's: a base test fails on the head's code when only a comment is added to the file, or the file in the gate's checkout is no longer a plain file.",
    why: "Code that notices its own text being changed (or moves it away) can make every mutant look killed; the probe's evidence would mean nothing, so it counts against the patch.",
    next: "Find what in the head's code reads its own source or file (a checksum of itself, a reload, a symlink made by a test) and remove it; the evidence names the file and the tests.",
  },
  REGRESSION: {
    meaning:
      "A test of the base passes on the base but fails or is skipped on the head's code, run with the base's own tests and runner config (the overlay revision).",
    why: "The head's edits to its tests cannot hide a broken behaviour: the base's tests judge the head's code.",
    next: 'Fix the code. A known failure is covered by a signature row (`patchgate signatures add`); an intended change of behaviour is accepted by a human job setting the variable tests.overrideTokenEnv names (default PATCHGATE_TESTS_OVERRIDE).',
  },
  TEST_VANISHED: {
    meaning:
      "A test of the base passes on the base but did not run at all on the head's code with the base's tests (a collection or import error, or dropped from the run).",
    why: 'A test cannot vanish: not running is not passing.',
    next: 'Fix the import or collection error (see the run logs); a deliberate removal is accepted by a human job setting tests.overrideTokenEnv (default PATCHGATE_TESTS_OVERRIDE).',
  },
  TEST_WEAKENED: {
    meaning:
      "The patch changed the test side in a way that can hide a failure, and no failing base test or property is behind it: an assertion removed or weakened (a lower-ranked matcher), an expected value changed, a failure swallowed, a skip, xfail, todo or only added, fewer examples, generation turned off, a strategy or arbitrary narrowed, a filter or assume added, cases removed, a hook, mock or exclude entry added, a test or test file deleted, or a test file the gate's parser cannot read. One finding per edited test (or file), each edit with file, line and what changed.",
    why: "The base's tests still pass on the head's code, so nothing is broken yet; but the head's own tests now check less, and they are what the next patch is judged by once this one merges. A warning by default (tests.weakened: reject makes it reject).",
    next: 'Read each edit in the finding. If it hides a failure, restore what the test checked. If it is intended (the behaviour changed, a test was retired), a human lands the test change in its own commit; with tests.weakened: reject, that job accepts it by setting tests.overrideTokenEnv (default PATCHGATE_TESTS_OVERRIDE).',
  },
  TESTS_NONE_RAN: {
    meaning:
      "No base test ran to a verdict on the head's code: the overlay run was empty, or every test in it was skipped or deselected.",
    why: "A layer that checked nothing is no pass. When the base's own run does run tests, the head's code stopped them (a reject); when it does not either, the gate cannot decide (an error).",
    next: "Read the overlay run's log in the out folder (tests/overlay-run.stdout.log): a production change that skips every test at import (pytest.importorskip, a skip in a shared fixture) is the patch's to fix; a base whose suite runs nothing needs its test config fixed in a human commit.",
  },
  TOOLCHAIN_CHANGED: {
    meaning:
      'The patch changes the test toolchain: the version or source of a test runner, assertion or property library (manifest, lockfile, requirements), a committed node_modules or vendored copy, or a file that hooks installs or interpreter start-up.',
    why: 'Whoever controls the test runner controls the verdict.',
    next: 'Land the toolchain change in its own human commit; its job accepts it by setting tests.overrideTokenEnv (default PATCHGATE_TESTS_OVERRIDE).',
  },
  TEST_CONFIG_UNREAD: {
    meaning:
      "The base's runner configuration names the files it loads into the test process (setup files, reporters, plugins, projects, test globs) through a value the gate cannot read without running it: a call, a parameter, an environment variable, a spread of a package's config, a non-literal pytest_plugins.",
    why: "Files the gate cannot name it cannot take from the base, so a patch could rewrite them under the base's tests. It is an error (the gate cannot decide) unless the base config lists the test side in tests.paths, which a human then owns (a warning).",
    next: 'In a human commit, write the value as literal paths (path.join, path.resolve and new URL(…, import.meta.url) with literal parts are read), or list the test side, those files included, in tests.paths of the base config.',
  },
  TEST_CONFIG_IMPORT_CHANGED: {
    meaning:
      "The patch changes a module the base's runner configuration imports that production code or a test imports too, so it is code and the overlay runs the head's copy: the base's tests are configured by something the patch wrote.",
    why: 'A patch must not change how the tests that judge it are configured.',
    next: 'Move what the configuration needs out of the shared module in a human commit, or land the change in its own human commit; its job accepts it by setting tests.overrideTokenEnv (default PATCHGATE_TESTS_OVERRIDE).',
  },
  PRODUCTION_REACHES_TESTS: {
    meaning:
      "Production code the patch changed steers the test machinery (imports the runner or test-side code, patches sys.modules, builtins or the test globals, exits the process) or sniffs the test run: reads the command line outside a declared entry point, the module registry, the call stack, the environment by a computed or enumerated name or by a runner's variable, the globals by a computed name, or imports or evaluates a computed name. evidence.shape names which (see docs/reach.md).",
    why: 'Code under test must not see or steer the tests that judge it: code that asks whether it runs under test can pass every test and still ship broken.',
    next: 'Remove the check or the import from production code and pass what it needs as a parameter (read the command line in an entry point the base declares). An intended change is accepted by a human job setting the variable tests.overrideTokenEnv names (default PATCHGATE_TESTS_OVERRIDE); the finding becomes a warning listed under overrides.',
  },
  CLAIMS_EMPTY: {
    meaning:
      'The claims layer is on, but the base has no claim matrix file, or its matrix files hold no claim.',
    why: 'An empty matrix binds nothing, so it is never a pass.',
    next: 'A human writes claims/*.yaml (see `patchgate claims suggest`) in a commit of its own, or turns the claims layer off in the config.',
  },
  CLAIM_UNBOUND: {
    meaning: 'A claim in the base matrix leaves a cell empty: its fixture, its property or its freeze rule.',
    why: 'An empty cell is a merge blocker, whatever the suite says.',
    next: 'A human fills the cell in the matrix in a human commit (the base copy decides).',
  },
  CLAIM_FIXTURE_MISSING: {
    meaning:
      "A claim's fixture is not a file on the head, or is not locked (in the base FIXTURE_LOCK.json or fixtures.canonical).",
    why: 'No bytes a human checked back the claim.',
    next: 'Restore the fixture, or a human locks it with `patchgate lock` in a commit of its own.',
  },
  CLAIM_PROPERTY_MISSING: {
    meaning:
      "A claim's property did not fill its cell in this run: not found, not passing, written by the patch itself, an example test that ran no generated inputs, or a patchgate property with zero hits.",
    why: 'A claim is only as good as a passing property that can fail.',
    next: 'Make the property exist on the base and pass with generated inputs (and hits); the finding says which of these it missed.',
  },
  CLAIM_FREEZE_MISSING: {
    meaning:
      "A claim's freeze id is not an entry of the base freeze-window ledger (or names another ledger file than claims.ledger).",
    why: 'A claim without a freeze entry has no record of its checks on the main branch.',
    next: 'A human adds the entry to the ledger (claims.ledger, default freeze/ledger.json), then CI records runs into it with `patchgate record`.',
  },
  CLAIM_FIXTURE_UNREVIEWED: {
    meaning:
      "A claim's fixture is not locked in the base: it was born in this patch (dumped by the code under review) or its head bytes are not the locked ones.",
    why: 'Output of the code under review is not evidence about that code.',
    next: 'A human reviews the fixture and locks it with `patchgate lock` in a separate commit.',
  },
  CLAIM_UNCOVERED_CHANGE: {
    meaning: "A production hunk of the patch is covered by no claim's `covers` (with claims.coverage on).",
    why: 'A warning by default (claims.coverage: reject makes it reject): new behaviour with no claim is unreviewed.',
    next: 'Write a claim for the behaviour the hunk adds; `patchgate claims suggest --base REV` drafts the rows.',
  },
  CLAIM_STATEMENT_WEAK: {
    meaning:
      'A claim sentence names no bound ("never", "always", "at most", "maps to", "stable", a comparison) or only restates a function name.',
    why: 'A warning by default (claims.statements): a sentence without a bound cannot be checked.',
    next: 'Rewrite the claim to name the forbidden outcome.',
  },
  FREEZE_BLOCKED: {
    meaning:
      "A claim's freeze entry in the base ledger is blocked: its check failed inside the recorded window.",
    why: 'A blocked claim cannot vote green; retries and later passes never clear it.',
    next: 'Fix the failing check, then a human runs `patchgate freeze reopen ID --reason TEXT --owner WHO` and commits the ledger on its own.',
  },
  CHECK_TIMEOUT: {
    meaning: "A property's check did not return within the per-check timeout and was stopped.",
    why: 'The property cannot be scored; a hang is never a pass.',
    next: 'Fix the hang; if the check is just slow, raise hits.timeoutMs (or seeds.timeoutMs) in the config in a human commit.',
  },
  BASELINE_FAIL: {
    meaning: 'A property fails on its own locked fixture.',
    why: 'Hits mean nothing until it passes there.',
    next: 'Fix the code (or the property) until it passes on the locked fixture.',
  },
  TESTS_TIMEOUT: {
    meaning:
      'A run of the test command did not finish within tests.timeoutMs and was killed with everything it started.',
    why: 'A run that never finished is no evidence (verdict error).',
    next: 'Find the hang in the last lines of output and the log files in the finding; if the suite is just slow, raise tests.timeoutMs in a human commit.',
  },
  TESTS_NO_REPORT: {
    meaning:
      'A run of the test command wrote no JUnit report (it crashed before reporting, or the command does not write one where the preset expects it).',
    why: 'No report is never read as "no failures" (verdict error).',
    next: 'Read the output in the finding; fix the crash, or make tests.command write JUnit XML where the preset expects it.',
  },
  TESTS_RUN_FAILED: {
    meaning:
      'A run of the test command ran no test: the runner stopped with a usage or collection error, or the suite is empty.',
    why: 'A run that ran nothing is no evidence that a test passed, or that it does not exist (verdict error).',
    next: "Fix the error in the runner's own lines in the finding (a bad import, a wrong tests.command).",
  },
  JUNIT_INVALID: {
    meaning:
      'A JUnit report could not be read: not well-formed XML, not JUnit, or unsafe (a DOCTYPE, which could pull in external entities).',
    why: 'A report that cannot be read is never evidence (verdict error).',
    next: 'Fix the reporter that wrote it; the finding names the file, line and column.',
  },
  SETUP_FAILED: {
    meaning:
      'The tests.setup command (e.g. npm ci) could not start, failed or timed out in a temporary worktree.',
    why: 'Its tests cannot run (verdict error).',
    next: 'Fix the install (see the first and last lines of its output in the finding), or the setup command in the base config.',
  },
  SANDBOX_UNAVAILABLE: {
    meaning:
      'Head code could not run in the bubblewrap sandbox (bubblewrap missing, or user namespaces disabled as on Ubuntu 24.04).',
    why: 'Outside CI a warning; under CI=true an error verdict and no head code runs, since untrusted code would run unconfined.',
    next: '`sudo apt-get install -y bubblewrap`; on Ubuntu 24.04 also `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`. Or set sandbox.allowUnsandboxed: true in the base config to accept plain processes.',
  },
  SANDBOX_NETWORK_UNAVAILABLE: {
    meaning:
      'The base config gives head code network (tests.setupNetwork, tests.network, seeds.network or hits.network), but the sandbox cannot: slirp4netns, which gives a sandbox user-mode networking in its own network namespace, is missing or failed.',
    why: "Head code never gets the host's network namespace (its loopback, its abstract unix sockets). Outside CI it ran with no network (a warning); under CI=true it is an error verdict and no head code runs.",
    next: '`sudo apt-get install -y slirp4netns` (and have it on PATH); or, if the install or the tests need no network, set that key to false in the base config in a human commit.',
  },
  PROGRAM_HIDDEN: {
    meaning:
      "A program the base config runs (the test command's, tests.setup's, an interpreter such as seeds.python, one an env or sh -c launcher in them starts, or the interpreter a script's #! line names) is found on this machine's PATH only in a folder the sandbox does not show (a pyenv shim, a virtualenv, pnpm in ~/.local/share/pnpm or nvm under a home folder, anything under /tmp), and no other program of that name is in the sandbox's view.",
    why: 'Every run of it would fail far from the cause (setpriv: failed to execute pnpm, env: node: No such file or directory, No module named pytest); the gate says why before any head code runs, and cannot decide anything meanwhile (exit 2).',
    next: 'Add the folder the finding names to sandbox.readOnly in the base config (a human commit), so head processes can read that install, or install the program system-wide (under /usr, e.g. `apt-get install python3-pytest`).',
  },
  PROGRAM_SUBSTITUTED: {
    meaning:
      "A program the base config runs resolves in the sandbox to another file than on this machine's PATH: the first one lives in a folder the sandbox does not show, so a later PATH entry (often the system's /usr/bin/python3) runs instead.",
    why: 'A warning: the run may well work with the system program, but if it fails (No module named pytest) this is why.',
    next: "If the run needs the hidden install, add the folder the finding names to sandbox.readOnly in the base config; otherwise install what the run needs for the program that ran, or name that program's path in the config.",
  },
  RESOURCE_LIMIT: {
    meaning:
      'A head process (a test run, the setup command, a property, a seed replay) hit a cap of the sandbox and was stopped: memory (resident, or with what its /tmp and other memory-backed folders hold: limit "tmpfs"), the bytes its writable folders grew by ("disk"), the size of one file, the process count or wall time.',
    why: 'A run that was stopped is never a pass; the finding names the cap, what was observed, where, and the setting.',
    next: 'Fix what used the resource (the finding names the folder or mount that grew); if the cap is too low for the suite, raise the sandbox.limits key it names (memoryMb, diskMb, fileMb) in a human commit.',
  },
  INSTRUMENT_SHADOWED: {
    meaning:
      "Inside a test process, something of the checkout stood in for one of the gate's instruments or the toolchain they rely on: a module of the checkout named like a gate plugin, pytest, Hypothesis or a standard-library module was loaded in its place, a gate plugin was loaded from elsewhere or with other bytes, or code ran before the gate's loader.",
    why: "The run's results come from code the patch controls, not from the runner: they cannot count. The gate loads its instruments first, from its own folder, and checks each plugin's file and SHA-256; a mismatch is the patch's doing.",
    next: 'Rename or remove the module the finding names (production code must not take the name of pytest, Hypothesis, a standard-library module or a patchgate_* module), then rerun.',
  },
  HEAD_RUN_BROKEN: {
    meaning:
      "A run of the head's code broke (no JUnit report, no test ran, a timeout, a failed setup, a crashed property host) while the base's run of the same command works.",
    why: "What the head broke is the patch's doing: a rejection with the runner's own words, never an undecided run. (When the base cannot run either, the verdict is error instead.)",
    next: "Read the runner's output in the finding (an import error in a conftest.py, a syntax error, a test that hangs) and fix the code; the logs of both runs are in the out folder's tests/ folder.",
  },
  BASE_RUN_BROKEN: {
    meaning:
      'A run on the base revision broke (its property host crashed): what the head is compared with does not exist for that check.',
    why: 'With the head broken the same way the gate cannot decide (an error, never an accept); with the head working, a warning that the comparison was not made.',
    next: "Fix the base's check in a human commit (the finding names the property and the crash), then rerun.",
  },
  FREEZE_COVERS_NEW_FAILURE: {
    meaning:
      "A failure or skip of the head's tests matches a human freeze row, but it is not one that was already there: the base does not show it for that test (nor for a test the patch renamed), and reruns on the head show it every time.",
    why: 'A freeze excuses only what was already failing, or a flake. A failure the patch produces every time is new, whatever its wording: a row frozen for another test cannot excuse it.',
    next: "Fix the code so the test passes again. If the failure really is the one the row describes, a human checks the base's run of that test; the finding names the row it tried to match.",
  },
  CONTRACT_WRITTEN: {
    meaning:
      'Head code wrote into a contract file or a locked fixture of its own checkout while it ran (a test that rewrites its golden file back to the expected output).',
    why: 'The gate judged the bytes read before any head code ran; the write means a test is not checking what it claims.',
    next: 'Make the test read its fixture, not write it (look for snapshot-update modes left on).',
  },
  SUBMODULE_MISSING: {
    meaning:
      "A submodule's commit is not in the repository (`git submodule update --init` was not run), so its files are not in the gate's checkouts.",
    why: 'A warning that explains tests that read those files failing on every side; an error for locked fixtures under it, which cannot be judged (never FIXTURE_MISSING, which would blame the patch).',
    next: 'Check the submodule out before the gate runs: `git submodule update --init --recursive`, or `submodules: recursive` in actions/checkout.',
  },
  TEST_SIDE_WRITTEN: {
    meaning:
      "Head code created, deleted or rewrote a file of the base's test side in the checkout the base's tests run in (the overlay), while it ran: a production module imported at collection, or an install script, that edits the tests before the runner reads them.",
    why: "What the base's tests said on that run is not what the base's tests are: the run cannot count. The committed bytes are put back before the next layer.",
    next: 'Remove the write from the production code or install script the finding points at: code under test must not edit the tests that judge it.',
  },
  SHARD_MISSING: {
    meaning:
      '`patchgate merge` was not given the part of one of the shards (`check --shard i/n` writes one per shard): part of the tests, properties or seed replays of the run is unaccounted for.',
    why: 'A verdict over some shards is a verdict over some of the evidence: the gate cannot decide (verdict error).',
    next: "Make the merge job wait for every shard job and download every shard's out folder (a matrix job that failed still leaves its part when it wrote one); rerun the missing shard if it wrote none.",
  },
  SHARD_DUPLICATE: {
    meaning: '`patchgate merge` was given two parts that claim the same shard index.',
    why: 'Two answers for one share of the work cannot both be the run: the gate cannot decide which (verdict error).',
    next: 'Give each job of the CI matrix its own index (--shard I/N with I from the matrix) and its own artifact name, then merge one part per shard.',
  },
  SHARD_FOREIGN: {
    meaning:
      'A part given to `patchgate merge` is of another run: another base or head commit, another head tree, another base config, another shard count or another day.',
    why: 'Evidence about another patch says nothing about this one: the part is left out and the gate cannot decide (verdict error).',
    next: 'Merge only the parts of one pipeline run: download the artifacts of this run, not a cached or older one, and give every shard the same --base, --head, --today and shard total.',
  },
  SHARD_DISAGREEMENT: {
    meaning:
      'Shards of one run computed something every shard computes alike differently: the plan of which shard runs which test file, the sandbox, or the findings of a whole-repository check.',
    why: 'The whole-repository checks are deterministic on the same inputs; shards that differ ran on different inputs or machines, and the gate cannot tell which is right (verdict error).',
    next: 'Give every shard the same inputs: the same history store (or none, with --history on every shard or on none), the same patchgate version and the same machine image; the finding names the shards and what differed.',
  },
  CONFIG_INVALID: {
    meaning: 'The config or a contract file could not be read or is invalid.',
    why: 'The gate cannot decide (verdict error).',
    next: 'Fix the file at the line and field the message names (in the base, through a human commit); `patchgate validate` lists every problem at once.',
  },
  INTERNAL_ERROR: {
    meaning: 'The gate itself failed (a layer threw, a worker crashed).',
    why: 'The verdict is error, never accept.',
    next: 'Rerun; if it persists, report it to patchgate with the scorecard and the stack trace.',
  },
} as const satisfies Record<string, CodeExplanation>;

export type ReasonCode = keyof typeof REASON_CODES;

export function isReasonCode(code: string): code is ReasonCode {
  return Object.hasOwn(REASON_CODES, code);
}
