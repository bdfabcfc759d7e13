import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import {
  JUnitParseError,
  type JUnitReport,
  JUnitStreamParser,
  type ParseJUnitOptions,
  parseJUnit,
  parseJUnitFile,
  type TestOutcome,
} from '../../../src/junit/index.js';
import { repoRoot, sharedDir } from '../../helpers/shared.js';

const corpus = (...segments: string[]) => path.join(sharedDir(), 'corpus', 'junit', ...segments);
/** Reports written by real runners, kept in this repository (see its README). */
const generated = (...segments: string[]) =>
  path.join(repoRoot, 'test', 'corpus', 'junit-generated', ...segments);

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function parseText(
  xml: string | Uint8Array,
  opts: ParseJUnitOptions = {},
  chunk = 1 << 20,
): Promise<JUnitReport> {
  const bytes = typeof xml === 'string' ? Buffer.from(xml, 'utf8') : xml;
  return parseJUnit(chunked(bytes, chunk), opts);
}

function* slices(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Parses synchronously, feeding the given pieces one push each. */
function parsePieces(pieces: Uint8Array[], opts: ParseJUnitOptions = {}): JUnitReport {
  const parser = new JUnitStreamParser(opts);
  for (const p of pieces) parser.push(p);
  return parser.end();
}

async function parseError(run: Promise<unknown>): Promise<JUnitParseError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JUnitParseError);
  return err as JUnitParseError;
}

function syncError(run: () => unknown): JUnitParseError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(JUnitParseError);
    return err as JUnitParseError;
  }
  throw new Error('expected a JUnitParseError');
}

function byId(report: JUnitReport, id: string): TestOutcome {
  const found = report.tests.filter((t) => t.id === id);
  expect(found, id).toHaveLength(1);
  return found[0]!;
}

const tempDirs: string[] = [];
afterEach(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-junit-'));
  tempDirs.push(dir);
  return dir;
}

describe('runner specifics, read off corpus files', () => {
  it('Surefire flakyFailure: passed on rerun, so flaky, with each failed attempt as a retry', async () => {
    const report = await parseJUnitFile(corpus('maven-surefire', 'flakyFailure-flaky-test.xml'));
    const t = byId(report, 'io.olamy.FlakyTest::testApp');
    expect(t.status).toBe('flaky');
    expect(t.failures).toEqual([]);
    expect(t.retries).toEqual([
      { status: 'failed', kind: 'junit.framework.AssertionFailedError', message: 'obvious fail' },
      { status: 'failed', kind: 'junit.framework.AssertionFailedError', message: 'try one more time maybe' },
    ]);
    expect(t.time).toBe(0.001);
  });

  it('Surefire rerunError/rerunFailure: the first <error> decides, the reruns are kept in order', async () => {
    const report = await parseJUnitFile(corpus('edge', 'rerunError-rerunFailure-hand-written.xml'));
    const t = byId(report, 'my.company.tests.SearchTest::searchTest');
    expect(t.status).toBe('error');
    expect(t.failures).toEqual([
      { kind: 'java.lang.IllegalStateException', message: 'message-root', body: 'trace-root' },
    ]);
    expect(t.retries).toEqual([
      { status: 'error', kind: 'java.lang.IllegalStateException', message: 'message-retried-1' },
      { status: 'error', kind: 'java.lang.IllegalStateException', message: 'message-retried-2' },
      { status: 'failed', kind: 'java.lang.AssertionError', message: 'message-retried-3' },
    ]);
  });

  it('cargo-nextest retries: rerunFailure on a failed test, flakyFailure on a flaky one, system-out left out', async () => {
    const report = await parseJUnitFile(corpus('cargo-nextest', 'fixture-project-flaky-rerun.xml'));
    const failed = byId(report, 'fixture-project::basic::test_failure_assert');
    expect(failed.status).toBe('failed');
    expect(failed.failures).toHaveLength(1);
    const f = failed.failures[0]!;
    expect(f.kind).toBe('test failure');
    // Rust prints the panic location first; the message is the line after it.
    expect(f.message).toBe('assertion `left == right` failed: this is an assertion');
    expect(f.body.startsWith("thread 'test_failure_assert' panicked at tests/basic.rs:19:5:\n")).toBe(true);
    expect(f.body).not.toContain('running 1 test');
    expect(failed.retries).toEqual([
      {
        status: 'failed',
        kind: 'test failure',
        message: 'assertion `left == right` failed: this is an assertion',
      },
      {
        status: 'failed',
        kind: 'test failure',
        message: 'assertion `left == right` failed: this is an assertion',
      },
    ]);

    const flaky = byId(report, 'fixture-project::basic::test_flaky_mod_4');
    expect(flaky.status).toBe('flaky');
    expect(flaky.retries?.map((r) => r.message)).toEqual([
      'Failed because attempt 1 % 4 != 0',
      'Failed because attempt 2 % 4 != 0',
      'Failed because attempt 3 % 4 != 0',
    ]);
  });

  it('cargo-nextest stress runs: the @stress-N suffix does not change the id', async () => {
    const report = await parseJUnitFile(corpus('cargo-nextest', 'stress-test.xml'));
    const ids = report.tests.map((t) => t.id).sort();
    expect(ids).toEqual([
      'nextest-filtering::match::test_expr_deps',
      'nextest-filtering::match::test_expr_deps',
      'nextest-filtering::match::test_expr_package_regex',
      'nextest-filtering::match::test_expr_package_regex',
    ]);
    expect(report.tests.map((t) => t.suite)).toContain('nextest-filtering::match@stress-1');
  });

  it('pytest: xfail is xfailed, skip is skipped, kinds come from the traceback, properties and classname overrides', async () => {
    const report = await parseJUnitFile(corpus('pytest', 'xfail-record-property.xml'));
    const xfail = byId(report, 'pytest::tests.test_lib::test_expected_failure');
    expect(xfail.status).toBe('xfailed');
    expect(xfail.skipped).toEqual({ type: 'pytest.xfail', message: '' });
    const skip = byId(report, 'pytest::tests.test_lib::test_always_skip');
    expect(skip.status).toBe('skipped');
    expect(skip.skipped).toEqual({ type: 'pytest.skip', message: 'skipped' });
    const fail = byId(report, 'pytest::tests.test_lib::test_always_fail');
    expect(fail.failures[0]).toMatchObject({ kind: 'AssertionError', message: 'assert False' });
    expect(byId(report, 'pytest::tests.test_lib::test_error').failures[0]).toMatchObject({
      kind: 'Exception',
      message: 'Exception: error',
    });
    expect(byId(report, 'pytest::tests.test_lib::test_with_record_property').properties).toEqual({
      example_key: '1',
    });
    expect(byId(report, 'pytest::custom_classname::test_with_record_xml_attribute').status).toBe('passed');
  });

  it('unittest-xml-reporting: the timestamp suffix leaves suite ids, an expectedFailure is xfailed', async () => {
    const report = await parseJUnitFile(corpus('python-unittest', 'xmlrunner-fail-error-skip.xml'));
    const t = byId(report, 'TestAcme::test_expected_failure');
    expect(t.suite).toBe('TestAcme-20251114214921');
    expect(t.status).toBe('xfailed');
    expect(t.skipped?.type).toBe('XFAIL');
  });

  it('googletest: notrun, suppressed and result="skipped" are skips; several failures stay separate', async () => {
    const old = await parseJUnitFile(corpus('googletest', 'disabled-notrun-unknown-exception.xml'));
    expect(byId(old, 'TestSuite::DISABLED_Testcase')).toMatchObject({
      status: 'skipped',
      skipped: { type: 'notrun', message: '' },
    });
    expect(byId(old, 'TestSuite::Failing_Testcase').failures[0]).toEqual({
      kind: 'failure',
      message: 'Value of: false\n  Actual: false\nExpected: true',
      body: 'Test_moca_bl.cpp:271\nValue of: false\n  Actual: false\nExpected: true',
    });

    const report = await parseJUnitFile(corpus('googletest', 'gtest-xml-output-unittest-derived.xml'));
    expect(byId(report, 'DisabledTest::DISABLED_test_not_run').status).toBe('skipped');
    expect(byId(report, 'SkippedTest::Skipped').skipped).toEqual({ type: 'skipped', message: '' });
    const mixed = byId(report, 'MixedResultTest::Fails');
    expect(mixed.status).toBe('failed');
    expect(mixed.failures.map((f) => f.message.split('\n').slice(-2))).toEqual([
      ['  1', '  2'],
      ['  2', '  3'],
    ]);
  });

  it('Playwright: the project is part of the id, skip annotations are properties', async () => {
    const report = await parseJUnitFile(corpus('playwright', 'todo-app-93-tests.xml'));
    const skipped = report.tests.filter((t) => t.status === 'skipped');
    expect(skipped.map((t) => t.id).sort()).toEqual([
      '[chromium] tests/retry-and-skip-example.spec.ts::skip this test',
      '[chromium] tests/retry-example.spec.ts::skip this test',
      '[firefox] tests/retry-and-skip-example.spec.ts::skip this test',
      '[firefox] tests/retry-example.spec.ts::skip this test',
      '[webkit] tests/retry-and-skip-example.spec.ts::skip this test',
      '[webkit] tests/retry-example.spec.ts::skip this test',
    ]);
    for (const t of skipped) expect(t.properties).toEqual({ skip: '' });
    const timeout = byId(report, '[firefox] tests/timeout-example.spec.ts::time-out');
    expect(timeout.failures[0]).toMatchObject({
      kind: 'FAILURE',
      message: 'timeout-example.spec.ts:3:5 time-out',
    });
    expect(new Set(report.tests.map((t) => t.id)).size).toBe(report.tests.length);
  });

  it("Playwright: a passing test annotated test.fail() is an expected failure, and the annotation's reason is the skip message", async () => {
    const xml = `<testsuites id="" name="" tests="2">
<testsuite name="a.spec.ts" hostname="chromium" tests="2">
<testcase name="known bug" classname="a.spec.ts" time="0.1"><properties><property name="fail" value="JIRA-1"></property></properties></testcase>
<testcase name="later" classname="a.spec.ts" time="0"><properties><property name="fixme" value="flaky on CI"></property></properties><skipped></skipped></testcase>
</testsuite></testsuites>`;
    const report = await parseText(xml);
    expect(byId(report, '[chromium] a.spec.ts::known bug')).toMatchObject({
      status: 'xfailed',
      skipped: { type: 'fail', message: 'JIRA-1' },
    });
    expect(byId(report, '[chromium] a.spec.ts::later').skipped).toEqual({ message: 'flaky on CI' });
  });

  it('a suite-level <error> becomes one outcome with the suite id', async () => {
    const report = await parseJUnitFile(corpus('edge', 'nested-3-levels-error-in-suite.xml'));
    expect(byId(report, 'test.3rdlevel::<suite>')).toMatchObject({
      suite: 'test.3rdlevel',
      classname: '',
      name: '',
      status: 'error',
      failures: [{ kind: 'java.lang.IllegalStateException', message: 'bla bla' }],
    });
  });

  it('several result elements on one testcase: error beats failure beats skipped', async () => {
    const report = await parseJUnitFile(corpus('edge', 'multiresult-skipped-failure-error.xml'));
    const status = Object.fromEntries(report.tests.map((t) => [t.name, t.status]));
    expect(status).toEqual({
      'test that errors': 'error',
      'test that fails': 'failed',
      'test that is skipped': 'skipped',
      'test that succeeds': 'passed',
    });
    expect(byId(report, 'test suite::test class::test that errors').failures.map((f) => f.kind)).toEqual([
      'failure',
      'error',
    ]);
  });
});

describe('runner dialects, read off reports the runners wrote', () => {
  it('node:test: a failing todo test is a todo skip that keeps its failure; a plain failure still fails', async () => {
    const report = await parseJUnitFile(generated('node-test', 'todo-failing.xml'));
    const { passed, ...rest } = report.counts;
    expect([passed, rest]).toEqual([2, { tests: 7, failed: 1, error: 0, skipped: 4, xfailed: 0, flaky: 0 }]);
    const todo = byId(report, 'test::parses dates in every locale');
    expect(todo.status).toBe('skipped');
    expect(todo.skipped).toEqual({ type: 'todo', message: 'locale tables not written yet' });
    expect(todo.failures).toHaveLength(1);
    expect(todo.failures[0]).toMatchObject({
      kind: 'testCodeFailure',
      message: 'Expected values to be strictly equal:NaN !== 2024',
    });
    expect(todo.failures[0]!.body).toContain('AssertionError [ERR_ASSERTION]');
    expect(todo.time).toBeGreaterThan(0);
    expect(todo.time).toBeLessThan(10);
    expect(byId(report, 'config loader::test::reads YAML anchors')).toMatchObject({
      status: 'skipped',
      skipped: { type: 'todo', message: 'anchors unsupported' },
      failures: [{ kind: 'testCodeFailure', message: 'anchors are not supported' }],
    });
    expect(byId(report, 'test::passing todo')).toMatchObject({
      status: 'skipped',
      skipped: { type: 'todo', message: 'true' },
      failures: [],
    });
    expect(byId(report, 'test::really fails').status).toBe('failed');
  });

  it('Catch2: a failing [!mayfail] or [!shouldfail] test is xfailed and keeps its failures', async () => {
    const report = await parseJUnitFile(generated('catch2', 'mayfail-shouldfail.xml'));
    const { passed, ...rest } = report.counts;
    expect([passed, rest]).toEqual([3, { tests: 6, failed: 1, error: 0, skipped: 0, xfailed: 2, flaky: 0 }]);
    const tag = { message: 'TEST_CASE tagged with !mayfail' };
    const mayfail = byId(report, 'dialect::dialect.global::rounds half to even');
    expect(mayfail).toMatchObject({ status: 'xfailed', skipped: tag, time: 0 });
    expect(mayfail.failures).toEqual([
      {
        kind: 'CHECK',
        message: 'static_cast<int>(2.5 + 0.5) == 2',
        body: 'FAILED:\n  CHECK( static_cast<int>(2.5 + 0.5) == 2 )\nwith expansion:\n  3 == 2\nat dialect.cpp:14',
      },
    ]);
    const shouldfail = byId(report, 'dialect::dialect.global::rejects an empty config');
    expect(shouldfail).toMatchObject({ status: 'xfailed', skipped: tag });
    expect(shouldfail.failures.map((f) => [f.kind, f.body])).toEqual([
      ['TEST_CASE', 'FAILED:\nconfig loader not written yet\nat dialect.cpp:17'],
    ]);
    expect(byId(report, 'dialect::dialect.global::divides').status).toBe('failed');
    // Catch2 fails the run for a [!shouldfail] test that passes, but writes a plain pass.
    expect(byId(report, 'dialect::dialect.global::should fail but passes').status).toBe('passed');
  });

  it('nose2: an unexpected success is a failure, not a skip; an expected failure is xfailed', async () => {
    const report = await parseJUnitFile(generated('nose2', 'expected-failures.xml'));
    const t = byId(report, 'nose2-junit::test_calc.CalcTest::test_rounding_bug_fixed_upstream');
    expect(t.status).toBe('failed');
    expect(t.failures).toEqual([
      { kind: 'unexpectedSuccess', message: 'test passes unexpectedly', body: '' },
    ]);
    expect(t.skipped).toBeUndefined();
    expect(t.time).toBeCloseTo(0.000081, 9);
    const xfail = byId(report, 'nose2-junit::test_calc.CalcTest::test_known_rounding_bug');
    expect(xfail).toMatchObject({
      status: 'xfailed',
      skipped: { message: 'expected test failure' },
      failures: [],
    });
    expect(byId(report, 'nose2-junit::test_calc.CalcTest::test_download')).toMatchObject({
      status: 'skipped',
      skipped: { message: 'test skipped: needs a network' },
    });
  });

  it('CTest: a test that could not start is an error; its real skips stay skips', async () => {
    const report = await parseJUnitFile(generated('ctest', 'not-run-reasons.xml'));
    const read = Object.fromEntries(
      report.tests.map((t) => [t.name, [t.status, t.failures.map((f) => `${f.kind}: ${f.message}`)]]),
    );
    expect(read).toEqual({
      passes: ['passed', []],
      fails: ['failed', ['failure: ']],
      missing_executable: ['error', ['notrun: Unable to find executable']],
      disabled_test: ['skipped', []],
      skipped_by_code: ['skipped', []],
      needs_data_file: ['error', ['notrun: Required Files Missing']],
      setup_db: ['failed', ['failure: ']],
      uses_db: ['error', ['notrun: Fixture dependency failed']],
      skipped_by_regex: ['skipped', []],
    });
    const missing = byId(report, '(empty)::missing_executable::missing_executable');
    expect(missing.failures[0]!.body).toBe('');
    expect(missing.skipped).toBeUndefined();
    expect(missing.time).toBe(0);
    expect(byId(report, '(empty)::skipped_by_code::skipped_by_code').skipped).toEqual({
      message: 'SKIP_RETURN_CODE=77',
    });
    const multi = await parseJUnitFile(generated('ctest', 'missing-configuration.xml'));
    expect(multi.tests.map((t) => [t.status, t.failures[0]?.message])).toEqual([
      ['error', 'Missing Configuration'],
    ]);
  });

  it("only the runners' exact shapes are exceptions: a skip never hides a failure otherwise", async () => {
    const tc = (attrs: string, inner: string) =>
      `<testsuite name="s"><testcase name="t"${attrs}>${inner}</testcase></testsuite>`;
    const F = '<failure message="boom">trace</failure>';
    const E = '<error message="boom">trace</error>';
    const todo = '<skipped type="todo" message="later"/>';
    const tag = '<skipped message="TEST_CASE tagged with !mayfail"/>';
    const cases: [string, string, string][] = [
      ['generic skip + failure', tc('', `<skipped/>${F}`), 'failed'],
      [
        'generic skip with a message + failure',
        tc(' failure="boom"', `<skipped message="later"/>${F}`),
        'failed',
      ],
      ['node shape', tc(' failure="boom"', `${todo}${F}`), 'skipped'],
      ['todo without the failure attribute', tc('', `${todo}${F}`), 'failed'],
      ['todo after the failure', tc(' failure="boom"', `${F}${todo}`), 'failed'],
      ['todo + two failures', tc(' failure="boom"', `${todo}${F}${F}`), 'failed'],
      ['todo + error', tc(' failure="boom"', `${todo}${E}`), 'error'],
      ['two todo skips + failure', tc(' failure="boom"', `${todo}${todo}${F}`), 'failed'],
      ['todo + failure + rerun', tc(' failure="boom"', `${todo}${F}<rerunFailure message="x"/>`), 'failed'],
      ['TODO in capitals', tc(' failure="boom"', `<skipped type="TODO"/>${F}`), 'failed'],
      ['Catch2 shape', tc(' status="run"', `${tag}${F}${E}`), 'xfailed'],
      [
        'Catch2 shouldfail spelling',
        tc(' status="run"', `<skipped message="TEST_CASE tagged with !shouldfail"/>${E}`),
        'xfailed',
      ],
      [
        'Catch2-like skip without the tag',
        tc(' status="run"', `<skipped message="TEST_CASE skipped"/>${F}`),
        'failed',
      ],
      ['Catch2 tag without status="run"', tc('', `${tag}${F}`), 'failed'],
      [
        'Catch2 tag with a type',
        tc(' status="run"', `<skipped type="x" message="TEST_CASE tagged with !mayfail"/>${F}`),
        'failed',
      ],
      ['Catch2 tag after the failure', tc(' status="run"', `${F}${tag}`), 'failed'],
      ['Catch2 tag twice', tc(' status="run"', `${tag}${tag}${F}`), 'failed'],
      ['Catch2 tag + flaky', tc(' status="run"', `${tag}${F}<flakyFailure message="x"/>`), 'failed'],
      ['Catch2 tag alone', tc(' status="run"', tag), 'skipped'],
      [
        'unexpected success + todo',
        tc(' failure="boom"', `${todo}<skipped message="test passes unexpectedly"/>`),
        'failed',
      ],
      [
        'unexpected success with a type',
        tc('', '<skipped type="x" message="test passes unexpectedly"/>'),
        'skipped',
      ],
      [
        'nose2 expected failure',
        tc('', '<skipped message="expected test failure">Traceback</skipped>'),
        'xfailed',
      ],
      [
        'nose2 expected failure with a type',
        tc('', '<skipped type="x" message="expected test failure"/>'),
        'skipped',
      ],
      [
        'nose2 expected failure + failure',
        tc('', `<skipped message="expected test failure"/>${F}`),
        'failed',
      ],
      ['CTest reason without notrun', tc('', '<skipped message="Unable to find executable"/>'), 'skipped'],
      ['CTest skip code', tc(' status="notrun"', '<skipped message="SKIP_RETURN_CODE=77"/>'), 'skipped'],
      [
        'CTest reason in the body',
        tc(' status="notrun"', '<skipped>Unable to find executable</skipped>'),
        'skipped',
      ],
      [
        'suite-level unexpected success',
        '<testsuite name="s"><skipped message="test passes unexpectedly"/></testsuite>',
        'skipped',
      ],
    ];
    for (const [what, xml, status] of cases) {
      const report = await parseText(xml);
      expect(
        report.tests.map((t) => t.status),
        what,
      ).toEqual([status]);
    }
  });

  it('xUnit.net on a comma locale: time="0,014" is 14 ms', async () => {
    const report = await parseJUnitFile(generated('xunit-net', 'comma-locale-times.xml'));
    expect(report.tests.map((t) => [t.name, t.time])).toEqual([
      ['Calc.Tests.ParserTests.ParsesNumber', 0.014],
      ['Calc.Tests.ParserTests.ParsesLargeFile', 1.234],
      ['Calc.Tests.ParserTests.RejectsEmpty', 0.014],
      ['Calc.Tests.MathTests.Divides', 0],
    ]);
  });

  it("bats' &#27; for ANSI colours: the report is refused, naming the reference at its '&'", async () => {
    const file = generated('bats', 'ansi-colours.xml');
    const bytes = fs.readFileSync(file);
    const err = await parseError(parseJUnitFile(file));
    expect(err.code).toBe('JUNIT_INVALID');
    expect(err.message).toBe(
      `${file}:8:1: character reference &#27; (U+001B) is not allowed in XML 1.0 (ESC, as in ANSI colour codes: turn colour output off for the tests)`,
    );
    expect([err.line, err.column]).toEqual([8, 1]);
    expect(bytes.toString('utf8').split('\n')[7]!.startsWith('&#27;[31m')).toBe(true);
    // The same place whatever the chunking, references split across chunks included.
    for (const size of [1, 2, 3, 7]) {
      const e = syncError(() => parsePieces(Array.from(slices(bytes, size))));
      expect([e.line, e.column, e.reason], `chunks of ${size}`).toEqual([8, 1, err.reason]);
    }
  });
});

describe('text as XML defines it', () => {
  it('reads a UTF-8 BOM file with CRLF line ends', async () => {
    const file = corpus('dotnet-xunit-transform', 'xunit-net-properties.xml');
    expect([...fs.readFileSync(file).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const report = await parseJUnitFile(file);
    expect(report.tests.map((t) => t.id)).toEqual([
      'Rhino Collection::mytestapp.Tests.AttriubteTests.SetTestNoFeature',
      'Rhino Collection::mytestapp.Tests.AttriubteTests.GetTestNoFeature',
    ]);
    const bom = await parseJUnitFile(corpus('edge', 'bom-status-notrun.xml'));
    expect(bom.tests.map((t) => [t.name, t.status])).toEqual([
      ['skipped by element', 'skipped'],
      ['skipped by attribute', 'skipped'],
      ['normal test', 'passed'],
    ]);
  });

  it('multi-line message attributes: literal line breaks become spaces, character references stay', async () => {
    const vitest = await parseJUnitFile(corpus('vitest', 'launchable-vitest-report.xml'));
    const t = byId(vitest, 'src/components/Hello.test.tsx::error: renders invalid message');
    expect(t.failures[0]!.kind).toBe('TestingLibraryElementError');
    expect(t.failures[0]!.message).not.toContain('\n');
    expect(t.failures[0]!.message).toContain(
      'more flexible.  Ignored nodes: comments, script, style [36m<body>',
    );

    const dotnet = await parseJUnitFile(corpus('dotnet-junit-logger', 'spekt-testresults-v3.xml'));
    const param = dotnet.tests.find((x) => x.name === 'TestData(2,"A")')!;
    expect(param.failures[0]!.message).toBe(
      '  failing for second case\r\n  Expected: not equal to 2\r\n  But was:  2\r\n',
    );
  });

  it('CRLF in text reads as LF', async () => {
    const report = await parseJUnitFile(corpus('jest-junit', 'jest-monorepo-4239-tests.xml'));
    const failed = report.tests.filter((t) => t.status === 'failed');
    expect(failed).toHaveLength(2);
    for (const t of failed) {
      expect(t.failures[0]!.body).toContain('\n');
      expect(t.failures[0]!.body).not.toContain('\r');
    }
  });

  it('joins a body split into several CDATA sections', async () => {
    const report = await parseJUnitFile(corpus('maven-surefire', 'cdata-split-terminator.xml'));
    const f = report.tests[0]!.failures[0]!;
    expect(f.kind).toBe('java.lang.AssertionError');
    expect(f.message).toBe('java.lang.AssertionError:');
    expect(f.body).toContain('    999,\n    1000]]>\n\tat pro.taskana.');
    expect(f.body).not.toContain('<![CDATA[');
  });

  it('keeps astral-plane characters whole', async () => {
    const report = await parseJUnitFile(corpus('edge', 'astral-plane-unicode.xml'));
    const chars = '헴䜝헱홐㣇㿷䔭𒍺𡓿𠄉㦓';
    expect(report.tests[0]!.name).toBe(`test 1 ${chars}`);
    expect(byId(report, 'pytest::test 2').skipped?.message).toBe(
      `Some unsupported unicode characters: ${chars}`,
    );
    expect(byId(report, 'pytest::test 7').failures[0]!.body).toBe(
      `Some unsupported unicode characters: ${chars}`,
    );
  });

  it('decodes the five XML entities in names, messages and bodies', async () => {
    const report = await parseJUnitFile(corpus('edge', 'xml-entities-in-names.xml'));
    expect(report.tests.map((t) => t.id)).toEqual([
      'Test with "quotes" in the test name',
      "Test with 'apostrophe' in the test name",
      'Test with & in the test name',
      'Test with < and > in the test name',
    ]);
    expect(byId(report, 'Test with & in the test name').failures[0]).toEqual({
      kind: 'error',
      message: 'A message with &',
      body: 'Content with &',
    });
  });

  it('folds whitespace in ids and reads odd times', async () => {
    const xml = `<testsuite name=" my &#10; suite ">
<testcase classname="a.B" name="two&#9;words" time="1,234.5"/>
<testcase classname="a.B" name="ns" time="999638317"/>
<testcase classname="a.B" name="neg" time="-3"/>
<testcase classname="a.B" name="sci" time="1.7e-05"/>
<testcase classname="a.B" name="comma" time="0,25"/>
<testcase classname="a.B" name="junk" time="&lt;&lt;computed&gt;&gt;"/>
</testsuite>`;
    const report = await parseText(xml);
    expect(report.tests.map((t) => [t.id, t.time])).toEqual([
      ['my suite::a.B::two words', 1234.5],
      ['my suite::a.B::ns', 0.999638317],
      ['my suite::a.B::neg', undefined],
      ['my suite::a.B::sci', 1.7e-5],
      ['my suite::a.B::comma', 0.25],
      ['my suite::a.B::junk', undefined],
    ]);
    expect(report.tests[0]!.suite).toBe('my suite');
  });
});

describe('hardening', () => {
  it('rejects the corpus XXE file at its DOCTYPE without resolving anything', async () => {
    const file = corpus('edge', 'xxe-doctype.xml');
    const err = await parseError(parseJUnitFile(file));
    expect(err.message).toBe(
      `${file}:2:1: DOCTYPE declarations are not allowed in JUnit reports (XXE protection)`,
    );
    const everything = JSON.stringify({ message: err.message, details: err.details });
    expect(everything).not.toContain('OOB_LINK');
    expect(everything).not.toContain('oob');
  });

  it('never reads the file an external entity names', async () => {
    const dir = tempDir();
    const secret = `secret-${process.pid}-${Date.now()}`;
    const target = path.join(dir, 'secret.txt');
    fs.writeFileSync(target, secret);
    const xml = `<?xml version="1.0"?>
<!DOCTYPE testsuite [ <!ENTITY leak SYSTEM "file://${target}"> ]>
<testsuite name="s"><testcase name="t"><failure message="&leak;">&leak;</failure></testcase></testsuite>`;
    const err = await parseError(parseText(xml));
    // Stopped at the declaration, before the first reference on line 3.
    expect(err.line).toBe(2);
    expect(err.column).toBe(1);
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain(secret);
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain(target);
  });

  it('rejects internal entities too, so nothing expands (billion laughs)', async () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join(
      '\n',
    );
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE t [\n<!ENTITY l0 "lol">\n${lol}\n]>\n<testsuite><testcase name="&l9;"/></testsuite>`;
    const err = await parseError(parseText(xml));
    expect(err.reason).toContain('DOCTYPE declarations are not allowed');
    expect(err.line).toBe(2);
  });

  it('names a character reference XML forbids, where it starts, in text and attributes alike', async () => {
    const cases: [string, string, string][] = [
      [
        '<testsuite><testcase name="a"><failure>x&#x1b;[0m</failure></testcase></testsuite>',
        '1:41',
        '&#x1b; (U+001B) is not allowed in XML 1.0 (ESC',
      ],
      [
        '<testsuite><testcase name="a"><failure message="x&#27;"/></testcase></testsuite>',
        '1:50',
        '&#27; (U+001B) is not allowed in XML 1.0 (ESC',
      ],
      [
        '<testsuite>\n  <testcase name="&#0;"/></testsuite>',
        '2:19',
        'character reference &#0; (U+0000) is not allowed in XML 1.0',
      ],
      [
        '<testsuite><testcase name="&#xFFFE;"/></testsuite>',
        '1:28',
        'character reference &#xFFFE; (U+FFFE) is not allowed in XML 1.0',
      ],
      [
        '<testsuite><testcase name="&#1114112;"/></testsuite>',
        '1:28',
        'character reference &#1114112; is past U+10FFFF',
      ],
      [
        '<testsuite><testcase name="&#xZZ;"/></testsuite>',
        '1:28',
        'malformed character reference &#xZZ;: expected &#digits; or &#xhex;',
      ],
      ['<testsuite><testcase name="&#X41;"/></testsuite>', '1:28', 'malformed character reference &#X41;'],
      [
        '<?xml version="1.1"?><testsuite><testcase name="&#0;"/></testsuite>',
        '1:49',
        '&#0; (U+0000) is not allowed in XML 1.1',
      ],
    ];
    for (const [xml, position, reason] of cases) {
      const err = await parseError(parseText(xml));
      expect(err.code, xml).toBe('JUNIT_INVALID');
      expect(`${err.line}:${err.column}`, xml).toBe(position);
      expect(err.reason, xml).toContain(reason);
    }
    // XML 1.1 allows control characters as references; the report reads.
    const v11 = await parseText('<?xml version="1.1"?><testsuite><testcase name="a&#27;b"/></testsuite>');
    expect(v11.tests[0]!.name).toBe('a\u001bb');
  });

  it('rejects an entity nobody declared, naming the allowed ones', async () => {
    const err = await parseError(parseText('<testsuite><testcase name="&nbsp;"/></testsuite>'));
    expect(err.reason).toContain('undefined entity');
    expect(err.reason).toContain('&amp; &lt; &gt; &quot; &apos;');
  });

  it('names what it expected when the root is not JUnit', async () => {
    const err = await parseError(parseJUnitFile(corpus('other-formats', 'trx-xunit.trx')));
    expect(err.reason).toBe(
      'expected a <testsuites> or <testsuite> root element, found <TestRun> (this looks like a Visual Studio TRX file)',
    );
    const other = await parseError(parseText('<?xml version="1.0"?>\n<!-- <testsuite> -->\n  <results\n/>'));
    expect(`${other.line}:${other.column}`).toBe('3:3');
    expect(other.reason).toBe('expected a <testsuites> or <testsuite> root element, found <results>');
  });

  it('accepts the Eclipse JUnit view export root <testrun>', async () => {
    const report = await parseJUnitFile(corpus('eclipse-junit', 'testrun-root.xml'));
    expect(report.counts.tests).toBe(7);
  });

  it('refuses UTF-16 and UTF-32, with or without a byte order mark', async () => {
    const xml = '<testsuite name="s"><testcase name="t"/></testsuite>';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    expect((await parseError(parseText(le))).reason).toMatch(
      /^the report is UTF-16 encoded \(byte order mark\)/,
    );
    expect((await parseError(parseText(Buffer.from(xml, 'utf16le')))).reason).toMatch(/looks UTF-16 encoded/);
    const utf32 = Buffer.from([0xff, 0xfe, 0, 0, 0x3c, 0, 0, 0]);
    expect((await parseError(parseText(utf32))).reason).toMatch(/UTF-32/);
    const declared = await parseError(parseText('<?xml version="1.0" encoding="UTF-16"?><testsuite/>'));
    expect(declared.reason).toContain('encoding="UTF-16"');
    expect(`${declared.line}:${declared.column}`).toBe('1:31');
  });

  it('honours a declared single-byte encoding and refuses unknown ones', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>\n<testsuite name="caf'),
      Buffer.from([0xe9]),
      Buffer.from('"><testcase name="t"/></testsuite>'),
    ]);
    expect((await parseText(latin1)).tests[0]!.id).toBe('café::t');
    const unknown = await parseError(parseText('<?xml version="1.0" encoding="x-klingon"?><testsuite/>'));
    expect(unknown.reason).toContain('unsupported encoding "x-klingon"');
  });

  it('points at the first byte that is not UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from('<testsuite name="s">\n  <testcase name="ok é"/>\n  <testcase name="b'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"/>\n</testsuite>'),
    ]);
    for (const size of [1, 2, 5, bytes.length]) {
      const err = await parseError(parseText(bytes, {}, size));
      expect(`${err.line}:${err.column}`, `chunks of ${size}`).toBe('3:20');
      expect(err.reason).toContain('invalid UTF-8 (bytes 0xc3 0x28');
    }
    const truncated = Buffer.concat([Buffer.from('<testsuite name="'), Buffer.from([0xe2, 0x82])]);
    expect((await parseError(parseText(truncated))).reason).toContain(
      'ends in the middle of a UTF-8 character',
    );
  });

  it('reports truncation, emptiness and junk with positions', async () => {
    const empty = await parseError(parseText(''));
    expect(`${empty.line}:${empty.column} ${empty.reason}`).toBe(
      '1:1 the report is empty: expected a <testsuites> or <testsuite> root element',
    );
    const blank = await parseError(parseText('\n\n  '));
    expect(blank.reason).toMatch(/^the report is empty/);
    const cut = await parseError(parseText('<testsuite>\n<testcase name="x"><failure><![CDATA[boom'));
    expect(`${cut.line}:${cut.column}`).toBe('2:42');
    expect(cut.reason).toBe(
      'unexpected end of file inside a CDATA section in <failure>: the report is truncated (was the runner killed before it finished writing?)',
    );
    const twice = await parseError(parseText('<testsuite/>\n<testsuite/>'));
    expect(twice.reason).toContain('a second root element');
    const junk = await parseError(parseText('  hello <testsuite/>'));
    expect(`${junk.line}:${junk.column}`).toBe('1:3');
    expect(junk.reason).toBe(
      'not an XML document: found "hello <testsuite/>" where a JUnit report starts with "<"',
    );
  });

  it('refuses absurd nesting instead of growing a stack', async () => {
    for (const deep of [`<testsuite>${'<x>'.repeat(1500)}`, `<testsuite><system-out>${'<x>'.repeat(1500)}`]) {
      const err = await parseError(parseText(deep));
      expect(err.reason).toBe('elements nested more than 1000 deep');
    }
  });

  it('reports a missing file as unreadable, not as a parse error', async () => {
    const missing = path.join(tempDir(), 'nope.xml');
    const err = await parseJUnitFile(missing).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect(err).not.toBeInstanceOf(JUnitParseError);
    expect((err as InputError).code).toBe('FILE_UNREADABLE');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await parseText('<testsuite/>', { signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as InputError).code).toBe('ABORTED');
  });
});

// A small report with every construct the streaming code treats specially:
// BOM, CRLF, split CDATA, CDATA holding CRLF and astral characters, entities,
// character references, a suite-level error, retries and system-out.
const TRICKY = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<!-- a comment with <testcase> in it -->',
      '<testsuites name="all">',
      '  <testsuite name="pkg.𝔘nicode@stress-3" file="t.py">',
      '    <properties><property name="seed" value="42"/></properties>',
      '    <testcase classname="pkg.𝔘nicode" name="a &amp; b&#10;c" time="0.5">',
      '      <failure message="multi',
      '  line" type="">AssertionError: x<![CDATA[ 1]]]]><![CDATA[> 𝄞\r\nnext]]> tail</failure>',
      '      <system-out><![CDATA[noise 🎉\r\n\r\nmore]]></system-out>',
      '    </testcase>',
      '    <testcase classname="pkg.𝔘nicode" name="flaky"><flakyError message="boom" type="E">',
      '      <stackTrace><![CDATA[E: boom\n  at x]]></stackTrace><system-err>ignored</system-err></flakyError></testcase>',
      '    <testcase name="skip"><skipped message="why"/><properties><property name="p">text &lt;value&gt;</property></properties></testcase>',
      '    <error message="setup failed">suite trace</error>',
      '  </testsuite>',
      '</testsuites>',
      '',
    ].join('\r\n'),
  ),
]);

describe('streaming', () => {
  const whole = parsePieces([TRICKY]);

  it('reads the tricky report as a human would', () => {
    expect(whole.counts).toEqual({
      tests: 4,
      passed: 0,
      failed: 1,
      error: 1,
      skipped: 1,
      xfailed: 0,
      flaky: 1,
    });
    const [a, flaky, skip, suite] = whole.tests;
    expect(a).toMatchObject({
      id: 'pkg.𝔘nicode::a & b c',
      suite: 'pkg.𝔘nicode@stress-3',
      classname: 'pkg.𝔘nicode',
      name: 'a & b c',
      file: 't.py',
      status: 'failed',
      time: 0.5,
      failures: [
        { kind: 'AssertionError', message: 'multi   line', body: 'AssertionError: x 1]]> 𝄞\nnext tail' },
      ],
    });
    expect(flaky).toMatchObject({
      status: 'flaky',
      retries: [{ status: 'error', kind: 'E', message: 'boom' }],
    });
    expect(skip).toMatchObject({
      id: 'pkg.𝔘nicode::skip',
      skipped: { message: 'why' },
      properties: { p: 'text <value>' },
    });
    expect(suite).toMatchObject({
      id: 'pkg.𝔘nicode::<suite>',
      status: 'error',
      failures: [{ message: 'setup failed' }],
    });
  });

  it('gives the same result for 1-byte chunks', () => {
    const bytes = [...TRICKY].map((b) => Uint8Array.of(b));
    expect(parsePieces(bytes)).toEqual(whole);
  });

  it('gives the same result split at every byte boundary', () => {
    for (let k = 1; k < TRICKY.length; k++) {
      const got = parsePieces([TRICKY.subarray(0, k), TRICKY.subarray(k)]);
      if (JSON.stringify(got) !== JSON.stringify(whole)) expect(got, `split at byte ${k}`).toEqual(whole);
    }
  });

  it('reports the same position for an error after CDATA whatever the chunking', () => {
    const broken = Buffer.from(
      '<testsuite>\r\n<testcase name="x"><system-out><![CDATA[a\r\nb𝄞\rc\n\r\nd𝄞𝄞]]>\r\n  oops < x</system-out></testcase></testsuite>',
    );
    const expected = syncError(() => parsePieces([broken]));
    // Line 7 is `  oops < x`: the space after '<' is the 9th character.
    expect(`${expected.line}:${expected.column}`).toBe('7:9');
    for (const size of [1, 2, 3, 7, 13]) {
      const pieces: Uint8Array[] = [];
      for (let i = 0; i < broken.length; i += size) pieces.push(broken.subarray(i, i + size));
      const err = syncError(() => parsePieces(pieces));
      expect(`${err.line}:${err.column}`, `chunks of ${size}`).toBe('7:9');
    }
  });

  it('gives the same result for a CDATA-heavy corpus file in any chunk size', async () => {
    const file = corpus('perl-tap', 'spamassassin-make-test-656k.xml');
    const bytes = fs.readFileSync(file);
    const reference = await parseJUnitFile(file);
    for (const size of [3, 1000, 65536]) {
      const got = await parseText(bytes, {}, size);
      expect(got, `chunks of ${size}`).toEqual(reference);
    }
  });

  it('reads from a Node Readable and hands outcomes to onTest without keeping them', async () => {
    const seen: string[] = [];
    const report = await parseJUnit(Readable.from([TRICKY.subarray(0, 100), TRICKY.subarray(100)]), {
      onTest: (t) => seen.push(t.id),
    });
    expect(report.tests).toEqual([]);
    expect(report.counts).toEqual(whole.counts);
    expect(seen).toEqual(whole.tests.map((t) => t.id));
  });
});

describe('size caps', () => {
  it('cuts messages and bodies at maxBodyBytes on a character boundary and says so', async () => {
    const long = `${'é'.repeat(60)}𝄞${'x'.repeat(100)}`;
    const xml = `<testsuite><testcase name="t"><failure message="${long}"><![CDATA[${long}]]></failure></testcase></testsuite>`;
    const report = await parseText(xml, { maxBodyBytes: 121 });
    const f = report.tests[0]!.failures[0]!;
    // 60 × 2 bytes fit; the 4-byte 𝄞 does not.
    expect(f.message).toBe('é'.repeat(60));
    expect(f.body).toBe('é'.repeat(60));
    expect(f.truncated).toBe(true);
    const roomy = await parseText(xml, { maxBodyBytes: 1000 });
    expect(roomy.tests[0]!.failures[0]!.truncated).toBeUndefined();
  });

  it('rejects a cap that is not a positive integer', () => {
    expect(() => new JUnitStreamParser({ maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  });

  it('keeps the heap flat through huge text, CDATA, attributes and comments', async () => {
    const MB = 1 << 20;
    const filler = Buffer.alloc(MB, 'abcdefghij\n');
    // Each huge construct is 96 MB; kept whole, any one of them would add at
    // least that much to the heap.
    async function* huge(open: string, close: string): AsyncGenerator<Uint8Array> {
      yield Buffer.from(`<testsuite><testcase name="t">${open}`);
      for (let i = 0; i < 96; i++) yield filler;
      yield Buffer.from(`${close}</testcase></testsuite>`);
    }
    const cases: [string, string, string][] = [
      ['failure text', '<failure>', '</failure>'],
      ['failure CDATA', '<failure><![CDATA[', ']]></failure>'],
      ['system-out text', '<system-out>', '</system-out>'],
      ['message attribute', '<failure message="', '"/>'],
      ['comment', '<!--', '-->'],
    ];
    for (const [label, open, close] of cases) {
      let peak = 0;
      const base = process.memoryUsage().heapUsed;
      const source = huge(open, close);
      const sampled = (async function* () {
        for await (const chunk of source) {
          peak = Math.max(peak, process.memoryUsage().heapUsed - base);
          yield chunk;
        }
      })();
      const report = await parseJUnit(sampled);
      expect(peak, label).toBeLessThan(64 * MB);
      const f = report.tests[0]!.failures[0];
      if (label.startsWith('failure') || label.startsWith('message')) {
        expect(f?.truncated, label).toBe(true);
        expect(
          Buffer.byteLength(label === 'message attribute' ? f!.message : f!.body),
          label,
        ).toBeLessThanOrEqual(64 * 1024);
      }
    }
  }, 120_000);
});
