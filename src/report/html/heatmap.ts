import type { HitRow, HitSide } from './artifacts.js';
import { attrs, esc, plural, scrollingTable } from './escape.js';

/**
 * The hit matrix as a heatmap: one table per revision scored (base, head,
 * and the overlay when the base's properties also ran on the head's code),
 * side by side, with the same rows (properties) and columns (the fixture
 * paths any side hit or claimed), so a cell can be compared across them.
 */

export type CellState = 'hit' | 'unclaimed' | 'false-claim' | 'lost';

export const STATE_TEXT: Record<CellState, string> = {
  hit: 'hit (claimed, and perturbing it fails the property)',
  unclaimed: 'unclaimed hit (perturbing it fails the property, which does not claim it)',
  'false-claim': 'claimed but no hit (perturbing it never changes the outcome)',
  lost: 'lost since base (a hit on the base, not on this side)',
};

const SYMBOL: Record<CellState, string> = { hit: '●', unclaimed: '◆', 'false-claim': '○', lost: '✕' };
const FEWER = '◐';

const SIDE_TITLE: Record<HitSide, string> = {
  base: 'base',
  head: 'head',
  overlay: "overlay (the base's properties on the head's code)",
};

/** Paths in reading order: `lines[2]` before `lines[10]`, a parent before its fields. */
export function comparePaths(a: string, b: string): number {
  const pa = a.split(/(\d+)/);
  const pb = b.split(/(\d+)/);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    if (i % 2 === 1) return Number(x) - Number(y) || (x < y ? -1 : 1);
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

interface Column {
  fixture: string;
  path: string;
}

/** Every property of any side, in the order the sides list them (base first). */
function propertiesOf(sides: readonly (readonly HitRow[])[]): string[] {
  const seen = new Set<string>();
  for (const rows of sides) for (const r of rows) seen.add(r.property);
  return [...seen];
}

/** The columns: per fixture (in first-seen order), every path some side hit or claimed. */
function columnsOf(sides: readonly (readonly HitRow[])[]): Column[] {
  const byFixture = new Map<string, Set<string>>();
  for (const rows of sides)
    for (const r of rows) {
      const paths = byFixture.get(r.fixture) ?? new Set<string>();
      byFixture.set(r.fixture, paths);
      for (const p of [...r.hits, ...r.claimed, ...r.false_claims, ...r.unclaimed_hits]) paths.add(p);
      for (const p of Object.keys(r.hit_operators)) paths.add(p);
    }
  return [...byFixture].flatMap(([fixture, paths]) =>
    [...paths].sort(comparePaths).map((path) => ({ fixture, path })),
  );
}

const isHit = (r: HitRow, path: string) => r.hits.includes(path) || Object.hasOwn(r.hit_operators, path);

export interface CellInfo {
  state: CellState;
  ops: string[];
  /** Operators that flipped it on the base and no longer do here. */
  lostOps: string[];
}

/** One cell of `row` (this side) against `baseRow` (the base's row of the same property), or undefined when empty. */
export function cellOf(
  row: HitRow | undefined,
  baseRow: HitRow | undefined,
  path: string,
): CellInfo | undefined {
  const ops = row ? (row.hit_operators[path] ?? []) : [];
  const hit = row !== undefined && row.baseline === 'pass' && isHit(row, path);
  const baseHit =
    baseRow !== undefined && baseRow !== row && baseRow.baseline === 'pass' && isHit(baseRow, path);
  const baseOps = baseHit ? (baseRow.hit_operators[path] ?? []) : [];
  if (baseHit && !hit) return { state: 'lost', ops: [], lostOps: baseOps };
  const lostOps = baseHit ? baseOps.filter((op) => !ops.includes(op)) : [];
  const claimed = row?.claimed.includes(path) === true;
  if (hit) return { state: claimed ? 'hit' : 'unclaimed', ops, lostOps };
  if (row && claimed && row.baseline === 'pass') return { state: 'false-claim', ops: [], lostOps: [] };
  return undefined;
}

/** What every cell of one row, or of one column, shares: escaped once, not once per cell (a heatmap has tens of thousands). */
interface Escaped {
  property: string;
  fixture: string;
  path: string;
}

function cellButton(side: HitSide, at: Escaped, cell: CellInfo): string {
  const fewer = cell.state !== 'lost' && cell.lostOps.length > 0;
  const state = esc(STATE_TEXT[cell.state]);
  const label = `${at.property}, ${at.path}: ${state}${fewer ? ', by fewer operators than on the base' : ''} (${side})`;
  const title =
    cell.state === 'lost'
      ? `operators on the base: ${cell.lostOps.join(', ') || 'none'}`
      : `operators: ${cell.ops.join(', ') || 'none'}`;
  return `<button type="button" class="cell s-${cell.state}${fewer ? ' fewer' : ''}" aria-label="${label}"${attrs(
    {
      title,
      'data-side': side,
    },
  )} data-property="${at.property}" data-fixture="${at.fixture}" data-path="${at.path}" data-state="${state}"${attrs(
    {
      'data-ops': JSON.stringify(cell.ops),
      'data-lost-ops': JSON.stringify(cell.lostOps),
    },
  )}><span aria-hidden="true">${fewer ? FEWER : SYMBOL[cell.state]}</span></button>`;
}

function rowHeader(side: HitSide, property: string, row: HitRow | undefined): { html: string; cls: string } {
  const notes: string[] = [];
  let cls = 'prop';
  if (!row) {
    notes.push(`<span class="badge absent">not on the ${side === 'base' ? 'base' : side}</span>`);
    cls += ' absent';
  } else if (row.baseline !== 'pass') {
    notes.push(`<span class="badge status-reject">baseline ${esc(row.baseline)}</span>`);
    cls += ' baseline-fail';
  } else if (row.hit_count === 0) {
    notes.push('<span class="badge zero">zero hits</span>');
    cls += ' zero-hit';
  } else notes.push(`<span class="count">${plural(row.hit_count, 'hit')}</span>`);
  return {
    html: `<th scope="row" class="${cls}"><code>${esc(property)}</code> ${notes.join(' ')}</th>`,
    cls,
  };
}

function sideTable(
  side: HitSide,
  rows: readonly HitRow[],
  base: readonly HitRow[] | undefined,
  properties: readonly string[],
  columns: readonly Column[],
): string {
  const fixtures = [...new Set(columns.map((c) => c.fixture))];
  const byName = new Map(rows.map((r) => [r.property, r]));
  const baseByName = new Map((side === 'base' ? [] : (base ?? [])).map((r) => [r.property, r]));
  const counts: Record<CellState, number> = { hit: 0, unclaimed: 0, 'false-claim': 0, lost: 0 };
  const paths = columns.map((c) => esc(c.path));
  const fixtureOf = columns.map((c) => esc(c.fixture));
  const body = properties.map((property) => {
    const row = byName.get(property);
    const baseRow = baseByName.get(property);
    const header = rowHeader(side, property, row);
    const fixture = row?.fixture ?? baseRow?.fixture;
    const shown = esc(property);
    const tds = columns.map((col, i) => {
      if (col.fixture !== fixture) return '<td class="na"></td>';
      const cell = cellOf(row, baseRow?.fixture === col.fixture ? baseRow : undefined, col.path);
      if (!cell) return '<td class="none"></td>';
      counts[cell.state]++;
      const at = { property: shown, fixture: fixtureOf[i] as string, path: paths[i] as string };
      return `<td class="s-${cell.state}">${cellButton(side, at, cell)}</td>`;
    });
    return `<tr class="${header.cls.replace('prop', 'prop-row')}">${header.html}${tds.join('')}</tr>`;
  });
  const groupRow =
    fixtures.length > 1
      ? `<tr><td></td>${fixtures
          .map(
            (f) =>
              `<th scope="colgroup" colspan="${columns.filter((c) => c.fixture === f).length}"><code>${esc(f)}</code></th>`,
          )
          .join('')}</tr>`
      : '';
  const pathRow = `<tr><th scope="col" class="corner">property${fixtures.length === 1 ? ` <span class="note">× paths of <code>${esc(fixtures[0] ?? '')}</code></span>` : ''}</th>${columns
    .map((c) => `<th scope="col" class="path"><span><code>${esc(c.path)}</code></span></th>`)
    .join('')}</tr>`;
  const summary = [
    plural(counts.hit + counts.unclaimed, 'hit path'),
    counts.unclaimed > 0 ? `${counts.unclaimed} unclaimed` : '',
    counts['false-claim'] > 0 ? plural(counts['false-claim'], 'false claim') : '',
    counts.lost > 0 ? `${counts.lost} lost since base` : '',
  ].filter((s) => s !== '');
  return `<section class="side side-${side}" aria-labelledby="heat-${side}-h">
<h3 id="heat-${side}-h">${esc(SIDE_TITLE[side])}</h3>
<p class="note">${esc(summary.join(', '))}</p>
${scrollingTable(`heat-${side}-h`, `class="heatmap" data-side="${side}"`, `${groupRow}${pathRow}`, body)}
</section>`;
}

const LEGEND = `<ul class="legend" aria-label="legend">
<li><span class="swatch s-hit" aria-hidden="true">${SYMBOL.hit}</span> hit: claimed, and perturbing it fails the property</li>
<li><span class="swatch s-unclaimed" aria-hidden="true">${SYMBOL.unclaimed}</span> unclaimed hit: it fails the property, which does not claim it</li>
<li><span class="swatch s-false-claim" aria-hidden="true">${SYMBOL['false-claim']}</span> claimed but no hit (a false claim)</li>
<li><span class="swatch s-lost" aria-hidden="true">${SYMBOL.lost}</span> lost since base: a hit on the base, not on this side</li>
<li><span class="swatch s-hit" aria-hidden="true">${FEWER}</span> still a hit, but by fewer operators than on the base</li>
<li><span class="swatch zero" aria-hidden="true">0</span> a row marked <em>zero hits</em>: nothing can make that property fail</li>
</ul>`;

export function heatmapSection(hits: Partial<Record<HitSide, HitRow[]>>): string {
  const sides = (['base', 'head', 'overlay'] as const).filter((s) => hits[s] !== undefined);
  if (sides.length === 0) return '';
  const lists = sides.map((s) => hits[s] ?? []);
  const properties = propertiesOf(lists);
  const columns = columnsOf(lists);
  const tables =
    properties.length === 0
      ? '<p>No property was scored.</p>'
      : `<div class="sides">${sides.map((s) => sideTable(s, hits[s] ?? [], hits.base, properties, columns)).join('\n')}</div>
<div id="cell-detail" class="panel" role="status" aria-live="polite" aria-atomic="true">
<p class="placeholder">Choose a cell (click it, or focus it and press Enter) to list the operators that made the property fail there.</p>
</div>`;
  return `<section id="hits" aria-labelledby="hits-h">
<h2 id="hits-h">Hit matrix</h2>
<p>Rows are properties, columns are the paths of their locked fixture. A cell is a hit when perturbing that path makes the property fail: the more hits, the more ways the property can catch a bug.</p>
${LEGEND}
${tables}
</section>`;
}
