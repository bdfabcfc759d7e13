import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { InputError } from '../../src/errors.js';
import { pruneLeftovers } from '../../src/git/checkouts.js';
import type { Layer } from '../../src/layers/types.js';
import { LAYERS, runGate } from '../../src/pipeline.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { fixtureRepo } from '../helpers/fixture-repo.js';

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
      'regression:skipped',
      'test-edits:skipped',
      'stability:skipped',
      'mutation:skipped',
      'claims:skipped',
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
        // Its .git is a repository of its own files: no gitfile, commondir or alternates into the user's.
        headGitIsOwn:
          statSync(path.join(ctx.head.root, '.git')).isDirectory() &&
          !existsSync(path.join(ctx.head.root, '.git/commondir')) &&
          !existsSync(path.join(ctx.head.root, '.git/objects/info/alternates')),
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
      headGitIsOwn: true,
      baseIsTemp: true,
    });
  });

  it('without a sandbox, under CI=true, gives an error verdict and runs no head code; outside CI it warns', async () => {
    const repo = fixtureRepo();
    let ran = 0;
    const headCode: Layer = {
      ...layer('head-code', async () => {
        ran++;
        return { findings: [] };
      }),
      runsHeadCode: true,
    };
    const noSandbox = new Sandbox({
      mode: 'process',
      uid: 0,
      gid: 0,
      reason: 'bubblewrap (bwrap) is not installed',
    });
    const ci = await runGate({
      cwd: repo.dir,
      base: 'main',
      env: { CI: 'true' },
      sandbox: noSandbox,
      layers: [...LAYERS, headCode],
    });
    expect(ci.verdict).toBe('error');
    expect(ci.isolation).toEqual({ mode: 'process', reason: 'bubblewrap (bwrap) is not installed' });
    expect(ci.findings[0]).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', severity: 'error' });
    expect(ci.findings[0]?.message).toContain('apt-get install -y bubblewrap');
    expect(ci.layers.at(-1)).toMatchObject({ name: 'head-code', status: 'skipped' });
    expect(ran).toBe(0);

    const local = await runGate({
      cwd: repo.dir,
      base: 'main',
      env: {},
      sandbox: noSandbox,
      layers: [...LAYERS, headCode],
    });
    expect(local.verdict).toBe('accept');
    expect(local.findings).toEqual([
      expect.objectContaining({ code: 'SANDBOX_UNAVAILABLE', severity: 'warn' }),
    ]);
    expect(ran).toBe(1);
  });

  it('accepts plain child processes under CI=true when the base config allows it, and records it', async () => {
    const repo = fixtureRepo({}, { sandbox: { allowUnsandboxed: true } });
    const noSandbox = new Sandbox({ mode: 'process', uid: 0, gid: 0, reason: 'no bwrap' });
    const card = await runGate({ cwd: repo.dir, base: 'main', env: { CI: 'true' }, sandbox: noSandbox });
    expect(card.verdict).toBe('accept');
    expect(card.findings).toEqual([
      expect.objectContaining({ code: 'SANDBOX_UNAVAILABLE', severity: 'warn' }),
    ]);
  });

  it('prunes the temp folders a killed run left, and only those', async () => {
    const dead = mkdtempSync(path.join(tmpdir(), 'patchgate-base-999999999-'));
    const live = mkdtempSync(path.join(tmpdir(), `patchgate-base-${process.pid}-`));
    const unowned = mkdtempSync(path.join(tmpdir(), 'patchgate-base-0-'));
    try {
      // Only the made-up pid and 0 are dead (as /proc says): other test files run gates in parallel and
      // their folders must stay.
      const removed = await pruneLeftovers((pid) => pid !== 999999999 && pid !== 0);
      expect(removed).toContain(path.basename(dead));
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
      // A library caller that gave no pid: a concurrent run must not take its folders away.
      expect(existsSync(unowned)).toBe(true);
    } finally {
      rmSync(live, { recursive: true, force: true });
      rmSync(unowned, { recursive: true, force: true });
    }
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
