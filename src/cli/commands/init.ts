import { access, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CONTRACT_BYTES } from '../../config/contract-file.js';
import { CONFIG_FILE_NAMES } from '../../config/load.js';
import { CONFIG_FILE_FOR, type ConfigFormat, renderConfig } from '../../config/scaffold.js';
import { configSchema, type PatchgateConfigInput } from '../../config/schema.js';
import { InputError } from '../../errors.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { relockFixtures } from '../../layers/fixtures/relock.js';
import { readTapeIfExists } from '../../layers/seeds/tape.js';
import { assertRepoPath } from '../../util/repo-path.js';
import type { CliIO } from '../io.js';
import { usage } from '../usage.js';

/** Folders that conventionally hold fixtures, in the order we prefer them. */
const FIXTURE_ROOT_CANDIDATES = [
  'testdata',
  'test/fixtures',
  'tests/fixtures',
  'test/data',
  'tests/data',
  'spec/fixtures',
  '__fixtures__',
  'fixtures',
];

async function isDir(abs: string): Promise<boolean> {
  return stat(abs).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function exists(abs: string): Promise<boolean> {
  return access(abs).then(
    () => true,
    () => false,
  );
}

export async function initCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      format: { type: 'string', default: 'json' },
      root: { type: 'string', multiple: true },
      owner: { type: 'string' },
      force: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const format = values.format as ConfigFormat;
  if (!(format in CONFIG_FILE_FOR)) throw usage(`--format must be json, yaml or ts, got '${values.format}'`);
  const repoRoot = await findRepoRoot(Git.forEnv(execFile, io.cwd, io.env, io.signal));

  let roots = (values.root ?? []).map((r) => assertRepoPath(r, '--root'));
  if (roots.length === 0) {
    for (const c of FIXTURE_ROOT_CANDIDATES) if (await isDir(path.join(repoRoot, c))) roots.push(c);
    // A nested candidate inside another one would be locked twice.
    roots = roots.filter((r) => !roots.some((o) => o !== r && r.startsWith(`${o}/`)));
  }
  if (roots.length === 0) {
    throw new InputError(
      'FIXTURE_ROOT_MISSING',
      `no fixture folder found (looked for ${FIXTURE_ROOT_CANDIDATES.join(', ')}); pass --root DIR for each folder of fixtures`,
    );
  }
  for (const r of roots) {
    if (!(await exists(path.join(repoRoot, r))))
      throw new InputError('FIXTURE_ROOT_MISSING', `--root ${r} does not exist in ${repoRoot}`);
  }

  const canonical: { file: string; digest: string }[] = [];
  if (await exists(path.join(repoRoot, 'fixtures/lock.json')))
    canonical.push({ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' });

  // A seed tape already in the repository (seed 001's property_seeds.json) turns the seeds layer on;
  // an invalid one stops init with its located problems rather than being wired in unread.
  // No config exists yet, so the tape is held to the default cap.
  const tape = await readTapeIfExists(repoRoot, 'property_seeds.json', 'the working tree', {
    maxBytes: DEFAULT_CONTRACT_BYTES,
    signal: io.signal,
  });
  const input: PatchgateConfigInput = {
    fixtures: {
      roots,
      lock: 'FIXTURE_LOCK.json',
      ...(values.owner ? { owner: values.owner } : {}),
      canonical,
    },
    ...(tape ? { seeds: { tape: tape.file } } : {}),
  };
  const config = configSchema.parse(input);
  const configFile = CONFIG_FILE_FOR[format];
  const existing: string[] = [];
  for (const name of CONFIG_FILE_NAMES) if (await exists(path.join(repoRoot, name))) existing.push(name);
  if (await exists(path.join(repoRoot, config.fixtures.lock))) existing.push(config.fixtures.lock);
  if (existing.length > 0 && !values.force) {
    throw new InputError(
      'ALREADY_EXISTS',
      `${existing.join(', ')} already exist(s); pass --force to overwrite`,
      { files: existing },
    );
  }
  const result = await relockFixtures({ repoRoot, config, owner: values.owner, fresh: true });
  await writeFile(path.join(repoRoot, configFile), renderConfig(input, format));

  io.stdout.write(`wrote ${configFile}\n`);
  io.stdout.write(
    `wrote ${result.lockFile} (${result.changes.length} fixture file(s) under ${roots.join(', ')})\n`,
  );
  for (const c of result.canonical)
    io.stdout.write(`wrote ${c.digestFile} (canonical digest of ${c.file})\n`);
  if (tape) {
    const fc = tape.rows.filter((r) => r.runner === 'fast-check').length;
    io.stdout.write(
      `found ${tape.file} (${tape.rows.length} propert${tape.rows.length === 1 ? 'y' : 'ies'}): the seeds layer replays it on every patch${fc > 0 ? `; its ${fc} fast-check row(s) need seeds.properties, the globs of your defineSeedProperty modules` : ''}\n`,
    );
  }
  io.stdout.write(
    `\nCommit these in a human commit, separate from any agent diff:\n  git add ${[configFile, result.lockFile, ...result.canonical.map((c) => c.digestFile)].join(' ')} && git commit -m "patchgate: init"\n`,
  );
  return 0;
}
