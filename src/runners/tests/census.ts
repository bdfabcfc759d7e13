/**
 * The pytest census: per node id, whether the test generated its inputs
 * (Hypothesis) and how many generated examples passed, written by the gate's
 * `patchgate_census` plugin next to the run's report.
 */
import { readFile } from 'node:fs/promises';
import { shippedPythonFile } from '../../util/package-root.js';

export const CENSUS = 'census.json';
export const CENSUS_MODULE = 'patchgate_census';
export const PYTEST_CENSUS_PLUGIN_PATH: string = shippedPythonFile(`${CENSUS_MODULE}.py`);

export interface TestCensus {
  hypothesis: boolean;
  examples: number;
}

/**
 * The census a run wrote. The file sits in a folder head code could write, so
 * only well-formed entries are kept; a malformed file is no census at all
 * (every test then reads as "not known to be a property").
 */
export async function readCensus(file: string): Promise<ReadonlyMap<string, TestCensus>> {
  const out = new Map<string, TestCensus>();
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return out;
  }
  if (doc === null || typeof doc !== 'object') return out;
  const { schema, tests } = doc as { schema?: unknown; tests?: unknown };
  if (schema !== 'patchgate/census@1' || tests === null || typeof tests !== 'object') return out;
  for (const [id, rec] of Object.entries(tests as Record<string, unknown>)) {
    const r = rec as { hypothesis?: unknown; examples?: unknown } | null;
    if (typeof r?.hypothesis !== 'boolean' || !Number.isSafeInteger(r.examples) || (r.examples as number) < 0)
      continue;
    out.set(id, { hypothesis: r.hypothesis, examples: r.examples as number });
  }
  return out;
}
