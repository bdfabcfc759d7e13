import path from 'node:path';
import { contractReadOptions } from '../config/contract-file.js';
import { loadConfig } from '../config/load.js';
import type { PatchgateConfig } from '../config/schema.js';
import { execFile } from '../git/exec.js';
import { Git } from '../git/git.js';
import { findRepoRoot } from '../git/revisions.js';
import { lockedFixtureDigests } from '../layers/fixtures/locked-digests.js';
import { PropertyPool } from '../layers/hits/pool.js';
import { HarnessClient } from '../runners/harness/client.js';
import { PYTHON_ADAPTER_PATH } from '../runners/harness/python-adapter.js';
import { limitsFromConfig, openSandbox } from '../sandbox/open.js';
import { findModules } from '../util/find-modules.js';
import type { CliIO } from './io.js';
import { workingCopy } from './working-copy.js';

/**
 * The locked digest of a property's fixture, for `ledger add`: the ledger
 * row must name the digest the gate will compare it with. Property modules
 * are listed in the sandbox, on a private copy of the working tree, never
 * loaded into this process.
 */
export async function resolvePropertyDigest(io: CliIO, property: string): Promise<string | undefined> {
  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const root = await findRepoRoot(git);
  const { config } = await loadConfig(root, undefined, { signal: io.signal });
  const hits = config.hits;
  if (!hits) return undefined;
  let fixture: string | undefined = hits.commands.find((c) => c.name === property)?.fixture;
  if (fixture)
    return (
      await lockedFixtureDigests(root, config, 'the working tree', contractReadOptions(config, io.signal))
    ).get(fixture);
  // Property modules are the repository's code: listed in the sandbox, on a private copy of the tree.
  const copy = await workingCopy(git.at(root), root, io.pid ?? 0);
  try {
    fixture = await findFixture(io, config, copy.root, property);
  } finally {
    await copy.dispose();
  }
  if (!fixture) return undefined;
  return (
    await lockedFixtureDigests(root, config, 'the working tree', contractReadOptions(config, io.signal))
  ).get(fixture);
}

async function findFixture(
  io: CliIO,
  config: PatchgateConfig,
  root: string,
  property: string,
): Promise<string | undefined> {
  const hits = config.hits;
  if (!hits) return undefined;
  let fixture: string | undefined;
  const sandbox = await openSandbox(io.env, {
    readOnly: config.sandbox.readOnly,
    limits: limitsFromConfig(config.sandbox.limits),
  });
  const env = sandbox.environment();
  if (!fixture) {
    const modules = await findModules(root, hits.properties);
    if (modules.length > 0) {
      const pool = new PropertyPool({ workers: 1, timeoutMs: hits.timeoutMs, env, sandbox, root });
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
      sandbox,
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
  return fixture;
}
