import { describe, expect, it } from 'vitest';
import { type HeadOwnInput, headOwnFiles } from '../../../../src/runners/tests/head-own.js';

const tree: Record<string, string> = {
  'src/shop/money.py': 'def cents(x):\n    return x\n',
  'tests/conftest.py': 'import pytest\n',
  'tests/test_money.py': 'def test_cents():\n    pass\n',
  'tests/test_money_10.py': 'def test_ten():\n    pass\n',
  'tests/test_clock.py': 'def test_later():\n    pass\n',
};
const input = (over: Partial<HeadOwnInput> = {}, files: Record<string, string> = tree): HeadOwnInput => ({
  preset: 'pytest',
  command: undefined,
  restored: ['tests/test_money.py'],
  headOnly: [],
  merged: [],
  fromBase: [],
  headPaths: Object.keys(files),
  read: async (paths) =>
    new Map(paths.flatMap((p) => (files[p] === undefined ? [] : [[p, files[p] as string]]))),
  ...over,
});

describe('headOwnFiles: when the overlay run can stand in for the head', () => {
  it('a changed and an added test module: the head runs its copies, and the overlay outcomes of both are dropped', async () => {
    expect(
      await headOwnFiles(input({ headOnly: ['tests/test_new.py'] }, { ...tree, 'tests/test_new.py': '' })),
    ).toEqual({
      run: ['tests/test_money.py', 'tests/test_new.py'],
      drop: ['tests/test_money.py', 'tests/test_new.py'],
    });
  });

  it('a test module the head deleted is dropped and not run; another file named like a prefix of it is no import', async () => {
    const files = { ...tree, 'tests/test_other.py': 'import test_money_10\n' };
    delete (files as Record<string, string | undefined>)['tests/test_money.py'];
    expect(await headOwnFiles(input({}, files))).toEqual({ run: [], drop: ['tests/test_money.py'] });
  });

  it('runs the head whole for a conftest, a merged or unreadable mixed file, an imported test module, or a command without {tests}', async () => {
    expect(await headOwnFiles(input({ restored: ['tests/conftest.py'] }))).toBeUndefined();
    expect(await headOwnFiles(input({ merged: ['pyproject.toml'] }))).toBeUndefined();
    expect(await headOwnFiles(input({ fromBase: ['setup.cfg'] }))).toBeUndefined();
    expect(
      await headOwnFiles(
        input({}, { ...tree, 'tests/test_clock.py': 'from tests.test_money import helper\n' }),
      ),
    ).toBeUndefined();
    expect(await headOwnFiles(input({ command: ['python3', '-m', 'pytest'] }))).toBeUndefined();
    expect(await headOwnFiles(input({ preset: 'generic' }))).toBeUndefined();
  });

  it("a file the base's runner configuration includes is a test module; a module of the same name elsewhere is no import of it", async () => {
    const js = {
      'tests/doc/types.ts': "test('t', () => {});\n",
      'tests/doc/parse.ts': "import { parse } from '../../src/types';\nimport { x } from '../_utils';\n",
      'tests/_utils.ts': 'export const x = 1;\n',
      'src/types.ts': 'export const parse = 1;\n',
    };
    const globs = [{ path: 'tests/**/*.{js,ts}', except: ['tests/_*'] }];
    expect(
      await headOwnFiles(input({ preset: 'vitest', restored: ['tests/doc/types.ts'], testGlobs: globs }, js)),
    ).toEqual({ run: ['tests/doc/types.ts'], drop: ['tests/doc/types.ts'] });
    // Excluded from the test globs (a helper): the head runs whole.
    expect(
      await headOwnFiles(input({ preset: 'vitest', restored: ['tests/_utils.ts'], testGlobs: globs }, js)),
    ).toBeUndefined();
    // Loaded by another file through a relative import, or by a bare name that may be an alias: whole.
    const loaded = { ...js, 'tests/doc/more.ts': "import './types.js';\n" };
    expect(
      await headOwnFiles(
        input({ preset: 'vitest', restored: ['tests/doc/types.ts'], testGlobs: globs }, loaded),
      ),
    ).toBeUndefined();
  });

  it('vitest test modules by their suffix; a helper module of the test side is not one', async () => {
    const js = { 'test/a.test.ts': "it('a', () => {});\n", 'test/helpers.ts': 'export const x = 1;\n' };
    expect(await headOwnFiles(input({ preset: 'vitest', restored: ['test/a.test.ts'] }, js))).toEqual({
      run: ['test/a.test.ts'],
      drop: ['test/a.test.ts'],
    });
    expect(
      await headOwnFiles(input({ preset: 'vitest', restored: ['test/helpers.ts'] }, js)),
    ).toBeUndefined();
    expect(
      await headOwnFiles(
        input(
          { preset: 'vitest', restored: ['test/a.test.ts'] },
          { ...js, 'test/b.test.ts': "import './a.test';\n" },
        ),
      ),
    ).toBeUndefined();
  });
});
