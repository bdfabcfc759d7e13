/**
 * The mutation probe's judgement, from what its runs showed: which mutants
 * the base's tests killed on the base and on the head's code, per changed
 * function. Pure, so a sharded run's parts (each shard's share of the tests
 * run against every mutant) are put together and judged the same way.
 */
import type { Finding, Severity } from '../types.js';
import type { MutationOperator } from './mutant.js';

/**
 * What the base's tests did to one mutant on one checkout. `killed`: a test
 * that passes with the file unchanged failed, errored or vanished, or the run
 * timed out or crashed (`how`); `survived`: every such test passed;
 * `unreached`: no selected test passes with the file unchanged; `not-run`:
 * not there, or not needed (on the base: the head's code killed it, so it
 * cannot be a shrink; on the head: a new mutant after its function was seen).
 */
export interface SideVerdict {
  status: 'killed' | 'survived' | 'unreached' | 'not-run';
  how?: 'failed' | 'timeout' | 'crash' | 'resource';
  /** The tests that caught it (a few). */
  by?: string[];
}

export interface MutantResult {
  id: string;
  operator: MutationOperator;
  /** Head line, and the code before and after. */
  line: number;
  original: string;
  mutated: string;
  /** The same mutant exists on the base (its function kept that code). */
  onBase: boolean;
  base: SideVerdict;
  head: SideVerdict;
}

export interface FunctionResult {
  file: string;
  function: string;
  changed: number[];
  onBase: boolean;
  /** Mutants the budget left out. */
  skipped: number;
  mutants: MutantResult[];
}

/** A check that the probe could not change the head's code as it changes the base's. */
export interface Defeat {
  file: string;
  why: string;
  tests?: string[];
}

export interface MutationPart {
  /** The base's test files that reach the changed files (every test file when the scope is `all`). */
  testFiles: string[];
  scope: 'all' | 'affected';
  functions: FunctionResult[];
  skipped: number;
  defeats: Defeat[];
}

const RANK: Record<SideVerdict['status'], number> = { 'not-run': 0, unreached: 1, survived: 2, killed: 3 };

/** One mutant's verdicts on several shards as one: killed if any shard's tests killed it. */
function mergeVerdicts(vs: readonly SideVerdict[]): SideVerdict {
  let best: SideVerdict = { status: 'not-run' };
  for (const v of vs) if (RANK[v.status] > RANK[best.status]) best = v;
  if (best.status !== 'killed') return best;
  const by = [...new Set(vs.flatMap((v) => (v.status === 'killed' ? (v.by ?? []) : [])))].slice(0, 5);
  return { ...best, ...(by.length > 0 ? { by } : {}) };
}

/** The parts of a sharded run (each with every mutant, each shard's tests) as the part one run gives. */
export function mergeMutationParts(parts: readonly MutationPart[]): MutationPart {
  const first = parts[0];
  if (!first) return { testFiles: [], scope: 'affected', functions: [], skipped: 0, defeats: [] };
  const functions = first.functions.map((f, i) => ({
    ...f,
    mutants: f.mutants.map((m, j) => ({
      ...m,
      base: mergeVerdicts(parts.map((p) => p.functions[i]?.mutants[j]?.base ?? { status: 'not-run' })),
      head: mergeVerdicts(parts.map((p) => p.functions[i]?.mutants[j]?.head ?? { status: 'not-run' })),
    })),
  }));
  return {
    testFiles: [...new Set(parts.flatMap((p) => p.testFiles))].sort(),
    scope: parts.some((p) => p.scope === 'all') ? 'all' : 'affected',
    functions,
    skipped: first.skipped,
    defeats: parts.flatMap((p) => p.defeats),
  };
}

const LAYER = 'mutation';

const show = (m: MutantResult) => ({
  id: m.id,
  operator: m.operator,
  line: m.line,
  original: m.original,
  mutated: m.mutated,
});

/** At most this many mutants are listed in one finding's evidence (the artifact has them all). */
const LISTED = 10;

/**
 * The findings of a probe: per function, mutants killed on the base that
 * survive on the head (KILL_SURFACE_SHRANK); a function no base test kills
 * any mutant of on the head (CHANGED_CODE_UNSEEN, at `unseen`'s severity);
 * and every defeat (MUTATION_PROBE_DEFEATED).
 */
export function judgeProbe(part: MutationPart, unseen: 'warn' | 'reject'): Finding[] {
  const findings: Finding[] = [];
  for (const d of part.defeats)
    findings.push({
      code: 'MUTATION_PROBE_DEFEATED',
      layer: LAYER,
      severity: 'reject',
      message: `the mutation probe could not change ${d.file} on the head's code as it does on the base's: ${d.why}`,
      evidence: { file: d.file, why: d.why, ...(d.tests ? { tests: d.tests } : {}) },
    });
  for (const f of part.functions) {
    const where = `${f.file}${f.changed[0] !== undefined ? `:${f.changed[0]}` : ''}`;
    const shrank = f.mutants.filter((m) => m.base.status === 'killed' && m.head.status === 'survived');
    if (shrank.length > 0) {
      const killedOnBase = f.mutants.filter((m) => m.base.status === 'killed').length;
      const tests = [...new Set(shrank.flatMap((m) => m.base.by ?? []))].sort();
      findings.push({
        code: 'KILL_SURFACE_SHRANK',
        layer: LAYER,
        severity: 'reject',
        message: `${f.function} (${where}): ${shrank.length} of the ${killedOnBase} mutant(s) the base's tests kill on the base survive on the head's code — the patch made them blind to it; first: line ${shrank[0]?.line} \`${shrank[0]?.mutated}\` (was \`${shrank[0]?.original}\`), caught on the base by ${shrank[0]?.base.by?.[0] ?? 'a test'}`,
        evidence: {
          file: f.file,
          function: f.function,
          lines: f.changed,
          mutants: shrank.slice(0, LISTED).map((m) => ({ ...show(m), killedOnBaseBy: m.base.by ?? [] })),
          ...(shrank.length > LISTED ? { moreMutants: shrank.length - LISTED } : {}),
          killedOnBase,
          tests,
        },
      });
      continue;
    }
    const ran = f.mutants.filter((m) => m.head.status !== 'not-run');
    if (ran.length === 0 || ran.some((m) => m.head.status === 'killed')) continue;
    const reached = ran.some((m) => m.head.status === 'survived');
    const sev: Severity = unseen;
    findings.push({
      code: 'CHANGED_CODE_UNSEEN',
      layer: LAYER,
      severity: sev,
      message: reached
        ? `${f.function} (${where}): none of its ${ran.length} mutant(s) is killed by the base's tests on the head's code${f.onBase ? '' : ' (a function the patch added)'}: no trusted test sees this change`
        : `${f.function} (${where}): no test of the base reaches it (by the imports of the base's tests and the names they use)${f.onBase ? '' : '; a function the patch added'}: no trusted test sees this change`,
      evidence: {
        file: f.file,
        function: f.function,
        lines: f.changed,
        new: !f.onBase,
        surviving: ran.slice(0, LISTED).map(show),
        ...(ran.length > LISTED ? { moreSurviving: ran.length - LISTED } : {}),
        ...(reached ? { tests: part.testFiles.slice(0, 20) } : { tests: [] }),
      },
    });
  }
  return findings;
}

/** mutation.json: the probe's table, per changed function, base and head side by side. */
export const MUTATION_ARTIFACT = 'mutation.json';

export function mutationArtifact(part: MutationPart): string {
  const count = (f: FunctionResult, side: 'base' | 'head', s: SideVerdict['status']) =>
    f.mutants.filter((m) => m[side].status === s).length;
  return `${JSON.stringify(
    {
      schema: 'patchgate/mutation@1',
      scope: part.scope,
      testFiles: part.testFiles,
      skipped: part.skipped,
      defeats: part.defeats,
      functions: part.functions.map((f) => ({
        file: f.file,
        function: f.function,
        changed: f.changed,
        onBase: f.onBase,
        skipped: f.skipped,
        base: { killed: count(f, 'base', 'killed'), survived: count(f, 'base', 'survived') },
        head: { killed: count(f, 'head', 'killed'), survived: count(f, 'head', 'survived') },
        mutants: f.mutants,
      })),
    },
    null,
    2,
  )}\n`;
}
