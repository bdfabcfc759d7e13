import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFixtureCandidates } from '../../../src/config/fixture-candidates.js';
import { tempDir } from '../../helpers/gitdir.js';

function folder(files: Record<string, string>): string {
  const dir = tempDir('pg-candidates-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const svgs = (dir: string, n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${dir}/shape${i}.svg.txt`, `<svg>${i}</svg>`]));

describe('findFixtureCandidates', () => {
  it('finds the expected outputs a test reads from a folder no name search knows, as one suggested root', async () => {
    const dir = folder({
      ...svgs('test/fixtures-less', 4),
      'test/render.test.ts': [
        "import { readFileSync, readdirSync } from 'node:fs';",
        "import path from 'node:path';",
        "import { render } from '../src/render';",
        '',
        "const dir = path.join(__dirname, 'fixtures-less');",
        "for (const f of readdirSync(dir).filter((f) => f.endsWith('.svg.txt'))) {",
        "  expect(render(f)).toBe(readFileSync(path.join(dir, f), 'utf8'));",
        '}',
      ].join('\n'),
      'src/render.ts': 'export const render = (x: string) => x;\n',
    });
    const found = await findFixtureCandidates(dir, []);
    expect(found.truncated).toBe(false);
    expect(found.groups).toEqual([
      {
        roots: ['test/fixtures-less'],
        files: [0, 1, 2, 3].map((i) => `test/fixtures-less/shape${i}.svg.txt`),
        kinds: ['*.svg.txt'],
        evidence: 'read by test/render.test.ts:5',
        alsoLocks: [],
      },
    ]);
  });

  it('finds goldens beside the tests by a glob or a suffix, and says what else their folder would lock', async () => {
    const dir = folder({
      ...svgs('test', 5),
      'test/a.test.js': "const files = glob.sync('*.svg.txt', { cwd: __dirname });\n",
      'test/helper.js': 'module.exports = {};\n',
    });
    const [g] = (await findFixtureCandidates(dir, [])).groups;
    expect(g?.roots).toEqual(['test']);
    expect(g?.files).toHaveLength(5);
    expect(g?.evidence).toBe('read by test/a.test.js:1');
    expect(g?.alsoLocks).toEqual(['test/a.test.js', 'test/helper.js']);
  });

  it('names a few files beside code one by one instead of locking their folder', async () => {
    const dir = folder({
      'tests/test_parse.py': [
        'from pathlib import Path',
        '# open("tests/not-this.json")',
        'HERE = Path(__file__).parent',
        'def test_parse():',
        "    assert parse(open(HERE / 'expected.json').read())",
        '',
      ].join('\n'),
      'tests/expected.json': '{}',
      'tests/not-this.json': '{}',
      'tests/conftest.py': '',
    });
    const groups = (await findFixtureCandidates(dir, [])).groups;
    // not-this.json is named only in a comment: it is a candidate as a data file of a test folder, not as read.
    expect(groups).toEqual([
      {
        roots: ['tests/expected.json', 'tests/not-this.json'],
        files: ['tests/expected.json', 'tests/not-this.json'],
        kinds: ['*.json'],
        evidence: 'read by tests/test_parse.py:5',
        alsoLocks: [],
      },
    ]);
  });

  it('finds a data file a test names from the repository root, never source code or configuration', async () => {
    const dir = folder({
      'tests/test_cli.py':
        "def test_cli():\n    run(['cli', 'samples/input.csv', 'src/app.py', 'setup.cfg'])\n",
      'samples/input.csv': 'a,b\n',
      'src/app.py': '',
      'setup.cfg': '',
      'tests/tsconfig.json': '{}',
    });
    const groups = (await findFixtureCandidates(dir, [])).groups;
    expect(groups.map((g) => [g.roots, g.evidence])).toEqual([[['samples'], 'read by tests/test_cli.py:2']]);
  });

  it('leaves out what is already locked, what init writes, and files under node_modules or hidden folders', async () => {
    const dir = folder({
      'test/fixtures/a.json': '{}',
      'test/data.json': '{}',
      'test/x.test.js': "read('data.json'); read('../node_modules/dep/x.json')\n",
      'node_modules/dep/test/x.json': '{}',
      '.cache/test/y.json': '{}',
    });
    expect((await findFixtureCandidates(dir, ['test/fixtures'], ['test/data.json'])).groups).toEqual([]);
  });

  it('does not take a folder holding code for a folder the tests read', async () => {
    const dir = folder({
      'tests/test_a.py': "import os\nROOT = 'src'\n",
      'src/pkg/__init__.py': '',
      'src/pkg/data.json': '{}',
    });
    expect((await findFixtureCandidates(dir, [])).groups).toEqual([]);
  });
});
