import { describe, expect, it } from 'vitest';
import type { Layer } from '../../src/layers/types.js';
import { type ProgressEvent, runGate } from '../../src/pipeline.js';
import { fixtureRepo } from '../helpers/fixture-repo.js';

const layer = (name: string, run: Layer['run']): Layer => ({
  name,
  enabled: () => true,
  contractFiles: () => [],
  run,
});

describe('progress events', () => {
  it('carry the name of the layer that reported them', async () => {
    const events: ProgressEvent[] = [];
    const first = layer('first', async (ctx) => {
      ctx.progress?.('units', 0, 2);
      ctx.progress?.('units', 2, 2);
      return { findings: [] };
    });
    const second = layer('second', async (ctx) => {
      ctx.progress?.('runs', 1, 3);
      return { findings: [] };
    });
    const card = await runGate({
      cwd: fixtureRepo().dir,
      base: 'main',
      env: {},
      layers: [first, second],
      hooks: { onProgress: (e) => events.push(e) },
    });
    expect(card.verdict).toBe('accept');
    expect(events).toEqual([
      { layer: 'first', task: 'units', done: 0, total: 2 },
      { layer: 'first', task: 'units', done: 2, total: 2 },
      { layer: 'second', task: 'runs', done: 1, total: 3 },
    ]);
  });

  it('are not offered to layers when no one listens, and a throwing listener changes no verdict', async () => {
    let offered: boolean | undefined;
    const probe = layer('probe', async (ctx) => {
      offered = ctx.progress !== undefined;
      ctx.progress?.('units', 1, 1);
      return { findings: [] };
    });
    const repo = fixtureRepo();
    await runGate({ cwd: repo.dir, base: 'main', env: {}, layers: [probe] });
    expect(offered).toBe(false);
    const card = await runGate({
      cwd: repo.dir,
      base: 'main',
      env: {},
      layers: [probe],
      hooks: {
        onProgress: () => {
          throw new Error('the terminal went away');
        },
      },
    });
    expect(offered).toBe(true);
    expect(card.verdict).toBe('accept');
    expect(card.findings).toEqual([]);
  });
});
