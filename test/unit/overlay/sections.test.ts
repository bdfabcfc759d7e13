import { parse as parseToml } from 'smol-toml';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  type MergedFile,
  mergeSections,
  SECTION_RULES,
  type SectionRule,
  sectionRuleFor,
} from '../../../src/overlay/sections.js';
import { pytestReads } from '../../helpers/pytest-oracle.js';

function rule(path: string): SectionRule {
  const r = sectionRuleFor(path);
  if (!r) throw new Error(`no section rule for ${path}`);
  return r;
}

const PYPROJECT = rule('pyproject.toml');
const SETUP_CFG = rule('setup.cfg');
const TOX_INI = rule('tox.ini');
const PACKAGE_JSON = rule('package.json');
const TSCONFIG = rule('tsconfig.json');

/** The overlay's text of a merge that must produce a file. */
const text = (m: MergedFile): string => {
  if (m.text === undefined) throw new Error('expected a file');
  return m.text;
};

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
  it('covers the mixed config files of pytest, the JavaScript runners and TypeScript, in every folder', () => {
    expect(SECTION_RULES.map((r) => r.kind).sort()).toEqual(['ini', 'ini', 'json', 'jsonc', 'toml']);
    expect(sectionRuleFor('pkg/sub/pyproject.toml')).toBe(PYPROJECT);
    expect(sectionRuleFor('packages/web/package.json')).toBe(PACKAGE_JSON);
    for (const p of ['tsconfig.json', 'tsconfig.test.json', 'packages/a/tsconfig.base.json', 'jsconfig.json'])
      expect(sectionRuleFor(p), p).toBe(TSCONFIG);
    for (const p of ['src/pyproject.toml.bak', 'mytsconfig.json', 'package.json5', 'README.md'])
      expect(sectionRuleFor(p), p).toBeUndefined();
    expect(PACKAGE_JSON.sections).toEqual(
      expect.arrayContaining(['scripts.test', 'vitest', 'jest', 'babel']),
    );
    expect(PACKAGE_JSON.entries).toEqual(['imports']);
    expect(TSCONFIG.entries).toEqual(['compilerOptions.paths']);
  });
});

describe('mergeSections: pyproject.toml, read as TOML', () => {
  const withDeps = basePyproject.replace('["requests"]', '["requests", "numpy"]');

  it("keeps the head's dependencies but the base's pytest table", () => {
    const head = withDeps.replace('addopts = "-q"', 'addopts = "-q -p evil"');
    const out = parseToml(text(mergeSections(PYPROJECT, basePyproject, head)));
    expect(out).toEqual({
      project: { name: 'calc', dependencies: ['requests', 'numpy'] },
      tool: {
        pytest: { ini_options: { addopts: '-q', testpaths: ['tests'] } },
        ruff: { 'line-length': 100 },
      },
    });
  });

  /** Every way TOML spells the head's own pytest options, which the line splitter let through. */
  const SPELLINGS: Record<string, string> = {
    'a header with spaces and a comment': `${withDeps.replace('[tool.pytest.ini_options]\naddopts = "-q"', '[ tool . pytest . ini_options ]  # tweaked\naddopts = "-p evil"')}`,
    'quoted keys in the header': withDeps
      .replace('[tool.pytest.ini_options]', '[tool."pytest".\'ini_options\']')
      .replace('"-q"', '"-p evil"'),
    'a top-level dotted key': `tool.pytest.ini_options.addopts = "-p evil"\n${withDeps.replace('[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]\n', '')}`,
    'an inline table at the top level': `tool = { pytest = { ini_options = { addopts = "-p evil" } } }\n${withDeps.replace(/\[tool[\s\S]*$/, '')}`,
    'an inline table under [tool]': `${withDeps.replace(/\[tool[\s\S]*$/, '')}[tool]\npytest = { ini_options = { addopts = "-p evil" } }\nruff = { line-length = 100 }\n`,
    'a dotted key under [tool]': `${withDeps.replace(/\[tool[\s\S]*$/, '')}[tool]\npytest.ini_options.addopts = "-p evil"\n`,
    'a dotted key under [tool.pytest]': withDeps.replace(
      '[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]',
      '[tool.pytest]\nini_options.addopts = "-p evil"',
    ),
    "pytest 9's native [tool.pytest] table": `${withDeps.replace(/\[tool\.pytest\.ini_options\][^[]*/, '')}[tool.pytest]\naddopts = ["-p", "evil"]\n`,
  };

  for (const [how, head] of Object.entries(SPELLINGS))
    it(`takes the base's pytest options over the head's written as ${how} (as pytest reads them)`, () => {
      const merged = mergeSections(PYPROJECT, basePyproject, head);
      expect(merged.fromBase).toBeUndefined();
      const [headRead, mergedRead, baseRead] = pytestReads([
        { name: 'pyproject.toml', text: head },
        { name: 'pyproject.toml', text: text(merged) },
        { name: 'pyproject.toml', text: basePyproject },
      ]);
      // pytest itself reads the attack in the head: the split must take it out.
      expect(JSON.stringify(headRead)).toContain('evil');
      expect(mergedRead).toEqual(baseRead);
      expect(parseToml(text(merged)).project).toEqual({ name: 'calc', dependencies: ['requests', 'numpy'] });
    });

  it("removes the head's pytest, Hypothesis, coverage and plugin entry-point tables when the base has none", () => {
    const base = '[project]\nname = "calc"\n';
    const head = [
      '[project]',
      'name = "calc"',
      'entry-points.pytest11 = { greenwash = "calc.greenwash" }',
      'entry-points.console_scripts = { calc = "calc:main" }',
      '[tool]',
      'pytest_env = { CALC_FAKE = "1" }',
      'hypothesis = { max_examples = 1 }',
      'coverage.run.plugins = ["calc.cover"]',
      'poetry.plugins.pytest11 = { x = "y" }',
      'ruff.line-length = 90',
      '',
    ].join('\n');
    expect(parseToml(text(mergeSections(PYPROJECT, base, head)))).toEqual({
      project: { name: 'calc', 'entry-points': { console_scripts: { calc: 'calc:main' } } },
      tool: { ruff: { 'line-length': 90 } },
    });
  });

  it('drops a tool table the split leaves empty', () => {
    const out = text(
      mergeSections(
        PYPROJECT,
        '[project]\nname = "a"\n',
        '[project]\nname = "a"\n[tool.pytest.ini_options]\naddopts = "-x"\n',
      ),
    );
    expect(parseToml(out)).toEqual({ project: { name: 'a' } });
  });

  it("returns the head's exact bytes when the test tables hold the same data, however spelled", () => {
    const reformatted = basePyproject.replace('line-length = 100', 'line-length  =  120   ');
    expect(mergeSections(PYPROJECT, basePyproject, reformatted)).toEqual({ text: reformatted });
    const dotted = `tool.pytest.ini_options = { addopts = "-q", testpaths = ["tests"] }\n[project]\nname = "other"\n`;
    expect(mergeSections(PYPROJECT, basePyproject, dotted)).toEqual({ text: dotted });
    const noTests = '[project]\nname = "calc"';
    expect(mergeSections(PYPROJECT, '[project]\nname = "old"\n', noTests)).toEqual({ text: noTests });
  });

  it('keeps big integers, dates and times of the head exactly when it rewrites the file', () => {
    const head =
      `${withDeps}[tool.x]\nbig = 123456789012345678901\nday = 1979-05-27\nat = 07:32:00\nwhen = 1979-05-27T07:32:00-08:00\n[tool.pytest.ini_options]\naddopts = "-p evil"\n`.replace(
        /\[tool\.pytest\.ini_options\]\naddopts = "-q"\ntestpaths = \["tests"\]\n/,
        '',
      );
    const out = text(mergeSections(PYPROJECT, basePyproject, head));
    const [read] = pytestReads([{ name: 'pyproject.toml', text: out }]);
    expect(read).toEqual({ config: { addopts: '-q', testpaths: ['tests'] } });
    expect(out).toContain('big = 123456789012345678901');
    expect(out).toContain('day = 1979-05-27');
    expect(out).toContain('when = 1979-05-27T07:32:00.000-08:00');
  });

  it("gives the base's copy whole when the head's is not valid TOML, naming the line", () => {
    const broken = `${withDeps}[tool.pytest.ini_options]\naddopts = "-p evil"\n`;
    const merged = mergeSections(PYPROJECT, basePyproject, broken);
    expect(merged.text).toBe(basePyproject);
    expect(merged.fromBase).toMatch(/^the head's copy is not valid TOML \(line \d+: .+\)/);
    // pytest refuses it too, so nothing of it may reach the overlay.
    expect(pytestReads([{ name: 'pyproject.toml', text: broken }])[0]).toMatchObject({
      error: expect.stringMatching(/UsageError/),
    });
  });

  it('gives the base copy whole for a head written with lone carriage returns, which pytest reads as line ends', () => {
    const head = withDeps.replace('addopts = "-q"', 'addopts = "-p evil"').replaceAll('\n', '\r');
    expect(JSON.stringify(pytestReads([{ name: 'pyproject.toml', text: head }])[0])).toContain('evil');
    const merged = mergeSections(PYPROJECT, basePyproject, head);
    expect(merged.text).toBe(basePyproject);
    expect(merged.fromBase).toContain('not valid TOML');
  });

  it('leaves the file out when the head has an invalid copy and the base none', () => {
    const merged = mergeSections(PYPROJECT, undefined, '[tool.pytest.ini_options\naddopts = "-p x"\n');
    expect(merged.text).toBeUndefined();
    expect(merged.fromBase).toContain('(none)');
  });

  it('keeps a base copy that cannot be split whole, saying so', () => {
    const merged = mergeSections(PYPROJECT, 'not = [toml', basePyproject);
    expect(merged).toEqual({
      text: 'not = [toml',
      fromBase: expect.stringMatching(/^the base's copy is not valid TOML .*, so it cannot be split/),
    });
  });

  it("gives the base's pytest table alone when the head deleted the file", () => {
    expect(parseToml(text(mergeSections(PYPROJECT, basePyproject, undefined)))).toEqual({
      tool: { pytest: { ini_options: { addopts: '-q', testpaths: ['tests'] } } },
    });
  });

  it('gives no file when the head deleted one that held no test table, or neither side has one', () => {
    expect(mergeSections(PYPROJECT, '[project]\nname = "calc"\n', undefined)).toEqual({ text: undefined });
    expect(mergeSections(PYPROJECT, undefined, undefined)).toEqual({ text: undefined });
    expect(mergeSections(PACKAGE_JSON, undefined, undefined)).toEqual({ text: undefined });
  });
});

describe('mergeSections: setup.cfg and tox.ini, read as pytest reads them', () => {
  it("takes setup.cfg's [tool:pytest] and [coverage:run] from the base and keeps the head's [metadata]", () => {
    const base = '[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n\n[coverage:run]\nbranch = true\n';
    const head =
      '[metadata]\nname = calc\nversion = 2\n\n[tool:pytest]\naddopts = -p evil\n\n[coverage:run]\nplugins = evil\n';
    const out = text(mergeSections(SETUP_CFG, base, head));
    expect(out).toBe(
      '[metadata]\nname = calc\nversion = 2\n\n[tool:pytest]\naddopts = -q\n\n[coverage:run]\nbranch = true\n',
    );
  });

  it("takes tox.ini's [pytest] from the base and leaves [tox] alone", () => {
    const base = '[tox]\nenvlist = py311\n\n[pytest]\naddopts = -q\n';
    const head = '[tox]\nenvlist = py312\n\n[pytest]\naddopts = -p evil\n';
    expect(text(mergeSections(TOX_INI, base, head))).toBe(
      '[tox]\nenvlist = py312\n\n[pytest]\naddopts = -q\n',
    );
  });

  const BASE_TOX = '[tox]\nenvlist = py311\n\n[pytest]\ntestpaths = tests\n';
  /** Lines pytest's iniconfig reads into [pytest] that a header-by-regex splitter gave to another section. */
  const INI_ATTACKS: Record<string, string> = {
    'an indented header, which continues the value above': `${BASE_TOX}  [x]\naddopts = -p evil\n`,
    'a header after a form feed line end': '[tox]\fenvlist = py312\f[pytest]\faddopts = -p evil\n',
    'a header after a lone carriage return': '[tox]\renvlist = py312\r[pytest]\raddopts = -p evil\r',
    'a header after U+2028': '[tox]\u2028envlist = py312\u2028[pytest]\u2028addopts = -p evil\n',
    'a continuation after blank lines': `${BASE_TOX}\n\n   -p evil\n`,
    'a header with a comment': '[tox]\nenvlist = py312\n\n[pytest] ; tuned\naddopts = -p evil\n',
    'a header with a semicolon inside, which is no header': `${BASE_TOX}[pytest;x]\naddopts = -p evil\n`,
  };
  for (const [how, head] of Object.entries(INI_ATTACKS))
    it(`takes the base's [pytest] over ${how}`, () => {
      const merged = mergeSections(TOX_INI, BASE_TOX, head);
      const [headRead, mergedRead, baseRead] = pytestReads([
        { name: 'tox.ini', text: head },
        { name: 'tox.ini', text: merged.text ?? '' },
        { name: 'tox.ini', text: BASE_TOX },
      ]);
      expect(JSON.stringify(headRead)).toContain('evil');
      expect(mergedRead).toEqual(baseRead);
    });

  it('leaves a section pytest does not read ([PYTEST], [ pytest ]) as the head wrote it', () => {
    const head =
      '[tox]\nenvlist = py312\n\n[pytest]\ntestpaths = tests\n\n[PYTEST]\naddopts = -p evil\n\n[ pytest ]\nx = 1\n';
    expect(mergeSections(TOX_INI, BASE_TOX, head)).toEqual({ text: head });
    expect(pytestReads([{ name: 'tox.ini', text: head }])[0]).toEqual({ config: { testpaths: 'tests' } });
  });

  it("gives the base's copy whole when pytest would refuse the head's (a duplicate section)", () => {
    const head = `${BASE_TOX}\n[pytest]\naddopts = -p evil\n`;
    const merged = mergeSections(TOX_INI, BASE_TOX, head);
    expect(merged.text).toBe(BASE_TOX);
    expect(merged.fromBase).toMatch(
      /is refused by pytest's INI reader \(line 7: duplicate section "pytest"\)/,
    );
    expect(pytestReads([{ name: 'tox.ini', text: head }])[0]).toMatchObject({
      error: expect.stringContaining('duplicate section'),
    });
  });

  it('keeps a base tox.ini pytest refuses whole, so the overlay fails as the base does', () => {
    const broken = 'addopts = -q\n[pytest]\n';
    expect(mergeSections(TOX_INI, broken, BASE_TOX)).toEqual({
      text: broken,
      fromBase: expect.stringMatching(
        /^the base's copy is refused by pytest's INI reader \(line 1: no section header defined\)/,
      ),
    });
  });

  it('appends the base section to a head whose last line has no line end', () => {
    expect(text(mergeSections(TOX_INI, BASE_TOX, '[tox]\nenvlist = py312'))).toBe(
      '[tox]\nenvlist = py312\n[pytest]\ntestpaths = tests\n',
    );
  });

  it("does not treat another file's test section name as one (pyproject's table in setup.cfg)", () => {
    const head = '[metadata]\nname = calc\n\n[tool.pytest.ini_options]\nx = 1\n';
    expect(mergeSections(SETUP_CFG, '[metadata]\nname = calc\n', head)).toEqual({ text: head });
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
  const merge = (base: unknown, head: unknown, specifiers?: string[]) =>
    JSON.parse(text(mergeSections(PACKAGE_JSON, json(base), json(head), { specifiers }))) as unknown;

  it("replaces the head's scripts.test, vitest, jest and babel keys with the base's and keeps the rest", () => {
    const head = {
      name: 'calc',
      version: '2.0.0',
      scripts: { build: 'tsc -b', test: 'true' },
      vitest: { pool: 'threads', setupFiles: ['evil.ts'] },
      jest: { testMatch: [] },
      babel: { plugins: ['./evil-plugin.js'] },
      dependencies: { lodash: '^4.17.0' },
    };
    expect(merge(basePkg, head)).toEqual({
      name: 'calc',
      version: '2.0.0',
      scripts: { build: 'tsc -b', test: 'vitest run' },
      vitest: { pool: 'forks' },
      dependencies: { lodash: '^4.17.0' },
    });
  });

  it('removes a scripts.test the head added when the base has none, keeping its other scripts', () => {
    const base = { name: 'calc', scripts: { build: 'tsc' } };
    expect(merge(base, { name: 'calc', scripts: { build: 'tsc', test: 'exit 0', pretest: 'evil' } })).toEqual(
      {
        name: 'calc',
        scripts: { build: 'tsc' },
      },
    );
  });

  it("returns the head's bytes unchanged when the test keys are equal", () => {
    const head =
      '{"name":"calc",  "version":"9.9.9","scripts":{"build":"tsc","test":"vitest run"},\n"vitest":{"pool":"forks"},"dependencies":{"lodash":"^5"}}';
    expect(mergeSections(PACKAGE_JSON, json(basePkg), head)).toEqual({ text: head });
  });

  it("gives the base's copy whole for a head package.json that is not a JSON object", () => {
    for (const broken of ['{"name": "calc", "scripts": {"test": "true"},', '["not", "an", "object"]\n']) {
      const merged = mergeSections(PACKAGE_JSON, json(basePkg), broken);
      expect(merged.text).toBe(json(basePkg));
      expect(merged.fromBase).toMatch(/^the head's copy is not a JSON object/);
    }
  });

  it('reads a head package.json behind a byte-order mark, as Node does, and still splits it', () => {
    const head = `\uFEFF${json({ ...basePkg, scripts: { test: 'true' } })}`;
    expect(JSON.parse(text(mergeSections(PACKAGE_JSON, json(basePkg), head)))).toMatchObject({
      scripts: { test: 'vitest run' },
    });
  });

  it('keeps the base imports entries the base tests resolve through, and the head entries only production uses', () => {
    const base = { name: 'calc', imports: { '#db': './src/db.js', '#fixtures/*': './test/fixtures/*.js' } };
    const head = {
      name: 'calc',
      imports: {
        '#db': './src/db.js',
        '#fixtures/*': './fake/*.js',
        '#fixtures/order': './fake/order.js',
        '#cache': './src/cache.js',
      },
    };
    expect(merge(base, head, ['#fixtures/order', 'vitest'])).toEqual({
      name: 'calc',
      imports: { '#db': './src/db.js', '#fixtures/*': './test/fixtures/*.js', '#cache': './src/cache.js' },
    });
    // Without the specifiers known, every entry is the base's.
    expect(merge(base, head)).toEqual({ name: 'calc', imports: base.imports });
  });

  it('gives no file when the head deleted a package.json without test keys', () => {
    expect(mergeSections(PACKAGE_JSON, json({ name: 'calc', scripts: { build: 'tsc' } }), undefined)).toEqual(
      {
        text: undefined,
      },
    );
  });
});

describe('mergeSections: tsconfig.json', () => {
  const base = `{
  // Comments and trailing commas, as tsconfig allows.
  "compilerOptions": {
    "strict": true,
    "baseUrl": ".",
    "paths": { "@/*": ["src/*"], "@fixtures/*": ["test/fixtures/*"], },
  },
}
`;
  const merge = (head: string, specifiers: string[]) =>
    mergeSections(TSCONFIG, base, head, { specifiers, ts });

  it('keeps a new paths entry for production code, and the head compiler options', () => {
    const head = base
      .replace('"strict": true', '"strict": false')
      .replace('"@fixtures/*": ["test/fixtures/*"]', '"@lib/*": ["lib/*"], "@fixtures/*": ["fake/*"]');
    const out = merge(head, ['@/price', '@fixtures/order']);
    expect(JSON.parse(text(out))).toEqual({
      compilerOptions: {
        strict: false,
        baseUrl: '.',
        paths: { '@/*': ['src/*'], '@lib/*': ['lib/*'], '@fixtures/*': ['test/fixtures/*'] },
      },
    });
  });

  it("drops a narrower head entry that would capture a base test's import, and keeps the base baseUrl", () => {
    const head = base
      .replace('"baseUrl": "."', '"baseUrl": "fake"')
      .replace('"@/*": ["src/*"],', '"@/*": ["src/*"], "@/price": ["fake/price.ts"],');
    expect(JSON.parse(text(merge(head, ['@/price'])))).toEqual({
      compilerOptions: {
        strict: true,
        baseUrl: '.',
        paths: { '@/*': ['src/*'], '@fixtures/*': ['test/fixtures/*'] },
      },
    });
  });

  it("keeps the head's bytes when no test-side import resolves through what it changed", () => {
    const head = base.replace('"@fixtures/*"', '"@lib/*": ["lib/*"], "@fixtures/*"');
    expect(merge(head, ['@/price'])).toEqual({ text: head });
  });
});
