#!/usr/bin/env node
// Test-edit benchmark (issue 18): what the analysis of a large test-side diff
// costs, against only parsing the same files with the same parsers.
//   A patch that changes 400 vitest + fast-check test files and 400 pytest +
//   Hypothesis test files (25 tests each, 20,000 tests in all): in every file
//   one assertion weakened, one strategy or arbitrary narrowed, one example
//   count lowered, one test deleted; plus a conftest.py hook and a vitest
//   config exclude.
//   ours: analyzeTestEdits (both sides read, every test's facts, the
//   comparison, the cross-file move check), on a context whose revisions are
//   in memory.
//   yardstick: parsing the same base and head texts: ts.createSourceFile
//   for the JavaScript, and one sandboxed `python3 -I -S` process that runs
//   ast.parse on every Python text (the same io folder and process start as
//   ours), same process, same run.
//   ratio = ours / yardstick.                                  goal: <= 3x
// Usage: node bench/test-edits/run.mjs [--runs N]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url);
const args = benchArgs(process.argv.slice(2), { runs: 5 });
const FILES = 400;
const TESTS = 25;
const GOAL = 3;

requireBuild('test-edits', dist('layers/test-edits/analysis.js'));
const { analyzeTestEdits } = await import(dist('layers/test-edits/analysis.js').href);
const { configSchema } = await import(dist('config/schema.js').href);
const { openSandbox } = await import(dist('sandbox/open.js').href);
const { parsePythonTexts } = await import(dist('runners/harness/python-parse.js').href);
const { loadTypescript } = await import(dist('util/typescript.js').href);

const js = (i, head) => {
  const tests = [];
  for (let t = 0; t < TESTS; t++) {
    if (head && t === TESTS - 1) continue; // deleted
    const matcher = head && t === 0 ? 'toBeDefined()' : `toBe(${t + i})`;
    const arb = head && t === 1 ? 'fc.integer({ min: 0, max: 9 })' : 'fc.integer({ min: 0 })';
    const runs = head && t === 2 ? 5 : 200;
    tests.push(`  it('case ${t}', () => {
    expect(f${t}(${i})).${matcher};
    fc.assert(fc.property(${arb}, (x) => { expect(g(x)).toBeGreaterThanOrEqual(0); }), { numRuns: ${runs} });
  });`);
  }
  return `import fc from 'fast-check';\nimport { describe, expect, it } from 'vitest';\n\ndescribe('module ${i}', () => {\n${tests.join('\n')}\n});\n`;
};
const py = (i, head) => {
  const tests = [];
  for (let t = 0; t < TESTS; t++) {
    if (head && t === TESTS - 1) continue;
    const check = head && t === 0 ? `assert f${t}(${i})` : `assert f${t}(${i}) == ${t + i}`;
    const strategy = head && t === 1 ? 'st.integers(0, 9)' : 'st.integers()';
    const examples = head && t === 2 ? 5 : 200;
    tests.push(
      `@settings(max_examples=${examples})\n@given(x=${strategy})\ndef test_case_${t}(x):\n    ${check}\n    assert g(x) >= 0\n`,
    );
  }
  return `from hypothesis import given, settings, strategies as st\nfrom calc import *\n\n\n${tests.join('\n\n')}`;
};

const base = {};
const head = {};
for (let i = 0; i < FILES; i++) {
  base[`test/m${i}.test.ts`] = js(i, false);
  head[`test/m${i}.test.ts`] = js(i, true);
  base[`tests/test_m${i}.py`] = py(i, false);
  head[`tests/test_m${i}.py`] = py(i, true);
}
base['tests/conftest.py'] = '';
head['tests/conftest.py'] = 'def pytest_collection_modifyitems(items):\n    items[:] = items[:1]\n';
base['vitest.config.ts'] = "export default { test: { exclude: ['node_modules/**'] } };\n";
head['vitest.config.ts'] = "export default { test: { exclude: ['node_modules/**', 'test/m1.test.ts'] } };\n";

const sandbox = await openSandbox(process.env);
const logRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-test-edits-'));
await sandbox.grant(logRoot);
const changes = Object.keys(base)
  .sort()
  .map((p) => ({ kind: 'modified', path: p }));
let n = 0;
const context = () => {
  const logDir = path.join(logRoot, `run-${++n}`);
  fs.mkdirSync(logDir, { recursive: true });
  return {
    changes,
    config: configSchema.parse({ tests: { preset: 'vitest' } }),
    base: { readCommitted: async (f) => base[f] },
    head: { readCommitted: async (f) => head[f] },
    overlay: { named: [] },
    sandbox,
    logDir,
    env: process.env,
    signal: new AbortController().signal,
  };
};

// The yardstick's Python side: ast.parse of every text, in the same kind of process as ours. Shipped
// beside this script: the sandbox sees the repository, not the gate's temp folders.
const parseScript = fileURLToPath(new URL('parse_only.py', import.meta.url));
const ts = await loadTypescript();
async function parseOnly() {
  const texts = new Map();
  for (const side of [base, head])
    for (const [f, text] of Object.entries(side)) {
      if (f.endsWith('.py')) texts.set(`${side === base ? 'b' : 'h'}\u241f${f}`, text);
      else ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
    }
  const logDir = path.join(logRoot, `parse-${++n}`);
  fs.mkdirSync(logDir, { recursive: true });
  await parsePythonTexts({
    sandbox,
    logDir,
    label: 'parse',
    script: parseScript,
    python: 'python3',
    env: process.env,
    texts,
  });
}

async function time(fn) {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`test-edits: load average ${os.loadavg()[0].toFixed(2)} at start, ${args.runs} rounds`);
console.log(
  `patch: ${FILES} vitest + fast-check and ${FILES} pytest + Hypothesis test files changed (${2 * FILES * TESTS} tests), a conftest hook, a vitest exclude; sandbox ${sandbox.isolation.mode}`,
);
// One warm-up of each: the JIT, the compiler, the interpreter's own caches.
await parseOnly();
await analyzeTestEdits(context());
const ours = [];
const yard = [];
let last;
for (let r = 0; r < args.runs; r++) {
  const pair = [() => time(parseOnly), () => time(() => analyzeTestEdits(context()))];
  for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
    const { ms, out } = await pair[i]();
    (i === 0 ? yard : ours).push(ms);
    if (i === 1) last = out;
  }
}
const kinds = {};
for (const e of last.edits) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
const ratio = median(ours) / median(yard);
console.log(
  `parsing only (yardstick): median ${median(yard).toFixed(0)} ms, best ${yard.reduce((a, b) => Math.min(a, b)).toFixed(0)} ms`,
);
console.log(
  `analysis: median ${median(ours).toFixed(0)} ms, best ${ours.reduce((a, b) => Math.min(a, b)).toFixed(0)} ms`,
);
console.log(
  `edits found: ${last.edits.length} (${Object.entries(kinds)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')})`,
);
console.log(`ratio ${ratio.toFixed(2)}x (goal <= ${GOAL}x): ${ratio <= GOAL ? 'PASS' : 'MISS'}`);
fs.rmSync(logRoot, { recursive: true, force: true });
