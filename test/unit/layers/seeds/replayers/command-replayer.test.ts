import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TapeRow } from '../../../../../src/contracts/seed-tape.js';
import type { RunnerOutcome, SeedReplay } from '../../../../../src/layers/seeds/model.js';
import {
  type CommandReplayOptions,
  renderCommand,
  replayCommands,
} from '../../../../../src/layers/seeds/replayers/command.js';
import { scrubbedEnv } from '../../../../../src/util/scrub-env.js';
import { tempDir } from '../../../../helpers/gitdir.js';
import { testSandbox } from '../../../../helpers/sandbox.js';

const sandbox = await testSandbox();

const ENV = scrubbedEnv(process.env);

/**
 * The "foreign property runner": `node runner.mjs MODE SEED NODEID MIN REPORT`.
 * Every run appends {argv, cwd} to argv.jsonl in its cwd, then:
 * - pass N: writes {"examples": N} (N may be seed-dependent: "seed" means the seed's value)
 * - fail: writes a counterexample and shrunk value, exits 1
 * - fail-bare: prints to stderr, exits 3, no report
 * - silent: exits 0 and writes nothing
 * - write TEXT: writes TEXT verbatim as the report, exits 0
 * - hang: never finishes
 */
const RUNNER = `
import { appendFileSync, writeFileSync } from 'node:fs';
const [mode, arg, ...rest] = process.argv.slice(2);
appendFileSync('argv.jsonl', JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');
const [seed, nodeid, min, report] = rest;
if (mode === 'pass') {
  writeFileSync(report, JSON.stringify({ examples: arg === 'seed' ? Number(seed) : Number(arg) }));
} else if (mode === 'fail') {
  writeFileSync(report, JSON.stringify({ examples: 3, counterexample: 'total([-1]) == -1', shrunk: [[-1]] }));
  console.error('property failed after 3 examples');
  process.exitCode = 1;
} else if (mode === 'fail-bare') {
  console.log('some progress');
  console.error('boom: invariant broken for seed ' + seed);
  process.exitCode = 3;
} else if (mode === 'silent') {
} else if (mode === 'write') {
  writeFileSync(report, arg);
} else if (mode === 'hang') {
  setInterval(() => {}, 1000);
}
`;

let root: string;
let logDir: string;

function setup(): void {
  root = tempDir('pg-seeds-cmd-');
  logDir = path.join(tempDir('pg-seeds-cmd-log-'), 'logs');
  writeFileSync(path.join(root, 'runner.mjs'), RUNNER);
}

function row(id: string, mode: string[], seeds: string[], extra: Partial<TapeRow> = {}): TapeRow {
  return {
    id,
    runner: 'command',
    nodeid: `props/${id}.ts`,
    min_examples: 25,
    seeds: seeds.map((seed) => ({ seed })),
    command: [process.execPath, 'runner.mjs', ...mode, '{seed}', '{nodeid}', '{min_examples}', '{report}'],
    index: 0,
    ...extra,
  };
}

function replay(rows: TapeRow[], extra: Partial<CommandReplayOptions> = {}): Promise<RunnerOutcome> {
  return replayCommands({ root, rows, env: ENV, sandbox, timeoutMs: 20_000, logDir, ...extra });
}

function only(outcome: RunnerOutcome): SeedReplay {
  expect(outcome.replays).toHaveLength(1);
  return outcome.replays[0]!;
}

function runs(): { argv: string[]; cwd: string }[] {
  return readFileSync(path.join(root, 'argv.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('renderCommand', () => {
  it('substitutes placeholders inside arguments and leaves other braces alone', () => {
    expect(
      renderCommand(
        ['run', '--seed={seed}', '{nodeid}::{seed}', '-n{min_examples}', '{report}', '{other}', '{}'],
        {
          seed: '77',
          nodeid: 'a/b.ts',
          min_examples: 200,
          report: '/tmp/r.json',
        },
      ),
    ).toEqual(['run', '--seed=77', 'a/b.ts::77', '-n200', '/tmp/r.json', '{other}', '{}']);
  });
});

describe('replayCommands', () => {
  it('substitutes {seed}, {nodeid}, {min_examples} and {report} and runs in the checkout: one process per seed', async () => {
    setup();
    const out = await replay([
      row('total', ['pass', '40'], ['5', '6'], {
        command: [
          process.execPath,
          'runner.mjs',
          'pass',
          '40',
          'seed={seed}',
          '{nodeid}',
          '{min_examples}',
          '{report}',
        ],
      }),
    ]);
    expect(out.processes).toBe(2);
    expect(out.replays.map((r) => [r.seed, r.status, r.examples])).toEqual([
      ['5', 'pass', 40],
      ['6', 'pass', 40],
    ]);
    const seen = runs();
    expect(seen.map((r) => r.cwd)).toEqual([root, root]);
    expect(seen[0]!.argv).toEqual([
      'pass',
      '40',
      'seed=5',
      'props/total.ts',
      '25',
      path.join(logDir, 'seeds-command-1.io', 'report.json'),
    ]);
    // Each replay gets its own fresh report file.
    expect(seen[1]!.argv[5]).toBe(path.join(logDir, 'seeds-command-2.io', 'report.json'));
    expect(out.replays[0]!.log).toBe(path.join(logDir, 'seeds-command-1.stdout.log'));
  });

  it('counts the fewest examples among a row’s passing seeds, from the reports', async () => {
    setup();
    const out = await replay([row('total', ['pass', 'seed'], ['30', '12', '50'])]);
    expect(out.replays.map((r) => r.examples)).toEqual([30, 12, 50]);
    expect(out.counts).toEqual([{ property: 'total', counted: 12, how: 'command report, seed 12' }]);
  });

  it('a non-zero exit is a fail carrying the counterexample and shrunk value from the report', async () => {
    setup();
    const out = await replay([row('total', ['fail', '-'], ['5'])]);
    const r = only(out);
    expect(r).toMatchObject({
      status: 'fail',
      counterexample: 'total([-1]) == -1',
      shrunk: [[-1]],
    });
    expect(r.message).toMatch(/^the seed command exited with code 1/);
    expect(r.message).toContain('property failed after 3 examples');
    expect(out.counts).toEqual([]);
  });

  it('a non-zero exit without a report is a fail explained by the last lines of its output', async () => {
    setup();
    const r = only(await replay([row('total', ['fail-bare', '-'], ['5'])]));
    expect(r.status).toBe('fail');
    expect(r.counterexample).toBeUndefined();
    expect(r.message).toMatch(/^the seed command exited with code 3/);
    expect(r.message).toContain('boom: invariant broken for seed 5');
    expect(r.message).toContain('some progress');
  });

  it('exit 0 without a report is an error naming the report path: an uncounted pass is not trusted', async () => {
    setup();
    const out = await replay([row('total', ['silent', '-'], ['5'])]);
    const r = only(out);
    expect(r.status).toBe('error');
    expect(r.message).toContain(path.join(logDir, 'seeds-command-1.io', 'report.json'));
    expect(r.message).toContain('was never written');
    expect(r.message).toContain('{"examples": <integer >= 0>');
    expect(out.counts).toEqual([]);
  });

  it('a report that is not JSON is an error naming the file', async () => {
    setup();
    const r = only(await replay([row('total', ['write', '{"examples": 4'], ['5'])]));
    expect(r.status).toBe('error');
    expect(r.message).toContain(
      `report ${path.join(logDir, 'seeds-command-1.io', 'report.json')} is not valid JSON`,
    );
  });

  it.each([
    ['a negative count', '{"examples": -1}', 'has "examples": -1, which is not a whole number >= 0'],
    ['a fractional count', '{"examples": 2.5}', 'has "examples": 2.5, which is not a whole number >= 0'],
    ['a count as text', '{"examples": "200"}', 'has "examples": "200", which is not a whole number >= 0'],
    ['no count', '{"counterexample": "x"}', 'has no "examples"'],
    ['an array', '[1]', 'holds an array, not an object'],
  ])('exit 0 with %s in the report is an error', async (_, text, problem) => {
    setup();
    const r = only(await replay([row('total', ['write', text], ['5'])]));
    expect(r.status).toBe('error');
    expect(r.message).toContain(problem);
  });

  it('a stale report from an earlier run does not count for a run that writes none', async () => {
    setup();
    await replay([row('total', ['pass', '40'], ['5'])]);
    const r = only(await replay([row('total', ['silent', '-'], ['5'])]));
    expect(r.status).toBe('error');
  });

  it('a command that outlives its budget is a timeout', async () => {
    setup();
    const started = Date.now();
    const r = only(await replay([row('total', ['hang', '-'], ['5'])], { timeoutMs: 1_000 }));
    expect(r).toMatchObject({ status: 'timeout', message: 'the seed command did not finish within 1s' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an abort stops the command and rejects, instead of reporting a verdict', async () => {
    setup();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('gate cancelled')), 300);
    await expect(
      replay([row('total', ['hang', '-'], ['5'])], { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('a command that cannot be found is an error, and no process is counted', async () => {
    setup();
    const out = await replay([
      row('total', [], ['5'], { command: ['no-such-seed-runner-patchgate', '{seed}', '{report}'] }),
    ]);
    expect(out.processes).toBe(0);
    expect(only(out)).toMatchObject({ status: 'error' });
    expect(only(out).message).toMatch(
      /^the seed command could not be started: .*no-such-seed-runner-patchgate/,
    );
  });

  it('ignores rows of other runners', async () => {
    setup();
    const out = await replay([row('py', ['pass', '1'], ['5'], { runner: 'pytest' })]);
    expect(out).toEqual({ replays: [], counts: [], processes: 0 });
  });
});
