import type { Finding, FrozenItem } from '../../layers/types.js';
import type { ClaimsReport } from './artifacts.js';
import { esc, longText, scrollingTable } from './escape.js';

/**
 * Every freeze that mattered in this run, in one table: the scorecard's
 * frozen items (the flake ledger of the hits layer, signature and stability
 * freezes) and the claim matrix's freeze windows, open or blocked. Each row
 * says who owns it, why, until when, what will end it, and what it covered.
 */

/** Within this many days of `today` an expiry is highlighted as near. */
export const NEAR_EXPIRY_DAYS = 14;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function dayNumber(date: string): number | undefined {
  const m = DATE.exec(date);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Date.UTC rolls 2026-02-31 over into March; a date that does not round-trip is not a date.
  if (new Date(t).toISOString().slice(0, 10) !== date) return undefined;
  return t / 86_400_000;
}

export type ExpiryState = 'expired' | 'near' | 'ok';

/** How an expiry date stands against today: a freeze holds through its expiry day. */
export function expiryOf(expires: string, today: string): { state: ExpiryState; text: string } {
  const e = dayNumber(expires);
  const t = dayNumber(today);
  if (e === undefined || t === undefined)
    return { state: 'expired', text: 'not a valid date (counts as expired)' };
  const days = e - t;
  if (days < 0) return { state: 'expired', text: `expired ${-days} day${days === -1 ? '' : 's'} ago` };
  if (days === 0) return { state: 'near', text: 'expires today' };
  if (days <= NEAR_EXPIRY_DAYS)
    return { state: 'near', text: `expires in ${days} day${days === 1 ? '' : 's'}` };
  return { state: 'ok', text: `${days} days left` };
}

const KIND: Record<string, string> = {
  hits: 'flake ledger (hits)',
  signatures: 'signature freeze',
  stability: 'stability freeze',
  regression: 'signature freeze (regression)',
  claims: 'claim freeze window',
};

interface Row {
  kind: string;
  covers: string;
  cause: string;
  owner: string;
  expires: string;
  state: string;
  stateClass: string;
  action: string;
  source: string;
}

const where = (file: string, line: number | undefined) => (line !== undefined ? `${file}:${line}` : file);

function frozenRow(z: FrozenItem, today: string): Row {
  const exp = expiryOf(z.expires, today);
  const kind = KIND[z.layer] ?? `${z.layer} freeze`;
  return {
    // A row `patchgate baseline` wrote is a human-committed freeze all the same; the reader sees where it came from.
    kind: z.origin === 'baseline' ? `${kind} (baseline row)` : kind,
    covers: z.covers,
    cause: [z.cause, z.matched].filter((s) => s !== undefined && s !== '').join(' · '),
    owner: z.owner,
    expires: z.expires,
    state: exp.text,
    stateClass: exp.state,
    action: z.action,
    source: where(z.source.file, z.source.line),
  };
}

const s = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

function claimRows(claims: ClaimsReport | undefined, findings: readonly Finding[]): Row[] {
  const blocked = findings.filter((f) => f.code === 'FREEZE_BLOCKED');
  const rows: Row[] = [];
  const seen = new Set<string>();
  for (const c of claims?.claims ?? []) {
    const cell = c.cells.freeze;
    if (!cell || (cell.status !== 'bound' && cell.status !== 'blocked')) continue;
    // A bound cell names its entry in `detail`; a blocked one only as its value, `ledger#id`.
    const id = s(cell.detail?.freeze) ?? cell.value?.slice(cell.value.lastIndexOf('#') + 1) ?? '';
    const f = blocked.find((b) => b.evidence.claim === c.id && b.evidence.freeze === id);
    const fails = s(cell.detail?.fails_in_window ?? f?.evidence.fails_in_window);
    const runs = claims?.window_runs;
    const window = fails !== undefined ? `${fails} failure(s) in the last ${runs ?? '?'} runs` : '';
    seen.add(`${c.id}\0${id}`);
    rows.push({
      kind: KIND.claims ?? 'claim freeze',
      covers: `${c.id}${c.cells.property?.value ? `: ${c.cells.property.value}` : ''}`,
      cause: cell.status === 'blocked' ? (cell.why ?? window) : window,
      owner: '—',
      expires: '—',
      state: cell.status === 'blocked' ? 'blocked' : 'open',
      stateClass: cell.status === 'blocked' ? 'expired' : 'ok',
      action:
        s(f?.evidence.next) ?? (cell.status === 'blocked' ? 'a human reopens it after fixing the cause' : ''),
      source: `${claims?.ledger ?? ''}#${id}${f && s(f.evidence.ledgerLine) ? ` (line ${s(f.evidence.ledgerLine)})` : ''}`,
    });
  }
  // A blocked freeze the findings name but no claims.json row shows (the artifact is missing or unreadable).
  for (const f of blocked) {
    const claim = s(f.evidence.claim) ?? '';
    const id = s(f.evidence.freeze) ?? '';
    if (seen.has(`${claim}\0${id}`)) continue;
    const ledger = s(f.evidence.ledger) ?? '';
    rows.push({
      kind: KIND.claims ?? 'claim freeze',
      covers: claim,
      cause: f.message,
      owner: '—',
      expires: '—',
      state: 'blocked',
      stateClass: 'expired',
      action: s(f.evidence.next) ?? '',
      source: `${ledger}#${id}`,
    });
  }
  return rows;
}

export function freezesSection(
  frozen: readonly FrozenItem[],
  claims: ClaimsReport | undefined,
  findings: readonly Finding[],
  today: string,
): string {
  const rows = [...frozen.map((z) => frozenRow(z, today)), ...claimRows(claims, findings)];
  if (rows.length === 0) return '';
  const body = rows.map(
    (r) => `<tr class="freeze exp-${r.stateClass}">
<td>${esc(r.kind)}</td>
<th scope="row"><code>${longText(r.covers, 120)}</code></th>
<td>${r.cause ? longText(r.cause, 160) : '—'}</td>
<td>${esc(r.owner)}</td>
<td><time>${esc(r.expires)}</time></td>
<td class="state"><span class="badge exp-${r.stateClass}">${esc(r.state)}</span></td>
<td class="action">${r.action ? longText(r.action, 160) : '—'}</td>
<td><code>${esc(r.source)}</code></td>
</tr>`,
  );
  return `<section id="freezes" aria-labelledby="freezes-h">
<h2 id="freezes-h">Freezes</h2>
<p>Human-owned freezes that covered something in this run: what they cover is listed, never counted as a hit or a pass. A <em>baseline row</em> was written by <code>patchgate baseline</code> for a failure or skip the suite already had when patchgate was adopted, and committed after review. Expired and near-expiry (within ${NEAR_EXPIRY_DAYS} days of ${esc(today)}) rows are highlighted.</p>
${scrollingTable('freezes-h', 'class="freezes"', '<tr><th scope="col">kind</th><th scope="col">covered in this run</th><th scope="col">cause or signature</th><th scope="col">owner</th><th scope="col">expires</th><th scope="col">state</th><th scope="col">action</th><th scope="col">row</th></tr>', body)}
</section>`;
}
