import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from '../helpers/example-repo.js';
import { GitDir, runCli, runNode, tempDir } from '../helpers/gitdir.js';

const root = path.resolve(import.meta.dirname, '../..');
const example = path.join(root, 'examples/invoice');
const patchFile = (name: string) => path.join(example, 'patches', `${name}.patch`);
const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

interface Finding {
  code: string;
  severity: string;
  message: string;
  evidence: Record<string, unknown>;
}
interface Card {
  verdict: string;
  findings: Finding[];
  layers: { name: string; status: string }[];
}

/** The example on `main`, with the patch applied and committed on `agent`. */
function patchedRepo(name: string): GitDir {
  const repo = GitDir.create(exampleFiles(example, []), 'initial');
  repo.git('checkout', '-q', '-b', 'agent');
  repo.git('apply', patchFile(name));
  repo.commit(`agent: ${name}`);
  return repo;
}

async function check(repo: GitDir) {
  const out = tempDir('pg-out-');
  // An override token in the developer's shell would turn the expected rejections into accepts.
  const r = await runCli(['check', '--base', 'main', '--head', 'agent', '--out', out], {
    cwd: repo.dir,
    env: { FIXTURE_OVERRIDE: undefined },
  });
  const card = JSON.parse(readFileSync(path.join(out, 'scorecard.json'), 'utf8')) as Card;
  return { ...r, card };
}

const reports = path.join(root, '.patchgate/demo');

const baseLock = JSON.parse(readFileSync(path.join(example, 'FIXTURE_LOCK.json'), 'utf8')) as {
  files: Record<string, { sha256: string; owner: string }>;
};
const goldenBytes = readFileSync(path.join(example, 'testdata/invoice_v3.json'));

/** The demo's scorecard of one patch, e.g. `invoice/02-rewrite-golden`. */
function demoCard(name: string): Card & { frozen: Record<string, unknown>[] } {
  return JSON.parse(readFileSync(path.join(reports, name, 'scorecard.json'), 'utf8'));
}

const codesOf = (card: Card) => card.findings.filter((f) => f.severity !== 'warn').map((f) => f.code);

function runDemo(env: Record<string, string>) {
  return runNode(path.join(root, 'scripts/demo.mjs'), [], { cwd: root, env });
}

/**
 * The whole demo runs once; every per-patch test below reads its reports.
 * Running the gate again per patch would judge the same inputs twice.
 */
let demo: Awaited<ReturnType<typeof runDemo>>;
let demoTempDirsBefore: Set<string>;
beforeAll(async () => {
  demoTempDirsBefore = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('pg-demo-')));
  // The demo must scrub a leftover override token itself.
  demo = await runDemo({ NO_COLOR: '1', FIXTURE_OVERRIDE: 'left-in-the-shell' });
}, 400_000);

describe('examples/invoice', () => {
  it('is consistent as committed: the locks match the files and the gate accepts an empty patch', async () => {
    const { canonicalDigest } = await import('../../src/json/python-dumps.js');
    expect(baseLock.files['testdata/invoice_v3.json']?.sha256).toBe(sha256(goldenBytes));
    expect(readFileSync(path.join(example, 'fixtures/lock.sha256'), 'utf8').trim()).toBe(
      canonicalDigest(readFileSync(path.join(example, 'fixtures/lock.json'), 'utf8')),
    );
    const repo = GitDir.create(exampleFiles(example, []), 'initial');
    repo.git('checkout', '-q', '-b', 'agent');
    const { code, card } = await check(repo);
    expect(card.findings).toEqual([]);
    expect(code).toBe(0);
  });

  it('01-benign: accepts a source and test change', () => {
    const card = demoCard('invoice/01-benign');
    expect(card.verdict).toBe('accept');
    expect(card.findings).toEqual([]);
    expect(card.layers.map((l) => `${l.name}:${l.status}`)).toEqual([
      'contracts:pass',
      'fixtures:pass',
      'hits:pass',
      'seeds:pass',
      'signatures:skipped',
      'regression:skipped',
      'test-edits:pass',
      'stability:skipped',
      'mutation:skipped',
      'claims:skipped',
    ]);
  });

  it('02-rewrite-golden: rejects the rewritten golden file with FIXTURE_CHANGED and both digests', () => {
    const repo = patchedRepo('02-rewrite-golden');
    const card = demoCard('invoice/02-rewrite-golden');
    expect(codesOf(card)).toEqual(['FIXTURE_CHANGED']);
    expect(card.findings[0]?.evidence).toEqual({
      path: 'testdata/invoice_v3.json',
      owner: 'payments',
      expected: sha256(goldenBytes),
      actual: sha256(readFileSync(repo.path('testdata/invoice_v3.json'))),
      lock: 'FIXTURE_LOCK.json',
      overridden: false,
      override: 'FIXTURE_OVERRIDE',
      // What moved, not only two digests.
      format: 'json',
      changes: [{ key: 'total_cents', from: '1500', to: '1600' }],
    });
    expect(card.findings[0]?.message).toContain('(total_cents: 1500 → 1600)');
  });

  it('03-rewrite-golden-and-lock: rejects the lock edit (CONTRACT_TOUCHED) and judges the fixture by the base lock', () => {
    const repo = patchedRepo('03-rewrite-golden-and-lock');
    const card = demoCard('invoice/03-rewrite-golden-and-lock');
    expect(codesOf(card)).toEqual(['CONTRACT_TOUCHED', 'FIXTURE_CHANGED']);
    expect(card.findings[0]?.evidence).toMatchObject({
      path: 'FIXTURE_LOCK.json',
      change: 'modified',
      role: 'fixtures.lock',
    });
    const forged = JSON.parse(readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8')) as typeof baseLock;
    const headBytes = readFileSync(repo.path('testdata/invoice_v3.json'));
    // The head's lock agrees with the head's bytes; the verdict must not care.
    expect(forged.files['testdata/invoice_v3.json']?.sha256).toBe(sha256(headBytes));
    expect(card.findings[1]?.evidence).toMatchObject({
      path: 'testdata/invoice_v3.json',
      expected: sha256(goldenBytes),
      actual: sha256(headBytes),
      overridden: false,
    });
  });
});

describe('examples/invoice hits patches', () => {
  it('04-total-ignores-lines: rejects the lost hit surface, naming the lost paths', () => {
    const card = demoCard('invoice/04-total-ignores-lines');
    const shrank = card.findings.find((f) => f.code === 'HIT_SURFACE_SHRANK');
    expect(shrank?.evidence).toMatchObject({ property: 'invoice_total_matches_lines' });
    expect(shrank?.evidence.lostPaths).toEqual(expect.arrayContaining(['lines', 'total_cents']));
  });

  it('05-check-never-fails: rejects the weakened check with ZERO_HIT', () => {
    const card = demoCard('invoice/05-check-never-fails');
    expect(card.findings.find((f) => f.code === 'ZERO_HIT')?.evidence).toMatchObject({
      property: 'invoice_total_matches_lines',
    });
  });

  it('06-random-check: rejects the random check with FLAKE_UNCLASSIFIED', () => {
    const card = demoCard('invoice/06-random-check');
    expect(card.findings.find((f) => f.code === 'FLAKE_UNCLASSIFIED')?.evidence).toMatchObject({
      property: 'invoice_lines_are_positive',
    });
  });
});

describe('examples/python-invoice (real pytest: signatures and stability)', () => {
  it('01-benign-with-frozen-flake: accepts, lists the frozen flake and the excused failures, keeps every run log', () => {
    const card = demoCard('python-invoice/01-benign-with-frozen-flake');
    expect(card.verdict).toBe('accept');
    expect(card.frozen).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          layer: 'stability',
          covers: 'pytest::tests.test_known_issues::test_rate_cache_warmup',
          owner: 'payments',
        }),
        expect.objectContaining({
          layer: 'signatures',
          covers: 'pytest::tests.test_known_issues::test_legacy_rounding',
          owner: 'payments',
          expires: '2027-03-31',
        }),
      ]),
    );
    const logs = readdirSync(path.join(reports, 'python-invoice/01-benign-with-frozen-flake/tests'));
    expect(logs).toEqual(
      // The probe's reruns are of the probed files alone, so they are stability-run-N, not head-run-N.
      expect.arrayContaining([
        'head-run-1.junit.xml',
        'stability-run-3.stdout.log',
        'base-excuse-1.junit.xml',
      ]),
    );
    const summary = readFileSync(
      path.join(reports, 'python-invoice/01-benign-with-frozen-flake/summary.md'),
      'utf8',
    );
    expect(summary).toContain('test_legacy_rounding');
  });

  it('02-rename-and-skip: rejects the renamed-and-skipped test with UNFROZEN_SKIP naming the new id', () => {
    const card = demoCard('python-invoice/02-rename-and-skip');
    const skip = card.findings.find((f) => f.code === 'UNFROZEN_SKIP');
    expect(skip?.evidence).toMatchObject({
      test: 'pytest::tests.test_invoice::test_format_total_legacy',
      kind: 'skipped',
    });
    expect(skip?.evidence.template).toMatch(/^skipped\|/);
  });

  it('03-time-dependent-test: NEW_FLAKE only for the tests the patch added; the probe reruns only their file', () => {
    const card = demoCard('python-invoice/03-time-dependent-test');
    const flakes = card.findings.filter((f) => f.code === 'NEW_FLAKE');
    expect(flakes.length).toBeGreaterThan(0);
    for (const f of flakes) {
      expect(f.evidence.test).toMatch(/^pytest::tests\.test_receipts::test_receipt_timestamp_is_even\[\d\]$/);
      expect(f.evidence.base).toBe('its file does not exist in the base revision');
    }
    expect(card.findings.some((f) => f.severity === 'error')).toBe(false);
    // The patch adds a test file and touches nothing another test imports: the pre-existing flake is not probed.
    expect(card.frozen.filter((z) => z.layer === 'stability')).toEqual([]);
    const stability = JSON.parse(
      readFileSync(path.join(reports, 'python-invoice/03-time-dependent-test/stability.json'), 'utf8'),
    );
    expect(stability.probed.map((p: { file: string }) => p.file)).toEqual(['tests/test_receipts.py']);
    expect(stability.notProbed).toContain('tests/test_known_issues.py');
  });

  it('04-change-failure-message: rejects the reworded known failure (rows match the signature, not the name)', () => {
    const card = demoCard('python-invoice/04-change-failure-message');
    const unknown = card.findings.filter((f) => f.code === 'UNKNOWN_FAILURE_SIGNATURE');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.evidence).toMatchObject({
      test: 'pytest::tests.test_known_issues::test_legacy_rounding',
      kind: 'AssertionError',
      template: expect.stringContaining('legacy table total <N> differs from <N>'),
    });
    expect(unknown[0]?.evidence.message).toContain('legacy table total 1499 differs from 1500');
  });
});

describe('examples/python-invoice claim matrix (claims/invoice.yaml, freeze/ledger.json)', () => {
  const claimsOf = (name: string) =>
    JSON.parse(readFileSync(path.join(reports, name, 'claims.json'), 'utf8')) as {
      claims: { id: string; cells: Record<string, { status: string; detail?: Record<string, unknown> }> }[];
    };

  it('binds all three claims of the benign patch: a seed row, two Hypothesis tests that generated inputs, open freezes', () => {
    const { claims } = claimsOf('python-invoice/01-benign-with-frozen-flake');
    expect(claims.map((c) => c.id)).toEqual(['C1', 'C2', 'C3']);
    for (const c of claims)
      for (const cell of Object.values(c.cells)) expect(cell.status, c.id).toBe('bound');
    expect(claims[0]?.cells.property?.detail).toMatchObject({ kind: 'seed', name: 'installments_add_up' });
    expect(claims[1]?.cells.property?.detail).toMatchObject({ hypothesis: true, run: 'overlay-run' });
    expect(Number(claims[1]?.cells.property?.detail?.examples)).toBeGreaterThan(0);
  });

  it("07-claim-cell-dropped: the base's matrix is judged; the patch's emptied cell is shown as CLAIM_UNBOUND", () => {
    const card = demoCard('python-invoice/07-claim-cell-dropped');
    expect(card.findings.find((f) => f.code === 'CONTRACT_TOUCHED')?.evidence).toMatchObject({
      path: 'claims/invoice.yaml',
      role: 'claims.matrix',
    });
    const unbound = card.findings.filter((f) => f.code === 'CLAIM_UNBOUND');
    expect(unbound).toHaveLength(1);
    expect(unbound[0]?.evidence).toMatchObject({ claim: 'C2', cell: 'property', side: 'head' });
    expect(claimsOf('python-invoice/07-claim-cell-dropped').claims[1]?.cells.property?.status).toBe('bound');
  });

  it('08-fixture-born-in-patch: a fixture the patch dumped is CLAIM_FIXTURE_UNREVIEWED', () => {
    const f = demoCard('python-invoice/08-fixture-born-in-patch').findings.find(
      (x) => x.code === 'CLAIM_FIXTURE_UNREVIEWED',
    );
    expect(f?.evidence).toMatchObject({ claim: 'C4', fixture: 'testdata/line_count.json', base: 'absent' });
  });

  it('09-example-test-as-property: a green example test does not fill the property cell', () => {
    const f = demoCard('python-invoice/09-example-test-as-property').findings.find(
      (x) => x.code === 'CLAIM_PROPERTY_MISSING',
    );
    expect(f?.evidence).toMatchObject({
      claim: 'C4',
      test: 'tests/test_invoice.py::test_line_count',
      hypothesis: false,
    });
  });

  it('10-blocked-freeze: a blocked ledger entry rejects a green patch, with the reopen command', () => {
    const card = demoCard('python-invoice/10-blocked-freeze');
    expect(codesOf(card)).toEqual(['FREEZE_BLOCKED']);
    expect(card.findings[0]?.evidence).toMatchObject({
      claim: 'C3',
      freeze: 'installments_count',
      fails_in_window: 1,
      last_fail: '2026-11-28T14:02:11Z',
      next: expect.stringContaining('patchgate freeze reopen installments_count'),
    });
  });

  it('11-corpus-rewritten: FIXTURE_CHANGED shows which inputs of the table corpus moved, from what to what', () => {
    const f = demoCard('python-invoice/11-corpus-rewritten').findings.find(
      (x) => x.code === 'FIXTURE_CHANGED',
    );
    expect(f?.evidence).toMatchObject({ path: 'testdata/installments.tsv', format: 'tsv' });
    expect(f?.evidence.changes).toEqual([
      { key: '1000 3', from: '334 333 333', to: '333 333 334' },
      { key: '5 8', from: '1 1 1 1 1 0 0 0', to: '0 0 0 1 1 1 1 1' },
      {
        key: '99999 12',
        from: '8334 8334 8334 8333 8333 8333 8333 8333 8333 8333 8333 8333',
        to: '8333 8333 8333 8333 8333 8333 8333 8333 8333 8334 8334 8334',
      },
    ]);
  });
});

describe('examples/python-cart (the mutation probe on real pytest)', () => {
  const shrank = (name: string) => demoCard(name).findings.filter((f) => f.code === 'KILL_SURFACE_SHRANK');

  it('01-always-equal-total: mutants of total() the base killed survive on the head, with the tests that killed them', () => {
    const found = shrank('python-cart/01-always-equal-total');
    expect(found).toHaveLength(1);
    expect(found[0]?.evidence).toMatchObject({
      file: 'cart.py',
      function: 'total',
      mutants: expect.arrayContaining([
        expect.objectContaining({
          operator: 'drop-statement',
          killedOnBaseBy: expect.arrayContaining([expect.stringContaining('test_total')]),
        }),
      ]),
    });
    const html = readFileSync(path.join(reports, 'python-cart/01-always-equal-total/report.html'), 'utf8');
    expect(html).toContain('Mutation probe');
  });

  it('02-swallowed-errors: the raise mutant is killed on the base and swallowed on the head', () => {
    expect(shrank('python-cart/02-swallowed-errors')[0]?.evidence).toMatchObject({
      function: 'total',
      mutants: [expect.objectContaining({ operator: 'raise', original: 'return result' })],
    });
  });

  it('03-honest-refactor keeps its kill surface; 04-untested-helper is unseen, as a warning', () => {
    expect(demoCard('python-cart/03-honest-refactor').findings.map((f) => f.code)).not.toContain(
      'CHANGED_CODE_UNSEEN',
    );
    const unseen = demoCard('python-cart/04-untested-helper').findings.filter(
      (f) => f.code === 'CHANGED_CODE_UNSEEN',
    );
    expect(unseen.map((f) => [f.severity, f.evidence.function])).toEqual([['warn', 'average_price']]);
  });
});

describe('npm run demo (scripts/demo.mjs)', () => {
  it('judges every sample patch as its header expects, leaves reports and cleans its temp repos up', () => {
    const r = demo;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const summary = r.stdout.slice(r.stdout.lastIndexOf('\nsummary\n'));
    const names = [
      'invoice/01-benign',
      'invoice/02-rewrite-golden',
      'invoice/03-rewrite-golden-and-lock',
      'invoice/04-total-ignores-lines',
      'invoice/05-check-never-fails',
      'invoice/06-random-check',
      'invoice/07-installments-rounding',
      'invoice/08-fewer-examples',
      'invoice/09-filter-generator',
      'python-invoice/01-benign-with-frozen-flake',
      'python-invoice/02-rename-and-skip',
      'python-invoice/03-time-dependent-test',
      'python-invoice/04-change-failure-message',
      'python-invoice/05-installments-rounding',
      'python-invoice/06-fewer-examples',
      'python-invoice/07-claim-cell-dropped',
      'python-invoice/08-fixture-born-in-patch',
      'python-invoice/09-example-test-as-property',
      'python-invoice/10-blocked-freeze',
      'python-invoice/11-corpus-rewritten',
      'python-cart/01-always-equal-total',
      'python-cart/02-swallowed-errors',
      'python-cart/03-honest-refactor',
      'python-cart/04-untested-helper',
    ];
    const accepted = ['invoice/01-benign', 'python-invoice/01-benign-with-frozen-flake'].concat(
      'python-cart/03-honest-refactor',
      'python-cart/04-untested-helper',
    );
    const verdicts = names.map((name) => {
      const row = summary.split('\n').find((l) => l.startsWith(`${name} `));
      const cells = (row ?? '').split(/ {2,}/);
      expect(cells.at(-1), row).toBe('ok');
      return cells[2]?.split(' ')[0];
    });
    expect(verdicts).toEqual(names.map((n) => (accepted.includes(n) ? 'accept' : 'reject')));
    expect(summary).toContain(`all ${names.length} verdicts as expected`);

    // The filtered generator hides the bug from the seed; the tape's stored counterexample still finds it.
    const filtered = JSON.parse(
      readFileSync(path.join(root, '.patchgate/demo/invoice/09-filter-generator/scorecard.json'), 'utf8'),
    ) as Card;
    expect(filtered.findings.find((f) => f.code === 'SEED_FAILED')?.evidence).toMatchObject({
      property: 'installments_add_up',
      seed: '2081211641',
      via: 'counterexample',
      shrunk: [4, 3],
    });
    // Hypothesis's count, from its statistics: the floor is counted, not read from the test's settings.
    const fewer = JSON.parse(
      readFileSync(
        path.join(root, '.patchgate/demo/python-invoice/06-fewer-examples/scorecard.json'),
        'utf8',
      ),
    ) as Card;
    expect(fewer.findings.find((f) => f.code === 'MIN_EXAMPLES_NOT_MET')?.evidence).toMatchObject({
      counted: 20,
      floor: 200,
    });

    for (const [name, verdict] of [
      ['invoice/01-benign', 'accept'],
      ['invoice/02-rewrite-golden', 'reject'],
      ['invoice/03-rewrite-golden-and-lock', 'reject'],
      ['invoice/06-random-check', 'reject'],
      ['python-invoice/01-benign-with-frozen-flake', 'accept'],
    ] as const) {
      const dir = path.join(root, '.patchgate/demo', name);
      expect((JSON.parse(readFileSync(path.join(dir, 'scorecard.json'), 'utf8')) as Card).verdict).toBe(
        verdict,
      );
      expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(verdict);
      expect(r.stdout).toContain(path.join(dir, 'scorecard.json'));
    }
    expect(
      readdirSync(tmpdir()).filter((n) => n.startsWith('pg-demo-') && !demoTempDirsBefore.has(n)),
    ).toEqual([]);
    // The gate prints where its reports are; the demo does not print it a second time.
    for (const name of names) {
      const line = `reports: ${path.join(reports, name, 'scorecard.json')}`;
      expect(r.stdout.split(line).length - 1, name).toBe(1);
    }
  });
});

/** What a merged run may differ in from one run: its timings and the shards' own bookkeeping. */
function comparableCard(text: string): unknown {
  const { timings: _t, shards: _s, ...rest } = JSON.parse(text.replace(/tests\/shard-[0-9]+\//g, 'tests/'));
  return rest;
}

/** A report's text with its time cells and the line about shards taken out. */
function withoutTimes(name: string, text: string): string {
  const t = text.replace(/tests\/shard-[0-9]+\//g, 'tests/');
  if (name === 'summary.md')
    return t.replace(/\| [0-9.]+ s \|$/gm, '| |').replace(/^Merged from .*\n\n/m, '');
  if (name === 'report.html')
    return t
      .replace(/<dd>[0-9.]+ m?s<\/dd>/g, '<dd></dd>')
      .replace(/<td class="num">[0-9.]+ m?s<\/td>/g, '<td class="num"></td>')
      .replace(/<p class="note">Besides the layers:[^<]*<\/p>/, '')
      .replace(/\n<dt>shards<\/dt><dd id="shards">[^\n]*<\/dd>/, '');
  return t;
}

describe('a sharded check (check --shard I/N on CI jobs, then merge)', () => {
  it.each([
    ['python-invoice/02-rename-and-skip', 3],
    ['invoice/05-check-never-fails', 2],
  ] as const)('%s in %i shards merges into the bytes one check wrote, but for timings and shard bookkeeping', (name, total) => {
    const one = path.join(reports, name);
    const shards = path.join(reports, 'shards', name);
    const merged = path.join(shards, 'merged');
    expect(demo.stdout).toContain(`sharded: ${name} in ${total} shards, merged`);
    const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');
    expect(comparableCard(read(merged, 'scorecard.json'))).toEqual(
      comparableCard(read(one, 'scorecard.json')),
    );
    // Every other file one check wrote, the layers' reports among them: the same bytes.
    const files = readdirSync(one).filter((f) => f !== 'scorecard.json' && f !== 'tests');
    expect(files.length).toBeGreaterThan(3);
    expect(
      readdirSync(merged)
        .filter((f) => f !== 'scorecard.json' && f !== 'tests')
        .sort(),
    ).toEqual(files.sort());
    for (const f of files) expect(withoutTimes(f, read(merged, f)), f).toBe(withoutTimes(f, read(one, f)));
    // The bookkeeping: each shard's share, and the merge's record of them.
    const card = JSON.parse(read(merged, 'scorecard.json'));
    expect(card.shards.total).toBe(total);
    expect(card.shards.parts.map((p: { index: number }) => p.index)).toEqual(
      Array.from({ length: total }, (_, i) => i + 1),
    );
    expect(read(merged, 'summary.md')).toContain(`Merged from ${total} shard(s)`);
    for (let i = 1; i <= total; i++) {
      const part = JSON.parse(read(path.join(shards, `shard-${i}`), 'scorecard.json'));
      expect(part.shard).toMatchObject({ index: i, total });
      expect(read(path.join(shards, `shard-${i}`), 'summary.md')).toContain(
        `**Partial: shard ${i} of ${total}**`,
      );
    }
  });
});
