import { readFileSync } from 'node:fs';
import path from 'node:path';
import { asPatchgateError, ContractFileError } from '../errors.js';
import type { GateHooks } from '../pipeline.js';
import { packageRoot } from '../util/package-root.js';
import { EXIT, exitCodeForError } from './exit-codes.js';
import { renderTopHelp } from './help.js';
import { type CliIO, displaySafe } from './io.js';
import {
  type CommandSpec,
  type GroupSpec,
  renderCommandHelp,
  renderGroupHelp,
  wantsHelp,
} from './options.js';
import { findSpec, isGroup } from './specs.js';
import { usage, withHelpPointer } from './usage.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

type Run = (args: string[], io: CliIO, hooks?: GateHooks) => Promise<number>;

/**
 * Each command's module, loaded only when that command runs: `--help`,
 * `--version` and a usage error never import the pipeline, the schemas, the
 * TypeScript compiler or fast-check.
 */
const LOADERS: Record<string, () => Promise<Run>> = {
  check: async () => (await import('./commands/check.js')).checkCommand,
  merge: async () => (await import('./commands/merge.js')).mergeCommand,
  init: async () => (await import('./commands/init.js')).initCommand,
  lock: async () => (await import('./commands/lock.js')).lockCommand,
  baseline: async () => (await import('./commands/baseline.js')).baselineCommand,
  ledger: async () => {
    const [{ ledgerCommand }, { resolvePropertyDigest }] = await Promise.all([
      import('./commands/ledger.js'),
      import('./property-digest.js'),
    ]);
    return (args, io) => ledgerCommand(args, io, { resolveDigest: (p) => resolvePropertyDigest(io, p) });
  },
  signatures: async () => {
    const [{ signaturesCommand }, { parseJUnitFile }] = await Promise.all([
      import('./commands/signatures.js'),
      import('../junit/index.js'),
    ]);
    return (args, io) =>
      signaturesCommand(args, io, { parseReport: (file) => parseJUnitFile(file, { file }) });
  },
  seeds: async () => (await import('./commands/seeds.js')).seedsCommand,
  explore: async () => {
    const [{ exploreCommand }, { randomInt }] = await Promise.all([
      import('./commands/explore.js'),
      import('node:crypto'),
    ]);
    return (args, io) => exploreCommand(args, io, { random: { int: (min, max) => randomInt(min, max) } });
  },
  explain: async () => (await import('./commands/explain.js')).explainCommand,
  record: async () => {
    const [{ recordCommand }, { parseJUnitFile }, { execFile }, { Git }, { claimChecks, configuredLedger }] =
      await Promise.all([
        import('./commands/record.js'),
        import('../junit/index.js'),
        import('../git/exec.js'),
        import('../git/git.js'),
        import('./claim-checks.js'),
      ]);
    return (args, io) => {
      const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
      return recordCommand(args, io, {
        parseReport: (file) => parseJUnitFile(file, { file }),
        ledgerPath: (root) => configuredLedger(root, io.signal),
        claimChecks: (root) => claimChecks(git.at(root), root, io.signal),
      });
    };
  },
  history: async () => (await import('./commands/history.js')).historyCommand,
  freeze: async () => {
    const [{ freezeCommand }, { claimChecks, configuredLedger }, { execFile }, { Git }] = await Promise.all([
      import('./commands/freeze.js'),
      import('./claim-checks.js'),
      import('../git/exec.js'),
      import('../git/git.js'),
    ]);
    return (args, io) =>
      freezeCommand(args, io, {
        ledgerPath: (root) => configuredLedger(root, io.signal),
        claimChecks: (root) =>
          claimChecks(Git.forEnv(execFile, root, io.env, io.signal).at(root), root, io.signal),
      });
  },
  claims: async () => (await import('./commands/claims.js')).claimsCommand,
  validate: async () => (await import('./commands/validate.js')).validateCommand,
};

const isHelpFlag = (a: string | undefined) => a === '--help' || a === '-h';

function subcommandList(group: GroupSpec): string {
  return group.subcommands.map((s) => s.name.slice(group.name.length + 1)).join(', ');
}

/** `patchgate help [CMD [SUB]]`. */
function helpFor(words: string[]): string {
  const [command, sub, ...extra] = words;
  if (command === undefined) return renderTopHelp();
  const top = findSpec(command);
  const spec = sub === undefined || (top && isGroup(top)) ? findSpec(command, sub) : undefined;
  if (spec === undefined || extra.length > 0) {
    if (top && isGroup(top))
      throw usage(
        `help: '${command}' has no subcommand '${sub}' (its subcommands: ${subcommandList(top)})`,
        command,
      );
    throw usage(`help: unknown command '${words.join(' ')}'`);
  }
  return isGroup(spec) ? renderGroupHelp(spec) : renderCommandHelp(spec);
}

/** Runs one command and returns its exit code; never calls process.exit itself. */
export async function main(given: CliIO, hooks?: GateHooks): Promise<number> {
  // Every command's output is display-safe: messages quote what the patch's code printed.
  const io: CliIO = { ...given, stdout: displaySafe(given.stdout), stderr: displaySafe(given.stderr) };
  const [command, ...rest] = io.argv;
  // The command whose help a usage error points at, as far as the arguments named one.
  let helpPath: string | undefined;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
        io.stdout.write(renderTopHelp());
        return command === undefined ? EXIT.input : 0;
      case 'help':
        io.stdout.write(helpFor(rest));
        return 0;
      case '--version':
      case '-v':
        io.stdout.write(`${version()}\n`);
        return 0;
    }
    const top = findSpec(command);
    const load = LOADERS[command];
    if (!top || !load) throw usage(`unknown command '${command}'`);
    helpPath = top.name;
    let leaf: CommandSpec;
    let leafArgs = rest;
    if (isGroup(top)) {
      const [sub, ...subArgs] = rest;
      if (isHelpFlag(sub)) {
        io.stdout.write(renderGroupHelp(top));
        return 0;
      }
      if (sub === undefined)
        throw usage(
          `${command} needs a subcommand: ${top.subcommands.map((s) => `patchgate ${s.name} ...`).join(', ')}`,
        );
      const found = findSpec(command, sub);
      if (!found || isGroup(found))
        throw usage(`unknown ${command} subcommand '${sub}' (expected: ${subcommandList(top)})`);
      leaf = found;
      leafArgs = subArgs;
      helpPath = leaf.name;
    } else leaf = top;
    if (wantsHelp(leaf, leafArgs)) {
      io.stdout.write(renderCommandHelp(leaf));
      return 0;
    }
    const run = await load();
    return await run(rest, io, hooks);
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
    const message = e.code === 'USAGE' ? withHelpPointer(e.message, helpPath) : e.message;
    io.stderr.write(`patchgate: ${label}: ${message}\n`);
    if (e.kind === 'internal' && e.cause instanceof Error && e.cause.stack)
      io.stderr.write(`${e.cause.stack}\n`);
    return exitCodeForError(e);
  }
}
