import { describe, expect, it } from 'vitest';
import { type HeadOwnInput, headOwnFiles } from '../../../src/runners/tests/head-own.js';

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
