/**
 * A baseline, from the flags to the texts of the freeze files: what
 * `patchgate baseline` writes, and what `patchgate init --baseline` writes
 * instead of empty freeze files. Nothing is written here; nothing is ever
 * committed (a human reviews the rows and commits them).
 */

import {
  type FreezeFileNow,
  readSignatureFreezeNow,
  readStabilityRowsNow,
  refuseUncommitted,
  signatureFreezeWith,
  stabilityFreezeWith,
} from '../baseline/freeze-files.js';
import { type BaselinePlan, planBaseline } from '../baseline/plan.js';
import { runBaselineSuite } from '../baseline/run-suite.js';
import { CODEOWNERS_FILES, type CodeownersRule, ownersOf, parseCodeowners } from '../config/codeowners.js';
import type { PatchgateConfig } from '../config/schema.js';
import { signatureFreezeFormat } from '../contracts/signature-freeze.js';
import { stabilityFreezeFormat } from '../contracts/stability-freeze.js';
import { InputError } from '../errors.js';
import { isExpired, isoDate, resolveToday } from '../freeze/model.js';
import { formatSignatureRow } from '../freeze/signature-freeze.js';
import { defaultBase } from '../git/default-branch.js';
import type { Git } from '../git/git.js';
import { resolveCommit } from '../git/revisions.js';
import type { TestOutcome } from '../junit/model.js';
import { testFileOf } from '../runners/tests/presets.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { CliIO } from './io.js';
import { usage } from './usage.js';

export interface BaselineFlags {
  rev: string;
  runs: string;
  days: string;
  expires?: string;
  owner?: string;
  maxRows: string;
  today?: string;
}

export interface BaselineFlowInput {
  io: CliIO;
  /** At the repository root. */
  git: Git;
  config: PatchgateConfig;
  flags: BaselineFlags;
  /** Read a working-tree file (repo-relative); undefined when it does not exist. */
  readFile(file: string): Promise<string | undefined>;
  /** `$schema` for a freeze file the baseline creates (`schemaFile` in `schema/`), when the repository has the installed schemas. */
  schemaFor?(schemaFile: string, file: string): string | undefined;
  now?(): Date;
  sandbox?: Sandbox;
}

export interface BaselineFlowResult {
  commit: string;
  plan: BaselinePlan;
  /** Freeze files to write, with their new text; only files that gain rows. */
  writes: { file: string; text: string }[];
  /** What to tell the human, line by line. */
  lines: string[];
}

function intFlag(name: string, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw usage(
      `baseline: --${name} must be a whole number from ${min} to ${max}, got '${value}'`,
      'baseline',
    );
  return n;
}

function addDays(date: string, days: number): string {
  const t = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return new Date(t + days * 86_400_000).toISOString().slice(0, 10);
}

/** Refuses a revision that is not on the branch patches target: a baseline freezes what that branch fails. */
async function refuseOffMain(git: Git, rev: string, commit: string): Promise<string | undefined> {
  const base = await defaultBase(git);
  const r = await git.try(['rev-parse', '--verify', '--quiet', `${base.ref}^{commit}`]);
  if (r.code !== 0)
    return `${base.ref} does not name a commit here, so it is not checked that ${rev} is on it`;
  const on = await git.try(['merge-base', '--is-ancestor', commit, r.stdout.trim()]);
  if (on.code === 0) return undefined;
  throw new InputError(
    'BASELINE_REFUSED',
    `${rev} (${commit.slice(0, 12)}) is not on ${base.ref}: a baseline freezes what the branch patches target already fails, and run on an agent's branch it would freeze that branch's own failures. Run it on ${base.ref} (pass --rev ${base.ref}).`,
    { rev, commit, branch: base.ref },
  );
}

async function codeowners(
  git: Git,
  commit: string,
): Promise<{ file: string; rules: CodeownersRule[] } | undefined> {
  for (const file of CODEOWNERS_FILES) {
    const r = await git.try(['cat-file', 'blob', `${commit}:${file}`]);
    if (r.code === 0) return { file, rules: parseCodeowners(r.stdout) };
  }
  return undefined;
}

async function gitUser(git: Git): Promise<string | undefined> {
  for (const key of ['user.name', 'user.email']) {
    const r = await git.try(['config', '--get', key]);
    const v = r.stdout.trim();
    if (r.code === 0 && v !== '') return v;
  }
  return undefined;
}

export async function prepareBaseline(input: BaselineFlowInput): Promise<BaselineFlowResult> {
  const { io, git, config, flags } = input;
  const tests = config.tests;
  const sigCfg = config.signatures;
  if (!tests || !sigCfg?.enabled)
    throw new InputError(
      'BASELINE_REFUSED',
      'the baseline writes signature freeze rows, so the config needs a `tests` section and the signatures layer on (`"signatures": {}`); `patchgate init` turns both on when it finds the test runner',
    );
  const runs = intFlag('runs', flags.runs, 1, 10);
  const maxRows = intFlag('max-rows', flags.maxRows, 1, 10_000);
  const { today, from } = resolveToday(flags.today, io.env, input.now);
  let expires: string;
  if (flags.expires !== undefined) {
    if (!isoDate(flags.expires))
      throw usage(
        `baseline: --expires must be a real date in YYYY-MM-DD form, got '${flags.expires}'`,
        'baseline',
      );
    if (isExpired({ expires: flags.expires }, today))
      throw usage(
        `baseline: --expires ${flags.expires} is already in the past (today is ${today}, from ${from})`,
        'baseline',
      );
    expires = flags.expires;
  } else {
    expires = addDays(today, intFlag('days', flags.days, 1, 3650));
  }

  const commit = await resolveCommit(git, flags.rev, 'rev');
  const lines: string[] = [];
  const unchecked = await refuseOffMain(git, flags.rev, commit);
  if (unchecked) lines.push(`note: ${unchecked}`);

  // The files as committed: an edit in progress is the human's to finish first.
  const sigNow: FreezeFileNow = { file: sigCfg.freeze, text: await input.readFile(sigCfg.freeze) };
  const signatures = readSignatureFreezeNow(sigNow);
  await refuseUncommitted(git, sigNow, signatures.rows.length);
  const stabCfg = config.stability?.enabled ? config.stability : undefined;
  const stabNow: FreezeFileNow | undefined = stabCfg
    ? { file: stabCfg.freeze, text: await input.readFile(stabCfg.freeze) }
    : undefined;
  const stability = stabNow ? readStabilityRowsNow(stabNow) : undefined;
  if (stabNow && stability) await refuseUncommitted(git, stabNow, stability.freezes.length);

  const owners = await codeowners(git, commit);
  const fallback = flags.owner?.trim() || (await gitUser(git));
  const unowned = new Set<string>();
  const ownerOf = (t: TestOutcome): string => {
    const file = testFileOf(tests.preset, t);
    const match = owners && file !== undefined ? ownersOf(owners.rules, file) : undefined;
    if (match && match.owners.length > 0) return match.owners.join(' ');
    if (fallback === undefined) unowned.add(t.id);
    return fallback ?? '';
  };

  const suite = await runBaselineSuite({
    git,
    repoRoot: git.cwd,
    commit,
    config,
    runs,
    env: io.env,
    signal: io.signal,
    ownerPid: io.pid ?? 0,
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
  });
  if (suite.warning) lines.push(`note: ${suite.warning}`);
  const plan = planBaseline({
    runs: suite.runs.map((r) => r.tests),
    scheme: sigCfg.scheme,
    signatures,
    ...(stability ? { stability: { tests: new Set(stability.freezes.map((f) => f.test)) } } : {}),
    ownerOf,
    commit,
    today,
    expires,
  });
  const added = plan.signatureRows.length + plan.stabilityRows.length;
  if (unowned.size > 0 && added > 0)
    throw new InputError(
      'BASELINE_REFUSED',
      `no owner for ${unowned.size} test(s) (${[...unowned].slice(0, 3).join(', ')}${unowned.size > 3 ? ', …' : ''}): CODEOWNERS${owners ? ` (${owners.file})` : ''} names none for their files and git has no user.name; pass --owner WHO`,
      { tests: [...unowned] },
    );
  if (added > maxRows) {
    const tests = [...new Set([...plan.signatureRows, ...plan.stabilityRows].map((r) => r.test))];
    throw new InputError(
      'BASELINE_REFUSED',
      `the suite already fails or skips too much to adopt this way: the baseline would write ${added} freeze rows (${plan.signatureRows.length} signature, ${plan.stabilityRows.length} stability) for ${tests.length} test(s), more than --max-rows ${maxRows}. Freezing that many failures at once is not a review anyone can do: fix or delete part of the suite first, freeze a few with \`patchgate signatures add\`, or raise --max-rows if a human will really read every row. Nothing was written. First tests: ${tests.slice(0, 10).join(', ')}`,
      { rows: added, maxRows, tests: tests.slice(0, 50) },
    );
  }

  const total = new Set(suite.runs.flatMap((r) => r.tests.map((t) => t.id))).size;
  lines.push(
    `baseline of ${flags.rev} (${commit.slice(0, 12)}), ${runs} run${runs === 1 ? '' : 's'} of ${total} test(s) in the sandbox (${suite.isolation.mode}): ${plan.failingOrSkipped} already fail or skip${plan.flaky.length > 0 ? `, ${plan.flaky.length} flaky (outcomes differed between runs)` : ''}`,
  );
  for (const k of plan.kept)
    lines.push(
      `kept: ${k.test}: ${k.template} is already frozen by row ${k.row}${k.line !== undefined ? ` (line ${k.line})` : ''} of ${sigCfg.freeze} (${k.state})`,
    );
  const writes: { file: string; text: string }[] = [];
  if (plan.signatureRows.length > 0) {
    const schema =
      sigNow.text === undefined
        ? input.schemaFor?.(signatureFreezeFormat.schema.file, sigCfg.freeze)
        : undefined;
    writes.push({
      file: sigCfg.freeze,
      text: signatureFreezeWith(
        signatures,
        plan.signatureRows.map((r) => r.row),
        schema,
      ),
    });
    lines.push(
      `${sigCfg.freeze}: ${plan.signatureRows.length} row(s) with "source": "baseline", owner, expiry ${expires}, action "review":`,
    );
    for (const r of plan.signatureRows) lines.push(formatSignatureRow(r.row));
  }
  if (stabNow && stability && plan.stabilityRows.length > 0) {
    const schema =
      stabNow.text === undefined
        ? input.schemaFor?.(stabilityFreezeFormat.schema.file, stabNow.file)
        : undefined;
    writes.push({
      file: stabNow.file,
      text: stabilityFreezeWith(
        stabNow.file,
        stability,
        plan.stabilityRows.map((r) => r.row),
        schema,
      ),
    });
    lines.push(`${stabNow.file}: ${plan.stabilityRows.length} row(s) for flaky tests:`);
    for (const r of plan.stabilityRows) lines.push(JSON.stringify(r.row, null, 2));
  }
  if (added === 0)
    lines.push('nothing to freeze: every failure and skip of the suite is already covered by a row');
  return { commit, plan, writes, lines };
}
