import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { isExpired, isoDate, resolveToday } from '../../freeze/model.js';
import {
  DEFAULT_SIGNATURE_FREEZE,
  formatSignatureFreeze,
  formatSignatureRow,
  missingFields,
  parseSignatureFreeze,
  rowStatus,
  rowsMatching,
  type SignatureFreeze,
  type SignatureRow,
} from '../../freeze/signature-freeze.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { isGenericTemplate } from '../../signatures/generic.js';
import { isSignatureScheme, SIGNATURE_SCHEMES, type SignatureScheme } from '../../signatures/normalize.js';
import { type FailureSignature, failureSignature, skipKind } from '../../signatures/signature.js';
import { editDistance } from '../../util/edit-distance.js';
import { assertRepoPath } from '../../util/repo-path.js';
import { writeFileAtomic } from '../atomic-write.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { SIGNATURES_ADD } from '../specs.js';
import { usage } from '../usage.js';

export interface ReportTest {
  id: string;
  status: string;
  failures: readonly { kind: string; message: string }[];
  skipped?: { type?: string; message: string };
}

export interface SignaturesDeps {
  /** Reads a test report (JUnit XML) into tests; injected so the CLI does not pick the parser. */
  parseReport(file: string): Promise<{ tests: ReportTest[] }>;
  /** The system clock, used only when neither --today nor CI_DATE is set. */
  now?(): Date;
}

/** `patchgate signatures <subcommand>`: human-only edits of the failure-signature freeze. */
export async function signaturesCommand(args: string[], io: CliIO, deps: SignaturesDeps): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return signaturesAdd(rest, io, deps);
    case undefined:
      throw usage(
        'signatures needs a subcommand: patchgate signatures add --from report.xml --test ID --owner WHO --expires YYYY-MM-DD --action TEXT',
      );
    default:
      throw usage(`unknown signatures subcommand '${sub}' (expected: add)`);
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string') throw usage(`signatures add: --${name} is required`);
  return v;
}

function nearMatches(wanted: string, ids: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  const tail = lower.split(/::|[./# ]/).pop() ?? lower;
  const scored = [...new Set(ids)]
    .map((id) => {
      const l = id.toLowerCase();
      const contains = l.includes(lower) || lower.includes(l) || (tail.length >= 3 && l.includes(tail));
      return { id, score: contains ? 0 : editDistance(lower, l) };
    })
    .filter((s) => s.score <= Math.max(3, Math.floor(wanted.length / 4)));
  scored.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, 5).map((s) => s.id);
}

interface Candidate {
  kind: string;
  message: string;
  signature: FailureSignature;
}

/**
 * The distinct signatures a test produced: one per failure (a rerun runner can
 * report several), or its skip when it did not fail. A skip is frozen like a
 * failure: an unfrozen skip is a fail at the gate. A skipped or xfailed test
 * can still carry failures (node:test's failing todo, Catch2's [!mayfail]);
 * the gate checks its skip, so that is what is offered.
 */
function candidatesOf(tests: readonly ReportTest[], scheme: SignatureScheme): Candidate[] {
  const out = new Map<string, Candidate>();
  const add = (kind: string, message: string) => {
    const signature = failureSignature(kind, message, scheme);
    if (!out.has(signature.sha256)) out.set(signature.sha256, { kind, message, signature });
  };
  for (const t of tests) {
    if (t.status === 'skipped' || t.status === 'xfailed') continue;
    for (const f of t.failures) add(f.kind, f.message);
  }
  if (out.size === 0) {
    for (const t of tests) {
      if (t.skipped) add(skipKind(t.skipped, t.status), t.skipped.message);
      else if (/skip|xfail|disabled|notrun|ignored/i.test(t.status)) add(skipKind(undefined, t.status), '');
    }
  }
  return [...out.values()];
}

function pickCandidate(candidates: Candidate[], test: string, flag: string | undefined): Candidate {
  if (flag !== undefined) {
    const n = /^[1-9]\d*$/.test(flag) ? Number(flag) : Number.NaN;
    const chosen = candidates[n - 1];
    if (!chosen)
      throw usage(`signatures add: --failure must be a number from 1 to ${candidates.length}, got '${flag}'`);
    return chosen;
  }
  const [only] = candidates;
  if (only && candidates.length === 1) return only;
  const list = candidates.map((c, i) => `  ${i + 1}. ${c.signature.template}`).join('\n');
  throw new InputError(
    'USAGE',
    `signatures add: test '${test}' has ${candidates.length} different failure signatures in the report; pick one with --failure N:\n${list}`,
    { test, templates: candidates.map((c) => c.signature.template) },
  );
}

async function readOrCreate(
  abs: string,
  file: string,
): Promise<{ freeze: SignatureFreeze; created: boolean }> {
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { freeze: { file, rows: [] }, created: true };
    throw new InputError('FILE_UNREADABLE', `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  // An invalid freeze is never rewritten: the human fixes it first.
  return { freeze: parseSignatureFreeze(text, file), created: false };
}

async function signaturesAdd(args: string[], io: CliIO, deps: SignaturesDeps): Promise<number> {
  const parsed = parseCommand(SIGNATURES_ADD, args, io);
  if (!parsed) return 0;
  const { values } = parsed;

  const from = required(values, 'from');
  const test = required(values, 'test');
  const owner = required(values, 'owner').trim();
  const expires = required(values, 'expires');
  const action = required(values, 'action').trim();
  const reason = values.reason?.trim();
  const scheme = values.scheme ?? 'patchgate';
  const file = assertRepoPath(values.file ?? DEFAULT_SIGNATURE_FREEZE, '--file');

  if (test === '') throw usage('signatures add: --test must name a test id from the report');
  if (owner === '') throw usage('signatures add: --owner must name the person or team who owns the freeze');
  if (action === '')
    throw usage(
      'signatures add: --action must say what will fix the failure; a freeze without a next step is a skip',
    );
  if (!isSignatureScheme(scheme))
    throw usage(`signatures add: unknown --scheme '${scheme}'; allowed: ${SIGNATURE_SCHEMES.join(', ')}`);
  if (!isoDate(expires))
    throw usage(`signatures add: --expires must be a real date in YYYY-MM-DD form, got '${expires}'`);
  const { today, from: todayFrom } = resolveToday(values.today, io.env, deps.now);
  if (isExpired({ expires }, today))
    throw usage(
      `signatures add: --expires ${expires} is already in the past (today is ${today}, from ${todayFrom})`,
    );

  const report = await deps.parseReport(path.resolve(io.cwd, from));
  const tests = report.tests.filter((t) => t.id === test);
  if (tests.length === 0) {
    const near = nearMatches(
      test,
      report.tests.map((t) => t.id),
    );
    const hint =
      near.length > 0
        ? ` Did you mean:\n${near.map((id) => `  ${id}`).join('\n')}`
        : ` The report has ${report.tests.length} test(s); ids are suite, class and name as the report writes them.`;
    throw new InputError('USAGE', `signatures add: no test '${test}' in ${from}.${hint}`, {
      test,
      report: from,
      near,
    });
  }
  const candidates = candidatesOf(tests, scheme);
  if (candidates.length === 0) {
    throw new InputError(
      'USAGE',
      `signatures add: test '${test}' did not fail and was not skipped in ${from} (status ${tests.map((t) => t.status).join(', ')}); there is nothing to freeze`,
      { test, report: from },
    );
  }
  const chosen = pickCandidate(candidates, test, values.failure);

  const repoRoot = await findRepoRoot(Git.forEnv(execFile, io.cwd, io.env, io.signal));
  const abs = path.join(repoRoot, file);
  const { freeze, created } = await readOrCreate(abs, file);

  // A row bound to another test does not cover this one, so it is no reason to refuse.
  const existing = rowsMatching(freeze, chosen.kind, chosen.message).filter(
    (m) => m.row.test === undefined || m.row.test === test,
  );
  const [first] = existing;
  if (first) {
    const status = rowStatus(first.row, today);
    const state =
      status === 'active'
        ? `owner ${first.row.owner}, expires ${first.row.expires}`
        : status === 'expired'
          ? `expired on ${first.row.expires}; edit that row's expiry instead of adding another`
          : `incomplete: it lacks ${missingFields(first.row).join(', ')}; fill those in on that row instead of adding another`;
    throw new InputError(
      'ALREADY_EXISTS',
      `signatures add: this failure is already frozen in ${file} by row ${first.row.index}${first.row.line !== undefined ? ` (line ${first.row.line})` : ''} (${state}): ${first.signature.template}`,
      { file, row: first.row.index, sha256: first.row.sha256, status },
    );
  }

  const generic = isGenericTemplate(chosen.signature.template);
  const row: SignatureRow = {
    sha256: chosen.signature.sha256,
    template: chosen.signature.template,
    kind: chosen.kind,
    scheme,
    owner,
    ...(reason ? { reason } : {}),
    expires,
    action,
    example_test: test,
    ...(generic ? { test } : {}),
  };
  const text = formatSignatureFreeze({ ...freeze, rows: [...freeze.rows, row] });
  // Re-read what we are about to write: the file on disk must pass the same checks the gate applies.
  parseSignatureFreeze(text, file);
  if (created) await mkdir(path.dirname(abs), { recursive: true });
  await writeFileAtomic(abs, text, file);

  io.stdout.write(
    `${created ? 'created' : 'updated'} ${file}: added row ${freeze.rows.length}\n${formatSignatureRow(row)}\n`,
  );
  io.stdout.write(
    (generic
      ? `\nThe signature '${chosen.signature.template}' carries no text of its own (every such ${chosen.kind} of every test has it), so the row covers test ${test} only: a renamed test needs a row of its own.\n`
      : `\nRows match this signature, not the test name: a renamed test with the same failure stays frozen, a changed failure does not.\n`) +
      `This is the human path: commit the freeze file on its own, never inside an agent's diff:\n  git add ${file} && git commit -m "patchgate: freeze a failure signature of ${test}"\n`,
  );
  return 0;
}
