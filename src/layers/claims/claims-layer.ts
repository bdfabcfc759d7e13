import picomatch from 'picomatch';
import { contractReadOptions } from '../../config/contract-file.js';
import type { ContractSnapshot } from '../../config/contract-snapshot.js';
import { switchOf } from '../../config/layers-on.js';
import type { ClaimsConfig, PatchgateConfig } from '../../config/schema.js';
import {
  CELLS,
  type Cell,
  type Claim,
  type ClaimMatrix,
  readClaimMatrixFiles,
} from '../../contracts/claim-matrix.js';
import { contractFilesOf } from '../../contracts/registry.js';
import { ContractFileError } from '../../errors.js';
import { type ClaimLedger, readClaimLedger } from '../../freeze/claim-ledger.js';
import type { Hunk } from '../../git/hunks.js';
import type { TestOutcome } from '../../junit/model.js';
import { testSideFor } from '../../overlay/test-side.js';
import type { TestCensus } from '../../runners/tests/census.js';
import { pytestNodeId } from '../../runners/tests/presets.js';
import { pushAll } from '../../util/arrays.js';
import { checkRepoPath } from '../../util/repo-path.js';
import { lockedFixtureDigests } from '../fixtures/locked-digests.js';
import { agreed, jsonArtifact, type MergeContext, whenParts } from '../shard-merge.js';
import type { Finding, Layer, LayerContext, LayerOutcome, NamedContract, Severity } from '../types.js';
import { parseFreezeRef, parsePropertyRef } from './cells.js';
import {
  matching,
  type PropertyResolution,
  resolveProperty,
  type TestEvidenceRun,
} from './resolve-property.js';
import { lintStatement } from './statement-lint.js';
import { suggestClaims } from './suggest/candidates.js';
import { sandboxedPythonCandidates } from './suggest/candidates-python.js';
import { enclosingSymbol, hunkLines, languageOf, type Span, uncoveredHunks } from './suggest/symbols.js';

const LAYER = 'claims';

/** One cell as this run resolved it, for claims.json and the report. */
interface CellResult {
  value?: string;
  status: 'bound' | 'empty' | 'missing' | 'unreviewed' | 'blocked';
  why?: string;
  detail?: Record<string, unknown>;
}

const where = (c: Pick<Claim, 'id' | 'source'>) => ({
  claim: c.id,
  file: c.source.file,
  ...(c.source.line !== undefined ? { line: c.source.line } : {}),
});

function finding(
  code: Finding['code'],
  severity: Severity,
  claim: Pick<Claim, 'id' | 'source'>,
  message: string,
  evidence: Record<string, unknown>,
): Finding {
  return {
    code,
    layer: LAYER,
    severity,
    message: `${claim.id}: ${message}`,
    evidence: { ...where(claim), ...evidence },
  };
}

/** Every matrix file of one revision's snapshot, parsed together so every problem is reported at once. */
async function readMatrix(
  root: ContractSnapshot,
  globs: readonly string[],
  maxBytes: number,
): Promise<ClaimMatrix> {
  const match = picomatch([...globs], { dot: true });
  const files = root.paths.filter((p) => match(p) && root.has(p)).sort();
  const read = await readClaimMatrixFiles(root, files, root.revision, maxBytes);
  if (read.problems.length > 0 || !read.value) throw new ContractFileError('CONTRACT_INVALID', read.problems);
  return read.value;
}

/** Two rows say the same thing: the patch left this claim alone. */
const sameClaim = (a: Claim, b: Claim) =>
  a.statement === b.statement &&
  a.fixture === b.fixture &&
  a.property === b.property &&
  a.freeze === b.freeze &&
  JSON.stringify(a.covers) === JSON.stringify(b.covers);

/**
 * The claim matrix: every behavioural claim of the base's matrix must
 * be bound, on the head, to a fixture a human locked, a property that ran
 * and can fail, and an open freeze-window entry. The matrix and the ledger
 * are contract files of the base; the evidence is this run's.
 */
export const claimsLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  testRuns: { headRun: true, census: true },
  after: ['hits', 'seeds'],
  enabled: switchOf(LAYER),
  contractFiles: (config: PatchgateConfig): NamedContract[] => contractFilesOf(LAYER, config),
  async run(ctx: LayerContext) {
    const cfg = ctx.config.claims;
    if (!cfg) return { findings: [] };
    const read = contractReadOptions(ctx.config, ctx.signal);
    const matrix = await readMatrix(ctx.snapshot.base, cfg.matrix, read.maxBytes);
    const findings: Finding[] = [];
    if (matrix.claims.length === 0) {
      const files = matrix.files.map((f) => f.file);
      findings.push({
        code: 'CLAIMS_EMPTY',
        layer: LAYER,
        severity: 'reject',
        message:
          files.length === 0
            ? `the claims layer is on, but no file in the base matches ${cfg.matrix.join(', ')}: an empty matrix binds nothing`
            : `the claim matrix (${files.join(', ')}) has no claims: an empty matrix binds nothing`,
        evidence: {
          matrix: cfg.matrix,
          files,
          next: 'write the claims of the patch (patchgate claims suggest --base REV lists candidates) in a human commit',
        },
      });
      return { findings };
    }
    const ledger = await readClaimLedger(ctx.snapshot.base, cfg.ledger, 'the base revision', read);
    const locked = ctx.config.fixtures.enabled
      ? await lockedFixtureDigests(ctx.snapshot.base, ctx.config, 'the base revision', read)
      : undefined;
    // On a shard, property cells wait for the merge: the proofs and tests they bind to are all shards'.
    const deferred: DeferredCell[] | undefined = ctx.shard ? [] : undefined;
    const judge: Judge = { ctx, cfg, ledger, locked, ...(deferred ? { deferred } : {}) };

    const rows: ClaimRow[] = [];
    for (const claim of matrix.claims) {
      judge.rows = { base: rows.length, head: 0 };
      rows.push(await judgeClaim(judge, claim, 'base', findings));
    }

    // The base's matrix is what is judged. A patch that edits it is already CONTRACT_TOUCHED; what its own
    // rows would have bound is shown too, so the reviewer sees what the edit was for.
    const headRows = await judgeHeadMatrix(judge, matrix, findings);

    if (cfg.coverage !== 'off') pushAll(findings, await uncoveredChanges(ctx, cfg, matrix));

    const report = {
      schema: 'patchgate/claims@1',
      ledger: cfg.ledger,
      window_runs: ledger.windowRuns,
      files: matrix.files,
      claims: rows.map(reportRow),
      ...(headRows.length > 0 ? { head_claims: headRows.map(reportRow) } : {}),
    };
    return {
      findings,
      artifacts: [{ name: CLAIMS_REPORT, content: jsonArtifact(report) }],
      ...(deferred
        ? {
            part: {
              report,
              deferred,
              layersRun: [...ctx.layersRun],
              headOnly: [...ctx.overlay.headOnly],
              ...(ctx.config.tests?.preset ? { preset: ctx.config.tests.preset } : {}),
            } satisfies ClaimsPart,
          }
        : {}),
    };
  },
  shards: whenParts(mergeClaims),
};

const CLAIMS_REPORT = 'claims.json';

/** A property cell a shard could not resolve alone, with what its share of the run saw of it. */
interface DeferredCell {
  side: 'base' | 'head';
  /** Its row in claims.json: `claims` (base) or `head_claims` (head), by position. */
  row: number;
  claim: Pick<Claim, 'id' | 'source'>;
  property: string;
  /** For a test cell: the tests of this shard's run that the id names; null without a tests section. */
  tests?: TestShare | null;
}

interface TestShare {
  label: string;
  census: boolean;
  found: { outcome: TestOutcome; onBase?: boolean; census?: TestCensus }[];
}

interface ClaimsPart {
  report: ClaimsReport;
  deferred: DeferredCell[];
  layersRun: string[];
  headOnly: string[];
  preset?: string;
}

interface ClaimsReport {
  claims: ReturnType<typeof reportRow>[];
  head_claims?: ReturnType<typeof reportRow>[];
  [key: string]: unknown;
}

/** What one shard's run says of a test cell: the tests it ran that the id names. */
async function testShare(ctx: LayerContext, side: 'base' | 'head', id: string): Promise<TestShare | null> {
  const tests = ctx.tests;
  if (!tests) return null;
  const run = side === 'base' ? await tests.overlayRun() : await tests.headRun(0);
  const found = [];
  for (const t of matching(run.tests, id)) {
    const onBase = await tests.baseHasTestFile(t);
    const census = run.census?.get(pytestNodeId(t));
    found.push({ outcome: t, ...(onBase !== undefined ? { onBase } : {}), ...(census ? { census } : {}) });
  }
  return { label: run.label, census: run.census !== undefined, found };
}

/**
 * The claims of one run from its shards: everything but the property cells
 * is the whole matrix's and the same on every shard; each property cell is
 * resolved here against every shard's proofs and tests, as one run would.
 */
async function mergeClaims(parts: readonly LayerOutcome[], mctx: MergeContext): Promise<LayerOutcome> {
  const all = parts.map((p) => p.part as ClaimsPart);
  const first = all[0] as ClaimsPart;
  agreed(
    'the claims outside their property cells',
    all.map((a) => ({ ...a, deferred: a.deferred.map(({ tests: _t, ...d }) => d) })),
  );
  const findings = agreed(
    'the claim findings outside the property cells',
    parts.map((p) => p.findings),
  ).slice();
  const report = structuredClone(first.report);
  for (const [i, d] of first.deferred.entries()) {
    const shares = all.map((a) => a.deferred[i]?.tests);
    const r = await resolveProperty(d.property, {
      proofs: mctx.proofs,
      layersRun: first.layersRun,
      ...(shares.every((t) => t !== null) ? { testRun: async () => sharedRun(shares) } : {}),
      onBase: async (t) => onBaseOf(shares, t),
      headOnly: (file) => first.headOnly.includes(file),
      ...(first.preset ? { preset: first.preset } : {}),
    });
    const cells: Partial<Record<Cell, CellResult>> = {};
    const found: Finding[] = [];
    applyProperty(d.claim, d.property, r, cells, found);
    const rows = d.side === 'base' ? report.claims : (report.head_claims ?? []);
    const row = rows[d.row];
    if (row) row.cells = orderedCells({ ...row.cells, ...cells });
    pushAll(findings, d.side === 'base' ? found : found.map(asHeadFinding));
  }
  return { findings, artifacts: [{ name: CLAIMS_REPORT, content: jsonArtifact(report) }] };
}

/** The tests every shard found for a cell, as one run's. */
function sharedRun(shares: readonly (TestShare | null | undefined)[]): TestEvidenceRun {
  const present = shares.filter((t): t is TestShare => t !== null && t !== undefined);
  const label = agreed(
    'the run a test cell reads',
    present.map((t) => t.label),
  );
  const tests = present.flatMap((t) => t.found.map((f) => f.outcome));
  if (!present.every((t) => t.census)) return { label, tests };
  const census = new Map<string, TestCensus>();
  for (const t of present)
    for (const f of t.found) if (f.census) census.set(pytestNodeId(f.outcome), f.census);
  return { label, tests, census };
}

function onBaseOf(shares: readonly (TestShare | null | undefined)[], t: TestOutcome): boolean | undefined {
  for (const s of shares) for (const f of s?.found ?? []) if (f.outcome === t) return f.onBase;
  return undefined;
}

interface ClaimRow {
  claim: Claim;
  cells: Partial<Record<Cell, CellResult>>;
  statement: string[];
}

const reportRow = (r: ClaimRow) => ({
  id: r.claim.id,
  statement: r.claim.statement,
  source: r.claim.source,
  cells: orderedCells(r.cells),
  statement_problems: r.statement,
});

interface Judge {
  ctx: LayerContext;
  cfg: ClaimsConfig;
  ledger: ClaimLedger;
  locked: Map<string, string> | undefined;
  /** On a shard: where property cells go to wait for the merge. */
  deferred?: DeferredCell[];
  /** The row the claim being judged will have in claims.json, per side. */
  rows?: { base: number; head: number };
}

/**
 * One claim against this run's evidence. `base` rows are bound to the base's
 * tests on the head's code (the overlay run); `head` rows (the patch's own
 * edits of the matrix) to the head's own run, which is what the patch meant.
 */
async function judgeClaim(j: Judge, claim: Claim, side: 'base' | 'head', out: Finding[]): Promise<ClaimRow> {
  const { ctx, cfg } = j;
  const findings: Finding[] = [];
  const cells: Partial<Record<Cell, CellResult>> = {};
  for (const cell of CELLS) {
    if (claim[cell] !== undefined) continue;
    cells[cell] = { status: 'empty' };
    findings.push(
      finding(
        'CLAIM_UNBOUND',
        'reject',
        claim,
        `the ${cell} cell is empty: an empty cell is a merge blocker`,
        {
          cell,
          next: `fill the ${cell} cell of ${claim.id} in a human commit, or drop the claim`,
        },
      ),
    );
  }
  if (claim.fixture !== undefined)
    cells.fixture = await resolveFixture(ctx, claim, claim.fixture, j.locked, findings);
  if (claim.property !== undefined) {
    const tests = ctx.tests;
    if (j.deferred) {
      const ref = parsePropertyRef(claim.property);
      j.deferred.push({
        side,
        row: j.rows?.[side] ?? 0,
        claim: { id: claim.id, source: claim.source },
        property: claim.property,
        ...(ref.kind === 'test' ? { tests: await testShare(ctx, side, ref.id) } : {}),
      });
    } else {
      const r = await resolveProperty(claim.property, {
        proofs: ctx.proofs,
        layersRun: ctx.layersRun,
        ...(tests ? { testRun: () => (side === 'base' ? tests.overlayRun() : tests.headRun(0)) } : {}),
        onBase: async (t) => (tests ? tests.baseHasTestFile(t) : undefined),
        headOnly: (file) => ctx.overlay.headOnly.includes(file),
        ...(ctx.config.tests?.preset ? { preset: ctx.config.tests.preset } : {}),
      });
      applyProperty(claim, claim.property, r, cells, findings);
    }
  }
  if (claim.freeze !== undefined) cells.freeze = resolveFreeze(cfg, claim, claim.freeze, j.ledger, findings);
  const statement = cfg.statements === 'off' ? [] : lintStatement(claim.statement);
  for (const p of statement) {
    findings.push(
      finding(
        'CLAIM_STATEMENT_WEAK',
        cfg.statements === 'reject' ? 'reject' : 'warn',
        claim,
        `"${claim.statement}" ${p.message}`,
        {
          statement: claim.statement,
          problem: p.kind,
          next: 'rewrite the sentence to name the forbidden outcome, or drop the row (claims.statements sets the severity)',
        },
      ),
    );
  }
  pushAll(out, side === 'base' ? findings : findings.map(asHeadFinding));
  return { claim, cells, statement: statement.map((p) => p.kind) };
}

/** The property cell as resolved, and CLAIM_PROPERTY_MISSING when it binds nothing. */
function applyProperty(
  claim: Pick<Claim, 'id' | 'source'>,
  property: string,
  r: PropertyResolution,
  cells: Partial<Record<Cell, CellResult>>,
  findings: Finding[],
): void {
  cells.property = r.ok
    ? { value: property, status: 'bound', detail: r.detail }
    : { value: property, status: 'missing', why: r.why, detail: r.detail };
  if (!r.ok)
    findings.push(
      finding('CLAIM_PROPERTY_MISSING', 'reject', claim, `property ${property}: ${r.why}`, {
        cell: 'property',
        property,
        ...r.detail,
        next: r.next,
      }),
    );
}

/** The cells in the matrix's order, whatever order they were resolved in. */
function orderedCells(cells: Partial<Record<Cell, CellResult>>): Partial<Record<Cell, CellResult>> {
  const out: Partial<Record<Cell, CellResult>> = {};
  for (const c of CELLS) if (cells[c] !== undefined) out[c] = cells[c];
  return out;
}

const asHeadFinding = (f: Finding): Finding => ({
  ...f,
  message: `the patch's own matrix: ${f.message} (the base's matrix is what is judged; editing it is CONTRACT_TOUCHED)`,
  evidence: { ...f.evidence, side: 'head' },
});

/** The rows the patch added or changed in its copy of the matrix, and the rows it removed. */
async function judgeHeadMatrix(j: Judge, base: ClaimMatrix, out: Finding[]): Promise<ClaimRow[]> {
  const { ctx, cfg } = j;
  let head: ClaimMatrix;
  try {
    head = await readMatrix(ctx.snapshot.head, cfg.matrix, ctx.config.limits.contractBytes);
  } catch (err) {
    if (!(err instanceof ContractFileError)) throw err;
    // Not the base's: it decides nothing, and CONTRACT_TOUCHED already names the edit that broke it.
    return [];
  }
  const onBase = new Map(base.claims.map((c) => [c.id, c]));
  const onHead = new Set(head.claims.map((c) => c.id));
  const rows: ClaimRow[] = [];
  for (const claim of head.claims) {
    const was = onBase.get(claim.id);
    if (was && sameClaim(was, claim)) continue;
    j.rows = { base: 0, head: rows.length };
    rows.push(await judgeClaim(j, claim, 'head', out));
  }
  for (const claim of base.claims) {
    if (onHead.has(claim.id)) continue;
    out.push(
      asHeadFinding(
        finding('CLAIM_UNBOUND', 'reject', claim, 'the patch removed this claim from the matrix', {
          removed: true,
          next: 'claims are dropped by a human commit, never by the patch they judge',
        }),
      ),
    );
  }
  return rows;
}

/**
 * The fixture cell: a file on the head whose bytes a human locked in the
 * base. The fixtures layer checks those bytes against the lock; with it off,
 * no lock is checked, so no fixture cell can be filled.
 */
async function resolveFixture(
  ctx: LayerContext,
  claim: Claim,
  fixture: string,
  locked: Map<string, string> | undefined,
  findings: Finding[],
): Promise<CellResult> {
  const missing = (why: string, next: string, extra: Record<string, unknown> = {}): CellResult => {
    findings.push(
      finding('CLAIM_FIXTURE_MISSING', 'reject', claim, `fixture ${fixture} ${why}`, {
        cell: 'fixture',
        fixture,
        ...extra,
        next,
      }),
    );
    return { value: fixture, status: 'missing', why };
  };
  const bad = checkRepoPath(fixture);
  if (bad) return missing(bad, 'name a repository path');
  if (!locked)
    return missing(
      'cannot be checked: the fixtures layer is off, so no lock is verified',
      'turn the fixtures layer on in the base config',
    );
  const onHead = (await ctx.head.readCommitted(fixture)) !== undefined;
  if (!onHead)
    return missing('is not a file on the head', 'restore the fixture, or bind the claim to one that exists');
  if (locked.has(fixture))
    return { value: fixture, status: 'bound', detail: { digest: locked.get(fixture) } };
  const onBase = (await ctx.base.readCommitted(fixture)) !== undefined;
  if (!onBase) {
    const why =
      'is not locked in the base: it was born in this patch, so it was dumped by the code under review and is not evidence';
    findings.push(
      finding('CLAIM_FIXTURE_UNREVIEWED', 'reject', claim, `fixture ${fixture} ${why}`, {
        cell: 'fixture',
        fixture,
        base: 'absent',
        lock: ctx.config.fixtures.lock,
        next: `a human checks ${fixture} against a known source and locks it (patchgate lock) in a separate commit`,
      }),
    );
    return { value: fixture, status: 'unreviewed', why };
  }
  return missing(
    `is not locked (not in ${ctx.config.fixtures.lock} or fixtures.canonical of the base)`,
    `lock it with patchgate lock in a human commit`,
    {
      lock: ctx.config.fixtures.lock,
    },
  );
}

function resolveFreeze(
  cfg: ClaimsConfig,
  claim: Claim,
  cell: string,
  ledger: ClaimLedger,
  findings: Finding[],
): CellResult {
  const ref = parseFreezeRef(cell, cfg.ledger);
  if (!ref.ok) {
    const why = `names the ledger ${ref.ledger}, but the gate reads claims.ledger = ${cfg.ledger}`;
    findings.push(
      finding('CLAIM_FREEZE_MISSING', 'reject', claim, `freeze ${cell} ${why}`, {
        cell: 'freeze',
        freeze: cell,
        ledger: cfg.ledger,
        next: `write the cell as ${cfg.ledger}#${ref.id}, or as the id alone`,
      }),
    );
    return { value: cell, status: 'missing', why };
  }
  const entry = ledger.entries.get(ref.id);
  if (!entry) {
    const known = [...ledger.entries.keys()];
    const why = `id '${ref.id}' is absent from ${cfg.ledger}`;
    findings.push(
      finding('CLAIM_FREEZE_MISSING', 'reject', claim, `freeze ${why}`, {
        cell: 'freeze',
        freeze: ref.id,
        ledger: cfg.ledger,
        known: known.slice(0, 20),
        next: `add an open entry '${ref.id}' to ${cfg.ledger} in a human commit`,
      }),
    );
    return { value: cell, status: 'missing', why };
  }
  if (entry.status === 'blocked') {
    const why = `is blocked (${entry.failsInWindow} failure(s) in the last ${ledger.windowRuns} runs${entry.lastFail ? `, last ${entry.lastFail}` : ''})`;
    findings.push(
      finding(
        'FREEZE_BLOCKED',
        'reject',
        claim,
        `freeze '${ref.id}' ${why}: its check cannot vote green until a human reopens it`,
        {
          cell: 'freeze',
          freeze: ref.id,
          ledger: cfg.ledger,
          ...(entry.line !== undefined ? { ledgerLine: entry.line } : {}),
          status: entry.status,
          fails_in_window: entry.failsInWindow,
          window_runs: ledger.windowRuns,
          ...(entry.lastFail ? { last_fail: entry.lastFail } : {}),
          next: `fix the cause, then a human runs: patchgate freeze reopen ${ref.id} --reason TEXT --owner WHO (and commits ${cfg.ledger} on its own)`,
        },
      ),
    );
    return { value: cell, status: 'blocked', why };
  }
  return { value: cell, status: 'bound', detail: { freeze: ref.id, fails_in_window: entry.failsInWindow } };
}

/**
 * With claims.coverage on: the production hunks of the patch that no claim's
 * `covers` reaches, each with the behaviour it adds (what `claims suggest`
 * lists), so the reviewer can write the missing claim.
 */
async function uncoveredChanges(
  ctx: LayerContext,
  cfg: ClaimsConfig,
  matrix: ClaimMatrix,
): Promise<Finding[]> {
  const side = testSideFor(ctx.config, ctx.overlay.named);
  const contract = new Set(ctx.contracts.filter((c) => !c.glob).map((c) => c.path));
  const globs = picomatch([...cfg.matrix, ...ctx.config.contracts.protect], { dot: true });
  const hunks = (await ctx.hunks()).filter(
    (h) =>
      !side.isTestPath(h.file) &&
      !contract.has(h.file) &&
      !globs(h.file) &&
      h.file !== ctx.configFile &&
      languageOf(h.file) !== 'prose',
  );
  if (hunks.length === 0) return [];
  const suggestion = await suggestClaims({
    hunks,
    readHead: (f) => ctx.head.readCommitted(f),
    readBase: (f) => ctx.base.readCommitted(f),
    python: sandboxedPythonCandidates({
      sandbox: ctx.sandbox,
      logDir: ctx.logDir,
      signal: ctx.signal,
      python: cfg.python,
    }),
  });
  const covers = matrix.claims.flatMap((c) => c.covers);
  const spansOf = (f: string) => suggestion.spans.get(f) ?? [];
  const severity: Severity = cfg.coverage === 'reject' ? 'reject' : 'warn';
  const pieces = hunks.flatMap((h) => bySymbol(h, spansOf(h.file)));
  return uncoveredHunks(pieces, spansOf, covers).map((h) => {
    const [first, last] = hunkLines(h);
    const symbol = enclosingSymbol(spansOf(h.file), first);
    const adds = suggestion.candidates.filter((c) => c.file === h.file && c.line >= first && c.line <= last);
    const what = adds.length > 0 ? `: adds ${adds.map((c) => `${c.kind} \`${c.text}\``).join(', ')}` : '';
    const at = first === last ? `${first}` : `${first}-${last}`;
    return {
      code: 'CLAIM_UNCOVERED_CHANGE' as const,
      layer: LAYER,
      severity,
      message: `${h.file}:${at}${symbol ? ` (${symbol})` : ''} is covered by no claim${what.slice(0, 300)}`,
      evidence: {
        file: h.file,
        line: first,
        lines: [first, last],
        ...(symbol ? { symbol } : {}),
        candidates: adds.map((c) => ({
          kind: c.kind,
          line: c.line,
          text: c.text,
          ...(c.detail ? { detail: c.detail } : {}),
        })),
        next: `write a claim for it with covers: [${h.file}${symbol ? `#${symbol}` : ''}] in a human commit (patchgate claims suggest --base REV drafts the rows)`,
      },
    };
  });
}

/**
 * A hunk cut at symbol boundaries: git joins an edit of one function and a
 * new function next to it into one hunk, and a claim covering the first must
 * not cover the second. Blank lines between symbols belong to neither.
 */
function bySymbol(h: Hunk, spans: readonly Span[]): Hunk[] {
  if (h.added.length === 0 || spans.length === 0) return [h];
  const groups = new Map<string, Hunk['added']>();
  for (const l of h.added) {
    if (l.text.trim() === '') continue;
    const key = enclosingSymbol(spans, l.line) ?? '';
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  if (groups.size <= 1) return [h];
  return [...groups.values()].map((lines) => {
    const first = lines[0]?.line ?? h.newStart;
    const last = lines.at(-1)?.line ?? first;
    return { ...h, newStart: first, newLines: last - first + 1, added: lines, removed: [] };
  });
}
