import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, GitDir, runCli } from '../helpers/gitdir.js';

const CONFIG = `${JSON.stringify({ seeds: { properties: ['props/*.ts'] } }, null, 2)}\n`;

/**
 * A property with a real bug: the midpoint of two non-negative 32-bit ints
 * computed in 32-bit arithmetic overflows once a + b passes 2^31, which half
 * of all random pairs do. Its fixed twin holds for every input.
 */
const MIDPOINT_MODULE = `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';

function midpoint(a: number, b: number): number {
  return ((a + b) | 0) >> 1;
}

function midpointFixed(a: number, b: number): number {
  return Math.floor((a + b) / 2);
}

const int = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const between = (mid: (a: number, b: number) => number) =>
  fc.property(int, int, (a, b) => {
    const m = mid(a, b);
    return Math.min(a, b) <= m && m <= Math.max(a, b);
  });

export const buggy = defineSeedProperty({ id: 'midpoint_between', property: between(midpoint), params: { numRuns: 30 } });
export const fixed = defineSeedProperty({ id: 'midpoint_fixed', property: between(midpointFixed), params: { numRuns: 30 } });
`;

const TAPE_FILE = 'property_seeds.json';

function seedRepo(tape?: unknown): GitDir {
  return GitDir.create({
    'patchgate.config.json': CONFIG,
    'props/midpoint.ts': MIDPOINT_MODULE,
    ...(tape !== undefined ? { [TAPE_FILE]: `${JSON.stringify(tape, null, 2)}\n` } : {}),
  });
}

const readTape = (repo: GitDir) => readFileSync(repo.path(TAPE_FILE), 'utf8');

const BOTH_ROWS = {
  properties: [
    { id: 'midpoint_between', runner: 'fast-check', min_examples: 20, seeds: [] },
    { id: 'midpoint_fixed', runner: 'fast-check', min_examples: 20, seeds: [] },
  ],
};

describe('patchgate seeds add', () => {
  it('creates the tape and the row, then extends it, raises the floor and refuses to lower it', async () => {
    const repo = seedRepo();
    const created = await runCli(
      ['seeds', 'add', 'midpoint_between', '--seed', '77', '--runner', 'fast-check', '--min-examples', '20'],
      { cwd: repo.dir },
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      "created property_seeds.json: created row 'midpoint_between' (fast-check, min_examples 20) with seed 77",
    );
    expect(created.stdout).toContain("commit it on its own, never inside an agent's diff");
    expect(readTape(repo)).toBe(
      '{\n  "properties": [\n    {\n      "id": "midpoint_between",\n      "runner": "fast-check",\n      "min_examples": 20,\n      "seeds": [\n        "77"\n      ]\n    }\n  ]\n}\n',
    );

    const extended = await runCli(
      [
        'seeds',
        'add',
        'midpoint_between',
        '--seed=-12',
        '--path',
        '3:0',
        '--counterexample',
        '[5, 2147483640]',
      ],
      { cwd: repo.dir },
    );
    expect(extended.code).toBe(0);
    expect(extended.stdout).toContain(
      "updated property_seeds.json: added seed -12 (path 3:0, counterexample [5,2147483640]) to 'midpoint_between'",
    );

    const raised = await runCli(
      ['seeds', 'add', 'midpoint_between', '--seed', '77', '--min-examples', '50'],
      {
        cwd: repo.dir,
      },
    );
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain("raised min_examples of 'midpoint_between' from 20 to 50");
    expect(JSON.parse(readTape(repo))).toEqual({
      properties: [
        {
          id: 'midpoint_between',
          runner: 'fast-check',
          min_examples: 50,
          seeds: ['77', { seed: '-12', path: '3:0', counterexample: [5, 2147483640] }],
        },
      ],
    });

    const before = readTape(repo);
    const lowered = await runCli(
      ['seeds', 'add', 'midpoint_between', '--seed', '78', '--min-examples', '49'],
      {
        cwd: repo.dir,
      },
    );
    expect(lowered.code).toBe(2);
    expect(lowered.stderr).toContain(
      "--min-examples 49 is lower than the current floor of 'midpoint_between', min_examples 50",
    );
    expect(readTape(repo)).toBe(before);

    const same = await runCli(['seeds', 'add', 'midpoint_between', '--seed', '-12', '--path', '3:0'], {
      cwd: repo.dir,
    });
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(
      "property_seeds.json: seed -12 is already on 'midpoint_between' with everything given; nothing to change\n",
    );
    expect(readTape(repo)).toBe(before);
  });

  it('keeps entries exactly as written and upgrades a bare seed in place', async () => {
    const repo = seedRepo({
      properties: [
        { id: 'inv', nodeid: 't.py::test_inv', min_examples: 200, seeds: ['1048291', 77] },
        { id: 'midpoint_between', runner: 'fast-check', min_examples: 5, seeds: [9, 1] },
      ],
    });
    const r = await runCli(['seeds', 'add', 'midpoint_between', '--seed', '9', '--counterexample', '[1,2]'], {
      cwd: repo.dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("recorded counterexample for seed 9 of 'midpoint_between'");
    expect(JSON.parse(readTape(repo))).toEqual({
      properties: [
        { id: 'inv', nodeid: 't.py::test_inv', min_examples: 200, seeds: ['1048291', 77] },
        {
          id: 'midpoint_between',
          runner: 'fast-check',
          min_examples: 5,
          seeds: [{ seed: 9, counterexample: [1, 2] }, 1],
        },
      ],
    });
  });

  it('never writes an invalid tape', async () => {
    const repo = seedRepo();
    const badCommand = await runCli(
      [
        'seeds',
        'add',
        'cli_prop',
        '--seed',
        '1',
        '--runner',
        'command',
        '--nodeid',
        'cli',
        '--min-examples',
        '5',
        '--command',
        '["./prop", "--seed", "{seed}"]',
      ],
      { cwd: repo.dir },
    );
    expect(badCommand.code).toBe(2);
    expect(badCommand.stderr).toContain(
      'the edit would make property_seeds.json invalid, so nothing was written',
    );
    expect(badCommand.stderr).toContain('never uses {report}');
    expect(existsSync(repo.path(TAPE_FILE))).toBe(false);

    const badJson = await runCli(['seeds', 'add', 'p', '--seed', '1', '--counterexample', '[1,'], {
      cwd: repo.dir,
    });
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('--counterexample must be JSON: ');
    expect(existsSync(repo.path(TAPE_FILE))).toBe(false);

    const noFloor = await runCli(['seeds', 'add', 'p', '--seed', '1', '--runner', 'fast-check'], {
      cwd: repo.dir,
    });
    expect(noFloor.code).toBe(2);
    expect(noFloor.stderr).toContain("'p' is not on the tape yet; creating its row needs --min-examples N");
    expect(existsSync(repo.path(TAPE_FILE))).toBe(false);

    // An invalid tape on disk is the human's to fix; it is never rewritten.
    const broken = '{"properties": [{"id": "p", "min_examples": 0, "seeds": []}]}\n';
    repo.write({ [TAPE_FILE]: broken });
    const r = await runCli(['seeds', 'add', 'p', '--seed', '1'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('property_seeds.json is invalid');
    expect(readTape(repo)).toBe(broken);
  });
});

describe('patchgate explore', () => {
  it('finds the counterexample, prints the seeds add command, and that command records it', async () => {
    const repo = seedRepo(BOTH_ROWS);
    const r = await runCli(['explore', '--runs', '2'], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('patchgate explore: 2 properties of property_seeds.json × 2 fresh seeds');
    expect(r.stdout).toMatch(/^FAIL midpoint_between at seed -?\d+$/m);
    expect(r.stdout).toMatch(/^ {2}shrunk: {2}\[\d+,\d+\]$/m);
    expect(r.stdout).toContain('ok   midpoint_fixed: 2 fresh seeds, no counterexample');
    expect(r.stdout).not.toContain('Logs kept in');

    const record = /^ {2}record: {2}(patchgate seeds add midpoint_between .+)$/m.exec(r.stdout)?.[1];
    expect(record).toMatch(/--seed[ =]-?\d+ --path [\d:]+ --counterexample '\[\d+,\d+\]'$/);
    const seed = /--seed[ =](-?\d+)/.exec(record ?? '')?.[1];
    const shrunk = /'(\[\d+,\d+\])'$/.exec(record ?? '')?.[1];
    const command = (record ?? '').replace(/^patchgate /, `'${process.execPath}' '${CLI}' `);
    const out = execFileSync('sh', ['-c', command], { cwd: repo.dir, encoding: 'utf8' });
    expect(out).toContain(`added seed ${seed}`);

    const row = JSON.parse(readTape(repo)).properties[0];
    expect(row.seeds).toHaveLength(1);
    expect(row.seeds[0]).toMatchObject({ seed, counterexample: JSON.parse(shrunk ?? 'null') });
    expect(row.seeds[0].path).toMatch(/^\d+(:\d+)*$/);
  });

  it('gives a command row non-negative seeds, records only the seed, and keeps its logs', async () => {
    // Bug: ids are assumed to fit four digits; almost every seed in [0, 2^31) does not.
    const script = `import { writeFileSync } from 'node:fs';
const [seed, report] = process.argv.slice(2);
const n = Number(seed);
const ok = String(n).padStart(4, '0').length === 4;
writeFileSync(report, JSON.stringify({ examples: 1, counterexample: 'n=' + n, shrunk: [n] }));
process.exit(ok ? 0 : 1);
`;
    const repo = seedRepo({
      properties: [
        {
          id: 'four_digit_ids',
          runner: 'command',
          nodeid: 'ids',
          min_examples: 1,
          seeds: [],
          command: [process.execPath, 'prop.mjs', '{seed}', '{report}'],
        },
      ],
    });
    repo.write({ 'prop.mjs': script });
    const r = await runCli(['explore', '--runs', '2'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const logDir = /^Logs kept in (.+)$/m.exec(r.stdout)?.[1];
    expect(logDir && existsSync(logDir)).toBe(true);
    if (logDir) rmSync(logDir, { recursive: true, force: true });
    const record = /^ {2}record: {2}(.+)$/m.exec(r.stdout)?.[1] ?? '';
    expect(record).toMatch(/^patchgate seeds add four_digit_ids --seed \d+$/);
    const seed = Number(record.split(' ').at(-1));
    expect(seed).toBeGreaterThanOrEqual(0);
    expect(seed).toBeLessThan(2 ** 31);
    expect(r.stdout).toContain(`  shrunk:  n=${seed}`);

    execFileSync('sh', ['-c', record.replace(/^patchgate /, `'${process.execPath}' '${CLI}' `)], {
      cwd: repo.dir,
    });
    expect(JSON.parse(readTape(repo)).properties[0].seeds).toEqual([String(seed)]);
  });

  it('exits 0 on a correct property, and reports machine-readably with --json', async () => {
    const repo = seedRepo(BOTH_ROWS);
    const ok = await runCli(['explore', '--runs', '3', '--only', 'midpoint_fixed'], { cwd: repo.dir });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('0 counterexamples, 0 problems in 1 property.');

    const json = await runCli(['explore', '--runs', '2', '--json'], { cwd: repo.dir });
    expect(json.code).toBe(1);
    const result = JSON.parse(json.stdout);
    expect(result).toMatchObject({ ok: false, runs: 2, tape: TAPE_FILE, logDir: null, problems: [] });
    expect(result.properties.map((p: { id: string; failed: number }) => [p.id, p.failed])).toEqual([
      ['midpoint_between', 2],
      ['midpoint_fixed', 0],
    ]);
    for (const c of result.counterexamples) {
      expect(c.argv.slice(0, 4)).toEqual(['patchgate', 'seeds', 'add', 'midpoint_between']);
      expect(c.command).toContain(`--counterexample '${JSON.stringify(c.shrunk)}'`);
    }
  });

  it('reports a tape property that no module defines as a problem, and exits 1', async () => {
    const repo = seedRepo({
      properties: [{ id: 'renamed_away', runner: 'fast-check', min_examples: 5, seeds: [] }],
    });
    const r = await runCli(['explore', '--runs', '2'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^PROBLEM renamed_away at seeds -?\d+, -?\d+: not-found\n {2}reason: {2}property 'renamed_away' not found/m,
    );
    expect(r.stdout).toContain('0 counterexamples, 1 problem in 1 property.');
  });

  it('exits 2 on bad input', async () => {
    const repo = seedRepo(BOTH_ROWS);
    const cases = [
      [['explore'], '--runs N is required'],
      [['explore', '--runs', '0'], '--runs must be a whole number from 1 to 10000, got "0"'],
      [['explore', '--runs', '10001'], '--runs must be a whole number from 1 to 10000'],
      [['explore', '--runs', 'many'], '--runs must be a whole number from 1 to 10000, got "many"'],
      [
        ['explore', '--runs', '1', '--only', 'nope'],
        "explore: 'nope' is not on property_seeds.json; its properties are: midpoint_between, midpoint_fixed",
      ],
    ] as const;
    const results = await Promise.all(cases.map(([args]) => runCli([...args], { cwd: repo.dir })));
    cases.forEach(([args, message], i) => {
      expect(results[i]?.code, args.join(' ')).toBe(2);
      expect(results[i]?.stderr).toContain(message);
    });

    const noTape = seedRepo();
    const missing = await runCli(['explore', '--runs', '1'], { cwd: noTape.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('property_seeds.json does not exist in the working tree');

    const noSection = GitDir.create({ 'patchgate.config.json': '{}\n' });
    const r = await runCli(['explore', '--runs', '1'], { cwd: noSection.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('patchgate.config.json has no `seeds` section');
  });
});
