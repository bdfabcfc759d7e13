import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { readContractTextIfExists } from '../../config/contract-file.js';
import { loadConfig } from '../../config/load.js';
import { parseTape } from '../../contracts/seed-tape.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import {
  addSeed,
  emptyTape,
  formatTape,
  rawTapeValue,
  seedRequestFromFlags,
} from '../../layers/seeds/tape-edit.js';
import { writeFileAtomic } from '../atomic-write.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { shellCommand } from '../shell-quote.js';
import { SEEDS_ADD } from '../specs.js';
import { usage } from '../usage.js';

/** The tape's name when the config has no `seeds` section (the schema's default). */
const DEFAULT_TAPE = 'property_seeds.json';

/** `patchgate seeds <subcommand>`: human-only edits of the seed tape. */
export async function seedsCommand(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return seedsAdd(rest, io);
    case undefined:
      throw usage('seeds needs a subcommand: patchgate seeds add <property-id> --seed S ...');
    default:
      throw usage(`unknown seeds subcommand '${sub}' (expected: add)`);
  }
}

/**
 * fast-check seeds are often negative, and parseArgs refuses `--seed -5` as
 * ambiguous; a negative integer after --seed can only be its value.
 */
function attachNegativeSeed(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    if (args[i] === '--seed' && next !== undefined && /^-[0-9]+$/.test(next)) {
      out.push(`--seed=${next}`);
      i++;
    } else out.push(args[i] as string);
  }
  return out;
}

async function seedsAdd(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(SEEDS_ADD, attachNegativeSeed(args), io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw usage(
      `seeds add: expected one property id, got ${positionals.length} (${positionals.map((p) => JSON.stringify(p)).join(', ')})`,
    );
  const request = seedRequestFromFlags(positionals[0], values);

  const repoRoot = await findRepoRoot(Git.forEnv(execFile, io.cwd, io.env, io.signal));
  const { config, file: configFile } = await loadConfig(repoRoot, undefined, { signal: io.signal });
  const file = config.seeds?.tape ?? DEFAULT_TAPE;
  const abs = path.join(repoRoot, file);

  const before = await readContractTextIfExists(
    repoRoot,
    file,
    'the working tree',
    config.limits.contractBytes,
  );
  let raw: unknown;
  if (before === undefined) raw = emptyTape();
  else {
    // An invalid tape is never rewritten: the human fixes it first.
    parseTape(before, file);
    raw = rawTapeValue(before, file);
  }

  const result = addSeed(raw, request);
  if (!result.changed) {
    io.stdout.write(`${file}: ${result.message}\n`);
    return 0;
  }
  const { text } = formatTape(result.value, file);
  if (before === undefined) await mkdir(path.dirname(abs), { recursive: true });
  await writeFileAtomic(abs, text, file);

  io.stdout.write(`${before === undefined ? 'created' : 'updated'} ${file}: ${result.message}\n`);
  if (!config.seeds)
    io.stdout.write(
      `\nnote: ${configFile} has no \`seeds\` section, so the gate does not replay this tape yet; add "seeds": {} to enable it.\n`,
    );
  io.stdout.write(
    `\nThe tape is a contract file: commit it on its own, never inside an agent's diff:\n  ${shellCommand(['git', 'add', file])} && ${shellCommand(['git', 'commit', '-m', `patchgate: record seed ${request.seed} of ${request.id}`])}\n`,
  );
  return 0;
}
