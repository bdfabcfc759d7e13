import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../../src/config/schema.js';
import { parseTape } from '../../../../src/contracts/seed-tape.js';
import { replayTape } from '../../../../src/layers/seeds/replay-tape.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';
import { pythonEnv, sharedFile } from '../../../helpers/shared.js';

const sandbox = await testSandbox();

/**
 * Seed 001's `replay_seeds`, run unchanged from ../shared/reference, against
 * our replay of the same tape on the same pytest project. Where the seed's
 * driver and ours agree, they must agree; where we differ on purpose (its
 * bugs), the test says which way and why.
 */

const TAPE = {
  properties: [
    {
      id: 'adds_up',
      nodeid: 'tests/test_split.py::test_adds_up',
      min_examples: 100,
      seeds: ['20261130', '77'],
    },
  ],
};
const OK =
  'def split(total, count):\n    base, extra = divmod(total, count)\n    return [base + (1 if i < extra else 0) for i in range(count)]\n';
const ROUNDED = 'def split(total, count):\n    return [round(total / count)] * count\n';
const TEST = (decorators: string) => `from hypothesis import given, settings, strategies as st
from split import split

${decorators}
@given(total=st.integers(min_value=0, max_value=1000), count=st.integers(min_value=1, max_value=12))
def test_adds_up(total, count):
    assert sum(split(total, count)) == total
`;

function project(split: string, decorators = '@settings(max_examples=150, deadline=None)'): string {
  const root = tempDir('pg-seeddiff-');
  mkdirSync(path.join(root, 'tests'));
  writeFileSync(path.join(root, 'split.py'), split);
  writeFileSync(
    path.join(root, 'conftest.py'),
    'import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n',
  );
  writeFileSync(path.join(root, 'tests', '__init__.py'), '');
  writeFileSync(path.join(root, 'tests', 'test_split.py'), TEST(decorators));
  writeFileSync(path.join(root, 'property_seeds.json'), JSON.stringify(TAPE, null, 2));
  return root;
}

/** The seed's driver: {ok, failures: [[id, seed, returncode]]}. */
function seedReplay(root: string): { ok: boolean; failures: unknown[][] } {
  const driver = path.dirname(sharedFile('reference', 'seed001', 'replay.py'));
  const out = execFileSync(
    'python3',
    [
      '-c',
      `import json, sys; sys.path.insert(0, ${JSON.stringify(driver)}); from replay import replay_seeds; from pathlib import Path; print(json.dumps(replay_seeds(Path("property_seeds.json"))))`,
    ],
    { cwd: root, env: { ...pythonEnv(), PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
}

async function ours(root: string) {
  const tape = parseTape(JSON.stringify(TAPE), 'property_seeds.json');
  // One worker: the claim below is that every pair shares one process, whatever this machine's cores.
  const config = configSchema.parse({ seeds: { workers: 1 } }).seeds;
  if (!config) throw new Error('no seeds config');
  return replayTape({
    root,
    rows: tape.rows,
    config,
    env: { PATH: process.env.PATH ?? '', PYTHONUTF8: '1' },
    sandbox,
    logDir: path.join(tempDir('pg-seeddiff-logs-'), 'logs'),
  });
}

describe("seed tape replay against seed 001's replay_seeds", () => {
  it('agrees that the seeds hold on correct code', async () => {
    const root = project(OK);
    expect(seedReplay(root)).toEqual({ ok: true, failures: [] });
    const r = await ours(root);
    expect(r.replays.map((x) => x.status)).toEqual(['pass', 'pass']);
    // Same seeds, but one process for every (property, seed) pair rather than one per pair.
    expect(r.processes.pytest).toBe(1);
  });

  it('agrees that both seeds fail when the bug comes back', async () => {
    const root = project(ROUNDED);
    expect(seedReplay(root).failures.map((f) => f.slice(0, 2))).toEqual([
      ['adds_up', '20261130'],
      ['adds_up', '77'],
    ]);
    expect((await ours(root)).replays.map((x) => x.status)).toEqual(['fail', 'fail']);
  });

  it('differs on purpose for a skipped test: the seed counts pytest exit 0 as a pass, we count a seed that no longer runs as failed', async () => {
    const root = project(
      ROUNDED,
      '@__import__("pytest").mark.skip(reason="flaky")\n@settings(max_examples=150, deadline=None)',
    );
    expect(seedReplay(root)).toEqual({ ok: true, failures: [] });
    const r = await ours(root);
    expect(r.replays.map((x) => x.status)).toEqual(['not-run', 'not-run']);
    expect(r.replays[0]?.message).toMatch(/flaky/);
  });

  it('differs on purpose for a lowered max_examples: the seed never counts examples, we do', async () => {
    const root = project(OK, '@settings(max_examples=20, deadline=None)');
    expect(seedReplay(root)).toEqual({ ok: true, failures: [] });
    const r = await ours(root);
    expect(r.replays.map((x) => x.status)).toEqual(['pass', 'pass']);
    expect(r.counts).toEqual([expect.objectContaining({ property: 'adds_up', counted: 20 })]);
  });
});
