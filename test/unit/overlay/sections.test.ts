import { describe, expect, it } from 'vitest';
import { mergeSections, SECTION_RULES, type SectionRule } from '../../../src/overlay/sections.js';

function rule(file: string): SectionRule {
  const r = SECTION_RULES.find((x) => x.file === file);
  if (!r) throw new Error(`no section rule for ${file}`);
  return r;
}

const PYPROJECT = rule('pyproject.toml');
const SETUP_CFG = rule('setup.cfg');
const TOX_INI = rule('tox.ini');
const PACKAGE_JSON = rule('package.json');

const basePyproject = [
  '[project]',
  'name = "calc"',
  'dependencies = ["requests"]',
  '',
  '[tool.pytest.ini_options]',
  'addopts = "-q"',
  'testpaths = ["tests"]',
  '',
  '[tool.ruff]',
  'line-length = 100',
  '',
].join('\n');

describe('SECTION_RULES', () => {
  it('covers the mixed config files of pytest and the JavaScript runners', () => {
    expect(SECTION_RULES.map((r) => r.file).sort()).toEqual([
      'package.json',
      'pyproject.toml',
      'setup.cfg',
      'tox.ini',
    ]);
    expect(PYPROJECT.kind).toBe('ini');
    expect(PACKAGE_JSON.kind).toBe('json');
    expect(PACKAGE_JSON.sections).toEqual(expect.arrayContaining(['scripts.test', 'vitest', 'jest']));
  });
});

describe('mergeSections: pyproject.toml', () => {
  it("keeps the head's dependencies but the base's pytest section", () => {
    const head = basePyproject
      .replace('dependencies = ["requests"]', 'dependencies = ["requests", "numpy"]')
      .replace('addopts = "-q"', 'addopts = "-q -p evil"');
    const out = mergeSections(PYPROJECT, basePyproject, head);
    expect(out).toBeDefined();
    expect(out).toContain('dependencies = ["requests", "numpy"]');
    expect(out).toContain('addopts = "-q"\n');
    expect(out).not.toContain('-p evil');
    // The base's section sits where the head's was: before the unrelated [tool.ruff].
    expect(out).toBe(
      basePyproject.replace('dependencies = ["requests"]', 'dependencies = ["requests", "numpy"]'),
    );
  });

  it("replaces the head's pytest subsections too (tool.pytest.*, tool.hypothesis*)", () => {
    const base = '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';
    const head =
      '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.pytest.extra]\nx = 1\n\n[tool.hypothesis.profiles]\nmax_examples = 1\n';
    const out = mergeSections(PYPROJECT, base, head) ?? '';
    expect(out).not.toContain('[tool.pytest.extra]');
    expect(out).not.toContain('[tool.hypothesis.profiles]');
    expect(out).not.toContain('max_examples');
    expect(out).toContain('[tool.pytest.ini_options]\naddopts = "-q"');
  });

  it("recognises a header written with spaces or a trailing comment as the head's test section", () => {
    const head = basePyproject.replace(
      '[tool.pytest.ini_options]\naddopts = "-q"',
      '[ tool.pytest.ini_options ]  # tweaked\naddopts = "-p evil"',
    );
    const out = mergeSections(PYPROJECT, basePyproject, head) ?? '';
    expect(out).not.toContain('-p evil');
    expect(out).toContain('[tool.pytest.ini_options]\naddopts = "-q"');
  });

  it("appends the base's pytest section when the head removed it", () => {
    const head = '[project]\nname = "calc"\ndependencies = ["requests", "numpy"]\n';
    const out = mergeSections(PYPROJECT, basePyproject, head) ?? '';
    expect(out.startsWith('[project]\nname = "calc"\ndependencies = ["requests", "numpy"]\n')).toBe(true);
    expect(out).toContain('[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]');
    // Appended after a blank line, not glued to the head's last key.
    expect(out).toMatch(/"numpy"\]\n\n\[tool\.pytest\.ini_options\]/);
    expect(out).not.toContain('[tool.ruff]');
  });

  it('drops a pytest section the head added when the base has none', () => {
    const base = '[project]\nname = "calc"\n';
    const head =
      '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-p evil"\n\n[tool.ruff]\nx = 1\n';
    const out = mergeSections(PYPROJECT, base, head) ?? '';
    expect(out).not.toContain('tool.pytest');
    expect(out).not.toContain('-p evil');
    expect(out).toContain('[project]\nname = "calc"');
    expect(out).toContain('[tool.ruff]\nx = 1');
  });

  it('drops a head pytest section whose header quotes its keys (TOML reads it as the same table)', () => {
    const base = '[project]\nname = "calc"\n';
    for (const header of ['[tool."pytest".ini_options]', '[tool.\'pytest\'."ini_options"]']) {
      const head = `[project]\nname = "calc"\n\n${header}\naddopts = "-p evil"\n`;
      const out = mergeSections(PYPROJECT, base, head) ?? '';
      expect(out, header).not.toContain('-p evil');
    }
  });

  it("returns the head's exact bytes when the test sections are equal (an unrelated edit makes no overlay)", () => {
    const head = basePyproject.replace('line-length = 100', 'line-length  =  120   ');
    expect(mergeSections(PYPROJECT, basePyproject, head)).toBe(head);
    // Neither side has a pytest section: the head's bytes too, even without a trailing newline.
    const noTests = '[project]\nname = "calc"';
    expect(mergeSections(PYPROJECT, '[project]\nname = "old"\n', noTests)).toBe(noTests);
  });

  it('treats trailing blank lines after the test section as no difference', () => {
    const head = basePyproject.replace('testpaths = ["tests"]\n', 'testpaths = ["tests"]\n\n\n');
    expect(mergeSections(PYPROJECT, basePyproject, head)).toBe(head);
  });

  it("gives the base's pytest section when the head deleted the file", () => {
    const out = mergeSections(PYPROJECT, basePyproject, undefined) ?? '';
    expect(out).toContain('[tool.pytest.ini_options]\naddopts = "-q"');
    expect(out).not.toContain('[project]');
  });

  it('gives no file when the head deleted one that held no test section', () => {
    expect(mergeSections(PYPROJECT, '[project]\nname = "calc"\n', undefined)).toBeUndefined();
  });

  it('gives no file when neither side has one', () => {
    expect(mergeSections(PYPROJECT, undefined, undefined)).toBeUndefined();
    expect(mergeSections(PACKAGE_JSON, undefined, undefined)).toBeUndefined();
  });
});

describe('mergeSections: setup.cfg and tox.ini', () => {
  it("takes setup.cfg's [tool:pytest] from the base and keeps the head's [metadata]", () => {
    const base = '[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n';
    const head = '[metadata]\nname = calc\nversion = 2\n\n[tool:pytest]\naddopts = -p evil\n';
    const out = mergeSections(SETUP_CFG, base, head) ?? '';
    expect(out).toContain('version = 2');
    expect(out).toContain('[tool:pytest]\naddopts = -q');
    expect(out).not.toContain('evil');
  });

  it("takes tox.ini's [pytest] from the base and leaves [tox] alone", () => {
    const base = '[tox]\nenvlist = py311\n\n[pytest]\naddopts = -q\n';
    const head = '[tox]\nenvlist = py312\n\n[pytest]\naddopts = -p evil\n';
    const out = mergeSections(TOX_INI, base, head) ?? '';
    expect(out).toContain('envlist = py312');
    expect(out).toContain('[pytest]\naddopts = -q');
    expect(out).not.toContain('evil');
  });

  it("does not treat another file's test section name as one (pyproject's table in setup.cfg)", () => {
    const head = '[metadata]\nname = calc\n\n[tool.pytest.ini_options]\nx = 1\n';
    expect(mergeSections(SETUP_CFG, '[metadata]\nname = calc\n', head)).toBe(head);
  });
});

describe('mergeSections: package.json', () => {
  const basePkg = {
    name: 'calc',
    version: '1.0.0',
    scripts: { build: 'tsc', test: 'vitest run' },
    vitest: { pool: 'forks' },
    dependencies: { lodash: '^4.0.0' },
  };
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

  it("replaces the head's scripts.test, vitest and jest keys with the base's and keeps the rest of the head's", () => {
    const head = {
      name: 'calc',
      version: '2.0.0',
      scripts: { build: 'tsc -b', test: 'true' },
      vitest: { pool: 'threads', setupFiles: ['evil.ts'] },
      jest: { testMatch: [] },
      dependencies: { lodash: '^4.17.0' },
    };
    const out = mergeSections(PACKAGE_JSON, json(basePkg), json(head));
    expect(out).toBeDefined();
    const merged = JSON.parse(out ?? '') as Record<string, unknown>;
    expect(merged).toEqual({
      name: 'calc',
      version: '2.0.0',
      scripts: { build: 'tsc -b', test: 'vitest run' },
      vitest: { pool: 'forks' },
      dependencies: { lodash: '^4.17.0' },
    });
    expect(merged).not.toHaveProperty('jest');
  });

  it('removes a scripts.test the head added when the base has none, keeping its other scripts', () => {
    const base = { name: 'calc', scripts: { build: 'tsc' } };
    const head = { name: 'calc', scripts: { build: 'tsc', test: 'exit 0', pretest: 'evil' } };
    const merged = JSON.parse(mergeSections(PACKAGE_JSON, json(base), json(head)) ?? '') as unknown;
    expect(merged).toEqual({ name: 'calc', scripts: { build: 'tsc' } });
  });

  it("restores the base's scripts.test when the head has no scripts at all", () => {
    const head = { name: 'calc', dependencies: { lodash: '^4.0.0' } };
    const merged = JSON.parse(mergeSections(PACKAGE_JSON, json(basePkg), json(head)) ?? '') as unknown;
    expect(merged).toEqual({
      name: 'calc',
      dependencies: { lodash: '^4.0.0' },
      scripts: { test: 'vitest run' },
      vitest: { pool: 'forks' },
    });
  });

  it("returns the head's bytes unchanged when the test keys are equal", () => {
    // Odd formatting and a changed dependency: a re-serialization would change these bytes.
    const head =
      '{"name":"calc",  "version":"9.9.9","scripts":{"build":"tsc","test":"vitest run"},\n"vitest":{"pool":"forks"},"dependencies":{"lodash":"^5"}}';
    expect(mergeSections(PACKAGE_JSON, json(basePkg), head)).toBe(head);
  });

  it('returns a head package.json that is not JSON (or not an object) as it is', () => {
    const broken = '{"name": "calc", "scripts": {"test": "true"},';
    expect(mergeSections(PACKAGE_JSON, json(basePkg), broken)).toBe(broken);
    expect(mergeSections(PACKAGE_JSON, json(basePkg), '["not", "an", "object"]\n')).toBe(
      '["not", "an", "object"]\n',
    );
  });

  it('gives no file when the head deleted a package.json without test keys', () => {
    expect(mergeSections(PACKAGE_JSON, json({ name: 'calc', scripts: { build: 'tsc' } }), undefined)).toBe(
      undefined,
    );
  });
});
