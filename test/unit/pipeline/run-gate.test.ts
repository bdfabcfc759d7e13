import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../../src/cli/exit-codes.js';
import { InputError } from '../../../src/errors.js';
import type { Layer } from '../../../src/layers/types.js';
import { LAYERS, runGate } from '../../../src/pipeline.js';
import { fixtureRepo } from '../../helpers/fixture-repo.js';

const layer = (name: string, run: Layer['run']): Layer => ({
  name,
  enabled: () => true,
  contractFiles: () => [],
  run,
});

describe('runGate', () => {
  it('turns a layer that throws into verdict error (internal), never accept, and keeps earlier findings', async () => {
    const repo = fixtureRepo();
    repo.write({ 'FIXTURE_LOCK.json': '{"edited": true}' });
    const boom = layer('boom', async () => {
      throw new TypeError('cannot read properties of undefined');
    });
    const card = await runGate({ cwd: repo.dir, base: 'main', env: {}, layers: [...LAYERS, boom] });
    expect(card.verdict).toBe('error');
    expect(card.errorKind).toBe('internal');
    expect(exitCodeFor(card)).toBe(3);
    expect(card.layers.map((l) => `${l.name}:${l.status}`)).toEqual([
      'contracts:reject',
      'fixtures:pass',
      'hits:skipped',
      'seeds:skipped',
      'signatures:skipped',
      'stability:skipped',
      'boom:error',
    ]);
    expect(card.findings.map((f) => f.code)).toEqual(['CONTRACT_TOUCHED', 'INTERNAL_ERROR']);
    expect(card.findings[1]?.message).toBe('cannot read properties of undefined');
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('reports a layer input error as verdict error (input), exit 2', async () => {
    const repo = fixtureRepo();
    const bad = layer('bad', async () => {
      throw new InputError('CONTRACT_INVALID', 'ledger.json:3:1: broken');
    });
    const card = await runGate({ cwd: repo.dir, base: 'main', env: {}, layers: [bad] });
    expect(card.verdict).toBe('error');
    expect(card.errorKind).toBe('input');
    expect(exitCodeFor(card)).toBe(2);
    expect(card.findings[0]?.evidence).toMatchObject({ error: 'CONTRACT_INVALID', kind: 'input' });
  });

  it('gives each layer the base and head checkouts and the changed paths', async () => {
    const repo = fixtureRepo();
    repo.write({ 'src/total.ts': 'changed', 'src/new.ts': 'new' });
    let seen: unknown;
    const spy = layer('spy', async (ctx) => {
      seen = {
        changes: ctx.changes,
        // Head code never runs in the user's tree: the head is a private copy of the working tree's files.
        headIsCopy:
          ctx.head.root !== repo.dir &&
          readFileSync(path.join(ctx.head.root, 'src/new.ts'), 'utf8') === 'new',
        headHasNoGit: !existsSync(path.join(ctx.head.root, '.git')),
        baseIsTemp: ctx.base.root !== repo.dir,
      };
      return { findings: [] };
    });
    const card = await runGate({ cwd: repo.path('src'), base: 'main', env: {}, layers: [spy] });
    expect(card.verdict).toBe('accept');
    expect(seen).toEqual({
      changes: [
        { kind: 'added', path: 'src/new.ts' },
        { kind: 'modified', path: 'src/total.ts' },
      ],
      headIsCopy: true,
      headHasNoGit: true,
      baseIsTemp: true,
    });
  });

  it('removes the base worktree when the run is aborted', async () => {
    const repo = fixtureRepo();
    const controller = new AbortController();
    const err = await runGate({
      cwd: repo.dir,
      base: 'main',
      env: {},
      signal: controller.signal,
      hooks: { onRevisionsReady: () => controller.abort() },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.code).toBe('ABORTED');
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('runs a last-only layer only when the earlier layers passed, unless all layers are asked for', async () => {
    const repo = fixtureRepo();
    repo.write({ 'FIXTURE_LOCK.json': '{"edited": true}' });
    let ran = 0;
    const probe: Layer = { ...layer('probe', async () => ({ findings: [] })), onlyAfterClean: true };
    probe.run = async () => {
      ran++;
      return { findings: [] };
    };
    const card = await runGate({ cwd: repo.dir, base: 'main', env: {}, layers: [...LAYERS, probe] });
    expect(card.layers.at(-1)).toMatchObject({ name: 'probe', status: 'skipped' });
    expect(ran).toBe(0);
    const all = await runGate({
      cwd: repo.dir,
      base: 'main',
      env: {},
      layers: [...LAYERS, probe],
      allLayers: true,
    });
    expect(all.layers.at(-1)).toMatchObject({ name: 'probe', status: 'pass' });
    expect(ran).toBe(1);
  });

  it('skips a disabled layer and says why', async () => {
    const repo = fixtureRepo({}, { fixtures: { enabled: false } });
    const card = await runGate({ cwd: repo.dir, base: 'main', env: {} });
    expect(card.layers[1]).toEqual({
      name: 'fixtures',
      status: 'skipped',
      findings: 0,
      reason: 'not enabled in patchgate.config.json',
    });
  });
});
