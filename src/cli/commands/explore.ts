import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { contractReadOptions } from '../../config/contract-file.js';
import { loadConfig } from '../../config/load.js';
import { readTape, type TapeRow, type TapeRunner } from '../../contracts/seed-tape.js';
import { InputError } from '../../errors.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import type { SeedReplay } from '../../layers/seeds/model.js';
import { replayTape } from '../../layers/seeds/replay-tape.js';
import { limitsFromConfig, openSandbox } from '../../sandbox/open.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { shellCommand } from '../shell-quote.js';
import { EXPLORE } from '../specs.js';
import { usage } from '../usage.js';
import { workingCopy } from '../working-copy.js';

/** Where fresh seeds come from; injected so tests can pin them. */
export interface RandomSource {
  /** A uniformly random integer in [min, maxExclusive). */
  int(min: number, maxExclusive: number): number;
}

export interface ExploreDeps {
  random: RandomSource;
}

export const MAX_RUNS = 10_000;

/**
 * fast-check folds seeds into 32 signed bits, and the tape only accepts that
 * range for its rows; process runners get non-negative seeds, which every
 * common seed switch (Hypothesis, pytest-randomly, …) accepts.
 */
function seedRange(runner: TapeRunner): [min: number, maxExclusive: number] {
  return runner === 'fast-check' ? [-(2 ** 31), 2 ** 31] : [0, 2 ** 31];
}

/** `n` distinct fresh seeds, or fewer only if the source keeps repeating itself. */
export function freshSeeds(n: number, runner: TapeRunner, random: RandomSource): string[] {
  const [min, max] = seedRange(runner);
  const out = new Set<string>();
  for (let tries = 0; out.size < n && tries < n * 4; tries++) out.add(String(random.int(min, max)));
  return [...out];
}

/**
 * The `seeds add` command that records a failing replay on the tape. Only
 * fast-check rows can replay a path or a stored counterexample, so a process
 * row's command records the seed alone, whatever its report said.
 */
export function seedsAddArgv(
  r: Pick<SeedReplay, 'property' | 'seed' | 'path' | 'shrunk'>,
  runner: TapeRunner,
): string[] {
  // parseArgs takes "--seed -5" for a missing value, so values starting with a dash are attached.
  const flag = (name: string, value: string) =>
    value.startsWith('-') ? [`--${name}=${value}`] : [`--${name}`, value];
  const idFirst = !r.property.startsWith('-');
  return [
    'patchgate',
    'seeds',
    'add',
    ...(idFirst ? [r.property] : []),
    ...flag('seed', r.seed),
    ...(runner === 'fast-check' && r.path !== undefined ? flag('path', r.path) : []),
    ...((runner === 'fast-check' || runner === 'pytest') && r.shrunk !== undefined
      ? flag('counterexample', JSON.stringify(r.shrunk))
      : []),
    ...(idFirst ? [] : ['--', r.property]),
  ];
}

function parseRuns(text: string | undefined): number {
  if (text === undefined)
    throw usage(`explore: --runs N is required: how many fresh seeds to try per property (1 to ${MAX_RUNS})`);
  const n = /^[0-9]+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RUNS)
    throw usage(`explore: --runs must be a whole number from 1 to ${MAX_RUNS}, got ${JSON.stringify(text)}`);
  return n;
}

interface PropertyResult {
  id: string;
  runner: TapeRunner;
  seeds: string[];
  passed: number;
  failed: number;
  problems: number;
}

interface Problem {
  property: string;
  status: SeedReplay['status'];
  message?: string;
  seeds: string[];
  logs: string[];
}

/**
 * `patchgate explore`: the nightly pass with varied seeds. The gate replays
 * fixed seeds so its verdicts are reproducible; this runs the tape's
 * properties at fresh random seeds on the working tree (main, on a schedule)
 * and prints each counterexample as the `seeds add` command that records it,
 * so the next gate replays it forever.
 */
export async function exploreCommand(args: string[], io: CliIO, deps: ExploreDeps): Promise<number> {
  const parsed = parseCommand(EXPLORE, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const runs = parseRuns(values.runs);

  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const root = await findRepoRoot(git);
  const { config, file: configFile } = await loadConfig(root, undefined, { signal: io.signal });
  const cfg = config.seeds;
  if (!cfg)
    throw new InputError(
      'CONFIG_INVALID',
      `${configFile} has no \`seeds\` section, so there is no seed tape to explore; add "seeds": {} (and seeds.properties for fast-check modules)`,
      { file: configFile },
    );
  const tape = await readTape(root, cfg.tape, 'the working tree', contractReadOptions(config, io.signal));

  const only = [...new Set(values.only ?? [])];
  const unknown = only.filter((id) => !tape.rows.some((r) => r.id === id));
  if (unknown.length > 0) {
    const known = tape.rows.map((r) => r.id);
    throw usage(
      `explore: ${unknown.map((id) => `'${id}'`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not on ${tape.file}; its properties are: ${known.length > 0 ? known.join(', ') : '(none)'}`,
    );
  }
  const selected = only.length > 0 ? tape.rows.filter((r) => only.includes(r.id)) : tape.rows;
  const rows: TapeRow[] = selected.map((row) => ({
    ...row,
    seeds: freshSeeds(runs, row.runner, deps.random).map((seed) => ({ seed })),
  }));

  if (rows.length === 0) {
    if (values.json)
      io.stdout.write(
        `${JSON.stringify({ ok: true, runs, config: configFile, tape: tape.file, logDir: null, properties: [], counterexamples: [], problems: [] }, null, 2)}\n`,
      );
    else io.stdout.write(`${tape.file} lists no properties; nothing to explore\n`);
    return 0;
  }

  const logDir = await mkdtemp(path.join(tmpdir(), 'patchgate-explore-'));
  let keepLogs = false;
  let copy: Awaited<ReturnType<typeof workingCopy>> | undefined;
  try {
    copy = await workingCopy(git.at(root), root, io.pid ?? 0);
    // Exploring runs the working tree's own property code: through the sandbox like any head code.
    const sandbox = await openSandbox(io.env, {
      readOnly: config.sandbox.readOnly,
      limits: limitsFromConfig(config.sandbox.limits),
    });
    await sandbox.grant(logDir);
    const replay = await replayTape({
      root: copy.root,
      rows,
      config: cfg,
      env: sandbox.environment(cfg.env),
      sandbox,
      logDir,
      signal: io.signal,
    });

    const order = new Map(rows.map((r, i) => [r.id, i]));
    const runnerOf = new Map(rows.map((r) => [r.id, r.runner]));
    const addArgv = (r: SeedReplay) => seedsAddArgv(r, runnerOf.get(r.property) ?? 'pytest');
    const replays = [...replay.replays].sort(
      (a, b) => (order.get(a.property) ?? 0) - (order.get(b.property) ?? 0),
    );
    const failures = replays.filter((r) => r.status === 'fail');
    const grouped = new Map<string, Problem>();
    for (const r of replays) {
      if (r.status === 'pass' || r.status === 'fail') continue;
      // A missing property or a broken runner repeats the same message for every seed: say it once.
      const key = JSON.stringify([r.property, r.status, r.message ?? null]);
      let p = grouped.get(key);
      if (!p) {
        p = {
          property: r.property,
          status: r.status,
          ...(r.message !== undefined ? { message: r.message } : {}),
          seeds: [],
          logs: [],
        };
        grouped.set(key, p);
      }
      if (r.seed !== '') p.seeds.push(r.seed);
      if (r.log !== undefined && p.logs.length < 3 && !p.logs.includes(r.log)) p.logs.push(r.log);
    }
    const problems = [...grouped.values()];
    const properties: PropertyResult[] = rows.map((row) => {
      const mine = replays.filter((r) => r.property === row.id);
      return {
        id: row.id,
        runner: row.runner,
        seeds: row.seeds.map((s) => s.seed),
        passed: mine.filter((r) => r.status === 'pass').length,
        failed: mine.filter((r) => r.status === 'fail').length,
        problems: mine.filter((r) => r.status !== 'pass' && r.status !== 'fail').length,
      };
    });
    const ok = failures.length === 0 && problems.length === 0;
    // fast-check replays run in workers and write no logs: an empty folder is not worth pointing at.
    keepLogs = !ok && (await readdir(logDir, { recursive: true })).length > 0;

    if (values.json) {
      const out = {
        ok,
        runs,
        config: configFile,
        tape: tape.file,
        logDir: keepLogs ? logDir : null,
        properties,
        counterexamples: failures.map((r) => {
          const argv = addArgv(r);
          return {
            property: r.property,
            seed: r.seed,
            ...(r.counterexample !== undefined ? { counterexample: r.counterexample } : {}),
            ...(r.shrunk !== undefined ? { shrunk: r.shrunk } : {}),
            ...(r.path !== undefined ? { path: r.path } : {}),
            ...(r.message !== undefined ? { message: r.message } : {}),
            ...(r.log !== undefined ? { log: r.log } : {}),
            command: shellCommand(argv),
            argv,
          };
        }),
        problems: replays
          .filter((r) => r.status !== 'pass' && r.status !== 'fail')
          .map((r) => ({
            property: r.property,
            seed: r.seed,
            status: r.status,
            ...(r.message !== undefined ? { message: r.message } : {}),
            ...(r.log !== undefined ? { log: r.log } : {}),
          })),
      };
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return ok ? 0 : 1;
    }

    const w = (s: string) => io.stdout.write(`${s}\n`);
    // Runner messages can carry a process's last lines of output: keep them under their label.
    const field = (label: string, text: string) =>
      w(`  ${`${label}:`.padEnd(9)}${text.split('\n').join(`\n${' '.repeat(11)}`)}`);
    w(
      `patchgate explore: ${rows.length} ${rows.length === 1 ? 'property' : 'properties'} of ${tape.file} × ${runs} fresh ${runs === 1 ? 'seed' : 'seeds'}, on the working tree\n`,
    );
    for (const r of failures) {
      w(`FAIL ${r.property} at seed ${r.seed}`);
      if (r.counterexample !== undefined) field('shrunk', r.counterexample);
      if (r.path !== undefined) field('path', r.path);
      if (r.message !== undefined) field('error', r.message);
      if (r.log !== undefined) field('log', r.log);
      field('record', shellCommand(addArgv(r)));
      w('');
    }
    for (const p of problems) {
      const seeds =
        p.seeds.length === 0
          ? ''
          : ` at ${p.seeds.length === 1 ? 'seed' : 'seeds'} ${p.seeds.slice(0, 5).join(', ')}${p.seeds.length > 5 ? `, … (${p.seeds.length} in all)` : ''}`;
      w(`PROBLEM ${p.property}${seeds}: ${p.status}`);
      if (p.message !== undefined) field('reason', p.message);
      for (const log of p.logs) field('log', log);
      w('');
    }
    const clean = properties.filter((p) => p.failed === 0 && p.problems === 0);
    for (const p of clean)
      w(`ok   ${p.id}: ${p.passed} fresh ${p.passed === 1 ? 'seed' : 'seeds'}, no counterexample`);
    if (clean.length > 0) w('');
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    w(
      `${count(failures.length, 'counterexample', 'counterexamples')}, ${count(problems.length, 'problem', 'problems')} in ${count(properties.length, 'property', 'properties')}.`,
    );
    if (failures.length > 0)
      w(
        `Record a counterexample with its \`seeds add\` command, then commit ${tape.file} on its own, never inside an agent's diff; the gate then replays it on every patch.`,
      );
    if (keepLogs) w(`Logs kept in ${logDir}`);
    return ok ? 0 : 1;
  } finally {
    await copy?.dispose();
    if (!keepLogs) await rm(logDir, { recursive: true, force: true });
  }
}
