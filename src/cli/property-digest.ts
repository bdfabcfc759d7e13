import path from 'node:path';
import { contractReadOptions } from '../config/contract-file.js';
import { loadConfig } from '../config/load.js';
import { Git } from '../git/git.js';
import { findRepoRoot } from '../git/revisions.js';
import { lockedFixtureDigests } from '../layers/fixtures/locked-digests.js';
import { PropertyPool } from '../layers/hits/pool.js';
import { HarnessClient } from '../runners/harness/client.js';
import { PYTHON_ADAPTER_PATH } from '../runners/harness/python-adapter.js';
import { execFile } from '../util/exec.js';
import { findModules } from '../util/find-modules.js';
import { scrubbedEnv } from '../util/scrub-env.js';
import type { CliIO } from './io.js';

/**
 * The locked digest of a property's fixture, for `ledger add`: the ledger
 * row must name the digest the gate will compare it with. Property modules
 * are listed in the worker pool, never loaded into this process.
 */
export async function resolvePropertyDigest(io: CliIO, property: string): Promise<string | undefined> {
  const root = await findRepoRoot(new Git(execFile, io.cwd, io.signal));
  const { config } = await loadConfig(root, undefined, { signal: io.signal });
  const hits = config.hits;
  if (!hits) return undefined;
  let fixture = hits.commands.find((c) => c.name === property)?.fixture;
  const env = scrubbedEnv(io.env);
  if (!fixture) {
    const modules = await findModules(root, hits.properties);
    if (modules.length > 0) {
      const pool = new PropertyPool({ workers: 1, timeoutMs: hits.timeoutMs, env });
      try {
        const listed = await pool.list(modules.map((m) => path.join(root, m)));
        fixture = listed.properties.find((p) => p.name === property)?.fixture;
      } finally {
        await pool.close();
      }
    }
  }
  const harnesses = [
    ...hits.python.map((p) => ({ command: [p.python, PYTHON_ADAPTER_PATH, p.module], fixture: p.fixture })),
    ...hits.harnesses,
  ];
  for (const h of harnesses) {
    if (fixture) break;
    const client = await HarnessClient.start({
      command: h.command,
      cwd: root,
      env,
      timeoutMs: hits.timeoutMs,
      signal: io.signal,
    });
    try {
      if ((await client.list()).some((p) => p.name === property)) fixture = h.fixture;
    } finally {
      await client.close();
    }
  }
  if (!fixture) return undefined;
  return (
    await lockedFixtureDigests(root, config, 'the working tree', contractReadOptions(config, io.signal))
  ).get(fixture);
}
