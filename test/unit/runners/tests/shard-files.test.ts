import { describe, expect, it } from 'vitest';
import { resolveTestCommand } from '../../../../src/runners/tests/presets.js';
import { commandSelectsFiles, shardableTestFiles } from '../../../../src/runners/tests/shard-files.js';

const tree = [
  'src/calc.py',
  'src/test_helpers_in_src.py',
  'tests/conftest.py',
  'tests/test_a.py',
  'tests/checks.py',
  'pkg/b_test.py',
  'node_modules/x/test_a.py',
  'src/app.ts',
  'src/app.test.ts',
  'src/__tests__/util.ts',
  'test/helper.mjs',
  'types/index.d.ts',
  'spec/a.spec.tsx',
];
const testSide = (f: string) => f.startsWith('tests/') || f.startsWith('test/');

describe('the test files a sharded run deals out', () => {
  it('pytest: test side or named like tests, Python only, never vendored', () => {
    expect(shardableTestFiles('pytest', tree, testSide)?.sort()).toEqual([
      'pkg/b_test.py',
      'src/test_helpers_in_src.py',
      'tests/checks.py',
      'tests/conftest.py',
      'tests/test_a.py',
    ]);
  });

  it('vitest and jest: test side or named like tests, JavaScript and TypeScript but not type declarations', () => {
    expect(shardableTestFiles('vitest', tree, testSide)?.sort()).toEqual([
      'spec/a.spec.tsx',
      'src/__tests__/util.ts',
      'src/app.test.ts',
      'test/helper.mjs',
    ]);
  });

  it('is none for a runner whose files the gate cannot tell', () => {
    expect(shardableTestFiles('go', tree, testSide)).toBeUndefined();
    expect(shardableTestFiles(undefined, tree, testSide)).toBeUndefined();
  });

  it('knows which commands can run a chosen set of files', () => {
    expect(commandSelectsFiles({ preset: 'pytest' })).toBe(true);
    expect(commandSelectsFiles({ preset: 'vitest' })).toBe(true);
    expect(commandSelectsFiles({ preset: 'go' })).toBe(false);
    // A custom command without {tests} runs its whole suite whatever it is given.
    expect(
      commandSelectsFiles({
        preset: 'vitest',
        command: ['npx', 'vitest', 'run', '--outputFile.junit={junit}'],
      }),
    ).toBe(false);
  });
});

describe("a shard's listing of the base's tests (collect, of some files)", () => {
  it('pytest selects the files in process, collecting only', () => {
    const cmd = resolveTestCommand(
      { preset: 'pytest' },
      { junitPath: 'j.xml', files: ['tests/test_a.py'], collect: true },
    );
    expect(cmd.argv).toEqual(expect.arrayContaining(['--collect-only', '-q']));
    expect(cmd.selection).toEqual({ nodeids: [], files: ['tests/test_a.py'] });
  });

  it('vitest gets its filter that matches nothing and the files', () => {
    const cmd = resolveTestCommand(
      { preset: 'vitest' },
      { junitPath: 'j.xml', files: ['src/a.test.ts'], collect: true },
    );
    const at = cmd.argv.indexOf('-t');
    expect(at).toBeGreaterThan(0);
    expect(cmd.argv.slice(at + 2)).toEqual(['src/a.test.ts']);
  });
});
