import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitDir, runCli } from '../helpers/gitdir.js';
import { defaultOut, readScorecard } from '../helpers/out.js';

async function check(repo: GitDir, env: Record<string, string> = {}) {
  const r = await runCli(['check', '--base', 'main', '--today', '2026-11-30'], { cwd: repo.dir, env });
  const out = defaultOut(repo.dir);
  const card = existsSync(path.join(out, 'scorecard.json')) ? readScorecard(out, r) : undefined;
  return { ...r, card, codes: card?.findings.map((f) => f.code).sort() ?? [] };
}

const SPLIT_OK = `export function split(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i < total % count ? 1 : 0));
}
`;
const SPLIT_ROUNDED = `export function split(total: number, count: number): number[] {
  return Array.from({ length: count }, () => Math.round(total / count));
}
`;
const PROPERTY = (id = 'adds_up', numRuns = 200) => `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
import { split } from '../src/split.js';
export const adds = defineSeedProperty({
  id: '${id}',
  property: fc.property(fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 12 }), (total, count) =>
    split(total, count).reduce((a, b) => a + b, 0) === total),
  params: { numRuns: ${numRuns} },
});
`;
const TAPE = {
  properties: [
    {
      id: 'adds_up',
      runner: 'fast-check',
      min_examples: 100,
      seeds: ['2081211641', { seed: '7', counterexample: [4, 3] }],
    },
  ],
};
const CONFIG = { fixtures: { enabled: false }, seeds: { properties: ['props/*.ts'], timeoutMs: 5000 } };

function seedsRepo(tape: unknown = TAPE, config: unknown = CONFIG): GitDir {
  return GitDir.create({
    'patchgate.config.json': `${JSON.stringify(config, null, 2)}\n`,
    'property_seeds.json': typeof tape === 'string' ? tape : `${JSON.stringify(tape, null, 2)}\n`,
    'src/split.ts': SPLIT_OK,
    'props/adds.ts': PROPERTY(),
  });
}

describe('seeds layer (built CLI, real git repos)', () => {
  it('accepts a patch that keeps every recorded seed passing, and writes the replay report', async () => {
    const repo = seedsRepo();
    repo.write({ 'src/split.ts': `${SPLIT_OK}// reviewed\n` });
    const r = await check(repo);
    expect(r.card?.verdict).toBe('accept');
    expect(r.card?.layers).toContainEqual({ name: 'seeds', status: 'pass', findings: 0 });
    const report = JSON.parse(readFileSync(repo.path('.patchgate/out/seed_replay.json'), 'utf8'));
    expect(report.replays.map((x: { seed: string; status: string }) => `${x.seed}:${x.status}`)).toEqual([
      '2081211641:pass',
      '7:pass',
    ]);
    expect(report.counts).toEqual([expect.objectContaining({ property: 'adds_up', counted: 100 })]);
  });

  it('rejects a reintroduced bug with SEED_FAILED naming the property, seed, counterexample and tape row', async () => {
    const repo = seedsRepo();
    repo.write({ 'src/split.ts': SPLIT_ROUNDED });
    const r = await check(repo);
    expect(r.code).toBe(1);
    expect(r.codes).toEqual(['SEED_FAILED', 'SEED_FAILED']);
    const bySeed = Object.fromEntries(r.card?.findings.map((f) => [f.evidence.seed, f.evidence]) ?? []);
    expect(bySeed['2081211641']).toMatchObject({
      property: 'adds_up',
      runner: 'fast-check',
      file: 'property_seeds.json',
      line: 3,
      via: 'seed',
    });
    expect(bySeed['2081211641']?.counterexample).toMatch(/^\[\d+,\d+\]$/);
    expect(bySeed['7']).toMatchObject({ via: 'counterexample' });
  });

  it('rejects a lowered numRuns in the property module with MIN_EXAMPLES_NOT_MET, counted not trusted', async () => {
    const repo = seedsRepo();
    repo.write({ 'props/adds.ts': PROPERTY('adds_up', 10) });
    const r = await check(repo);
    expect(r.codes).toEqual(['MIN_EXAMPLES_NOT_MET']);
    expect(r.card?.findings[0]?.evidence).toMatchObject({ property: 'adds_up', floor: 100, counted: 10 });
  });

  it('rejects a renamed property: the tape still names it, so every seed fails as not found', async () => {
    const repo = seedsRepo();
    repo.write({ 'props/adds.ts': PROPERTY('sums_match') });
    const r = await check(repo);
    expect(r.codes).toEqual(['SEED_FAILED', 'SEED_FAILED']);
    expect(r.card?.findings[0]?.message).toMatch(/not found.*renaming does not escape the tape/);
  });

  it('rejects a head that drops a seed and lowers the floor, and still replays the base tape', async () => {
    const repo = seedsRepo();
    repo.write({
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'adds_up', runner: 'fast-check', min_examples: 5, seeds: ['2081211641'] }],
      }),
      'src/split.ts': SPLIT_ROUNDED,
    });
    const r = await check(repo);
    expect(r.codes).toEqual(
      ['CONTRACT_TOUCHED', 'MIN_EXAMPLES_LOWERED', 'SEED_DROPPED', 'SEED_FAILED', 'SEED_FAILED'].sort(),
    );
    const dropped = r.card?.findings.find((f) => f.code === 'SEED_DROPPED');
    expect(dropped?.evidence).toMatchObject({ property: 'adds_up', seed: '7', dropped: 'seed' });
    // The dropped seed's stored counterexample still replayed: the base tape decides what runs.
    expect(r.card?.findings.filter((f) => f.code === 'SEED_FAILED').map((f) => f.evidence.seed)).toContain(
      '7',
    );
  });

  it('counts every seed as dropped when the head deletes the tape', async () => {
    const repo = seedsRepo();
    repo.write({ 'property_seeds.json': null });
    const r = await check(repo);
    expect(r.codes).toEqual(['CONTRACT_TOUCHED', 'SEED_DROPPED', 'SEED_DROPPED']);
  });

  it("counts every seed as dropped when the head's tape no longer parses", async () => {
    const repo = seedsRepo();
    repo.write({ 'property_seeds.json': '{"properties": [' });
    const r = await check(repo);
    expect(r.codes).toEqual(['CONTRACT_TOUCHED', 'SEED_DROPPED', 'SEED_DROPPED']);
    const dropped = r.card?.findings.find((f) => f.code === 'SEED_DROPPED');
    expect(dropped?.message).toMatch(/the head has no readable tape \(property_seeds\.json does not parse/);
  });

  it('stops with a located error when the base tape is invalid (exit 2, nothing replayed)', async () => {
    const repo = seedsRepo({
      properties: [{ id: 'adds_up', runner: 'fast-check', min_examples: 0, seeds: ['x'] }],
    });
    const r = await check(repo);
    expect(r.code).toBe(2);
    expect(r.card?.verdict).toBe('error');
    const msg = r.card?.findings[0]?.message ?? '';
    expect(msg).toMatch(/property_seeds\.json:\d+:\d+: properties\[0\]\.min_examples: expected at least 1/);
    expect(msg).toMatch(/properties\[0\]\.seeds\[0\]: expected a seed written as a decimal integer/);
  });

  it('stops with a config error when the tape has fast-check rows but seeds.properties names no modules', async () => {
    const repo = seedsRepo(TAPE, { fixtures: { enabled: false }, seeds: {} });
    const r = await check(repo);
    expect(r.code).toBe(2);
    expect(r.card?.findings[0]).toMatchObject({ code: 'CONFIG_INVALID', severity: 'error' });
    expect(r.card?.findings[0]?.message).toMatch(
      /fast-check rows \('adds_up'\) but seeds\.properties names no modules/,
    );
  });

  it('stops with a config error when a seeds.properties glob matches nothing on the base', async () => {
    const repo = seedsRepo(TAPE, { ...CONFIG, seeds: { properties: ['props/*.ts', 'spec/**/*.seed.ts'] } });
    const r = await check(repo);
    expect(r.code).toBe(2);
    expect(r.card?.findings[0]?.message).toContain(
      "seeds.properties[1]: the glob 'spec/**/*.seed.ts' matches no file in the base revision",
    );
  });

  it('stops with a config error when the seeds layer is on and the base tape records nothing', async () => {
    const r = await check(seedsRepo({ properties: [] }));
    expect(r.code).toBe(2);
    expect(r.card?.findings[0]?.message).toMatch(/seeds\.tape: the seeds layer is on, but the base tape/);
  });

  it('stops when the tape the config names does not exist on the base', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        ...CONFIG,
        seeds: { ...CONFIG.seeds, tape: 'seeds/tape.json' },
      }),
      'src/split.ts': SPLIT_OK,
    });
    const r = await check(repo);
    expect(r.code).toBe(2);
    expect(r.card?.findings[0]?.message).toMatch(
      /seeds\/tape\.json \(named by seeds\.tape in patchgate\.config\.json\) does not exist in the base revision/,
    );
  });
});

describe('seeds layer with pytest + Hypothesis (real python3)', () => {
  const TEST = (maxExamples: number) => `from hypothesis import given, settings, strategies as st
from split import split

@settings(max_examples=${maxExamples}, deadline=None)
@given(total=st.integers(min_value=0, max_value=1000), count=st.integers(min_value=1, max_value=12))
def test_adds_up(total, count):
    assert sum(split(total, count)) == total
`;
  const OK =
    'def split(total, count):\n    base, extra = divmod(total, count)\n    return [base + (1 if i < extra else 0) for i in range(count)]\n';
  const ROUNDED = 'def split(total, count):\n    return [round(total / count)] * count\n';
  const pyRepo = () =>
    GitDir.create({
      'patchgate.config.json': JSON.stringify({ fixtures: { enabled: false }, seeds: {} }),
      'property_seeds.json': JSON.stringify({
        properties: [
          {
            id: 'adds_up',
            nodeid: 'tests/test_split.py::test_adds_up',
            min_examples: 100,
            seeds: ['12345', 77],
          },
        ],
      }),
      'split.py': OK,
      'tests/__init__.py': '',
      'tests/test_split.py': TEST(150),
      'conftest.py': 'import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n',
    });

  it('rejects a reintroduced bug with the falsifying example Hypothesis printed', async () => {
    const repo = pyRepo();
    repo.write({ 'split.py': ROUNDED });
    const r = await check(repo);
    expect(r.codes).toEqual(['SEED_FAILED', 'SEED_FAILED']);
    expect(r.card?.findings[0]?.evidence).toMatchObject({
      property: 'adds_up',
      runner: 'pytest',
      nodeid: 'tests/test_split.py::test_adds_up',
    });
    expect(String(r.card?.findings[0]?.evidence.counterexample)).toMatch(/Falsifying example/);
  });

  it('rejects a lowered max_examples with MIN_EXAMPLES_NOT_MET from the counted examples', async () => {
    const repo = pyRepo();
    repo.write({ 'tests/test_split.py': TEST(20) });
    const r = await check(repo);
    expect(r.codes).toEqual(['MIN_EXAMPLES_NOT_MET']);
    expect(r.card?.findings[0]?.evidence).toMatchObject({ floor: 100, counted: 20 });
    const report = JSON.parse(readFileSync(repo.path('.patchgate/out/seed_replay.json'), 'utf8'));
    // Two (test, seed) pairs of one file: one process per core, never more processes than pairs.
    expect(report.processes.pytest).toBe(Math.min(2, availableParallelism()));
  });

  it('accepts the untouched property at its floor', async () => {
    const repo = pyRepo();
    repo.write({ 'split.py': `${OK}# reviewed\n` });
    const r = await check(repo);
    expect(r.card?.verdict).toBe('accept');
    expect(existsSync(repo.path('.hypothesis'))).toBe(false);
  });
});
