import { describe, expect, it } from 'vitest';
import type { Layer, LayerContext, PropertyProof } from '../../../src/layers/types.js';
import { runGate } from '../../../src/pipeline.js';
import { checkLayerOrder, type SkipState, skipReason } from '../../../src/steps/run-layers.js';
import { fixtureRepo } from '../../helpers/fixture-repo.js';

const layer = (name: string, more: Partial<Layer> = {}): Layer => ({
  name,
  enabled: () => true,
  contractFiles: () => [],
  run: async () => ({ findings: [] }),
  ...more,
});

const state = (s: Partial<SkipState> = {}): SkipState => ({
  configFile: 'patchgate.config.json',
  enabled: true,
  allLayers: false,
  verdictSoFar: 'accept',
  ...s,
});

const proof = (name: string): PropertyProof => ({
  kind: 'hits',
  name,
  side: 'overlay',
  onBase: true,
  passed: true,
});

describe('skipReason', () => {
  it('runs an enabled layer on a clean run', () => {
    expect(skipReason(layer('x'), state())).toBeUndefined();
  });

  it('names the config file for a disabled layer, before any other reason', () => {
    expect(
      skipReason(layer('x', { runsHeadCode: true, onlyAfterClean: true }), {
        ...state({ enabled: false, verdictSoFar: 'reject' }),
        blocking: 'SANDBOX_UNAVAILABLE',
      }),
    ).toBe('not enabled in patchgate.config.json');
  });

  it('skips only head-code layers when the sandbox blocks, naming the finding that says why', () => {
    const blocked = state({ blocking: 'SANDBOX_UNAVAILABLE' });
    expect(skipReason(layer('contracts'), blocked)).toBeUndefined();
    expect(skipReason(layer('tests', { runsHeadCode: true }), blocked)).toMatch(/see SANDBOX_UNAVAILABLE/);
    expect(skipReason(layer('tests', { runsHeadCode: true }), state({ blocking: 'PROGRAM_HIDDEN' }))).toMatch(
      /see PROGRAM_HIDDEN/,
    );
    expect(
      skipReason(layer('tests', { runsHeadCode: true }), state({ blocking: 'SANDBOX_NETWORK_UNAVAILABLE' })),
    ).toMatch(/see SANDBOX_NETWORK_UNAVAILABLE/);
  });

  it('holds a last-only layer back after a rejection or an error, unless every layer is asked for', () => {
    const last = layer('stability', { onlyAfterClean: true });
    expect(skipReason(last, state({ verdictSoFar: 'reject' }))).toMatch(/--all-layers/);
    expect(skipReason(last, state({ verdictSoFar: 'error' }))).toMatch(/--all-layers/);
    expect(skipReason(last, state({ verdictSoFar: 'reject', allLayers: true }))).toBeUndefined();
    expect(skipReason(layer('other'), state({ verdictSoFar: 'reject' }))).toBeUndefined();
  });
});

describe('checkLayerOrder', () => {
  it('refuses a layer placed before one whose proofs it reads', () => {
    const claims = layer('claims', { after: ['hits', 'seeds'] });
    expect(() => checkLayerOrder([layer('hits'), claims, layer('seeds')])).toThrow(
      /claims reads what seeds proves, so it must run after it/,
    );
    expect(() => checkLayerOrder([layer('hits'), layer('seeds'), claims])).not.toThrow();
  });

  it('accepts a pipeline without a layer another reads (it proves nothing), and refuses two of one name', () => {
    expect(() => checkLayerOrder([layer('claims', { after: ['hits'] })])).not.toThrow();
    expect(() => checkLayerOrder([layer('a'), layer('a')])).toThrow(/two layers share a name/);
  });
});

describe('the layer context', () => {
  it('hands a layer only the proofs of the layers it reads, as a copy no layer can change', async () => {
    const repo = fixtureRepo();
    const seen: Record<string, unknown> = {};
    const prover = (name: string) =>
      layer(name, { run: async () => ({ findings: [], proofs: [proof(`${name}-p`)] }) });
    const vandal = layer('vandal', {
      after: ['hits'],
      run: async (ctx) => {
        seen.vandalSaw = ctx.proofs.map((p) => p.name);
        seen.vandalCtx = ctx;
        // A layer given readonly arrays by type only could still write them; a frozen copy throws instead.
        (ctx.proofs as PropertyProof[]).push(proof('forged'));
        return { findings: [] };
      },
    });
    const reader = layer('reader', {
      after: ['hits', 'seeds'],
      run: async (ctx: LayerContext) => {
        seen.readerSaw = ctx.proofs.map((p) => p.name);
        seen.ran = [...ctx.layersRun];
        seen.hasEnv = 'env' in ctx;
        seen.readerCtx = ctx;
        return { findings: [] };
      },
    });
    const card = await runGate({
      cwd: repo.dir,
      base: 'main',
      env: { CI_SECRET: 'hunter2' },
      layers: [prover('hits'), prover('seeds'), vandal, prover('unread'), reader],
    });
    expect(seen.vandalSaw).toEqual(['hits-p']);
    expect(card.layers.find((l) => l.name === 'vandal')?.status).toBe('error');
    expect(card.findings.find((f) => f.layer === 'vandal')?.message).toMatch(
      /not extensible|read.only|frozen/i,
    );
    expect(seen.readerSaw).toEqual(['hits-p', 'seeds-p']);
    expect(seen.ran).toEqual(['hits', 'seeds', 'vandal', 'unread']);
    // Layers learn which override tokens are set, never the gate's environment.
    expect(seen.hasEnv).toBe(false);
    // Each layer gets a context of its own, over the one snapshot of the run (what run-wide caches key on).
    expect(seen.readerCtx).not.toBe(seen.vandalCtx);
    expect((seen.readerCtx as LayerContext).snapshot).toBe((seen.vandalCtx as LayerContext).snapshot);
  });

  it('tells a layer which override tokens are set, and whitespace is not a token', async () => {
    const repo = fixtureRepo();
    let active: boolean[] = [];
    const spy = layer('spy', {
      run: async (ctx) => {
        active = ['A_OVERRIDE', 'B_OVERRIDE', 'C_OVERRIDE'].map((v) => ctx.overrides.active(v));
        return { findings: [] };
      },
    });
    await runGate({
      cwd: repo.dir,
      base: 'main',
      env: { A_OVERRIDE: 'tok', B_OVERRIDE: '  ' },
      layers: [spy],
    });
    expect(active).toEqual([true, false, false]);
  });

  it('refuses an out-of-order pipeline as an internal error before any layer runs', async () => {
    const repo = fixtureRepo();
    let ran = false;
    const first = layer('claims', {
      after: ['hits'],
      run: async () => {
        ran = true;
        return { findings: [] };
      },
    });
    await expect(
      runGate({ cwd: repo.dir, base: 'main', env: {}, layers: [first, layer('hits')] }),
    ).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(ran).toBe(false);
    expect(repo.extraWorktrees()).toEqual([]);
  });
});
