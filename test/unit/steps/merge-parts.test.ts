/**
 * `patchgate merge` on parts written by hand: which parts make a run, and
 * how layers' outcomes come together. The real thing (parts written by real
 * sharded checks of a real repository, merged into the bytes one check
 * writes) is test/e2e/shards.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { byUnit } from '../../../src/layers/shard-merge.js';
import type { Finding, Layer, LayerOutcome } from '../../../src/layers/types.js';
import { mergeParts, type SourcedPart } from '../../../src/steps/merge-parts.js';
import {
  type LayerPart,
  parsePartTestRuns,
  parseShardPart,
  SHARD_PART_SCHEMA,
  type ShardPart,
} from '../../../src/steps/shard-part.js';

const DIGEST = 'a'.repeat(64);

function finding(
  layer: string,
  code: Finding['code'],
  test: string,
  severity: Finding['severity'] = 'reject',
): Finding {
  return { code, layer, severity, message: `${code} ${test}`, evidence: { test, file: `tests/${test}.py` } };
}

/** A layer whose findings of code REGRESSION are per test, the rest whole. */
function unitLayer(name: string, extra: Partial<Layer> = {}): Layer {
  return {
    name,
    enabled: () => true,
    contractFiles: () => [],
    run: async () => ({ findings: [] }),
    shards: byUnit({ unitOf: (f) => (f.code === 'REGRESSION' ? 'test' : undefined) }),
    ...extra,
  };
}

const wholeLayer = (name: string): Layer => ({
  name,
  enabled: () => true,
  contractFiles: () => [],
  run: async () => ({ findings: [] }),
});

function part(index: number, total: number, layers: LayerPart[], over: Partial<ShardPart> = {}): ShardPart {
  return {
    schema: SHARD_PART_SCHEMA,
    shard: {
      index,
      total,
      plan: { digest: DIGEST, by: 'count', files: 4, load: [2, 2] },
      testFiles: [`tests/t${index}.py`],
    },
    configDigest: 'c'.repeat(64),
    run: {
      base: { ref: 'main', requested: 'b'.repeat(40), commit: 'b'.repeat(40) },
      head: { ref: 'agent', commit: 'h'.repeat(40), tree: 't'.repeat(40), worktree: false },
      config: { file: 'patchgate.config.json', revision: 'base' },
      today: '2026-12-01',
      isolation: { mode: 'bwrap' } as ShardPart['run']['isolation'],
    },
    skips: { allLayers: false, enabled: layers.map((l) => l.name), configFile: 'patchgate.config.json' },
    layerOrder: layers.map((l) => l.name),
    prelude: [],
    layers,
    timings: { totalMs: 1000 * index, revisionsMs: 1, setupMs: 1, cleanupMs: 1, layers: {} },
    ...over,
  };
}

const ran = (name: string, outcome: LayerOutcome): LayerPart => ({ name, outcome, guards: [], ms: 5 });
const sourced = (parts: ShardPart[]): SourcedPart[] =>
  parts.map((p, i) => ({ source: `shard-${i + 1}/part.json`, part: p }));
const merge = (parts: ShardPart[], layers: Layer[]) => mergeParts(sourced(parts), layers, () => 0);

describe('which parts make a run', () => {
  const layers = [unitLayer('regression')];
  const ok = (i: number, n = 2) => part(i, n, [ran('regression', { findings: [] })]);

  it('merges shards 1..n given in any order into an accept', async () => {
    const r = await merge([ok(2), ok(1)], layers);
    expect(r.card.verdict).toBe('accept');
    expect(r.card.shards?.parts.map((p) => p.index)).toEqual([1, 2]);
    expect(r.card.timings.totalMs).toBe(2000);
  });

  it('is an error naming the missing shard', async () => {
    const r = await merge([ok(1, 3), ok(3, 3)], layers);
    expect(r.card.verdict).toBe('error');
    expect(r.card.errorKind).toBe('input');
    expect(r.card.findings.map((f) => [f.code, f.evidence.shard])).toEqual([['SHARD_MISSING', 2]]);
    expect(r.card.findings[0]?.message).toMatch(/shard 2 of 3 is missing/);
  });

  it('is an error naming both files of a duplicated shard', async () => {
    const r = await merge([ok(1), ok(2), ok(2)], layers);
    expect(r.card.verdict).toBe('error');
    const dup = r.card.findings.find((f) => f.code === 'SHARD_DUPLICATE');
    expect(dup?.evidence).toMatchObject({ shard: 2, files: ['shard-2/part.json', 'shard-3/part.json'] });
  });

  it('leaves out and names a part of another run (another head commit), whatever its index', async () => {
    const foreign = part(2, 2, [ran('regression', { findings: [] })], {});
    foreign.run = { ...foreign.run, head: { ...foreign.run.head, commit: 'f'.repeat(40) } };
    const r = await merge([ok(1), ok(2), foreign], layers);
    expect(r.card.verdict).toBe('error');
    const f = r.card.findings.find((x) => x.code === 'SHARD_FOREIGN');
    expect(f?.evidence).toMatchObject({
      file: 'shard-3/part.json',
      field: 'head commit',
      got: 'f'.repeat(40),
    });
    expect(r.card.head.commit).toBe('h'.repeat(40));
  });

  it('is an error when the shards planned the split differently (one read a history, one did not)', async () => {
    const other = ok(2);
    other.shard = { ...other.shard, plan: { ...other.shard.plan, digest: 'e'.repeat(64), by: 'duration' } };
    const r = await merge([ok(1), other], layers);
    expect(r.card.findings.map((f) => f.code)).toEqual(['SHARD_DISAGREEMENT']);
    expect(r.card.findings[0]?.message).toMatch(/planned the run differently/);
  });
});

describe('how layers come together', () => {
  it('puts unit findings of every shard together and keeps one copy of the whole ones', async () => {
    const whole = finding('regression', 'TOOLCHAIN_CHANGED', 'pyproject');
    const r = await merge(
      [
        part(1, 2, [ran('regression', { findings: [whole, finding('regression', 'REGRESSION', 'a')] })]),
        part(2, 2, [ran('regression', { findings: [finding('regression', 'REGRESSION', 'b'), whole] })]),
      ],
      [unitLayer('regression')],
    );
    expect(r.card.verdict).toBe('reject');
    expect(r.card.findings.map((f) => `${f.code} ${f.evidence.test}`)).toEqual([
      'REGRESSION a',
      'REGRESSION b',
      'TOOLCHAIN_CHANGED pyproject',
    ]);
    expect(r.card.layers[0]).toMatchObject({ name: 'regression', status: 'reject', findings: 3 });
  });

  it('is SHARD_DISAGREEMENT naming the layer and the shard when a whole finding differs', async () => {
    const r = await merge(
      [
        part(1, 2, [ran('regression', { findings: [finding('regression', 'TOOLCHAIN_CHANGED', 'x')] })]),
        part(2, 2, [ran('regression', { findings: [finding('regression', 'TOOLCHAIN_CHANGED', 'y')] })]),
      ],
      [unitLayer('regression')],
    );
    expect(r.card.verdict).toBe('error');
    const f = r.card.findings[0];
    expect(f?.code).toBe('SHARD_DISAGREEMENT');
    expect(f?.evidence).toMatchObject({ layer: 'regression', shards: [2], files: ['shard-2/part.json'] });
  });

  it('requires a layer without a merge of its own to give the same outcome everywhere', async () => {
    const same = { findings: [finding('contracts', 'CONTRACT_TOUCHED', 'cfg')] };
    const ok = await merge(
      [part(1, 2, [ran('contracts', same)]), part(2, 2, [ran('contracts', same)])],
      [wholeLayer('contracts')],
    );
    expect(ok.card.findings.map((f) => f.code)).toEqual(['CONTRACT_TOUCHED']);
    const bad = await merge(
      [part(1, 2, [ran('contracts', same)]), part(2, 2, [ran('contracts', { findings: [] })])],
      [wholeLayer('contracts')],
    );
    expect(bad.card.findings.map((f) => f.code)).toEqual(['SHARD_DISAGREEMENT']);
  });

  it('skips a layer that runs only after a clean start where one run would have: a shard that ran it proves nothing', async () => {
    const layers = [unitLayer('regression'), unitLayer('stability', { onlyAfterClean: true })];
    const flake = finding('stability', 'REGRESSION', 'flaky');
    const r = await merge(
      [
        part(1, 2, [
          ran('regression', { findings: [finding('regression', 'REGRESSION', 'a')] }),
          {
            name: 'stability',
            skipped: 'an earlier layer did not pass (use --all-layers to run it anyway)',
            guards: [],
            ms: 0,
          },
        ]),
        part(2, 2, [ran('regression', { findings: [] }), ran('stability', { findings: [flake] })]),
      ],
      layers,
    );
    expect(r.card.layers.map((l) => [l.name, l.status])).toEqual([
      ['regression', 'reject'],
      ['stability', 'skipped'],
    ]);
    expect(r.card.findings.map((f) => f.evidence.test)).toEqual(['a']);
  });

  it("takes a layer that threw on one shard as one run's error, whatever the others gave", async () => {
    const threw: Finding = {
      code: 'INTERNAL_ERROR',
      layer: 'regression',
      severity: 'error',
      message: 'boom',
      evidence: {},
    };
    const r = await merge(
      [
        part(1, 2, [{ name: 'regression', threw, guards: [], ms: 1 }]),
        part(2, 2, [ran('regression', { findings: [finding('regression', 'REGRESSION', 'b')] })]),
      ],
      [unitLayer('regression')],
    );
    expect(r.card.verdict).toBe('error');
    expect(r.card.errorKind).toBe('internal');
    expect(r.card.findings.map((f) => f.code)).toEqual(['INTERNAL_ERROR']);
  });

  it('folds more than a thousand findings of one code into one, over all shards, as one run does', async () => {
    const many = (from: number) =>
      Array.from({ length: 600 }, (_, i) => finding('regression', 'REGRESSION', `t${from + i}`));
    const r = await merge(
      [
        part(1, 2, [ran('regression', { findings: many(0) })]),
        part(2, 2, [ran('regression', { findings: many(600) })]),
      ],
      [unitLayer('regression')],
    );
    expect(r.card.findings).toHaveLength(1);
    expect(r.card.findings[0]?.evidence.aggregated).toBe(1200);
    expect(r.artifacts.map((a) => a.name)).toContain('findings.regression.REGRESSION.json');
  });
});

describe("the layers' own merges, where a layer had nothing to do", () => {
  it('merges hits, stability and claims outcomes that carry no part (nothing configured, an empty matrix)', async () => {
    const { hitsLayer } = await import('../../../src/layers/hits/hits-layer.js');
    const { stabilityLayer } = await import('../../../src/layers/stability/stability-layer.js');
    const { claimsLayer } = await import('../../../src/layers/claims/claims-layer.js');
    const empty = finding('claims', 'CLAIMS_EMPTY', 'matrix');
    const layers = (i: number) =>
      part(i, 2, [
        ran('hits', { findings: [] }),
        ran('stability', { findings: [] }),
        ran('claims', { findings: [empty] }),
      ]);
    const r = await merge(
      [layers(1), layers(2)],
      [hitsLayer, stabilityLayer, { ...claimsLayer, onlyAfterClean: false }],
    );
    expect(r.card.layers.map((l) => [l.name, l.status])).toEqual([
      ['hits', 'pass'],
      ['stability', 'pass'],
      ['claims', 'reject'],
    ]);
    expect(r.card.findings.map((f) => f.code)).toEqual(['CLAIMS_EMPTY']);
  });
});

describe('a layer that leaves a part when it does its work', () => {
  it('is SHARD_DISAGREEMENT when some shards left a part and others none', async () => {
    const { claimsLayer } = await import('../../../src/layers/claims/claims-layer.js');
    const r = await merge(
      [
        part(1, 2, [
          ran('claims', {
            findings: [],
            part: { report: { claims: [] }, deferred: [], layersRun: [], headOnly: [] },
          }),
        ]),
        part(2, 2, [ran('claims', { findings: [] })]),
      ],
      [claimsLayer],
    );
    expect(r.card.findings.map((f) => [f.code, f.evidence.what])).toEqual([
      ['SHARD_DISAGREEMENT', 'whether the layer did its work'],
    ]);
  });
});

describe('what else a merge refuses', () => {
  const layers = [unitLayer('regression')];
  const ok = (i: number, over: Partial<ShardPart> = {}) =>
    part(i, 2, [ran('regression', { findings: [] })], over);

  it('a part that says it is a shard beyond the total', async () => {
    const r = await merge([ok(1), ok(2), part(3, 2, [ran('regression', { findings: [] })])], layers);
    expect(r.card.findings.find((f) => f.code === 'SHARD_FOREIGN')?.message).toMatch(
      /says it is shard 3 of 2/,
    );
  });

  it('findings before any layer (the sandbox) that one shard saw and another did not', async () => {
    const hidden: Finding = {
      code: 'PROGRAM_HIDDEN',
      layer: 'sandbox',
      severity: 'error',
      message: 'no python3',
      evidence: {},
    };
    const r = await merge([ok(1, { prelude: [hidden] }), ok(2)], layers);
    expect(r.card.findings.map((f) => [f.code, f.evidence.what])).toContainEqual([
      'SHARD_DISAGREEMENT',
      'the findings before any layer',
    ]);
  });

  it('a layer one shard ran and another did not', async () => {
    const r = await merge(
      [ok(1), part(2, 2, [{ name: 'regression', skipped: 'not enabled', guards: [], ms: 0 }])],
      layers,
    );
    expect(r.card.findings.map((f) => [f.code, f.evidence.what])).toEqual([
      ['SHARD_DISAGREEMENT', 'whether layer regression ran'],
    ]);
  });

  it('a layer this patchgate does not have', async () => {
    const r = await merge([ok(1), ok(2)], [unitLayer('contracts')]);
    expect(r.card.findings.map((f) => [f.code, f.evidence.layer])).toEqual([['SHARD_FOREIGN', 'regression']]);
  });
});

describe('judgements only all shards together can make', () => {
  it('hits: a property name that modules on two shards define is an error; nothing listed on any shard is the empty-config error', async () => {
    const { hitsLayer } = await import('../../../src/layers/hits/hits-layer.js');
    const hitsPart = (base: [string, string][], head: [string, string][], baseFound = base.length) => ({
      configFile: 'patchgate.config.json',
      globs: ['properties/**/*.ts'],
      baseFound,
      modules: { base, head },
    });
    const moved = await merge(
      [
        part(1, 2, [ran('hits', { findings: [], part: hitsPart([['p_total', 'properties/a.ts']], []) })]),
        part(2, 2, [ran('hits', { findings: [], part: hitsPart([], [['p_total', 'properties/b.ts']]) })]),
      ],
      [hitsLayer],
    );
    expect(moved.card.verdict).toBe('error');
    expect(moved.card.findings[0]?.message).toMatch(
      /property 'p_total' is defined in modules different shards load \(properties\/a\.ts on the base \(shard 1\), properties\/b\.ts on the head \(shard 2\)\)/,
    );
    const none = await merge(
      [1, 2].map((i) => part(i, 2, [ran('hits', { findings: [], part: hitsPart([], [], 0) })])),
      [hitsLayer],
    );
    expect(none.card.findings.map((f) => [f.code, f.severity])).toEqual([['CONFIG_INVALID', 'error']]);
    expect(none.card.findings[0]?.message).toMatch(/yield no property in the base revision/);
    // One shard's module held the only property: no error at all.
    const one = await merge(
      [
        part(1, 2, [
          ran('hits', {
            findings: [],
            part: hitsPart([['p', 'properties/a.ts']], [['p', 'properties/a.ts']]),
          }),
        ]),
        part(2, 2, [ran('hits', { findings: [], part: hitsPart([], [], 0) })]),
      ],
      [hitsLayer],
    );
    expect(one.card.findings).toEqual([]);
  });

  it('regression: TESTS_NONE_RAN only when the base tests ran to no verdict on every shard', async () => {
    const { regressionLayer } = await import('../../../src/layers/regression/regression-layer.js');
    const none = (tests: number, baseRan: number) => ({
      nothingRan: {
        run: 'overlay-run',
        tests,
        log: 'tests/shard-1/overlay-run.stdout.log',
        base: { label: 'base-run-1', ran: baseRan },
      },
    });
    const onAll = await merge(
      [
        part(1, 2, [ran('regression', { findings: [], part: none(2, 3) })]),
        part(2, 2, [ran('regression', { findings: [], part: none(1, 4) })]),
      ],
      [regressionLayer],
    );
    expect(
      onAll.card.findings.map((f) => [f.code, f.severity, f.evidence.tests, f.evidence.baseRan]),
    ).toEqual([['TESTS_NONE_RAN', 'reject', 3, 7]]);
    const onOne = await merge(
      [
        part(1, 2, [ran('regression', { findings: [], part: none(2, 3) })]),
        part(2, 2, [ran('regression', { findings: [], part: { nothingRan: null } })]),
      ],
      [regressionLayer],
    );
    expect(onOne.card.findings).toEqual([]);
  });
});

describe('a part file', () => {
  const good = JSON.stringify(part(1, 1, []));

  it('parses what a shard wrote', () => {
    expect(parseShardPart(good, 'out/part.json').shard).toMatchObject({ index: 1, total: 1 });
  });

  it('that is not JSON is bad input naming the file', () => {
    expect(() => parseShardPart('{"schema":', 'out/part.json')).toThrow(InputError);
    expect(() => parseShardPart('{"schema":', 'out/part.json')).toThrow(
      /out\/part\.json: not a shard part: it is not JSON/,
    );
  });

  it('with wrong fields names every one of them at once', () => {
    const bad = JSON.parse(good);
    bad.shard.index = 0;
    bad.configDigest = 'short';
    delete bad.run.head;
    let message = '';
    try {
      parseShardPart(JSON.stringify(bad), 'out/part.json');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/shard\.index/);
    expect(message).toMatch(/configDigest/);
    expect(message).toMatch(/run\.head/);
  });

  it('of another schema (a scorecard given by mistake) is refused', () => {
    expect(() =>
      parseShardPart(JSON.stringify({ schema: 'patchgate/scorecard@1' }), 'scorecard.json'),
    ).toThrow(/schema/);
  });
});

describe("a part's suite runs (part-tests.json, read by merge --history)", () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const runs = `${JSON.stringify([{ side: 'head', tests: [{ id: 't', status: 'passed' }] }])}\n`;

  it('are the runs of the file whose digest the part names', () => {
    expect(parsePartTestRuns(runs, 'out/part-tests.json', sha(runs))).toEqual([
      { side: 'head', tests: [{ id: 't', status: 'passed' }] },
    ]);
  });

  it('refuse a file that is not the one the part names, with both digests', () => {
    const edited = runs.replace('passed', 'failed');
    expect(() => parsePartTestRuns(edited, 'out/part-tests.json', sha(runs))).toThrow(
      new RegExp(`out/part-tests\\.json: its sha256 is ${sha(edited)}, but the part names ${sha(runs)}`),
    );
  });

  it('refuse text that is not JSON, and runs of the wrong shape, naming the file and the field', () => {
    expect(() => parsePartTestRuns('[{', 'out/part-tests.json', sha('[{'))).toThrow(
      /out\/part-tests\.json: not JSON/,
    );
    const wrong = JSON.stringify([{ side: 'elsewhere', tests: 3 }]);
    let message = '';
    try {
      parsePartTestRuns(wrong, 'out/part-tests.json', sha(wrong));
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/out\/part-tests\.json: not the suite runs of a shard/);
    expect(message).toMatch(/side/);
    expect(message).toMatch(/tests/);
  });
});
