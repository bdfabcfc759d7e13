import type { HitsConfig } from '../../config/schema.js';
import { CommandChecker } from '../../runners/command/command-check.js';
import { HarnessClient } from '../../runners/harness/client.js';
import { HarnessError } from '../../runners/harness/protocol.js';
import { PYTHON_ADAPTER_PATH } from '../../runners/harness/python-adapter.js';
import type { LimitBreach, Sandbox } from '../../sandbox/sandbox.js';
import type { ProgressTally } from '../progress.js';
import type { PropertyInfo, Status } from './model.js';
import { generateMutants, type Mutant, type PerturbOptions } from './perturb/index.js';
import type { FixtureCache, RunOutcome, ScoredProperty, SourceProblem } from './scorer.js';

export interface ForeignSources {
  python: HitsConfig['python'];
  harnesses: HitsConfig['harnesses'];
  commands: HitsConfig['commands'];
}

export interface ScoreForeignOptions {
  root: string;
  sources: ForeignSources;
  runs: number;
  perturb: PerturbOptions;
  fixtures: FixtureCache;
  timeoutMs: number;
  env: Record<string, string>;
  sandbox: Sandbox;
  /** `hits.network`: network for the harness processes. */
  network?: boolean;
  signal: AbortSignal;
  /** Registers a property (unique name, locked fixture, well-formed claims) or reports why not. */
  accept(info: PropertyInfo): boolean;
  /** On a shard: whether it scores this accepted property (the others are only listed). */
  owns?(name: string): boolean;
  /** Counts properties scored. */
  progress?: ProgressTally;
}

/** Whatever checks a batch of fixtures: a harness process or a per-mutant command. */
type Checker = (fixtures: readonly unknown[]) => Promise<{ status: Status }[]>;

function failure(err: unknown): RunOutcome {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof HarnessError && err.code === 'HARNESS_TIMEOUT')
    return { ok: false, kind: 'timeout', message, checkIndex: -1 };
  const limit = err instanceof HarnessError ? (err.details.limit as LimitBreach | undefined) : undefined;
  return { ok: false, kind: 'crash', message, ...(limit ? { limit } : {}) };
}

/** The baseline and every mutant in one batch per run, so a harness sees few large messages. */
async function scoreWith(
  check: Checker,
  fixture: unknown,
  mutants: readonly Mutant[],
  runs: number,
): Promise<RunOutcome[]> {
  const batch = [fixture, ...mutants.map((m) => m.value)];
  const out: RunOutcome[] = [];
  for (let run = 0; run < runs; run++) {
    try {
      const results = await check(batch);
      const [first, ...rest] = results;
      if (!first || rest.length !== mutants.length)
        throw new Error(`expected ${batch.length} results, got ${results.length}`);
      out.push({
        ok: true,
        baseline: first.status,
        mutants: mutants.map((m, i) => ({
          paths: m.paths,
          operators: m.operators,
          status: (rest[i] as { status: Status }).status,
        })),
      });
    } catch (err) {
      // A dead harness cannot answer the remaining runs either.
      out.push(failure(err));
      break;
    }
  }
  return out;
}

/**
 * Properties in other languages. The fixtures and mutants are built here,
 * by our code; only the check runs in the head's process, and its answers
 * are validated by the harness client before they count.
 */
export async function scoreForeign(opts: ScoreForeignOptions): Promise<{
  properties: ScoredProperty[];
  listed: PropertyInfo[];
  problems: SourceProblem[];
  empty: string[];
}> {
  const properties: ScoredProperty[] = [];
  const listed: PropertyInfo[] = [];
  const owns = opts.owns ?? (() => true);
  const problems: SourceProblem[] = [];
  const empty: string[] = [];
  const harnesses = [
    ...opts.sources.python.map((p, i) => ({
      command: [p.python, PYTHON_ADAPTER_PATH, p.module],
      fixture: p.fixture,
      source: p.module,
      key: `hits.python[${i}].module`,
    })),
    ...opts.sources.harnesses.map((h, i) => ({
      command: h.command,
      fixture: h.fixture,
      source: h.command.join(' '),
      key: `hits.harnesses[${i}].command`,
    })),
  ];

  const mutantsOf = async (info: PropertyInfo) => {
    const fixture = await opts.fixtures.get(info.fixture);
    if (!fixture.ok) {
      problems.push({ source: info.source, property: info.name, message: fixture.message });
      return undefined;
    }
    return { fixture: fixture.value, mutants: [...generateMutants(fixture.value, opts.perturb)] };
  };

  const fixtureReadable = async (info: PropertyInfo) => {
    const fixture = await opts.fixtures.get(info.fixture);
    if (!fixture.ok) problems.push({ source: info.source, property: info.name, message: fixture.message });
    return fixture.ok;
  };

  for (const h of harnesses) {
    let client: HarnessClient | undefined;
    try {
      client = await HarnessClient.start({
        command: h.command,
        cwd: opts.root,
        sandbox: opts.sandbox,
        env: opts.env,
        ...(opts.network ? { network: true } : {}),
        timeoutMs: opts.timeoutMs,
        signal: opts.signal,
      });
      const answered = await client.list();
      if (answered.length === 0) empty.push(h.key);
      opts.progress?.expect(answered.length);
      for (const p of answered) {
        const info: PropertyInfo = {
          name: p.name,
          fixture: h.fixture,
          claims: [...p.claims],
          source: h.source,
        };
        try {
          if (!opts.accept(info)) continue;
          if (!owns(info.name)) {
            // Checked as a scoring shard checks it, so every shard lists and reports it alike.
            if (await fixtureReadable(info)) listed.push(info);
            continue;
          }
          const input = await mutantsOf(info);
          if (!input) continue;
          listed.push(info);
          const c = client;
          const runs = await scoreWith(
            (batch) => c.check(p.name, batch),
            input.fixture,
            input.mutants,
            opts.runs,
          );
          properties.push({ info, runs });
        } finally {
          opts.progress?.finish();
        }
      }
    } catch (err) {
      if (opts.signal.aborted) throw err;
      problems.push({
        source: h.source,
        message: `${h.source}: ${err instanceof Error ? err.message : String(err)}`,
      });
    } finally {
      await client?.close();
    }
  }

  opts.progress?.expect(opts.sources.commands.length);
  for (const c of opts.sources.commands) {
    const info: PropertyInfo = {
      name: c.name,
      fixture: c.fixture,
      claims: [...c.claims],
      source: c.command.join(' '),
    };
    try {
      if (!opts.accept(info)) continue;
      if (!owns(info.name)) {
        if (await fixtureReadable(info)) listed.push(info);
        continue;
      }
      const input = await mutantsOf(info);
      if (!input) continue;
      listed.push(info);
      const checker = await CommandChecker.create({
        command: c.command,
        cwd: opts.root,
        sandbox: opts.sandbox,
        env: opts.env,
        ...(opts.network ? { network: true } : {}),
        timeoutMs: opts.timeoutMs,
        signal: opts.signal,
      });
      try {
        properties.push({
          info,
          runs: await scoreWith((batch) => checker.check(batch), input.fixture, input.mutants, opts.runs),
        });
      } finally {
        await checker.close();
      }
    } finally {
      opts.progress?.finish();
    }
  }
  return { properties, listed, problems, empty };
}
