/**
 * The property cell. It is filled only by a check that ran in this run, on
 * the head's code, passed, is the base's (a property the patch wrote is not
 * reviewed evidence), and can fail: a patchgate property with hits, a seed
 * row whose replay held at its floor, or a test that generated its inputs.
 */
import type { TestOutcome } from '../../junit/model.js';
import { pytestNodeId } from '../../runners/tests/presets.js';
import type { SuiteRun } from '../../runners/tests/session.js';
import type { PropertyProof } from '../types.js';
import { parsePropertyRef } from './cells.js';

export type PropertyResolution =
  | { ok: true; via: string; detail: Record<string, unknown> }
  | { ok: false; why: string; detail: Record<string, unknown>; next: string };

export interface PropertyEvidence {
  proofs: readonly PropertyProof[];
  layersRun: readonly string[];
  /** The base's tests on the head's code; undefined when the config has no tests section. */
  testRun?: () => Promise<TestEvidenceRun>;
  /** Whether a test's file exists in the base revision (false: the patch added it). */
  onBase(test: TestOutcome): Promise<boolean | undefined>;
  /** Whether a test-side file exists only on the head (the overlay leaves such files out). */
  headOnly?(file: string): boolean;
  preset?: string;
}

const REVIEW =
  'write the property in a human commit on the base first; the agent patch then has to keep it green';

function fromProof(proof: PropertyProof): PropertyResolution {
  const detail = {
    kind: proof.kind,
    name: proof.name,
    side: proof.side,
    ...(proof.hits !== undefined ? { hits: proof.hits } : {}),
    ...(proof.examples !== undefined ? { examples: proof.examples } : {}),
  };
  const what = proof.kind === 'hits' ? `patchgate property '${proof.name}'` : `seed-tape row '${proof.name}'`;
  if (!proof.onBase)
    return { ok: false, why: `${what} exists only on the head: the patch wrote it`, detail, next: REVIEW };
  if (!proof.passed)
    return {
      ok: false,
      why: `${what} did not pass in this run (${proof.why ?? 'failed'})`,
      detail,
      next: `make ${what} pass on the head's code`,
    };
  if (proof.kind === 'hits' && (proof.hits ?? 0) === 0)
    return {
      ok: false,
      why: `${what} has zero hits: no perturbation of its fixture can fail it, so it has no failure mode`,
      detail,
      next: 'give the property an assertion its fixture fields can break (see ZERO_HIT)',
    };
  return { ok: true, via: proof.kind, detail };
}

/** What the test cell reads of a run: its label, its outcomes, and the census of which generated inputs. */
export type TestEvidenceRun = Pick<SuiteRun, 'label' | 'tests' | 'census'>;

/** The outcomes a test id names: itself, or every parametrization of it (`id[...]`). */
export function matching(tests: readonly TestOutcome[], id: string): TestOutcome[] {
  return tests.filter((t) => {
    const nodeid = pytestNodeId(t);
    return [t.id, nodeid].some((x) => x === id || x.startsWith(`${id}[`));
  });
}

async function resolveTest(id: string, ev: PropertyEvidence): Promise<PropertyResolution> {
  if (!ev.testRun)
    return {
      ok: false,
      why: 'the config has no tests section, so no test ran to fill this cell',
      detail: { test: id },
      next: 'add a tests section to the base config',
    };
  const run = await ev.testRun();
  const found = matching(run.tests, id);
  const detail: Record<string, unknown> = { test: id, run: run.label };
  const file = id.includes('::') ? id.slice(0, id.indexOf('::')) : undefined;
  if (found.length === 0 && file !== undefined && ev.headOnly?.(file))
    return { ok: false, why: `test ${id} exists only on the head: the patch wrote it`, detail, next: REVIEW };
  if (found.length === 0)
    return {
      ok: false,
      why: `test ${id} did not run in the base's tests on the head's code (renamed, deleted, or only the patch has it)`,
      detail,
      next: 'name a test the base has, exactly as the runner reports it (path::name)',
    };
  for (const t of found) {
    if ((await ev.onBase(t)) === false)
      return {
        ok: false,
        why: `test ${id} exists only on the head: the patch wrote it`,
        detail,
        next: REVIEW,
      };
  }
  const bad = found.find((t) => t.status !== 'passed');
  if (bad)
    return {
      ok: false,
      why: `test ${id} ${bad.status === 'flaky' ? 'passed only on retry' : `is ${bad.status}`} in this run`,
      detail: { ...detail, status: bad.status },
      next: 'make the test pass on the head (a retry is not a pass)',
    };
  if (ev.preset !== 'pytest' || !run.census)
    return {
      ok: false,
      why: `test ${id} passed, but patchgate can only tell a property test from an example test under pytest (its census plugin counts Hypothesis examples)`,
      detail,
      next: 'name the property by its seed-tape id (seed:ID) or a patchgate property (hits:NAME), whose runs the gate counts itself',
    };
  let examples = 0;
  for (const t of found) {
    const c = run.census.get(pytestNodeId(t));
    if (!c?.hypothesis)
      return {
        ok: false,
        why: `test ${id} is an example test, not a property: it ran no generated inputs`,
        detail: { ...detail, hypothesis: false },
        next: 'bind the claim to a test that quantifies over a domain (@given …), not to one example',
      };
    if (c.examples === 0)
      return {
        ok: false,
        why: `test ${id} is a Hypothesis test, but ran zero generated examples in this run`,
        detail: { ...detail, hypothesis: true, examples: 0 },
        next: 'check its settings (max_examples, phases) and its assume() calls',
      };
    examples += c.examples;
  }
  return { ok: true, via: 'test', detail: { ...detail, hypothesis: true, examples } };
}

export async function resolveProperty(cell: string, ev: PropertyEvidence): Promise<PropertyResolution> {
  const ref = parsePropertyRef(cell);
  if (ref.kind === 'test') return resolveTest(ref.id, ev);
  const wanted = ref.kind === 'hits' ? ['hits'] : ref.kind === 'seed' ? ['seed'] : ['hits', 'seed'];
  const name = ref.kind === 'seed' ? ref.id : ref.name;
  const proofs = ev.proofs.filter((p) => wanted.includes(p.kind) && p.name === name);
  if (proofs.length === 0) {
    const layers = wanted.map((k) => (k === 'hits' ? 'hits' : 'seeds'));
    const ran = layers.filter((l) => ev.layersRun.includes(l));
    return {
      ok: false,
      why:
        ran.length === 0
          ? `no ${layers.join(' or ')} layer ran in this run, so nothing proved '${name}'`
          : `'${name}' is not a ${wanted.map((k) => (k === 'hits' ? 'patchgate property' : 'seed-tape row')).join(' or ')} of this run`,
      detail: { name, kinds: wanted, layersRun: [...ev.layersRun] },
      next: ran.length === 0 ? `enable the ${layers.join(' / ')} layer` : 'name an existing property',
    };
  }
  // A bare name that is both a patchgate property and a seed row must hold as both.
  for (const p of proofs) {
    const r = fromProof(p);
    if (!r.ok || proofs.length === 1) return r;
  }
  return { ok: true, via: proofs.map((p) => p.kind).join('+'), detail: { name } };
}
