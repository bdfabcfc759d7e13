export const HELP = `patchgate — a merge gate for patches written by coding agents

Usage:
  patchgate check --base REV [--head REV] [--out DIR] [--json] [--today YYYY-MM-DD] [--all-layers]
  patchgate init [--format json|yaml|ts] [--root DIR]... [--owner NAME] [--force]
  patchgate lock [--owner NAME] [--dry-run]          (human-only: re-record fixture digests)
  patchgate ledger add --property NAME --cause CLASS --owner WHO --expires YYYY-MM-DD --action TEXT
                                                     (human-only: freeze a classified flake)
  patchgate signatures add --from REPORT.xml --test ID --owner WHO --expires YYYY-MM-DD --action TEXT
                                                     (human-only: freeze a known failure signature)
  patchgate seeds add PROPERTY-ID --seed S [--path P] [--counterexample JSON] [--note TEXT]
                      [--min-examples N] [--runner fast-check|pytest|command]
                      [--nodeid ID] [--seed-switch TEXT] [--command JSON-ARGV]
                                                     (human-only: record a counterexample seed)
  patchgate explore --runs N [--only ID]... [--json]  (nightly: the tape's properties at fresh seeds)
  patchgate record --junit FILE... [--run-id ID] [--at TIMESTAMP] [--dry-run]
                                                     (main-branch CI only: update the freeze-window ledger)
  patchgate freeze reopen ID --reason TEXT --owner WHO
                                                     (human-only: reopen a blocked freeze entry)
  patchgate claims suggest --base REV [--head REV] [--json]
                                                     (claim candidates from the production delta)
  patchgate explain CODE
  patchgate --help | --version

check     Judge the head (default: the working tree, with uncommitted and
          untracked files) against the merge-base of --base and the head.
          Config and contract files are read from the base.
          Writes scorecard.json and summary.md to --out (default .patchgate/out).
init      Write patchgate.config.* and FIXTURE_LOCK.json for this repository.
lock      Rewrite FIXTURE_LOCK.json (and canonical digest files) from the
          working tree and print what changed. Commit it on its own.
ledger    Append a validated row to the cause-class flake ledger (hits.ledger).
          The fixture digest is taken from the base lock for the property's fixture.
signatures  Append a row to the signature freeze (signatures.freeze) for a test's
          failure or skip in a JUnit report; rows match on the signature, not the name.
seeds     Add a seed to a row of the seed tape (seeds.tape), creating the tape or
          the row as needed (a new row needs --min-examples, and --nodeid or
          --command for pytest and command rows). Never removes a seed or lowers
          min_examples; --min-examples above the row's raises its floor.
explore   Replay every tape property (or each --only ID) at N fresh random seeds on
          the working tree: seed 002's nightly seed-varied pass, for main on a
          schedule. Prints each counterexample with the \`seeds add\` command that
          records it; exits 1 when it finds one or a property cannot be replayed.
record    Append this run's results to the freeze-window ledger (claims.ledger):
          one failure inside the window blocks an entry; retries and later passes
          never clear it; the window slides by runs. Run it on the main branch
          after merges, never on an agent's branch.
freeze    reopen: set a blocked ledger entry back to open, recording who and why;
          commit the ledger on its own.
claims    suggest: list, per production hunk, the behaviour it adds (returns,
          throws, status codes, fields, changed comparisons) as skeleton claim rows.
explain   Print what a reason code means.

Exit codes: 0 accept, 1 reject, 2 bad input or usage, 3 internal error.
Environment: NO_COLOR disables colour; GITHUB_STEP_SUMMARY receives summary.md;
CI_DATE (or --today) is the date freezes expire against, never read from the repo.
`;
