import type { CommandSpec, GroupSpec } from './options.js';

/**
 * Every command's options, arguments and help, in one module with no heavy
 * imports: `patchgate --help` and `patchgate CMD --help` read only this. The
 * commands parse their arguments with these very specs (see ./options.ts).
 * Defaults that name a file repeat the constants of the modules that own
 * them (a test pins that they agree), so this module imports none of those.
 */

const today = {
  type: 'string',
  placeholder: 'YYYY-MM-DD',
  description:
    "the date freezes expire against (default: CI_DATE, else the clock's UTC date); never read from the repository",
} as const;

/** What goes to stdout, for the commands that give a verdict (check, merge). */
const reporterOptions = {
  reporter: {
    type: 'string',
    multiple: true,
    placeholder: 'NAME',
    description:
      'what goes to stdout: terminal (the table; the default), github (workflow annotations for findings that point at a file: ::error file=F,line=L::), json (the scorecard); github combines with either of the others',
  },
  json: {
    type: 'boolean',
    default: false,
    description: 'print the scorecard as JSON instead of the table (= --reporter json)',
  },
} as const;

/** The options a baseline takes, shared by `patchgate baseline` and `patchgate init --baseline`. */
const baselineOptions = {
  runs: {
    type: 'string',
    placeholder: 'N',
    default: '2',
    description:
      'how many times the suite runs (1 to 10); a test whose outcome differs between runs is flaky and also gets a stability row',
  },
  days: {
    type: 'string',
    placeholder: 'N',
    default: '90',
    description: 'the rows expire N days after today (--today, CI_DATE, else the clock)',
  },
  expires: {
    type: 'string',
    placeholder: 'YYYY-MM-DD',
    description: 'the last day the rows hold, instead of --days',
  },
  'max-rows': {
    type: 'string',
    placeholder: 'N',
    default: '100',
    description:
      'refuse (and write nothing) when the baseline would write more rows than this: a suite failing that much is not adopted by freezing it',
  },
  today,
} as const;

export const CHECK = {
  name: 'check',
  summary: 'the gate: judge a patch against the base contracts; exit 0 accept, 1 reject',
  description: `Judges the head (default: the working tree, uncommitted and untracked files included) against the merge-base of --base and the head. The config and every contract file are read from the base; the head's copies are only compared against them.

Writes scorecard.json, summary.md, report.html (one self-contained page) and the layers' reports to --out, prints a table (colour unless NO_COLOR is set or stdout is not a terminal), and appends summary.md to $GITHUB_STEP_SUMMARY when that is set. On a terminal, progress (counts and an ETA) is drawn on stderr; never off a terminal, with --json or with --quiet.

Exit codes: 0 accept, 1 reject, 2 bad input or usage, 3 internal error (never an accept).`,
  options: {
    base: {
      type: 'string',
      placeholder: 'REV',
      required: true,
      description:
        'the revision the patch targets, e.g. origin/main; the patch is judged against its merge-base',
    },
    head: {
      type: 'string',
      placeholder: 'REV',
      description: 'the revision to judge (default: the working tree)',
    },
    out: {
      type: 'string',
      placeholder: 'DIR',
      default: '.patchgate/out',
      description: 'where the scorecard and reports are written; emptied first',
    },
    ...reporterOptions,
    quiet: {
      type: 'boolean',
      default: false,
      description: 'no progress and no informational lines on stderr; errors are still printed',
    },
    today,
    'all-layers': {
      type: 'boolean',
      default: false,
      description:
        'run the layers that only run after a clean pass (stability…) even when an earlier one rejected',
    },
    history: {
      type: 'boolean',
      default: false,
      description:
        'also write this run into the run history (.patchgate/history.sqlite, or the PostgreSQL server PATCHGATE_DATABASE_URL names), after the verdict',
    },
    'ci-run': {
      type: 'string',
      placeholder: 'ID',
      description: "with --history: the CI run's id, kept with the run",
    },
    shard: {
      type: 'string',
      placeholder: 'I/N',
      description:
        "run shard I of N (a CI matrix job): the whole-repository checks in full, and this shard's share of the test files, properties and seed replays (balanced by the durations the run history recorded, with --history; by count otherwise); writes part.json beside a partial scorecard, for `patchgate merge`",
    },
  },
} as const satisfies CommandSpec;

export const MERGE = {
  name: 'merge',
  summary: "combine the parts of a sharded check (check --shard I/N) into the run's verdict",
  description: `Reads the part.json of every shard (give each shard's out folder, or its part.json) and writes the scorecard, summary.md, report.html and the layers' reports one unsharded check would have written, to --out; the shards' logs go under tests/shard-I/. It runs no code of the patch and reads no repository.

Every shard 1..N must be given exactly once, and all must be of one run (the same base and head commits, head tree, base config, shard count and day): a missing, duplicated or foreign part makes the verdict error (SHARD_MISSING, SHARD_DUPLICATE, SHARD_FOREIGN), and so does a whole-repository check the shards computed differently (SHARD_DISAGREEMENT). A file that is no part is bad input.

Exit codes: 0 accept, 1 reject, 2 bad input, usage, or a verdict of error the input causes, 3 internal error.`,
  positionals: [
    {
      name: 'PART',
      required: true,
      multiple: true,
      description: "a shard's out folder (holding part.json), or a part.json",
    },
  ],
  options: {
    out: {
      type: 'string',
      placeholder: 'DIR',
      default: '.patchgate/out',
      description:
        'where the scorecard and reports are written; emptied first (it may not hold a part given)',
    },
    ...reporterOptions,
    quiet: {
      type: 'boolean',
      default: false,
      description: 'no informational lines on stderr; errors are still printed',
    },
    history: {
      type: 'boolean',
      default: false,
      description:
        "write the merged run into the run history (.patchgate/history.sqlite, or PATCHGATE_DATABASE_URL), with every shard's test outcomes and the shard layout",
    },
    'ci-run': {
      type: 'string',
      placeholder: 'ID',
      description: "with --history: the CI run's id, kept with the run",
    },
  },
} as const satisfies CommandSpec;

export const INIT = {
  name: 'init',
  summary: 'detect fixtures and the test runner; write the config and every contract file',
  description:
    'Detects fixture folders (testdata, fixtures, golden, __snapshots__, tests/test_fixtures …) and the test runner (CI workflow test steps first, then package.json, pytest configuration, requirement files, tox.ini, noxfile.py, Makefile test targets, lockfiles; each with the file and line it came from), writes the config and the fixture lock (and the canonical digest of fixtures/lock.json when there is one), turns on the layers it can justify and writes an empty, valid contract file for each, and prints what it did, why, and the next command. Without a test runner its first line says the test layers are off, with the lines to add. Golden-file candidates outside the fixture folders (files the tests read, data files under test folders) are listed with the --root entries that lock them, never locked without them. Refuses to overwrite existing files without --force. Commit what it writes in a human commit of its own.',
  options: {
    format: {
      type: 'string',
      placeholder: 'json|yaml|ts',
      default: 'json',
      description: 'the config file to write: patchgate.config.json, .yaml or .ts',
    },
    root: {
      type: 'string',
      multiple: true,
      placeholder: 'DIR',
      description:
        'a fixture folder (or file) to lock, repo-relative (default: the folders found by name); the golden-file candidates init lists are adopted this way',
    },
    owner: {
      type: 'string',
      placeholder: 'NAME',
      description: 'the owner written for every locked fixture, and in the --codeowners snippet',
    },
    force: { type: 'boolean', default: false, description: 'overwrite an existing config or lock' },
    codeowners: {
      type: 'boolean',
      default: false,
      description:
        'also print a CODEOWNERS snippet for every contract file (on a repository with a config, only the snippet)',
    },
    baseline: {
      type: 'boolean',
      default: false,
      description:
        'also run the suite of HEAD (the main branch) and freeze what already fails or skips, as `patchgate baseline` does; --owner owns rows CODEOWNERS does not assign',
    },
    ...baselineOptions,
  },
} as const satisfies CommandSpec;

export const LOCK = {
  name: 'lock',
  summary: 'human-only: re-record every fixture digest from the working tree',
  description:
    "Rewrites FIXTURE_LOCK.json (and the canonical digest files of fixtures.canonical) from the working tree. This is the human path for a fixture change: commit the result on its own, never inside an agent's diff.",
  options: {
    owner: {
      type: 'string',
      placeholder: 'NAME',
      description: 'the owner of newly locked files (default: fixtures.owner)',
    },
    'dry-run': {
      type: 'boolean',
      default: false,
      description: 'print what would change and write nothing; exits 1 when the lock is stale',
    },
  },
} as const satisfies CommandSpec;

export const BASELINE = {
  name: 'baseline',
  summary: 'human-only: freeze what the main branch already fails or skips, for adopting patchgate',
  description: `Runs the suite of a revision of the main branch (--rev, default HEAD) in the sandbox, from a private copy of its committed files, and adds a freeze row for every test that already fails or skips there: signature rows in the signature freeze (signatures.freeze; a generic template bound to its test, as \`signatures add\` does) and, for a test whose outcome differs between the runs, a stability row (stability.freeze). Each row has an owner (CODEOWNERS for the test's file, else --owner, else git's user.name), an expiry, the action "review" and "source": "baseline"; reports show such rows as baseline rows.

Run it on the main branch, never on an agent's branch: every failure it finds becomes a freeze row. It refuses a revision that is not on the remote's default branch, a freeze file with uncommitted changes, a suite pytest cannot collect, and more rows than --max-rows. It never commits: it prints the rows and the git commands for a human's review commit. A second run adds nothing for rows already there.

Exit codes: 0 rows written (or nothing to freeze), 2 refused or bad input.`,
  options: {
    rev: {
      type: 'string',
      placeholder: 'REV',
      default: 'HEAD',
      description: 'the revision of the main branch whose suite is run (never an agent branch)',
    },
    owner: {
      type: 'string',
      placeholder: 'WHO',
      description: "the owner of rows whose test file CODEOWNERS does not name (default: git's user.name)",
    },
    ...baselineOptions,
  },
} as const satisfies CommandSpec;

/** The owner, expiry and next step every freeze row needs, for the commands that write one. */
function freezeRow(fixes: string) {
  return {
    owner: {
      type: 'string',
      placeholder: 'WHO',
      required: true,
      description: 'the person or team who owns the freeze',
    },
    expires: {
      type: 'string',
      placeholder: 'YYYY-MM-DD',
      required: true,
      description: 'the last day the freeze holds',
    },
    action: {
      type: 'string',
      placeholder: 'TEXT',
      required: true,
      description: `what will fix the ${fixes}; a freeze without a next step is a skip`,
    },
  } as const;
}

export const LEDGER_ADD = {
  name: 'ledger add',
  summary: 'human-only: freeze a classified flake of a property (cause-class flake ledger)',
  description:
    "Appends a validated row to the flake ledger (hits.ledger). The fixture digest is the base lock's digest of the property's fixture, so the row stops matching when the fixture changes. Commit the ledger on its own.",
  options: {
    property: {
      type: 'string',
      placeholder: 'NAME',
      required: true,
      description: 'the property the row freezes',
    },
    cause: {
      type: 'string',
      placeholder: 'CLASS',
      required: true,
      description: 'the cause class: CLOCK, HASH_ORDER, FLOAT_ULP or EXTERNAL_IO',
    },
    ...freezeRow('property'),
    file: {
      type: 'string',
      placeholder: 'PATH',
      default: 'flake_ledger.json',
      description: 'the ledger, repo-relative',
    },
    digest: {
      type: 'string',
      placeholder: 'SHA256',
      description: "the fixture's locked digest; must agree with the lock when given",
    },
    today,
  },
} as const satisfies CommandSpec;

export const SIGNATURES_ADD = {
  name: 'signatures add',
  summary: "human-only: freeze a test's known failure or skip signature from a JUnit report",
  description:
    "Appends a row to the signature freeze (signatures.freeze) for the failure or skip the test has in the report. Rows match on the normalized signature, not the test's name, so a reworded failure is not covered. Commit the freeze on its own.",
  options: {
    from: { type: 'string', placeholder: 'REPORT.xml', required: true, description: 'the JUnit XML report' },
    test: { type: 'string', placeholder: 'ID', required: true, description: 'the test id in the report' },
    ...freezeRow('failure'),
    reason: {
      type: 'string',
      placeholder: 'TEXT',
      description: 'why the failure is known and accepted for now',
    },
    file: {
      type: 'string',
      placeholder: 'PATH',
      default: 'flake_signatures.json',
      description: 'the freeze file, repo-relative',
    },
    scheme: {
      type: 'string',
      placeholder: 'patchgate|seed',
      default: 'patchgate',
      description: 'how failure messages are normalized into signatures',
    },
    failure: {
      type: 'string',
      placeholder: 'N',
      description: "which of the test's failure signatures to freeze, when the report has several",
    },
    today,
  },
} as const satisfies CommandSpec;

export const SEEDS_ADD = {
  name: 'seeds add',
  summary: 'human-only: record a counterexample seed (and what it found) on the seed tape',
  description:
    "Adds a seed to a row of the seed tape (seeds.tape), creating the tape or the row as needed: a new row needs --min-examples, and --nodeid or --command for pytest and command rows. Never removes a seed or lowers min_examples; a --min-examples above the row's raises its floor. A negative seed may follow --seed directly. Commit the tape on its own.",
  positionals: [{ name: 'PROPERTY-ID', required: true, description: "the tape row's property id" }],
  options: {
    seed: {
      type: 'string',
      placeholder: 'S',
      required: true,
      description: 'the seed that found the counterexample (a decimal integer)',
    },
    path: { type: 'string', placeholder: 'P', description: "fast-check's replay path, e.g. 12:0:3" },
    counterexample: {
      type: 'string',
      placeholder: 'JSON',
      description: 'the shrunk counterexample, replayed as it is on every gate run',
    },
    note: { type: 'string', placeholder: 'TEXT', description: 'what the seed found' },
    'min-examples': {
      type: 'string',
      placeholder: 'N',
      description: "the row's floor of generated examples (a new row needs it)",
    },
    runner: {
      type: 'string',
      placeholder: 'fast-check|pytest|command',
      description: 'the runner of a new row (default: pytest)',
    },
    nodeid: { type: 'string', placeholder: 'ID', description: "a pytest row's test node id" },
    'seed-switch': {
      type: 'string',
      placeholder: 'TEXT',
      description: 'how a pytest row passes the seed, with {seed} in it (default: --hypothesis-seed={seed})',
    },
    command: {
      type: 'string',
      placeholder: 'JSON-ARGV',
      description: "a command row's argv as a JSON array, with {seed}, {nodeid}, {min_examples}, {report}",
    },
  },
} as const satisfies CommandSpec;

export const EXPLORE = {
  name: 'explore',
  summary: "nightly: replay the tape's properties at fresh seeds; print what to record",
  description:
    'Replays every seed-tape property (or each --only ID) at N fresh random seeds on the working tree, for the main branch on a schedule: the gate replays fixed seeds so its verdicts are reproducible, and this is where new counterexamples are found. Prints each counterexample with the `patchgate seeds add` command that records it; exits 1 when it finds one or a property cannot be replayed.',
  options: {
    runs: {
      type: 'string',
      placeholder: 'N',
      required: true,
      description: 'fresh seeds per property (1 to 10000)',
    },
    only: { type: 'string', multiple: true, placeholder: 'ID', description: 'only this tape property' },
    json: { type: 'boolean', default: false, description: 'print the results as JSON' },
  },
} as const satisfies CommandSpec;

export const EXPLAIN = {
  name: 'explain',
  summary: 'what a reason code means, why it rejects, and the human way to resolve it',
  description: 'Without a code, lists every reason code with one line each.',
  positionals: [{ name: 'CODE', description: 'a reason code such as FIXTURE_CHANGED (any case)' }],
  options: {},
} as const satisfies CommandSpec;

export const RECORD = {
  name: 'record',
  summary: "main-branch CI only: add a run's results to the freeze-window ledger",
  usage: '--junit FILE [--junit FILE...] [--ledger PATH] [--run-id ID] [--at TIMESTAMP] [--dry-run]',
  description: `Adds one CI run to the freeze-window ledger of the claims layer (claims.ledger, default freeze/ledger.json): each entry gets P (its checks passed), F (one failed, errored or passed only on a retry) or - (they did not run) for this run, the window slides by one run, and an open entry with a failure in its window becomes blocked. Passes never unblock an entry; a human does, with \`patchgate freeze reopen\`.

Run it from CI on the main branch after merges, never on an agent's branch: what it records decides which claims may vote on every later patch. Commit the ledger from that job, or open a pull request with it.`,
  options: {
    junit: {
      type: 'string',
      multiple: true,
      placeholder: 'FILE',
      required: true,
      description: 'a JUnit XML report of the run',
    },
    ledger: {
      type: 'string',
      placeholder: 'PATH',
      description: 'the ledger, relative to the repository root (default: claims.ledger)',
    },
    'run-id': {
      type: 'string',
      placeholder: 'ID',
      description: "the CI run's id; a run already recorded as last_run is refused",
    },
    at: {
      type: 'string',
      placeholder: 'TIMESTAMP',
      description: 'when the run happened, YYYY-MM-DDTHH:MM:SSZ (default: now, UTC)',
    },
    'dry-run': { type: 'boolean', default: false, description: 'print what would change, write nothing' },
    history: {
      type: 'boolean',
      default: false,
      description:
        "also write the run's outcomes into the run history (.patchgate/history.sqlite, or PATCHGATE_DATABASE_URL); without a ledger file, only the history is written",
    },
  },
} as const satisfies CommandSpec;

const historyFilter = {
  repository: {
    type: 'string',
    placeholder: 'NAME',
    description: "one repository's runs (default: this one, named by its origin remote, else its folder)",
  },
  'all-repositories': {
    type: 'boolean',
    default: false,
    description: 'every repository the store holds',
  },
  since: {
    type: 'string',
    placeholder: 'DATE',
    description: 'only runs recorded on or after this UTC date, YYYY-MM-DD',
  },
} as const;

const historyScope = {
  ...historyFilter,
  json: { type: 'boolean', default: false, description: 'print the rows as JSON' },
} as const;

const historyLimit = {
  limit: { type: 'string', placeholder: 'N', default: '20', description: 'at most N rows (1 to 10000)' },
} as const;

const HISTORY_STORE_NOTE =
  'The store is .patchgate/history.sqlite in the repository, or the PostgreSQL server PATCHGATE_DATABASE_URL names; runs get there with `patchgate check --history` and `patchgate record --history`.';

export const HISTORY_FLAKY = {
  name: 'history flaky',
  summary: 'tests that flaked on trusted runs: rate, first and last seen, signature, owner',
  description: `A test flaked in a run when it both passed and failed there (a rerun, a retry) or passed only on a retry. Only trusted runs count: the base's checks on the base's code in \`check\`, and main-branch runs from \`record\`; a patch's own runs are its code's word about itself. The owner comes from the CODEOWNERS file of HEAD.

${HISTORY_STORE_NOTE}`,
  options: { ...historyScope, ...historyLimit },
} as const satisfies CommandSpec;

export const HISTORY_SLOWEST = {
  name: 'history slowest',
  summary: 'the slowest tests by mean duration on trusted runs',
  description: HISTORY_STORE_NOTE,
  options: { ...historyScope, ...historyLimit },
} as const satisfies CommandSpec;

export const HISTORY_REJECTIONS = {
  name: 'history rejections',
  summary: 'rejected patches by reason code, per day or week',
  description: `Counts rejected patches (distinct head commits) per rejecting reason code and period.

${HISTORY_STORE_NOTE}`,
  options: {
    ...historyScope,
    by: {
      type: 'string',
      placeholder: 'day|week',
      default: 'week',
      description: 'the period (weeks start on Monday)',
    },
  },
} as const satisfies CommandSpec;

export const HISTORY_AGENTS = {
  name: 'history agents',
  summary: 'per-agent accountability: whose patches were rejected, for which codes',
  description: `One row per identity on the judged patches (commit author, committer, Co-authored-by), with the patches it took part in, how they were decided (a head judged twice counts once, by its latest run) and the rejected ones by reason code. The identities are what the commits say: a patch can sign as anyone, so this is accounting, never evidence.

${HISTORY_STORE_NOTE}`,
  options: { ...historyScope, ...historyLimit },
} as const satisfies CommandSpec;

export const HISTORY_DASHBOARD = {
  name: 'history dashboard',
  summary: 'all four answers on one self-contained HTML page',
  description: `Writes one page (no script, no network, no external file) with the rejections by reason code per week, the per-agent accountability table, the flaky tests and the slowest tests, from the same queries as the other \`history\` commands.

${HISTORY_STORE_NOTE}`,
  options: {
    ...historyFilter,
    limit: {
      type: 'string',
      placeholder: 'N',
      default: '50',
      description: 'at most N rows per table (1 to 10000)',
    },
    out: {
      type: 'string',
      placeholder: 'FILE',
      default: '.patchgate/history.html',
      description: 'where the page is written (relative to the current folder)',
    },
  },
} as const satisfies CommandSpec;

export const HISTORY: GroupSpec = {
  name: 'history',
  summary: 'what the run history knows: flaky and slow tests, rejections, per-agent accountability',
  subcommands: [HISTORY_FLAKY, HISTORY_SLOWEST, HISTORY_REJECTIONS, HISTORY_AGENTS, HISTORY_DASHBOARD],
};

export const FREEZE_REOPEN = {
  name: 'freeze reopen',
  summary: 'human-only: reopen a blocked freeze-window ledger entry, recording who and why',
  description: `Opens a blocked entry of the freeze-window ledger (claims.ledger, default freeze/ledger.json) again: its window starts empty, last_fail is kept, and the entry records who reopened it, why and when. Nothing else unblocks an entry: later passes and retries never do.

Commit the ledger in its own commit, never inside an agent's diff.`,
  positionals: [{ name: 'ID', required: true, description: 'the ledger entry to reopen' }],
  options: {
    reason: {
      type: 'string',
      placeholder: 'TEXT',
      required: true,
      description:
        "why the entry may vote again (what was fixed, or why the failure was not its check's fault)",
    },
    owner: {
      type: 'string',
      placeholder: 'WHO',
      required: true,
      description: 'the person or team answering for the reopen',
    },
    ledger: {
      type: 'string',
      placeholder: 'PATH',
      description: 'the ledger, relative to the repository root (default: claims.ledger)',
    },
    at: {
      type: 'string',
      placeholder: 'TIMESTAMP',
      description: 'when, YYYY-MM-DDTHH:MM:SSZ (default: now, UTC)',
    },
  },
} as const satisfies CommandSpec;

export const FREEZE_WINDOW = {
  name: 'freeze window',
  summary: "main-branch CI: compute the ledger's windows from the run history's main-branch runs",
  description: `Computes every open entry's window of the freeze-window ledger (claims.ledger, default freeze/ledger.json) from the main-branch runs the run history holds (\`record --history\`), rather than carried forward one \`record\` at a time: the last window_runs runs after the entry's last reopen, each entry's result in each run read from its checks (or the tests the claim matrix binds to it) as \`record\` reads a report. A run that a \`record\` job missed still counts. It can only block: a failure in the window blocks an open entry, and a blocked entry stays blocked until a human reopens it.

Run it from CI on the main branch, never on an agent's branch, and commit the ledger from that job.`,
  options: {
    ledger: {
      type: 'string',
      placeholder: 'PATH',
      description: 'the ledger, relative to the repository root (default: claims.ledger)',
    },
    'dry-run': { type: 'boolean', default: false, description: 'print what would change, write nothing' },
  },
} as const satisfies CommandSpec;

export const CLAIMS_SUGGEST = {
  name: 'claims suggest',
  summary: 'skeleton claim rows for the behaviour the production delta adds',
  description:
    'Lists, per production hunk (the test side left out), the behaviour it adds (new returns, throws, status codes, error types, persisted fields, changed comparisons) as skeleton claim rows C1..Cn with file, line and symbol, for a human to fill in. Only reads.',
  options: {
    base: {
      type: 'string',
      placeholder: 'REV',
      required: true,
      description: 'the revision the patch is against',
    },
    head: {
      type: 'string',
      placeholder: 'REV',
      description: 'the revision to read (default: the working tree)',
    },
    json: { type: 'boolean', default: false, description: 'print the candidates as JSON' },
  },
} as const satisfies CommandSpec;

export const VALIDATE = {
  name: 'validate',
  summary: "validate the working tree's config and contract files as the gate reads them",
  description: `Reads the config and every contract file of the working tree (the fixture lock and canonical digests, the flake ledger, the seed tape, the signature and stability freezes, the claim matrix and its freeze-window ledger) with the same readers \`patchgate check\` uses on the base revision, and lists every problem of every file at once, as file:line:column: field: sentence. A contract file the config names but that does not exist is listed with how to create it.

\`check\` reads the config and the contract files from the base revision, so an edit to them that is not committed yet only shows up there as CONTRACT_TOUCHED. Run \`patchgate validate\` on the edit before you commit it (in a human commit, on its own).

Exit codes: 0 every file is valid ("ok: N files"), 2 a problem was found.`,
  options: {},
} as const satisfies CommandSpec;

export const LEDGER: GroupSpec = {
  name: 'ledger',
  summary: 'human-only edits of the cause-class flake ledger (hits.ledger)',
  subcommands: [LEDGER_ADD],
};
export const SIGNATURES: GroupSpec = {
  name: 'signatures',
  summary: 'human-only edits of the failure-signature freeze (signatures.freeze)',
  subcommands: [SIGNATURES_ADD],
};
export const SEEDS: GroupSpec = {
  name: 'seeds',
  summary: 'human-only edits of the seed tape (seeds.tape)',
  subcommands: [SEEDS_ADD],
};
export const FREEZE: GroupSpec = {
  name: 'freeze',
  summary: 'human-only edits of the freeze-window ledger (claims.ledger)',
  subcommands: [FREEZE_REOPEN, FREEZE_WINDOW],
};
export const CLAIMS: GroupSpec = {
  name: 'claims',
  summary: 'help with the claim matrix',
  subcommands: [CLAIMS_SUGGEST],
};

/** The top-level commands in the order `patchgate --help` lists them. */
export const COMMANDS: readonly (CommandSpec | GroupSpec)[] = [
  CHECK,
  MERGE,
  INIT,
  VALIDATE,
  BASELINE,
  LOCK,
  LEDGER,
  SIGNATURES,
  SEEDS,
  EXPLORE,
  RECORD,
  HISTORY,
  FREEZE,
  CLAIMS,
  EXPLAIN,
];

export function isGroup(spec: CommandSpec | GroupSpec): spec is GroupSpec {
  return 'subcommands' in spec;
}

/** The spec of `patchgate WORDS...`: the command, the subcommand, or undefined. */
export function findSpec(command: string, sub?: string): CommandSpec | GroupSpec | undefined {
  const top = COMMANDS.find((c) => c.name === command);
  if (!top || sub === undefined || !isGroup(top)) return top;
  return top.subcommands.find((s) => s.name === `${command} ${sub}`);
}
