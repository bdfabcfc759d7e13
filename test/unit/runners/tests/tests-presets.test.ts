import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRunError } from '../../../../src/runners/tests/errors.js';
import {
  escapeRegExp,
  namesBeatFiles,
  presetNames,
  pytestNodeId,
  resolveTestCommand,
  type TestIdParts,
  testCommandTemplate,
} from '../../../../src/runners/tests/presets.js';
import { junitPathFor, runTests } from '../../../../src/runners/tests/run-tests.js';
import { recordLentLink } from '../../../../src/sandbox/lent-links.js';
import { scrubbedEnv } from '../../../../src/util/scrub-env.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

const J = '/out/head-run-1.junit.xml';
const id = (name: string, classname = 'c', extra: Partial<TestIdParts> = {}): TestIdParts => ({
  suite: 's',
  classname,
  name,
  ...extra,
});

function thrown(fn: () => unknown): TestRunError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TestRunError);
    return e as TestRunError;
  }
  throw new Error('expected a TestRunError');
}

describe('preset expansion', () => {
  const cases: {
    preset: string;
    command?: string[];
    tests?: TestIdParts[];
    argv: string[];
    env?: Record<string, string>;
    junitFrom?: string;
    selection?: { nodeids: string[]; files: string[] };
  }[] = [
    {
      preset: 'vitest',
      argv: [
        'npx',
        '--no',
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=junit',
        `--outputFile.junit=${J}`,
      ],
    },
    {
      preset: 'vitest',
      tests: [id('math > adds (1+1)'), id('top'), id('top')],
      argv: [
        'npx',
        '--no',
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=junit',
        `--outputFile.junit=${J}`,
        '-t',
        '^(?:math(?: > | )adds \\(1\\+1\\)|top)$',
      ],
    },
    {
      preset: 'jest',
      argv: ['npx', '--no', 'jest', '--ci', '--reporters=default', '--reporters=jest-junit'],
      env: { JEST_JUNIT_OUTPUT_FILE: J, JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true' },
    },
    {
      preset: 'jest',
      tests: [id('cart totals [EUR] $5.00'), id(' top-level ')],
      argv: [
        'npx',
        '--no',
        'jest',
        '--ci',
        '--reporters=default',
        '--reporters=jest-junit',
        '-t',
        '^(?:cart totals \\[EUR\\] \\$5\\.00|top-level)$',
      ],
      env: { JEST_JUNIT_OUTPUT_FILE: J, JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true' },
    },
    {
      preset: 'mocha',
      argv: [
        'npx',
        '--no',
        'mocha',
        '--reporter',
        'mocha-junit-reporter',
        '--reporter-options',
        `mochaFile=${J},includePending=true`,
      ],
    },
    {
      preset: 'mocha',
      tests: [id('a|b ^x* {y}?')],
      argv: [
        'npx',
        '--no',
        'mocha',
        '--reporter',
        'mocha-junit-reporter',
        '--reporter-options',
        `mochaFile=${J},includePending=true`,
        '--grep',
        '^(?:a\\|b \\^x\\* \\{y\\}\\?)$',
      ],
    },
    {
      preset: 'pytest',
      argv: ['python3', '-m', 'pytest', '--rootdir=.', `--junitxml=${J}`, '-p', 'no:cacheprovider', '-q'],
    },
    {
      preset: 'pytest',
      // Never on the command line: pytest would collect them outside testpaths (see pytest-collection.test.ts).
      tests: [id('test_z[a.b-1]', 'tests.test_x.TestY'), id('test_free', 'tests.unit.test_y')],
      argv: ['python3', '-m', 'pytest', '--rootdir=.', `--junitxml=${J}`, '-p', 'no:cacheprovider', '-q'],
      selection: {
        nodeids: ['tests/test_x.py::TestY::test_z[a.b-1]', 'tests/unit/test_y.py::test_free'],
        files: [],
      },
    },
    {
      preset: 'node-test',
      argv: [
        'node',
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=junit',
        `--test-reporter-destination=${J}`,
      ],
    },
    {
      preset: 'node-test',
      tests: [id('adds (1+1)', 'test'), id('adds', 'test'), id('adds', 'test')],
      argv: [
        'node',
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=junit',
        `--test-reporter-destination=${J}`,
        '--test-name-pattern=^(?:adds \\(1\\+1\\)|adds)$',
      ],
    },
    { preset: 'go', argv: ['gotestsum', '--junitfile', J, '--', './...'] },
    {
      preset: 'go',
      tests: [id('TestA', 'example.com/m/pkg'), id('TestB/sub_case.1'), id('TestB/other')],
      argv: ['gotestsum', '--junitfile', J, '--', './...', '-run', '^(TestA|TestB)$'],
    },
    {
      preset: 'cargo-nextest',
      argv: ['cargo', 'nextest', 'run', '--profile', 'ci', '--no-fail-fast'],
      junitFrom: 'target/nextest/ci/junit.xml',
    },
    {
      preset: 'cargo-nextest',
      tests: [id('tests::adds', 'my-crate'), id('weird(name),x\\y', 'my-crate::it')],
      argv: [
        'cargo',
        'nextest',
        'run',
        '--profile',
        'ci',
        '--no-fail-fast',
        '-E',
        'test(=tests::adds) | test(=weird(name\\)\\,x\\\\y)',
      ],
      junitFrom: 'target/nextest/ci/junit.xml',
    },
    {
      preset: 'maven',
      argv: ['mvn', '-B', '-q', '--fail-at-end', 'test'],
      junitFrom: '**/target/surefire-reports/TEST-*.xml',
    },
    {
      preset: 'maven',
      tests: [
        id('adds', 'com.x.CalcTest'),
        id('divides(int)[2]', 'com.x.CalcTest'),
        id('works[0]', 'com.x.OtherTest'),
        id('Shows a nice name', 'com.x.NamedTest'),
      ],
      argv: [
        'mvn',
        '-B',
        '-q',
        '--fail-at-end',
        'test',
        '-Dtest=com.x.CalcTest#adds+divides,com.x.OtherTest#works,com.x.NamedTest',
        '-Dsurefire.failIfNoSpecifiedTests=false',
      ],
      junitFrom: '**/target/surefire-reports/TEST-*.xml',
    },
    {
      preset: 'generic',
      command: ['./run-tests.sh', '--out={junit}', '{tests}', '--verbose'],
      argv: ['./run-tests.sh', `--out=${J}`, '--verbose'],
    },
    {
      preset: 'generic',
      command: ['./run-tests.sh', '--out={junit}', '{tests}', '--verbose'],
      tests: [id('one two'), id('three'), id('one two')],
      argv: ['./run-tests.sh', `--out=${J}`, 'one two', 'three', '--verbose'],
    },
  ];

  it.each(cases.map((c) => [`${c.preset}${c.tests ? ' (subset)' : ''}`, c] as const))('%s', (_, c) => {
    const resolved = resolveTestCommand(
      { preset: c.preset, command: c.command },
      { junitPath: J, tests: c.tests },
    );
    const expected: Record<string, unknown> = { argv: c.argv, env: c.env ?? {} };
    if (c.junitFrom !== undefined) expected.junitFrom = c.junitFrom;
    if (c.selection !== undefined) expected.selection = c.selection;
    expect(resolved).toEqual(expected);
  });

  it('covers every preset', () => {
    expect(new Set(cases.map((c) => c.preset))).toEqual(new Set(presetNames()));
  });

  it('a command alone is the generic preset; with a preset it keeps the preset subset syntax and env', () => {
    expect(resolveTestCommand({ command: ['t', '{junit}'] }, { junitPath: J })).toEqual({
      argv: ['t', J],
      env: {},
    });
    expect(
      resolveTestCommand(
        { preset: 'jest', command: ['yarn', 'jest', '{tests}'] },
        { junitPath: J, tests: [id('x.y')] },
      ),
    ).toEqual({
      argv: ['yarn', 'jest', '-t', '^(?:x\\.y)$'],
      env: { JEST_JUNIT_OUTPUT_FILE: J, JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true' },
    });
  });

  it('a report location from config replaces the preset one; a {junit} command drops the preset one', () => {
    expect(
      resolveTestCommand(
        { preset: 'cargo-nextest', junit: 'target/nextest/gate/junit.xml' },
        { junitPath: J },
      ).junitFrom,
    ).toBe('target/nextest/gate/junit.xml');
    expect(
      resolveTestCommand({ preset: 'maven', command: ['mvn', 'test', '-Dx={junit}'] }, { junitPath: J }),
    ).toEqual({ argv: ['mvn', 'test', `-Dx=${J}`], env: {} });
    expect(resolveTestCommand({ command: ['t'], junit: 'out/*.xml' }, { junitPath: J })).toEqual({
      argv: ['t'],
      env: {},
      junitFrom: 'out/*.xml',
    });
  });

  it('rejects an unknown preset, listing the valid ones', () => {
    const err = thrown(() => resolveTestCommand({ preset: 'nose' }, { junitPath: J }));
    expect(err.code).toBe('UNKNOWN_PRESET');
    expect(err.message).toBe(
      'unknown test preset "nose"; valid presets: vitest, jest, mocha, node-test, pytest, go, cargo-nextest, maven, generic',
    );
  });

  it('rejects commands it cannot run or read', () => {
    expect(thrown(() => resolveTestCommand({ preset: 'generic' }, { junitPath: J })).code).toBe(
      'COMMAND_INVALID',
    );
    expect(thrown(() => resolveTestCommand({ command: [] }, { junitPath: J })).code).toBe('COMMAND_INVALID');
    const inside = thrown(() =>
      resolveTestCommand({ command: ['t', '--only={tests}', '{junit}'] }, { junitPath: J }),
    );
    expect(inside.code).toBe('COMMAND_INVALID');
    expect(inside.message).toContain('{tests} must be a whole argument');
    const noReport = thrown(() => resolveTestCommand({ command: ['make', 'test'] }, { junitPath: J }));
    expect(noReport.message).toContain('writes no JUnit report');
    expect(
      thrown(() => resolveTestCommand({ command: ['t', '{junit}'], junit: 'x.xml' }, { junitPath: J })).code,
    ).toBe('COMMAND_INVALID');
    for (const bad of ['../elsewhere/*.xml', '/abs/junit.xml', 'a/../../b.xml', ' ']) {
      expect(thrown(() => resolveTestCommand({ command: ['t'], junit: bad }, { junitPath: J })).code).toBe(
        'COMMAND_INVALID',
      );
    }
  });

  it('refuses a subset for a command without {tests}, and an empty subset', () => {
    const err = thrown(() =>
      resolveTestCommand({ command: ['t', '{junit}'] }, { junitPath: J, tests: [id('a')] }),
    );
    expect(err.code).toBe('SUBSET_UNSUPPORTED');
    expect(() => resolveTestCommand({ preset: 'vitest' }, { junitPath: J, tests: [] })).toThrow(RangeError);
  });

  it('a run of some tests names them where the runner selects ids itself or cannot select files; else their files', () => {
    expect(namesBeatFiles('pytest')).toBe(true);
    expect(namesBeatFiles('jest')).toBe(true);
    expect(namesBeatFiles('generic')).toBe(true);
    // vitest's -t still loads every test file, and cannot be combined with a file subset.
    expect(namesBeatFiles('vitest')).toBe(false);
    expect(namesBeatFiles('node-test')).toBe(false);
  });

  it('fail-fast: vitest and jest get --bail=1 before the subset, pytest a stop in its selection, others nothing', () => {
    expect(
      resolveTestCommand(
        { preset: 'vitest' },
        { junitPath: J, files: ['a.test.ts'], failFast: true },
      ).argv.slice(-2),
    ).toEqual(['--bail=1', 'a.test.ts']);
    expect(resolveTestCommand({ preset: 'jest' }, { junitPath: J, failFast: true }).argv).toContain(
      '--bail=1',
    );
    expect(
      resolveTestCommand({ preset: 'pytest' }, { junitPath: J, files: ['tests/test_a.py'], failFast: true })
        .selection,
    ).toEqual({ nodeids: [], files: ['tests/test_a.py'], stop: true });
    // A listing never stops, and a run not asked to stop is as before.
    expect(
      resolveTestCommand(
        { preset: 'vitest' },
        { junitPath: J, files: ['a.test.ts'], collect: true, failFast: true },
      ).argv,
    ).not.toContain('--bail=1');
    expect(resolveTestCommand({ preset: 'vitest' }, { junitPath: J }).argv).not.toContain('--bail=1');
    expect(resolveTestCommand({ preset: 'mocha' }, { junitPath: J, failFast: true }).argv).not.toContain(
      '--bail=1',
    );
  });

  it('tests.args go just before {tests}, or last without it, and keep the subset after them', () => {
    expect(
      resolveTestCommand(
        { preset: 'node-test', args: ['--import=tsx'] },
        { junitPath: J, files: ['t/a.test.ts'] },
      ).argv,
    ).toEqual([
      'node',
      '--test',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=junit',
      `--test-reporter-destination=${J}`,
      '--import=tsx',
      't/a.test.ts',
    ]);
    expect(
      resolveTestCommand(
        { preset: 'pytest', args: ['-m', 'not slow'] },
        { junitPath: J, files: ['tests/test_a.py'] },
      ),
    ).toEqual({
      argv: [
        'python3',
        '-m',
        'pytest',
        '--rootdir=.',
        `--junitxml=${J}`,
        '-p',
        'no:cacheprovider',
        '-q',
        '-m',
        'not slow',
      ],
      env: {},
      selection: { nodeids: [], files: ['tests/test_a.py'] },
    });
    expect(resolveTestCommand({ command: ['t', '{junit}'], args: ['-v'] }, { junitPath: J }).argv).toEqual([
      't',
      J,
      '-v',
    ]);
    expect(testCommandTemplate({ args: ['-x'] }, { command: ['a', '{tests}', 'b'] })).toEqual([
      'a',
      '-x',
      '{tests}',
      'b',
    ]);
  });

  it('node-test: flags of tests.args go before its test paths, a name subset after them, a file subset replaces the paths', () => {
    const head = [
      'node',
      '--test',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=junit',
      `--test-reporter-destination=${J}`,
    ];
    const config = { preset: 'node-test', args: ['test/', '--import=tsx'] };
    expect(resolveTestCommand(config, { junitPath: J }).argv).toEqual([...head, '--import=tsx', 'test/']);
    expect(resolveTestCommand(config, { junitPath: J, tests: [id('adds')] }).argv).toEqual([
      ...head,
      '--import=tsx',
      '--test-name-pattern=^(?:adds)$',
      'test/',
    ]);
    expect(resolveTestCommand(config, { junitPath: J, files: ['test/a.test.js'] }).argv).toEqual([
      ...head,
      '--import=tsx',
      'test/a.test.js',
    ]);
  });

  it('refuses tests.args that carry a placeholder of the command', () => {
    for (const bad of ['{tests}', '--out={junit}']) {
      const err = thrown(() => resolveTestCommand({ preset: 'pytest', args: [bad] }, { junitPath: J }));
      expect(err.code).toBe('COMMAND_INVALID');
      expect(err.message).toContain('tests.args extend the command and cannot hold {tests} or {junit}');
    }
  });

  it('leaves other braces alone', () => {
    expect(
      resolveTestCommand({ command: ['sh', '-c', 'echo {x} {a,b} $HOME > {junit}'] }, { junitPath: J }).argv,
    ).toEqual(['sh', '-c', `echo {x} {a,b} $HOME > ${J}`]);
  });
});

describe('regex escaping', () => {
  it('escaped names match themselves literally, and only themselves', () => {
    const names = ['a.b', 'x (y) [z] {1,2} ^$ | * + ? \\ /', 'dollar $5', '-flag', 'ünïcødé ✓'];
    for (const name of names) {
      const re = new RegExp(`^${escapeRegExp(name)}$`);
      expect(re.test(name)).toBe(true);
      expect(new RegExp(`^${escapeRegExp(name)}$`, 'u').test(name)).toBe(true);
      expect(re.test(`${name}x`)).toBe(false);
    }
    expect(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb')).toBe(false);
  });
});

describe('pytest JUnit ids to node ids', () => {
  it.each([
    [id('test_z[param]', 'tests.test_x.TestY'), 'tests/test_x.py::TestY::test_z[param]'],
    [id('test_free', 'tests.test_x'), 'tests/test_x.py::test_free'],
    [id('test_n', 'tests.test_x.TestOuter.TestInner'), 'tests/test_x.py::TestOuter::TestInner::test_n'],
    [id('test_top', 'test_root'), 'test_root.py::test_top'],
    [id('test_p[a.b::c d]', 'pkg.sub.test_m.TestC'), 'pkg/sub/test_m.py::TestC::test_p[a.b::c d]'],
    // `file` (junit_family=xunit1) settles what the heuristic cannot: a dot in a folder name, a capitalised module
    [
      id('test_v', 'tests.v1.2.test_x.TestY', { file: 'tests/v1.2/test_x.py' }),
      'tests/v1.2/test_x.py::TestY::test_v',
    ],
    [id('test_w', 'tests.Legacy', { file: 'tests/Legacy.py' }), 'tests/Legacy.py::test_w'],
  ])('%o -> %s', (parts, nodeId) => {
    expect(pytestNodeId(parts)).toBe(nodeId);
  });
});

const tagged = (xml: string, status: (body: string) => boolean): string[] =>
  [...xml.matchAll(/<testcase\b[^>]*\bname="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)]
    .filter((m) => status(m[2] ?? ''))
    .map((m) =>
      m[1]!
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"'),
    );

describe('real runners run exactly the selected subset', () => {
  it('vitest: names with regex characters, nested describes, a shared prefix', async () => {
    const dir = tempDir();
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
    // Lent as the gate lends a dependency folder: only such a link is mounted where it leads.
    recordLentLink(path.join(dir, 'node_modules'), path.resolve('node_modules'));
    writeFileSync(
      path.join(dir, 'vitest.config.mjs'),
      'export default { test: { include: ["*.test.mjs"] } };\n',
    );
    writeFileSync(
      path.join(dir, 'a.test.mjs'),
      `import { describe, it } from 'vitest';
describe('cart (EUR)', () => {
  describe('in > ner', () => {
    it('adds $1.50 [x]', () => {});
    it('other', () => {});
  });
});
it('adds', () => {});
it('adds twice', () => {});
`,
    );
    const out = tempDir();
    const junitPath = junitPathFor(out, 'vitest-subset');
    const cmd = resolveTestCommand(
      { preset: 'vitest' },
      {
        junitPath,
        tests: [id('cart (EUR) > in > ner > adds $1.50 [x]', 'a.test.mjs'), id('adds', 'a.test.mjs')],
      },
    );
    const run = await runTests({
      cwd: dir,
      sandbox,
      argv: cmd.argv,
      env: { ...scrubbedEnv(process.env), ...cmd.env },
      timeoutMs: 60_000,
      outDir: out,
      label: 'vitest-subset',
    });
    expect(run.exitCode, readFileSync(run.stderrFile, 'utf8')).toBe(0);
    const xml = readFileSync(run.junitFiles[0]!, 'utf8');
    expect(tagged(xml, (b) => !b.includes('<skipped')).sort()).toEqual([
      'adds',
      'cart (EUR) > in > ner > adds $1.50 [x]',
    ]);
    expect(tagged(xml, (b) => b.includes('<skipped')).sort()).toEqual([
      'adds twice',
      'cart (EUR) > in > ner > other',
    ]);
  });
});
