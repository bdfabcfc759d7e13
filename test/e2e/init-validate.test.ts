import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSchemaDocument } from '../../src/config/schema-files.js';
import { schemaForRole } from '../../src/contracts/json-schemas.js';
import { CLI, GitDir, runCli } from '../helpers/gitdir.js';
import { jsonSchemaErrors } from '../helpers/json-schema-check.js';

const json = (repo: GitDir, file: string) => JSON.parse(readFileSync(repo.path(file), 'utf8'));
/** patchgate itself, linked in as node_modules/patchgate (what `npm install` of it leaves), so `$schema` resolves. */
const installed = { 'node_modules/patchgate': { symlink: path.resolve(import.meta.dirname, '../..') } };

const JS_REPO = {
  '.gitignore': 'node_modules\n',
  'package.json': JSON.stringify({ name: 'x', devDependencies: { vitest: '4.0.15' } }),
  'package-lock.json': '{"lockfileVersion": 3}',
  'src/a.ts': 'export const a = 1;\n',
  'tests/test_fixtures/invoice.json': '{"total": 1}\n',
  'src/__snapshots__/a.test.ts.snap': 'exports[`a`] = `1`;\n',
};

const PY_REPO = {
  'pyproject.toml': '[project]\nname = "invoice"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'src/invoice/__init__.py': '',
  'tests/test_invoice.py': 'def test_total():\n    assert True\n',
  'tests/test_fixtures/invoice.json': '{"total": 1}\n',
};

describe('patchgate init on a new repository', () => {
  it('in a JS repository: detects vitest and npm ci, turns the test layers on, writes their empty contracts with $schema', async () => {
    const repo = GitDir.create(JS_REPO).write(installed);
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('found fixture folder tests/test_fixtures (a folder named test_fixtures)');
    expect(r.stdout).toContain('found fixture folder src/__snapshots__ (a folder named __snapshots__)');
    expect(r.stdout).toContain('tests.preset: vitest (found vitest in devDependencies)');
    expect(r.stdout).toContain('tests.setup: npm ci (found package-lock.json)');
    expect(r.stdout).toContain(
      'layers on: contracts, fixtures, signatures, regression, test-edits, stability',
    );
    for (const f of [
      'patchgate.config.json',
      'FIXTURE_LOCK.json',
      'flake_signatures.json',
      'stability_freeze.json',
    ])
      expect(r.stdout).toMatch(new RegExp(`^wrote ${f.replace('.', '\\.')}`, 'm'));
    expect(r.stdout).toContain(
      'git add patchgate.config.json FIXTURE_LOCK.json flake_signatures.json stability_freeze.json && git commit -m "patchgate: init"',
    );
    // No remote here: the hint's branch is the current one's name, and says it is a guess. The gate
    // ran as `node <its bin>`, so the hint starts it so too.
    expect(r.stdout.split('\n')).toContain(`  node ${CLI} check --base main`);
    expect(r.stdout).toContain('(main is a guess: this clone has no origin/HEAD');

    const config = json(repo, 'patchgate.config.json');
    expect(config.$schema).toBe('./node_modules/patchgate/schema/patchgate.config.schema.json');
    expect(config.fixtures.roots).toEqual(['tests/test_fixtures', 'src/__snapshots__']);
    expect(config.tests).toEqual({ preset: 'vitest', setup: ['npm', 'ci'] });
    expect(config.signatures).toEqual({ freeze: 'flake_signatures.json' });
    expect(config.stability).toEqual({ freeze: 'stability_freeze.json' });
    expect(config.claims).toBeUndefined();
    expect(json(repo, 'flake_signatures.json')).toEqual({
      $schema: './node_modules/patchgate/schema/signature-freeze.schema.json',
      signatures: [],
    });
    expect(json(repo, 'stability_freeze.json')).toEqual({
      $schema: './node_modules/patchgate/schema/stability-freeze.schema.json',
      freezes: [],
    });
    expect(json(repo, 'FIXTURE_LOCK.json').$schema).toBe(
      './node_modules/patchgate/schema/fixture-lock.schema.json',
    );
    expect(existsSync(repo.path('freeze/ledger.json'))).toBe(false);

    // Each written contract file conforms to the JSON Schema its $schema names.
    for (const [file, role] of [
      ['FIXTURE_LOCK.json', 'fixtures.lock'],
      ['flake_signatures.json', 'signatures.freeze'],
      ['stability_freeze.json', 'stability.freeze'],
      ['patchgate.config.json', 'config'],
    ] as const) {
      const entry = schemaForRole(role);
      if (!entry) throw new Error(`no schema for ${role}`);
      expect(json(repo, file).$schema).toMatch(new RegExp(`${entry.file.replace(/\./g, '\\.')}$`));
      expect(jsonSchemaErrors(jsonSchemaDocument(entry) as never, json(repo, file))).toEqual([]);
    }

    const v = await runCli(['validate'], { cwd: repo.dir });
    expect(v.stdout).toBe('ok: 4 files\n');
    expect(v.code).toBe(0);
  });

  it('in a Python repository: pytest with PYTHONPATH for the src layout, no $schema anywhere, and a hint that runs the same gate, not an npx fetch', async () => {
    const repo = GitDir.create(PY_REPO);
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tests.preset: pytest (found [tool.pytest.ini_options] in pyproject.toml)');
    expect(r.stdout).toContain('tests.env.PYTHONPATH: src (found src/invoice/__init__.py: a src layout');
    expect(r.stdout.split('\n')).toContain(`  node ${CLI} check --base main`);
    expect(r.stdout.replace(/\n {2}/g, ' ')).toContain(
      `Run \`node ${CLI} validate\` after editing the config`,
    );
    expect(r.stdout).not.toContain('npx');
    const config = json(repo, 'patchgate.config.json');
    expect(config.tests).toEqual({ preset: 'pytest', env: { PYTHONPATH: 'src' } });
    for (const f of [
      'patchgate.config.json',
      'FIXTURE_LOCK.json',
      'flake_signatures.json',
      'stability_freeze.json',
    ])
      expect(readFileSync(repo.path(f), 'utf8')).not.toContain('$schema');
    const v = await runCli(['validate'], { cwd: repo.dir });
    expect(v.stdout).toBe('ok: 4 files\n');
    expect(v.code).toBe(0);
  });

  it('stops before writing anything when a contract file it would keep is invalid', async () => {
    const repo = GitDir.create({ ...PY_REPO, 'flake_signatures.json': '{"signatures": {}}' });
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/flake_signatures\.json:1:\d+: signatures: /);
    expect(existsSync(repo.path('patchgate.config.json'))).toBe(false);
    expect(existsSync(repo.path('FIXTURE_LOCK.json'))).toBe(false);
  });

  it('keeps a valid freeze file that is already there, rows and all, even with --force', async () => {
    const freeze =
      '{"freezes": [{"test": "t::a", "owner": "o", "reason": "r", "expires": "2099-01-01", "action": "fix"}]}';
    const repo = GitDir.create({ ...PY_REPO, 'stability_freeze.json': freeze });
    const r = await runCli(['init', '--force'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kept stability_freeze.json (already there and valid)');
    expect(readFileSync(repo.path('stability_freeze.json'), 'utf8')).toBe(freeze);
  });

  it('leaves the seeds layer off for an empty seed tape, which the gate would refuse as checking nothing', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a', 'property_seeds.json': '{"properties": []}' });
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('property_seeds.json records no property yet, so the seeds layer stays off');
    expect(json(repo, 'patchgate.config.json').seeds).toBeUndefined();
    repo.commit('human: patchgate init');
    expect((await runCli(['check', '--base', 'main'], { cwd: repo.dir })).code).toBe(0);
  });

  it('--codeowners prints one line per contract file, the claim glob and the CI workflows, and writes no CODEOWNERS', async () => {
    const repo = GitDir.create(JS_REPO);
    const r = await runCli(['init', '--codeowners', '--owner', 'payments'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        '/patchgate.config.* @payments',
        '/FIXTURE_LOCK.json @payments',
        '/flake_signatures.json @payments',
        '/stability_freeze.json @payments',
        '/.github/workflows/ @payments',
        '/CODEOWNERS @payments',
        '/.github/CODEOWNERS @payments',
        '/docs/CODEOWNERS @payments',
      ].join('\n'),
    );
    expect(existsSync(repo.path('CODEOWNERS'))).toBe(false);
    expect(existsSync(repo.path('.github/CODEOWNERS'))).toBe(false);

    // On a repository that already has a config: the snippet of that config, nothing written.
    repo.write({
      'patchgate.config.json': JSON.stringify({ ...json(repo, 'patchgate.config.json'), claims: {} }),
    });
    const before = readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8');
    const again = await runCli(['init', '--codeowners'], { cwd: repo.dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('/claims/*.yaml @OWNER');
    expect(again.stdout).toContain('/freeze/ledger.json @OWNER');
    expect(again.stdout).toContain('Replace @OWNER');
    expect(again.stdout).not.toContain('wrote');
    expect(readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8')).toBe(before);
  });
});

describe('patchgate validate', () => {
  it('lists every problem of every broken contract file at once, located, and exits 2', async () => {
    const repo = GitDir.create(PY_REPO);
    expect((await runCli(['init'], { cwd: repo.dir })).code).toBe(0);
    const config = json(repo, 'patchgate.config.json');
    repo.write({
      'patchgate.config.json': JSON.stringify({ ...config, claims: {} }, null, 2),
      'FIXTURE_LOCK.json': '{\n  "override_token_env": "not a variable!",\n  "files": {}\n}\n',
      'flake_signatures.json': '{\n  "signatures": [\n    {"sha256": "abc"}\n  ]\n}\n',
      'stability_freeze.json':
        '{"freezes": [{"test": "t", "owner": "", "reason": "r", "expires": "2026-01-01", "action": "a"}]}',
      'claims/invoice.yaml':
        'patch: invoice\nclaims:\n  - id: C1\n    statement: total is at most 100\n  - id: C1\n    statement: again\n',
    });
    const r = await runCli(['validate'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n').filter((l) => /^\S+:\d+:\d+: |^\S+: /.test(l));
    expect(lines).toEqual([
      'FIXTURE_LOCK.json:2:25: override_token_env: expected an environment variable name such as FIXTURE_OVERRIDE, got the string "not a variable!".',
      "flake_signatures.json:3:16: signatures[0].sha256: expected a SHA-256 digest of 64 lowercase hex characters, got 'abc'.",
      expect.stringMatching(
        /^stability_freeze\.json:1:\d+: freezes\[0\]\.owner: expected the person or team who owns the freeze/,
      ),
      expect.stringMatching(
        /^freeze\/ledger\.json: does not exist in the working tree, and patchgate\.config\.json names it \(claims\.ledger\); write \{"window_runs": 20/,
      ),
      "claims/invoice.yaml:5:9: claims[1].id: claim id 'C1' is already used earlier in this file (line 3); a claim id names one claim, never reused",
    ]);
    expect(r.stdout).toContain('5 problems in 5 files');
  });

  it('exits 0 on a clean init, with the tests-off warning first, and says in its help why it exists', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a' });
    expect((await runCli(['init'], { cwd: repo.dir })).code).toBe(0);
    const r = await runCli(['validate'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    // No runner: valid, but said first (see init-runners.test.ts), then the one line.
    expect(r.stdout).toMatch(
      /^warning: the test layers are off, so the gate judges only contracts and fixtures\n/,
    );
    expect(r.stdout).toMatch(/\nok: 2 files\n$/);
    const help = await runCli(['validate', '--help'], { cwd: repo.dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('CONTRACT_TOUCHED');
  });

  it('reads an uncommitted edit of the working tree, not the committed config', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a' });
    await runCli(['init'], { cwd: repo.dir });
    repo.commit('human: patchgate init');
    repo.write({ 'patchgate.config.json': '{"fixtures": {"roots": ["testdata"], "lokc": "x"}}' });
    const r = await runCli(['validate'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^patchgate\.config\.json:1:\d+: fixtures(\.lokc)?: .*lokc/m);
  });
});
