/**
 * `init` on repositories whose runner, golden files and schema live where the
 * first version of init did not look (issue 19): a pytest declared only in
 * tox.ini and a requirements file, a repository with no runner at all, SVG
 * text goldens beside the tests in a folder of no known name, and `$schema`
 * with and without patchgate installed. Everything runs the built CLI; the
 * pytest check runs the real runner in the sandbox.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitDir, runCli } from '../helpers/gitdir.js';

const patchgateRoot = path.resolve(import.meta.dirname, '../..');
const json = (repo: GitDir, file: string) => JSON.parse(readFileSync(repo.path(file), 'utf8'));
const scorecard = (repo: GitDir) => json(repo, '.patchgate/out/scorecard.json');
/** Output with its wrapped lines joined again, for sentences longer than the terminal. */
const flat = (text: string) => text.replace(/\n {2,}/g, ' ');
const codes = (card: { findings: { code: string }[] }) =>
  [...new Set(card.findings.map((f) => f.code))].sort();

/** A small pytest library that names pytest only in tox.ini and test-requirements.txt (no pyproject, no pytest.ini). */
const TOX_LIB = {
  '.gitignore': '.patchgate\n__pycache__\n.tox\n',
  'setup.py': 'from setuptools import setup\n\nsetup(name="slug", py_modules=["slug"])\n',
  'slug.py': 'def slug(s):\n    return "-".join(s.lower().split())\n',
  'tests/test_slug.py':
    'from slug import slug\n\n\ndef test_slug():\n    assert slug("Hello World") == "hello-world"\n',
  'test-requirements.txt': 'pytest>=7\n',
  'tox.ini':
    '[tox]\nenvlist = py3\n\n[testenv]\ndeps = -rtest-requirements.txt\ncommands = pytest {posargs:tests}\n',
  // A second test folder the project's command leaves out: the gate must not run it either.
  'bench/test_speed.py': 'import pytest_benchmark_not_installed\n',
};

describe('init finds a runner the manifests do not name', { timeout: 120_000 }, () => {
  it('takes pytest from tox.ini and test-requirements.txt, says where, and the gate then runs the tests', async () => {
    const repo = GitDir.create(TOX_LIB);
    const init = await runCli(['init'], { cwd: repo.dir });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout.split('\n')[0]).not.toContain('test layers are off');
    expect(flat(init.stdout)).toContain(
      'tests.preset: pytest (found pytest in test-requirements.txt:1; tox.ini runs pytest: `pytest tests` (tox.ini:6))',
    );
    expect(flat(init.stdout)).toContain(
      "tests.args: tests (what `pytest tests` (tox.ini:6) adds to the preset's pytest command)",
    );
    expect(json(repo, 'patchgate.config.json').tests).toEqual({ preset: 'pytest', args: ['tests'] });
    repo.commit('human: patchgate init');

    // The tamper that went through when init found no runner: the code changes, the test stays.
    repo.write({ 'slug.py': 'def slug(s):\n    return "_".join(s.lower().split())\n' });
    const r = await runCli(['check', '--base', 'main', '--quiet'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const card = scorecard(repo);
    expect(codes(card)).toContain('UNKNOWN_FAILURE_SIGNATURE');
    const f = card.findings.find((x: { code: string }) => x.code === 'UNKNOWN_FAILURE_SIGNATURE');
    expect(f.evidence).toMatchObject({ test: 'pytest::tests.test_slug::test_slug', base: 'passed' });
    expect(JSON.stringify(card)).not.toContain('pytest_benchmark_not_installed');
  });
});

describe('init and validate with no runner', () => {
  it('say first that the test layers are off and print the lines that turn them on', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a', 'slugify.py': 'def slug(s):\n    return s\n' });
    const init = await runCli(['init'], { cwd: repo.dir });
    expect(init.code).toBe(0);
    const lines = init.stdout.split('\n');
    expect(lines[0]).toBe('warning: the test layers are off, so the gate judges only contracts and fixtures');
    expect(lines).toContain('    "tests": {"preset": "pytest"},');
    expect(lines).toContain('    "signatures": {}, "stability": {},');
    expect(json(repo, 'patchgate.config.json').tests).toBeUndefined();

    const v = await runCli(['validate'], { cwd: repo.dir });
    expect(v.code).toBe(0);
    const vlines = v.stdout.split('\n');
    expect(vlines[0]).toBe(lines[0]);
    expect(vlines).toContain('    "tests": {"preset": "pytest"},');
    expect(vlines.at(-2)).toBe('ok: 2 files');

    // The printed lines, pasted, give a config validate takes, and then it names the freeze file to create.
    const config = readFileSync(repo.path('patchgate.config.json'), 'utf8');
    const pasted = config.replace(
      /^\{\n/,
      `{\n  ${lines
        .filter((l) => l.startsWith('    "'))
        .map((l) => l.trim())
        .join('\n  ')}\n`,
    );
    repo.write({ 'patchgate.config.json': pasted });
    const after = await runCli(['validate'], { cwd: repo.dir });
    expect(after.stdout).not.toContain('test layers are off');
    expect(after.stdout).toContain('flake_signatures.json: does not exist in the working tree');
    expect(after.code).toBe(2);
  });
});

const svgs = Object.fromEntries(
  ['circle', 'square', 'star'].map((n) => [`test/fixtures-less/${n}.svg.txt`, `<svg><${n}/></svg>\n`]),
);

describe('init lists golden files outside fixture-named folders', { timeout: 60_000 }, () => {
  it('finds the expected outputs a test reads, locks nothing until told, and the printed command locks them', async () => {
    const repo = GitDir.create({
      ...svgs,
      'test/render.test.js': [
        "const fs = require('node:fs');",
        "const path = require('node:path');",
        "const { render } = require('../src/render.js');",
        "const dir = path.join(__dirname, 'fixtures-less');",
        "for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.svg.txt'))) {",
        "  test(f, () => expect(render(f)).toBe(fs.readFileSync(path.join(dir, f), 'utf8')));",
        '}',
        '',
      ].join('\n'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the module's own template literal
      'src/render.js': 'exports.render = (name) => `<svg><${name.split(".")[0]}/></svg>\\n`;\n',
    });
    const init = await runCli(['init'], { cwd: repo.dir });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(
      'found 3 possible golden file(s) outside the fixture folders, in 1 group(s)',
    );
    expect(init.stdout).toContain(
      '  "test/fixtures-less": 3 file(s) (*.svg.txt), read by test/render.test.js:4',
    );
    const command = init.stdout.split('\n').find((l) => l.startsWith('  patchgate init --force'));
    expect(command).toBe('  patchgate init --force --root test/fixtures-less');
    // Listed, not locked.
    expect(json(repo, 'patchgate.config.json').fixtures).toEqual({ enabled: false });
    expect(existsSync(repo.path('FIXTURE_LOCK.json'))).toBe(false);

    const adopt = await runCli((command as string).trim().split(' ').slice(1), { cwd: repo.dir });
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).not.toContain('possible golden file');
    expect(Object.keys(json(repo, 'FIXTURE_LOCK.json').files)).toEqual(Object.keys(svgs).sort());
    repo.commit('human: patchgate init with the goldens');

    repo.write({ 'test/fixtures-less/star.svg.txt': '<svg><star points="6"/></svg>\n' });
    const r = await runCli(['check', '--base', 'main', '--quiet'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const f = scorecard(repo).findings.find((x: { code: string }) => x.code === 'FIXTURE_CHANGED');
    expect(f.evidence.path).toBe('test/fixtures-less/star.svg.txt');
  });
});

describe('init writes $schema only where it resolves', () => {
  const JS = {
    '.gitignore': 'node_modules\n',
    'package.json': JSON.stringify({ name: 'x', devDependencies: { vitest: '4.0.15' } }),
    'package-lock.json': '{"lockfileVersion": 3}',
    'testdata/a.json': '{}',
  };
  const written = [
    'patchgate.config.json',
    'FIXTURE_LOCK.json',
    'flake_signatures.json',
    'stability_freeze.json',
  ];

  it('omits it in a JavaScript repository where patchgate is not installed', async () => {
    const repo = GitDir.create(JS);
    expect((await runCli(['init'], { cwd: repo.dir })).code).toBe(0);
    for (const f of written) expect(readFileSync(repo.path(f), 'utf8')).not.toContain('$schema');
  });

  it('writes the installed package’s path where node_modules/patchgate has the schemas, and each resolves', async () => {
    const repo = GitDir.create(JS);
    repo.write({ 'node_modules/patchgate': { symlink: patchgateRoot } });
    expect((await runCli(['init'], { cwd: repo.dir })).code).toBe(0);
    for (const f of written) {
      const ref = json(repo, f).$schema as string;
      expect(ref).toMatch(/^\.\/node_modules\/patchgate\/schema\/[a-z.-]+\.schema\.json$/);
      expect(existsSync(path.join(path.dirname(repo.path(f)), ref))).toBe(true);
    }
  });
});
