/**
 * How many processes a pool starts by default. The hits layer scores the base
 * and the head (and the overlay) at once, each in a pool of its own; every
 * process pays for starting and for loading the modules it runs, so pools that
 * run together share the cores instead of each taking all of them.
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ProcessPool } from '../../../src/sandbox/process-pool.js';
import { testSandbox } from '../../helpers/sandbox.js';

const sandbox = await testSandbox();
const cores = Math.min(os.availableParallelism(), 8);
const pool = (more: { workers?: number; sharedBy?: number }) =>
  new ProcessPool({
    sandbox,
    handler: '/nonexistent.js',
    root: os.tmpdir(),
    timeoutMs: 1000,
    env: {},
    ...more,
  });

describe('the size of a process pool', () => {
  it('takes the cores (at most eight) when it runs alone', () => {
    expect(pool({}).size).toBe(cores);
  });

  it('shares the cores with the pools that run beside it, never below one process', () => {
    expect(pool({ sharedBy: 2 }).size).toBe(Math.max(1, Math.floor(cores / 2)));
    expect(pool({ sharedBy: 3 }).size).toBe(Math.max(1, Math.floor(cores / 3)));
    expect(pool({ sharedBy: 64 }).size).toBe(1);
  });

  it('keeps the count the config gives, shared or not', () => {
    expect(pool({ workers: 5, sharedBy: 3 }).size).toBe(5);
  });
});
