import type { ReasonCode } from '../../codes.js';
import {
  ALLOWED_CAUSES,
  type FlakeLedger,
  type FlakeLedgerRule,
  isCauseClass,
  ledgerRowToFreeze,
} from '../../freeze/flake-ledger.js';
import { type Freeze, isExpired } from '../../freeze/model.js';
import { pushAll } from '../../util/arrays.js';
import type { Evidence, Finding } from '../types.js';

/**
 * The CI rules of the cause-class flake ledger, as a pure function of the
 * ledger, the base's properties and its fixture lock. It never reads the
 * clock or the disk: `today` and the lock facts are passed in.
 */

const LAYER = 'hits';

export interface LedgerInput {
  ledger: FlakeLedger;
  /** Repo-relative path of the ledger, for evidence. */
  file: string;
  /** YYYY-MM-DD, already validated (CI_DATE / --today / the CI clock). */
  today: string;
  /** The properties that exist on the base, by name. */
  properties: Map<string, { fixture: string; claims: string[] }>;
  /** The locked digest of a fixture; undefined when the fixture is not locked. */
  fixtureDigest(fixture: string): string | undefined;
  /** True when the claimed path exists in the locked fixture. */
  claimLivesInLock(fixture: string, claim: string): boolean;
}

/** A ledger row naming a property that does not exist on the base. */
export interface StaleRow {
  property: string;
  index: number;
  line?: number;
}

export interface LedgerVerdict {
  /** Every rule violation, in row order (per-row rules), then CLOCK-cap findings by their first row. */
  findings: Finding[];
  /** property → the row that validly freezes it (the first rule-abiding row for that property). */
  active: Map<string, Freeze>;
  /**
   * Rows for properties that do not exist on the base, in row order.
   *
   * Not a finding on their own: such a row freezes nothing, so it cannot hide
   * a flake (a misspelt row leaves the real property unfrozen and its flake
   * still fails as FLAKE_UNCLASSIFIED), and none of the ledger codes
   * describes "names no property". Rejecting every patch because a human
   * deleted or renamed a property without pruning the ledger would block
   * unrelated work. The caller shows them so a human can prune the ledger.
   *
   * A stale row is still checked by every rule that does not need the
   * property (cause class, freeze_hits, action, expiry, the CLOCK cap), as
   * a ledger row is invalid without them whatever its property; the digest and
   * EXTERNAL_IO rules need the property's fixture and are skipped.
   */
  stale: StaleRow[];
}

function evidence(
  file: string,
  index: number,
  row: FlakeLedgerRule,
  field: string,
  value: unknown,
  extra: Evidence = {},
): Evidence {
  return { file, row: index, line: row.line ?? null, property: row.property, field, value, ...extra };
}

function where(file: string, index: number, row: FlakeLedgerRule): string {
  return row.line === undefined ? `${file} row ${index}` : `${file}:${row.line} (row ${index})`;
}

function finding(code: ReasonCode, message: string, ev: Evidence): Finding {
  return { code, layer: LAYER, severity: 'reject', message, evidence: ev };
}

/** The findings of the rules that look at one row alone, in a fixed order. */
function rowFindings(input: LedgerInput, index: number, row: FlakeLedgerRule): Finding[] {
  const { file } = input;
  const at = where(file, index, row);
  const out: Finding[] = [];

  if (!isCauseClass(row.cause_class)) {
    out.push(
      finding(
        'LEDGER_UNKNOWN_CAUSE',
        `${at}: cause_class '${row.cause_class}' for property '${row.property}' is not an allowed cause class (allowed: ${ALLOWED_CAUSES.join(', ')}).`,
        evidence(file, index, row, 'cause_class', row.cause_class, { allowed: [...ALLOWED_CAUSES] }),
      ),
    );
  }

  if (row.freeze_hits) {
    out.push(
      finding(
        'LEDGER_FREEZE_HITS',
        `${at}: the row for '${row.property}' sets freeze_hits: true. The hit scorer cannot be frozen; remove the flag.`,
        evidence(file, index, row, 'freeze_hits', true),
      ),
    );
  }

  if (row.action.trim() === '') {
    out.push(
      finding(
        'LEDGER_NO_ACTION',
        `${at}: the row for '${row.property}' has no action. Without a next step the freeze is a skip; write what will fix the property.`,
        evidence(file, index, row, 'action', row.action),
      ),
    );
  }

  if (isExpired(row, input.today)) {
    out.push(
      finding(
        'LEDGER_EXPIRED',
        `${at}: the freeze for '${row.property}' expired on ${row.expires} (today is ${input.today}). The property runs unfrozen.`,
        evidence(file, index, row, 'expires', row.expires, { today: input.today }),
      ),
    );
  }

  const property = input.properties.get(row.property);
  if (!property) return out;

  const expected = input.fixtureDigest(property.fixture);
  if (expected === undefined || row.fixture_digest !== expected) {
    const why =
      expected === undefined
        ? `its fixture ${property.fixture} is not locked`
        : `the lock has ${expected} for ${property.fixture}`;
    out.push(
      finding(
        'LEDGER_DIGEST_MISMATCH',
        `${at}: fixture_digest ${row.fixture_digest || "''"} for '${row.property}' does not match the lock: ${why}.`,
        evidence(file, index, row, 'fixture_digest', row.fixture_digest, {
          fixture: property.fixture,
          expected: expected ?? null,
          actual: row.fixture_digest,
        }),
      ),
    );
  }

  if (row.cause_class === 'EXTERNAL_IO') {
    // With no claims at all this holds vacuously: a property that reads nothing
    // from its fixture and needs I/O belongs in a contract suite, not the unit lock.
    const allLocked = property.claims.every((c) => input.claimLivesInLock(property.fixture, c));
    if (allLocked) {
      out.push(
        finding(
          'LEDGER_EXTERNAL_IO_INVALID',
          `${at}: EXTERNAL_IO freeze for '${row.property}', but every field it claims (${property.claims.join(', ') || 'none'}) lives in the locked fixture ${property.fixture}. The I/O does not belong in this property.`,
          evidence(file, index, row, 'cause_class', row.cause_class, {
            fixture: property.fixture,
            claims: [...property.claims],
          }),
        ),
      );
    }
  }
  return out;
}

export function applyLedgerRules(input: LedgerInput): LedgerVerdict {
  const { file, ledger } = input;
  const findings: Finding[] = [];
  const broken = new Set<number>();
  const stale: StaleRow[] = [];

  ledger.rules.forEach((row, index) => {
    const own = rowFindings(input, index, row);
    if (own.length > 0) broken.add(index);
    pushAll(findings, own);
    if (!input.properties.has(row.property)) {
      stale.push(
        row.line === undefined
          ? { property: row.property, index }
          : { property: row.property, index, line: row.line },
      );
    }
  });

  // CLOCK cap: at most one unexpired CLOCK row per property. Every row in an
  // over-cap group is broken, whatever else is wrong with it: the way out is
  // to delete the freezes and fix the property, not to pick one.
  const clockRows = new Map<string, number[]>();
  ledger.rules.forEach((row, index) => {
    if (row.cause_class !== 'CLOCK' || isExpired(row, input.today)) return;
    const list = clockRows.get(row.property);
    if (list) list.push(index);
    else clockRows.set(row.property, [index]);
  });
  const capGroups = [...clockRows.entries()]
    .filter(([, rows]) => rows.length > 1)
    .sort((a, b) => (a[1][0] as number) - (b[1][0] as number));
  for (const [property, indices] of capGroups) {
    const first = indices[0] as number;
    const firstRow = ledger.rules[first] as FlakeLedgerRule;
    const rows = indices.map((i) => {
      const r = ledger.rules[i] as FlakeLedgerRule;
      return { row: i, line: r.line ?? null, owner: r.owner, expires: r.expires };
    });
    const named = rows.map((r) => (r.line === null ? `row ${r.row}` : `row ${r.row} (line ${r.line})`));
    for (const i of indices) broken.add(i);
    findings.push(
      finding(
        'LEDGER_CLOCK_CAP',
        `${file}: ${indices.length} active CLOCK freezes for '${property}': ${named.join(', ')}. At most one is allowed; delete them and fix the property.`,
        evidence(file, first, firstRow, 'cause_class', 'CLOCK', { rows }),
      ),
    );
  }

  const active = new Map<string, Freeze>();
  ledger.rules.forEach((row, index) => {
    if (broken.has(index) || !input.properties.has(row.property) || active.has(row.property)) return;
    active.set(row.property, ledgerRowToFreeze(row, index, file));
  });

  return { findings, active, stale };
}
