// bench/hits, part 1: runs inside one worker thread started by run.mjs.
//   bare   - the property checks in a plain loop over pre-built mutants
//            (the baseline fixture first, then every mutant), status per check
//   direct - the real score task: the default export of dist/sandboxed/hits-scorer.js,
//            called once per property as a pool worker would run it, on a task
//            deserialized from bytes (a pool worker pays that too; the
//            serializing is the main thread's, so it is done before timing)
// Both load the properties with patchgate's own module loader, so both call the
// very same check functions. Each answer carries every status, for cross-checks.
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';

const dist = new URL('../../dist/', import.meta.url);
const { createModuleLoader } = await import(new URL('util/module-loader.js', dist).href);
const { definitionsOf } = await import(new URL('layers/hits/define-property.js', dist).href);
const { deepFreeze, generateMutants } = await import(new URL('layers/hits/perturb/index.js', dist).href);
// Importing the worker module silences this thread's console, as in a pool worker.
const { default: runTask } = await import(new URL('sandboxed/hits-scorer.js', dist).href);

const { module, fixture, perturb } = workerData;
const jiti = createModuleLoader({ cache: true });
const props = definitionsOf(await jiti.import(module));
const frozen = deepFreeze(structuredClone(fixture));
const values = [frozen, ...Array.from(generateMutants(frozen, perturb), (m) => m.value)];
const listed = await runTask({ kind: 'list', modules: [module] });
if (listed.errors.length > 0 || listed.properties.length !== props.length) {
  throw new Error(`listing ${module} failed: ${JSON.stringify(listed.errors)}`);
}

function bare() {
  const statuses = new Uint8Array(props.length * values.length);
  const n = values.length;
  let k = 0;
  const t0 = process.hrtime.bigint();
  for (let p = 0; p < props.length; p++) {
    const property = props[p];
    for (let i = 0; i < n; i++) {
      let s;
      try {
        s = property.check(values[i]) === false ? 0 : 1;
      } catch {
        s = 0;
      }
      statuses[k++] = s;
    }
  }
  const ns = Number(process.hrtime.bigint() - t0);
  return { ns, statuses };
}

const knownLabels = [];
const payloads = props.map((p) => v8.serialize({ kind: 'score', module, name: p.name, fixture, perturb }));
async function direct() {
  const statuses = new Uint8Array(props.length * values.length);
  let k = 0;
  const t0 = process.hrtime.bigint();
  for (const payload of payloads) {
    const task = v8.deserialize(payload);
    task.progress = new SharedArrayBuffer(12);
    task.knownLabels = knownLabels;
    const [r] = await runTask(task);
    // As the pool does: once it holds a list of labels, workers stop sending it.
    if (r.labelsKey !== undefined && r.labels !== undefined && !knownLabels.includes(r.labelsKey)) {
      knownLabels.push(r.labelsKey);
    }
    statuses[k++] = r.baseline === 'pass' ? 1 : 0;
    statuses.set(r.statuses, k);
    k += r.statuses.length;
  }
  const ns = Number(process.hrtime.bigint() - t0);
  return { ns, statuses };
}

parentPort.on('message', async (cmd) => {
  const r = cmd === 'bare' ? bare() : await direct();
  parentPort.postMessage(r);
});
parentPort.postMessage({ ready: true, properties: props.length, mutants: values.length - 1 });
