import type { Tape, TapeRow } from '../../contracts/seed-tape.js';
import type { Finding } from '../types.js';

const LAYER = 'seeds';

function where(tape: Tape, row: TapeRow): { file: string; line?: number } {
  return row.line === undefined ? { file: tape.file } : { file: tape.file, line: row.line };
}

/**
 * The tape's two rules, base against head: seeds only grow, and
 * `min_examples` may stay or rise. A stored counterexample or path is part
 * of what a seed records, so losing one is a dropped seed too. `headProblem`
 * is why the head has no readable tape (deleted, or invalid): then every
 * base seed is dropped.
 */
export function compareTapes(base: Tape, head: Tape | undefined, headProblem?: string): Finding[] {
  const findings: Finding[] = [];
  const headRows = new Map((head?.rows ?? []).map((r) => [r.id, r]));
  for (const row of base.rows) {
    const h = headRows.get(row.id);
    const at = where(base, row);
    if (!h) {
      const why = head
        ? `property '${row.id}' is gone from the head's tape`
        : `the head has no readable tape (${headProblem ?? 'deleted'})`;
      for (const s of row.seeds) {
        findings.push({
          code: 'SEED_DROPPED',
          layer: LAYER,
          severity: 'reject',
          message: `seed ${s.seed} of '${row.id}' was dropped: ${why}`,
          evidence: { property: row.id, seed: s.seed, ...at },
        });
      }
      if (row.seeds.length === 0 && head) {
        findings.push({
          code: 'SEED_DROPPED',
          layer: LAYER,
          severity: 'reject',
          message: `property '${row.id}' and its floor of ${row.min_examples} examples were dropped from the tape`,
          evidence: { property: row.id, min_examples: row.min_examples, ...at },
        });
      }
      continue;
    }
    const headSeeds = new Map(h.seeds.map((s) => [s.seed, s]));
    for (const s of row.seeds) {
      const hs = headSeeds.get(s.seed);
      const lost = !hs
        ? 'seed'
        : s.counterexample !== undefined && hs.counterexample === undefined
          ? 'counterexample'
          : s.path !== undefined && hs.path === undefined
            ? 'path'
            : undefined;
      if (!lost) continue;
      findings.push({
        code: 'SEED_DROPPED',
        layer: LAYER,
        severity: 'reject',
        message:
          lost === 'seed'
            ? `seed ${s.seed} of '${row.id}' is missing on the head's tape; seeds only grow`
            : `seed ${s.seed} of '${row.id}' lost its stored ${lost} on the head's tape`,
        evidence: { property: row.id, seed: s.seed, dropped: lost, ...at },
      });
    }
    if (h.min_examples < row.min_examples) {
      findings.push({
        code: 'MIN_EXAMPLES_LOWERED',
        layer: LAYER,
        severity: 'reject',
        message: `'${row.id}' min_examples lowered from ${row.min_examples} to ${h.min_examples}; the floor may stay or rise`,
        evidence: {
          property: row.id,
          field: 'min_examples',
          base: row.min_examples,
          head: h.min_examples,
          ...at,
        },
      });
    }
  }
  return findings;
}
