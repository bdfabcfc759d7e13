import { describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { hitsRepo, seedInvoice } from '../helpers/hits-repo.js';
import { type Finding, readScorecard, type Scorecard } from '../helpers/out.js';

type Edit = {
  kind: string;
  file: string;
  line?: number;
  test?: string;
  description: string;
  before?: string;
  after?: string;
};

async function judge(repo: GitDir) {
  const out = tempDir('pg-edits-js-out-');
  // The working tree is the head (the agent's commit): it lends the checkouts its installed node_modules.
  const r = await runCli(['check', '--base', 'main', '--out', out, '--today', '2026-12-01'], {
    cwd: repo.dir,
  });
  const card = readScorecard(out, r);
  return { ...r, out, card, codes: card.findings.map((f) => f.code) };
}

function patch(repo: GitDir, files: Files, message = 'agent: tidy'): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit(message);
}

const edits = (f: Finding | undefined) => (f?.evidence.testEdits ?? f?.evidence.edits ?? []) as Edit[];
const find = (card: Scorecard, code: string, test?: RegExp) =>
  card.findings.find((f) => f.code === code && (test === undefined || test.test(String(f.evidence.test))));

const DOUBLE =
  'export const double = (x: number) => 2 * x;\nexport const net = (gross: number) => gross - Math.round(gross / 5);\n';
const BROKEN =
  'export const double = (x: number) => (x < 10 ? 2 * x : 2 * x + 1);\nexport const net = (gross: number) => gross - Math.round(gross / 4);\n';
const PROPERTY = (arb: string, runs: number) => `import fc from 'fast-check';
import { expect, it } from 'vitest';
import { double } from '../src/calc.js';

it('doubles', () => {
  fc.assert(
    fc.property(${arb}, (x) => {
      expect(double(x)).toBe(2 * x);
    }),
    { numRuns: ${runs} },
  );
});
`;
const NET = (body: string, pre = '') => `import { expect, it, vi } from 'vitest';
${pre}import { net } from '../src/calc.js';

it('takes a fifth off', () => {
  ${body}
});

it('keeps zero', () => {
  expect(net(0)).toBe(0);
});
`;

function repo(extra: Files = {}): GitDir {
  return vitestRepo({
    'src/calc.ts': DOUBLE,
    'test/double.test.ts': PROPERTY('fc.integer({ min: 0, max: 1000 })', 200),
    'test/net.test.ts': NET('expect(net(100)).toBe(80);'),
    ...extra,
  });
}

describe('vitest + fast-check: the finding names the edit that hid it', { timeout: 300_000 }, () => {
  it('a narrowed arbitrary and a lowered numRuns: REGRESSION names both, narrowed first', async () => {
    const r0 = repo();
    patch(r0, {
      'src/calc.ts': BROKEN,
      'test/double.test.ts': PROPERTY('fc.integer({ min: 0, max: 9 })', 20),
    });
    const r = await judge(r0);
    expect(r.card.verdict).toBe('reject');
    const f = find(r.card, 'REGRESSION', /double\.test\.ts.*doubles/);
    expect(f?.message).toContain(
      '; the head narrowed the arbitrary of argument 1 from `fc.integer({ min: 0, max: 1000 })` to `fc.integer({ min: 0, max: 9 })` at test/double.test.ts:7',
    );
    expect(edits(f).map((e) => [e.kind, e.test, e.line])).toEqual([
      ['generator-narrowed', 'doubles', 7],
      ['examples-lowered', 'doubles', 10],
    ]);
    expect(r.codes).not.toContain('TEST_WEAKENED');
  });

  it('vi.mock of the module under test: REGRESSION names the mock', async () => {
    const r0 = repo();
    patch(r0, {
      'src/calc.ts': BROKEN,
      'test/net.test.ts': NET(
        'expect(net(100)).toBe(80);',
        "vi.mock('../src/calc.js', () => ({ net: (g: number) => g - g / 5 }));\n",
      ),
    });
    const f = find((await judge(r0)).card, 'REGRESSION', /net\.test\.ts.*takes a fifth off/);
    expect(edits(f)).toEqual([
      expect.objectContaining({ kind: 'setup-mocks', file: 'test/net.test.ts', line: 2 }),
    ]);
  });

  it("an exclude in vitest.config: the excluded test's finding names the config entry", async () => {
    const r0 = repo({ 'vitest.config.ts': "export default { test: { include: ['test/**/*.test.ts'] } };\n" });
    patch(r0, {
      'src/calc.ts': BROKEN,
      'vitest.config.ts':
        "export default { test: { include: ['test/**/*.test.ts'], exclude: ['test/net.test.ts'] } };\n",
    });
    const r = await judge(r0);
    const f = find(r.card, 'REGRESSION', /net\.test\.ts.*takes a fifth off/);
    expect(edits(f)).toEqual([
      expect.objectContaining({
        kind: 'runner-exclude',
        file: 'vitest.config.ts',
        line: 1,
        description: 'added `test/net.test.ts` to `test.exclude`',
      }),
    ]);
  });

  it('a snapshot rewritten to agree with the new output: REGRESSION names the snapshot', async () => {
    const snap = (v: string) =>
      `// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html\n\nexports[\`renders the price 1\`] = \`"<b>${v}</b>"\`;\n`;
    const r0 = repo({
      'src/render.ts':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the code under test holds a template literal
        "import { net } from './calc.js';\nexport const render = (g: number) => `<b>${net(g)}</b>`;\n",
      'test/render.test.ts':
        "import { expect, it } from 'vitest';\nimport { render } from '../src/render.js';\nit('renders the price', () => { expect(render(100)).toMatchSnapshot(); });\n",
      'test/__snapshots__/render.test.ts.snap': snap('80'),
    });
    patch(r0, { 'src/calc.ts': BROKEN, 'test/__snapshots__/render.test.ts.snap': snap('75') });
    const f = find((await judge(r0)).card, 'REGRESSION', /render\.test\.ts.*renders the price/);
    expect(edits(f)).toEqual([
      expect.objectContaining({
        kind: 'expected-changed',
        file: 'test/__snapshots__/render.test.ts.snap',
        test: 'renders the price',
        line: 3,
      }),
    ]);
  });

  it('an import error the head caused names the package (vitest: Cannot find package)', async () => {
    const r0 = repo();
    patch(r0, {
      'src/calc.ts': `import leftPad from 'left-pad-not-installed';\nexport const pad = leftPad;\n${DOUBLE}`,
    });
    const r = await judge(r0);
    const vanished = r.card.findings.filter((f) => f.code === 'TEST_VANISHED');
    expect(vanished.length).toBeGreaterThan(0);
    for (const f of vanished)
      expect(String(f.evidence.cause)).toMatch(/Cannot find (package|module) 'left-pad-not-installed'/);
  });
});

describe('vitest: weakened tests and skips the patch added', { timeout: 300_000 }, () => {
  it('toBe replaced by toBeDefined with no regression beneath is TEST_WEAKENED (a warning, accept)', async () => {
    const r0 = repo();
    patch(r0, { 'test/net.test.ts': NET('expect(net(100)).toBeDefined();') });
    const r = await judge(r0);
    expect(r.card.verdict).toBe('accept');
    expect(r.card.findings.map((f) => [f.code, f.severity, f.evidence.test, f.evidence.edit])).toEqual([
      ['TEST_WEAKENED', 'warn', 'takes a fifth off', 'assertion-weakened'],
    ]);
  });

  it('it.skip added: UNFROZEN_SKIP tells to restore the test and names the mark', async () => {
    const r0 = repo();
    patch(r0, {
      'test/net.test.ts': NET('expect(net(100)).toBe(80);').replace("it('takes", "it.skip('takes"),
    });
    const r = await judge(r0);
    const f = find(r.card, 'UNFROZEN_SKIP', /takes a fifth off/);
    expect(f?.evidence.addedByPatch).toBe(true);
    expect(String(f?.evidence.next)).toMatch(/^restore .*takes a fifth off/);
    expect(edits(f)).toEqual([
      expect.objectContaining({ kind: 'skip-added', file: 'test/net.test.ts', line: 4 }),
    ]);
  });

  it('it.only on one test: the others, skipped on the head, are told to restore, naming the only', async () => {
    const r0 = repo();
    patch(r0, {
      'test/net.test.ts': NET('expect(net(100)).toBe(80);').replace("it('keeps", "it.only('keeps"),
    });
    const r = await judge(r0);
    const f = find(r.card, 'UNFROZEN_SKIP', /takes a fifth off/);
    expect(f?.evidence.addedByPatch).toBe(true);
    expect(edits(f)).toEqual([
      expect.objectContaining({ kind: 'focus-added', file: 'test/net.test.ts', test: 'keeps zero' }),
    ]);
  });
});

const SPLIT_OK = `export function split(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i < total % count ? 1 : 0));
}
`;
const SPLIT_ROUNDED = `export function split(total: number, count: number): number[] {
  return Array.from({ length: count }, () => Math.round(total / count));
}
`;
const SEED_PROPERTY = (predicate: string) => `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
import { split } from '../src/split.js';
export const adds = defineSeedProperty({
  id: 'adds_up',
  property: fc.property(fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 12 }), (total, count) =>
    ${predicate}),
  params: { numRuns: 200 },
});
`;
const ADDS_UP = 'split(total, count).reduce((a, b) => a + b, 0) === total';

describe('seed and hits properties: the finding names the edit to the property', { timeout: 300_000 }, () => {
  it('SEED_FAILED (the base property on the head code) names the predicate made `|| true`', async () => {
    const r0 = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        seeds: { properties: ['props/*.ts'] },
      }),
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'adds_up', runner: 'fast-check', min_examples: 100, seeds: ['2081211641'] }],
      }),
      'src/split.ts': SPLIT_OK,
      'props/adds.ts': SEED_PROPERTY(ADDS_UP),
    });
    patch(r0, { 'src/split.ts': SPLIT_ROUNDED, 'props/adds.ts': SEED_PROPERTY(`${ADDS_UP} || true`) });
    const r = await judge(r0);
    const f = r.card.findings.find((x) => x.code === 'SEED_FAILED' && x.evidence.side === 'overlay');
    expect(edits(f)).toEqual([
      expect.objectContaining({
        kind: 'assertion-weakened',
        file: 'props/adds.ts',
        test: 'adds_up',
        line: 7,
      }),
    ]);
    expect(f?.message).toMatch(
      /; the head weakened `.*=== total` to `.*=== total \|\| true` \(it checks a property of the value; now it checks nothing\) at props\/adds\.ts:7$/,
    );
    expect(r.codes).not.toContain('TEST_WEAKENED');
  });

  it('HIT_SURFACE_SHRANK (the base property on the head code) names the edit to the property module', async () => {
    const property = (body: string) => `import { defineProperty } from 'patchgate';
import { supported } from '../src/currency.js';
export default defineProperty<any>({
  name: 'currency_supported',
  fixture: 'fixtures/lock.json',
  claims: ['currency'],
  check(fx) { ${body} },
});
`;
    const r0 = hitsRepo(
      { properties: ['properties/*.ts'], maxDepth: 1 },
      {
        'src/currency.ts': "export const supported = (c: string) => c === 'USD';\n",
        'properties/currency.ts': property(
          "if (!supported(fx.currency)) throw new Error('unsupported ' + fx.currency);",
        ),
      },
    );
    patch(r0, {
      'src/currency.ts': 'export const supported = (_c: string) => true;\n',
      'properties/currency.ts': property(
        `if (JSON.stringify(fx) !== ${JSON.stringify(JSON.stringify(JSON.parse(seedInvoice())))}) throw new Error('changed');`,
      ),
    });
    const r = await judge(r0);
    const f = r.card.findings.find(
      (x) => (x.code === 'HIT_SURFACE_SHRANK' || x.code === 'ZERO_HIT') && x.evidence.side === 'overlay',
    );
    expect(f).toBeDefined();
    expect(edits(f)).toEqual([
      expect.objectContaining({
        kind: 'assertion-removed',
        file: 'properties/currency.ts',
        test: 'currency_supported',
      }),
    ]);
    expect(f?.message).toContain('; the head removed the assertion');
  });
});
