import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import {
  type CommandSpec,
  parseArgsOptions,
  parseCommand,
  renderCommandHelp,
  renderGroupHelp,
  wantsHelp,
} from '../../../src/cli/options.js';
import {
  CHECK,
  COMMANDS,
  isGroup,
  LEDGER_ADD,
  RECORD,
  SEEDS_ADD,
  SIGNATURES_ADD,
} from '../../../src/cli/specs.js';
import { DEFAULT_CLAIM_LEDGER } from '../../../src/freeze/claim-ledger.js';
import { DEFAULT_FLAKE_LEDGER } from '../../../src/freeze/flake-ledger.js';
import { DEFAULT_SIGNATURE_FREEZE } from '../../../src/freeze/signature-freeze.js';
import { memoryIO } from '../../helpers/cli-io.js';

const leaves: CommandSpec[] = COMMANDS.flatMap((c) => (isGroup(c) ? [...c.subcommands] : [c]));

async function cli(argv: string[]) {
  const mem = memoryIO(process.cwd());
  mem.io.argv = argv;
  const code = await main(mem.io);
  return { code, out: mem.out(), err: mem.err() };
}

const words = (s: string) => s.split(/\s+/).filter((w) => w !== '');

describe('help generated from the option specs', () => {
  it.each(
    leaves.map((s) => [s.name, s] as const),
  )('lists every option the parser of `%s` accepts, with its placeholder', (_name, spec) => {
    const help = renderCommandHelp(spec);
    for (const [name, o] of Object.entries(parseArgsOptions(spec))) {
      const placeholder = spec.options[name]?.placeholder;
      expect(help).toContain(o.type === 'string' ? `--${name} ${placeholder ?? 'VALUE'}` : `--${name}`);
    }
    expect(help).toContain('-h, --help');
  });

  it.each(
    leaves.map((s) => [s.name, s] as const),
  )('fits `%s --help` in 100 columns without breaking a word of its texts', (_name, spec) => {
    const help = renderCommandHelp(spec);
    for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    const shown = new Set(words(help));
    const texts = [
      spec.summary,
      spec.description ?? '',
      ...Object.values(spec.options).map((o) => o.description),
      ...(spec.positionals ?? []).map((p) => p.description),
    ];
    for (const w of texts.flatMap(words)) expect(shown.has(w) || help.includes(w)).toBe(true);
  });

  it('wraps a long description on word boundaries with a hanging indent under its column', () => {
    const spec: CommandSpec = {
      name: 'demo',
      summary: 'a demo',
      options: {
        thing: {
          type: 'string',
          placeholder: 'X',
          description: `${'alpha beta gamma delta '.repeat(12)}omega`,
        },
      },
    };
    const lines = renderCommandHelp(spec).split('\n');
    const first = lines.findIndex((l) => l.startsWith('      --thing X'));
    const col = lines[first]?.indexOf('alpha') ?? -1;
    expect(col).toBeGreaterThan(10);
    const end = lines.findIndex((l, i) => i > first && l.trimStart().startsWith('-'));
    const rest = lines.slice(first + 1, end);
    expect(rest.length).toBeGreaterThan(1);
    for (const l of rest) {
      expect(l.slice(0, col).trim()).toBe('');
      expect(words(l).every((w) => ['alpha', 'beta', 'gamma', 'delta', 'omega'].includes(w))).toBe(true);
    }
  });

  it('shows defaults and repeatable flags from the spec', () => {
    const help = renderCommandHelp(CHECK);
    expect(help.replace(/\s+/g, ' ')).toContain(
      '--out DIR where the scorecard and reports are written; emptied first (default: .patchgate/out)',
    );
    expect(help.replace(/\s+/g, ' ')).toContain('repeatable');
    expect(help).toContain('Usage: patchgate check --base REV [--head REV]');
  });

  it("keeps the specs' file defaults equal to the constants the commands fall back on", () => {
    expect(LEDGER_ADD.options.file.default).toBe(DEFAULT_FLAKE_LEDGER);
    expect(SIGNATURES_ADD.options.file.default).toBe(DEFAULT_SIGNATURE_FREEZE);
    expect(RECORD.description).toContain(DEFAULT_CLAIM_LEDGER);
  });

  it('parses by the spec: defaults filled, repeatable options collected, positionals kept', () => {
    const { io, out } = memoryIO(process.cwd());
    const parsed = parseCommand(
      CHECK,
      ['--base', 'main', '--reporter', 'github', '--reporter', 'terminal'],
      io,
    );
    expect(parsed?.values).toMatchObject({
      base: 'main',
      out: '.patchgate/out',
      json: false,
      quiet: false,
      reporter: ['github', 'terminal'],
    });
    expect(parseCommand(SEEDS_ADD, ['p1', '--seed', '5'], io)?.positionals).toEqual(['p1']);
    expect(parseCommand(CHECK, ['--help'], io)).toBeUndefined();
    expect(out()).toBe(renderCommandHelp(CHECK));
  });

  it('tells a --help from a flag value that happens to read --help', () => {
    expect(wantsHelp(SEEDS_ADD, ['p1', '--help'])).toBe(true);
    expect(wantsHelp(SEEDS_ADD, ['p1', '-h'])).toBe(true);
    expect(wantsHelp(SEEDS_ADD, ['p1', '--note=--help'])).toBe(false);
    expect(wantsHelp(SEEDS_ADD, ['p1', '--', '--help'])).toBe(false);
  });
});

describe('patchgate help, CMD --help, CMD SUB --help', () => {
  it('lists every command and subcommand with its one-line summary at the top level', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const s of leaves) {
      const line = r.out.split('\n').find((l) => l.startsWith(`  ${s.name} `));
      expect(line, s.name).toBeDefined();
      expect(r.out.replace(/\s+/g, ' ')).toContain(s.summary);
    }
    for (const line of r.out.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(r.out).toContain('Exit codes: 0 accept, 1 reject, 2 bad input or usage, 3 internal error');
  });

  it('prints the same help for `help CMD SUB` and `CMD SUB --help`, and the group help for `CMD --help`', async () => {
    const a = await cli(['help', 'ledger', 'add']);
    const b = await cli(['ledger', 'add', '--help']);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.out).toBe(renderCommandHelp(LEDGER_ADD));
    expect(b.out).toBe(a.out);
    const group = await cli(['ledger', '--help']);
    expect(group.code).toBe(0);
    const ledger = COMMANDS.find((c) => c.name === 'ledger');
    expect(ledger && isGroup(ledger) ? renderGroupHelp(ledger) : '').toBe(group.out);
    expect((await cli(['help', 'check'])).out).toBe((await cli(['check', '-h'])).out);
  });

  it('answers --help before the command runs, whatever else is on the line', async () => {
    // No --base and no repository: the command would fail if it ran.
    const r = await cli(['check', '--bogus', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(renderCommandHelp(CHECK));
  });

  it('ends usage errors with the help pointer of the command they came from (exit 2)', async () => {
    const flag = await cli(['check', '--base', 'main', '--bogus']);
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/Unknown option '--bogus'/);
    expect(flag.err.trimEnd()).toMatch(/\nsee patchgate check --help$/);
    const sub = await cli(['ledger', 'add', '--property', 'p', '--nope']);
    expect(sub.code).toBe(2);
    expect(sub.err.trimEnd()).toMatch(/\nsee patchgate ledger add --help$/);
    const unknownSub = await cli(['seeds', 'remove']);
    expect(unknownSub.code).toBe(2);
    expect(unknownSub.err).toContain("unknown seeds subcommand 'remove' (expected: add)");
    expect(unknownSub.err.trimEnd()).toMatch(/\nsee patchgate seeds --help$/);
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err.trimEnd()).toMatch(/\nsee patchgate --help$/);
    const help = await cli(['help', 'nope']);
    expect(help.code).toBe(2);
  });
});

/**
 * The static import graph from the CLI's entry point, as the built files will
 * have it: `--help` and `--version` run only what this reaches, since every
 * command module is loaded with a dynamic import().
 */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith('/')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)';/gm)) {
      const [, typeOnly, spec] = m;
      if (typeOnly || spec === undefined) continue;
      if (spec.startsWith('.')) todo.push(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else seen.add(spec);
    }
  }
  return seen;
}

describe('start-up', () => {
  it('reaches neither the pipeline nor zod, typescript, yaml, fast-check or jiti from bin.ts without a command', () => {
    const graph = [...staticGraph(path.resolve(import.meta.dirname, '../../../src/cli/bin.ts'))];
    const rel = graph.map((f) =>
      f.startsWith('/') ? path.relative(path.resolve(import.meta.dirname, '../../..'), f) : f,
    );
    expect(rel).toContain('src/cli/specs.ts');
    for (const heavy of ['zod', 'typescript', 'yaml', 'fast-check', 'jiti', 'saxes', 'picomatch'])
      expect(rel).not.toContain(heavy);
    expect(
      rel.filter((f) => f.startsWith('src/') && !/^src\/(cli|util)\/|^src\/(errors|codes)\.ts$/.test(f)),
    ).toEqual([]);
    expect(rel.filter((f) => f.startsWith('src/cli/commands/'))).toEqual([]);
  });
});
