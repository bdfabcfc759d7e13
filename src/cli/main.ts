import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { asPatchgateError, ContractFileError } from '../errors.js';
import { execFile } from '../git/exec.js';
import { Git } from '../git/git.js';
import { parseJUnitFile } from '../junit/index.js';
import type { GateHooks } from '../pipeline.js';
import { claimChecks, configuredLedger } from './claim-checks.js';
import { checkCommand } from './commands/check.js';
import { claimsCommand } from './commands/claims.js';
import { explainCommand } from './commands/explain.js';
import { exploreCommand } from './commands/explore.js';
import { freezeCommand } from './commands/freeze.js';
import { initCommand } from './commands/init.js';
import { ledgerCommand } from './commands/ledger.js';
import { lockCommand } from './commands/lock.js';
import { recordCommand } from './commands/record.js';
import { seedsCommand } from './commands/seeds.js';
import { signaturesCommand } from './commands/signatures.js';
import { EXIT, exitCodeForError } from './exit-codes.js';
import { HELP } from './help.js';
import type { CliIO } from './io.js';
import { resolvePropertyDigest } from './property-digest.js';
import { usage } from './usage.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Runs one command and returns its exit code; never calls process.exit itself. */
export async function main(io: CliIO, hooks?: GateHooks): Promise<number> {
  const [command, ...rest] = io.argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout.write(HELP);
        return command === undefined ? EXIT.input : 0;
      case '--version':
      case '-v':
        io.stdout.write(`${version()}\n`);
        return 0;
      case 'check':
        return await checkCommand(rest, io, hooks);
      case 'init':
        return await initCommand(rest, io);
      case 'lock':
        return await lockCommand(rest, io);
      case 'ledger':
        return await ledgerCommand(rest, io, {
          resolveDigest: (property) => resolvePropertyDigest(io, property),
        });
      case 'signatures':
        return await signaturesCommand(rest, io, { parseReport: (file) => parseJUnitFile(file, { file }) });
      case 'seeds':
        return await seedsCommand(rest, io);
      case 'explore':
        return await exploreCommand(rest, io, { random: { int: (min, max) => randomInt(min, max) } });
      case 'explain':
        return await explainCommand(rest, io);
      case 'record': {
        const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
        return await recordCommand(rest, io, {
          parseReport: (file) => parseJUnitFile(file, { file }),
          ledgerPath: (root) => configuredLedger(root, io.signal),
          claimChecks: (root) => claimChecks(git.at(root), root, io.signal),
        });
      }
      case 'freeze':
        return await freezeCommand(rest, io, { ledgerPath: (root) => configuredLedger(root, io.signal) });
      case 'claims':
        return await claimsCommand(rest, io);
      default:
        throw usage(`unknown command '${command}'`);
    }
  } catch (err) {
    if (io.signal.aborted) {
      io.stderr.write('patchgate: interrupted; temporary worktrees removed\n');
      return 130;
    }
    // parseArgs throws plain TypeErrors with a code for unknown or malformed flags.
    const code = (err as { code?: string }).code;
    const e =
      typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')
        ? usage((err as Error).message)
        : asPatchgateError(err);
    const label =
      e instanceof ContractFileError ? e.code : e.code === 'INTERNAL_ERROR' ? 'internal error' : 'error';
    io.stderr.write(`patchgate: ${label}: ${e.message}\n`);
    if (e.kind === 'internal' && e.cause instanceof Error && e.cause.stack)
      io.stderr.write(`${e.cause.stack}\n`);
    return exitCodeForError(e);
  }
}
