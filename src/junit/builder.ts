import type { SaxesTagPlain } from 'saxes';
import { expectedFailureStatus, skipAsResult, skipIsExpectedFailure } from './dialects.js';
import { JUnitParseError } from './errors.js';
import type {
  FailureDetail,
  JUnitReport,
  OutcomeCounts,
  RetryDetail,
  SkipDetail,
  TestOutcome,
  TestStatus,
} from './model.js';
import {
  attributeVerdict,
  failureKind,
  idPrefix,
  messageFromBody,
  parseTime,
  SUITE_LEVEL_NAME,
  suiteKey,
} from './normalize.js';
import { detach, detachCompact, foldWhitespace, TextCollector, truncateUtf8 } from './text.js';
import type { Position, XmlHandler } from './xml-feed.js';

/**
 * The JUnit side of reading a report: suites, testcases and their outcomes
 * from the element events of the XML feed (xml-feed.ts). Only the testcase
 * being read is held, plus the outcomes when no `onTest` callback takes them.
 */

const SUITE_ELEMENTS = new Set(['testsuite', 'testsuites', 'testrun']);
export const ROOT_EXPECTED = 'expected a <testsuites> or <testsuite> root element';

const FOREIGN_ROOTS: Record<string, string> = {
  TestRun: 'a Visual Studio TRX file',
  'test-run': 'an NUnit 3 result file',
  'test-results': 'an NUnit 2 result file',
  assemblies: 'an xUnit.net result file',
  assembly: 'an xUnit.net result file',
  'testng-results': "TestNG's own format; use the JUnit reports TestNG writes under junitreports/",
  Site: 'a CTest dashboard Test.xml; `ctest --output-junit` writes JUnit',
  checkstyle: 'a Checkstyle report',
  coverage: 'a coverage report',
  html: 'an HTML page',
};

type ResultElement =
  | 'failure'
  | 'error'
  | 'skipped'
  | 'rerunFailure'
  | 'rerunError'
  | 'flakyFailure'
  | 'flakyError';

const RESULT_ELEMENTS = new Map<string, ResultElement>([
  ['failure', 'failure'],
  ['error', 'error'],
  ['skipped', 'skipped'],
  ['rerunFailure', 'rerunFailure'],
  ['rerunError', 'rerunError'],
  ['flakyFailure', 'flakyFailure'],
  ['flakyError', 'flakyError'],
]);

interface SuiteFrame {
  depth: number;
  /** Innermost non-empty name, for display. */
  name: string;
  /** The same, as it goes into ids. */
  key: string;
  file: string | undefined;
  /** Playwright project (the suite's hostname), which Playwright itself puts in test names. */
  project: string | undefined;
  /** Result elements placed directly in the suite, outside any testcase. */
  level: CaseState | undefined;
}

interface CaseState {
  depth: number;
  suite: SuiteFrame;
  name: string;
  classname: string;
  file: string | undefined;
  time: string | undefined;
  statusAttr: string | undefined;
  resultAttr: string | undefined;
  /** Whether the testcase has a `failure` attribute (node:test's). */
  failureAttr: boolean;
  /** The result elements so far, one letter each (see `CaseShape.shape`). */
  shape: string;
  failures: FailureDetail[] | undefined;
  hasFailure: boolean;
  hasError: boolean;
  skipped: SkipDetail | undefined;
  xfail: boolean;
  retries: RetryDetail[] | undefined;
  hasRerun: boolean;
  hasFlaky: boolean;
  properties: Record<string, string> | undefined;
}

interface OpenResult {
  depth: number;
  owner: CaseState;
  element: ResultElement;
  type: string | undefined;
  message: string | undefined;
  text: TextCollector;
  /** Depth of an open `<stackTrace>` child (Surefire's reruns put the trace there), else -1. */
  stackDepth: number;
}

interface OpenProperty {
  depth: number;
  owner: CaseState;
  name: string;
  value: string | undefined;
  text: TextCollector | undefined;
}

const NO_FAILURES: readonly FailureDetail[] = Object.freeze([]);

// Skip types that mean "expected to fail, and did": pytest's xfail marker and
// unittest-xml-reporting's expectedFailure.
const XFAIL_TYPES = new Set(['pytest.xfail', 'xfail']);

/** Builds outcomes from a report's elements; `report()` once the feed has ended. */
export class JUnitBuilder implements XmlHandler {
  textTarget: TextCollector | undefined;

  private readonly file: string | undefined;
  private readonly cap: number;
  private readonly onTest: ((t: TestOutcome) => void) | undefined;
  private readonly tests: TestOutcome[] = [];
  private readonly counts: OutcomeCounts = {
    tests: 0,
    passed: 0,
    failed: 0,
    error: 0,
    skipped: 0,
    xfailed: 0,
    flaky: 0,
  };
  private playwright = false;

  /** Depth of an element whose whole subtree we skip (system-out, unknown children of results), else 0. */
  private ignoreFrom = 0;
  private readonly suites: SuiteFrame[] = [];
  private tc: CaseState | undefined;
  private res: OpenResult | undefined;
  private prop: OpenProperty | undefined;
  private readonly caseState: CaseState = newCase(
    -1,
    { depth: 0, name: '', key: '', file: undefined, project: undefined, level: undefined },
    {},
  );
  private lastClassname = '';
  private lastClassnameFolded = '';
  private lastSuite: SuiteFrame | undefined;
  private lastIdPrefix = '';
  private lastFile = '';
  private lastFileDetached = '';

  /** `cap`: the most UTF-8 bytes kept of each message, body and property value. */
  constructor(file: string | undefined, cap: number, onTest: ((t: TestOutcome) => void) | undefined) {
    this.file = file;
    this.cap = cap;
    this.onTest = onTest;
  }

  report(): JUnitReport {
    return { tests: this.tests, counts: this.counts };
  }

  root(name: string, at: Position): void {
    if (SUITE_ELEMENTS.has(name)) return;
    const hint = FOREIGN_ROOTS[name];
    throw new JUnitParseError(
      `${ROOT_EXPECTED}, found <${name}>${hint ? ` (this looks like ${hint})` : ''}`,
      {
        file: this.file,
        line: at.line,
        column: at.column,
      },
    );
  }

  open(tag: SaxesTagPlain, depth: number): void {
    if (this.ignoreFrom !== 0) return;
    const name = tag.name;
    const res = this.res;
    if (res !== undefined) {
      if (name === 'stackTrace' && depth === res.depth + 1) res.stackDepth = depth;
      else this.ignore(depth);
      return;
    }
    if (this.prop !== undefined) {
      this.ignore(depth);
      return;
    }
    const tc = this.tc;
    if (tc !== undefined) {
      const element = RESULT_ELEMENTS.get(name);
      if (element !== undefined) this.openResult(element, tag.attributes, depth, tc);
      else if (name === 'property') this.openProperty(tag.attributes, depth, tc);
      else if (name === 'system-out' || name === 'system-err') this.ignore(depth);
      // Anything else inside a testcase (<properties>, unknown wrappers) is
      // transparent: a failure wrapped in an unexpected element still counts.
      return;
    }
    if (name === 'testcase') {
      this.openCase(tag.attributes, depth);
      return;
    }
    if (SUITE_ELEMENTS.has(name)) {
      // Playwright's reporter writes <testsuites id="..."> (empty unless configured);
      // its suites' hostname is then the project name, not a machine.
      if (depth === 1 && name === 'testsuites' && tag.attributes.id !== undefined) this.playwright = true;
      this.openSuite(tag.attributes, depth);
      return;
    }
    if (name === 'system-out' || name === 'system-err' || name === 'properties') {
      this.ignore(depth);
      return;
    }
    const element = RESULT_ELEMENTS.get(name);
    if (element === 'failure' || element === 'error' || element === 'skipped') {
      const suite = this.suites[this.suites.length - 1]!;
      suite.level ??= newCase(-1, suite, {});
      this.openResult(element, tag.attributes, depth, suite.level);
    }
    // Other unknown elements between suites are transparent too.
  }

  close(depth: number): void {
    if (this.ignoreFrom !== 0) {
      if (depth === this.ignoreFrom) {
        this.ignoreFrom = 0;
        this.retarget();
      }
      return;
    }
    const res = this.res;
    if (res !== undefined) {
      if (depth === res.depth) this.closeResult(res);
      else if (depth === res.stackDepth) res.stackDepth = -1;
      return;
    }
    const prop = this.prop;
    if (prop !== undefined) {
      if (depth === prop.depth) this.closeProperty(prop);
      return;
    }
    const tc = this.tc;
    if (tc !== undefined) {
      if (depth === tc.depth) {
        this.tc = undefined;
        this.emit(tc, false);
      }
      return;
    }
    const suite = this.suites[this.suites.length - 1];
    if (suite !== undefined && depth === suite.depth) {
      this.suites.pop();
      if (suite.level !== undefined) this.emit(suite.level, true);
    }
  }

  private ignore(depth: number): void {
    this.ignoreFrom = depth;
    this.retarget();
  }

  /** Keeps `textTarget` what the feed should collect into: the open result's or property's text, unless inside an ignored subtree. */
  private retarget(): void {
    this.textTarget = this.ignoreFrom !== 0 ? undefined : (this.res?.text ?? this.prop?.text);
  }

  private openSuite(attrs: Record<string, string>, depth: number): void {
    const parent = this.suites[this.suites.length - 1];
    const raw = attrs.name;
    const folded = raw === undefined ? '' : foldWhitespace(raw);
    const name = folded === '' ? (parent?.name ?? '') : detach(folded);
    const key = folded === '' ? (parent?.key ?? '') : detach(suiteKey(name));
    const file = attrs.file !== undefined && attrs.file !== '' ? detach(attrs.file) : parent?.file;
    const host = attrs.hostname;
    const project =
      this.playwright && host !== undefined && host !== '' ? detach(foldWhitespace(host)) : parent?.project;
    this.suites.push({ depth, name, key, file, project, level: undefined });
  }

  private openCase(attrs: Record<string, string>, depth: number): void {
    // One testcase is open at a time, so its state object is reused: reports
    // have millions of testcases and this is a hot path.
    this.tc = resetCase(this.caseState, depth, this.suites[this.suites.length - 1]!, attrs);
  }

  private openResult(
    element: ResultElement,
    attrs: Record<string, string>,
    depth: number,
    owner: CaseState,
  ): void {
    this.res = {
      depth,
      owner,
      element,
      type: attrs.type,
      message: attrs.message,
      text: new TextCollector(this.cap),
      stackDepth: -1,
    };
    this.retarget();
  }

  private closeResult(res: OpenResult): void {
    this.res = undefined;
    this.retarget();
    const owner = res.owner;
    const body = res.text.take(this.cap).trim();
    let truncated = res.text.truncated;
    const attr = res.message;
    let message: string;
    if (attr !== undefined && attr !== '') {
      message = truncateUtf8(attr, this.cap);
      if (message.length !== attr.length) truncated = true;
    } else {
      message = res.element === 'skipped' ? body : messageFromBody(body);
    }
    switch (res.element) {
      case 'failure':
      case 'error': {
        const kind = failureKind(res.type ?? '', message, body, res.element);
        addFailure(owner, res.element, kind, message, body, truncated);
        owner.shape += res.element === 'error' ? 'e' : 'f';
        return;
      }
      case 'skipped': {
        const type = res.type === undefined ? '' : foldWhitespace(res.type);
        // Suite-level skips are never a runner's other result.
        const as = owner.depth < 0 ? undefined : skipAsResult(type, attr, owner.statusAttr);
        if (as !== undefined) {
          addFailure(owner, as.element, as.kind, message, body, truncated);
          owner.shape += 'x';
          return;
        }
        owner.shape += 's';
        if (owner.skipped !== undefined) return;
        owner.skipped =
          type === '' ? { message: detach(message) } : { type: detach(type), message: detach(message) };
        owner.xfail =
          XFAIL_TYPES.has(type.toLowerCase()) || (owner.depth >= 0 && skipIsExpectedFailure(type, attr));
        return;
      }
      default: {
        const isError = res.element === 'rerunError' || res.element === 'flakyError';
        const base = isError ? 'error' : 'failure';
        owner.retries ??= [];
        owner.retries.push({
          status: isError ? 'error' : 'failed',
          kind: detach(failureKind(res.type ?? '', message, body, base)),
          message: detach(message),
        });
        if (res.element.startsWith('rerun')) owner.hasRerun = true;
        else owner.hasFlaky = true;
        owner.shape += 'r';
      }
    }
  }

  private openProperty(attrs: Record<string, string>, depth: number, owner: CaseState): void {
    const name = attrs.name;
    if (name === undefined) {
      this.ignore(depth);
      return;
    }
    const value = attrs.value;
    this.prop = {
      depth,
      owner,
      name,
      value,
      text: value === undefined ? new TextCollector(this.cap) : undefined,
    };
    this.retarget();
  }

  private closeProperty(prop: OpenProperty): void {
    this.prop = undefined;
    this.retarget();
    const value =
      prop.value !== undefined ? truncateUtf8(prop.value, this.cap) : prop.text!.take(this.cap).trim();
    prop.owner.properties ??= {};
    prop.owner.properties[detach(prop.name)] = detach(value);
  }

  // ------------------------------------------------------------------ outcomes

  private emit(c: CaseState, suiteLevel: boolean): void {
    const suite = c.suite;
    let classname = '';
    let name = '';
    let id: string;
    if (suiteLevel) {
      id = suite.key === '' ? SUITE_LEVEL_NAME : `${suite.key}::${SUITE_LEVEL_NAME}`;
    } else {
      // Consecutive testcases almost always share a suite and classname, so
      // the id up to the name is built once per run of them.
      if (c.classname !== this.lastClassname || suite !== this.lastSuite) {
        this.lastClassname = c.classname;
        this.lastSuite = suite;
        this.lastClassnameFolded = detach(foldWhitespace(c.classname));
        this.lastIdPrefix = idPrefix(suite.key, this.lastClassnameFolded, suite.project);
      }
      classname = this.lastClassnameFolded;
      // One flat copy holds the id, and the name is a view on its end: neither
      // pins the decoded chunk the name attribute was cut from.
      const prefix = this.lastIdPrefix;
      id = detach(prefix + foldWhitespace(c.name));
      name = prefix.length === 0 ? id : id.slice(prefix.length);
    }

    let status: TestStatus;
    let skipped = c.skipped;
    const props = c.properties;
    const expected = suiteLevel ? undefined : expectedFailureStatus(c);
    if (expected !== undefined) status = expected;
    else if (c.hasError) status = 'error';
    else if (c.hasFailure) status = 'failed';
    else if (skipped !== undefined) {
      status = c.xfail ? 'xfailed' : 'skipped';
      if (skipped.message === '' && suite.project !== undefined && props !== undefined) {
        const reason = props.skip ?? props.fixme;
        if (reason !== undefined) skipped = { ...skipped, message: reason };
      }
    } else if (c.hasRerun) status = 'failed';
    else {
      const verdict = attributeVerdict(c.statusAttr, c.resultAttr);
      if (verdict !== undefined) {
        status = verdict.status;
        if (verdict.status === 'skipped') skipped = { type: verdict.type, message: '' };
      } else if (c.hasFlaky) status = 'flaky';
      else if (suite.project !== undefined && props?.fail !== undefined) {
        status = 'xfailed';
        skipped = { type: 'fail', message: props.fail };
      } else status = 'passed';
    }

    const outcome: TestOutcome = {
      id,
      suite: suite.name,
      classname,
      name,
      status,
      failures: c.failures ?? NO_FAILURES,
    };
    let file = suite.file;
    if (c.file !== undefined && c.file !== '') {
      // pytest and others repeat the same file on every testcase.
      if (c.file !== this.lastFile) {
        this.lastFile = c.file;
        this.lastFileDetached = detach(c.file);
      }
      file = this.lastFileDetached;
    }
    if (file !== undefined) outcome.file = file;
    if (skipped !== undefined) outcome.skipped = skipped;
    if (c.retries !== undefined) outcome.retries = c.retries;
    const time = parseTime(c.time);
    if (time !== undefined) outcome.time = time;
    if (props !== undefined) outcome.properties = props;

    const counts = this.counts;
    counts.tests++;
    switch (status) {
      case 'passed':
        counts.passed++;
        break;
      case 'failed':
        counts.failed++;
        break;
      case 'error':
        counts.error++;
        break;
      case 'skipped':
        counts.skipped++;
        break;
      case 'xfailed':
        counts.xfailed++;
        break;
      case 'flaky':
        counts.flaky++;
        break;
    }
    if (this.onTest !== undefined) this.onTest(outcome);
    else this.tests.push(outcome);
  }
}

function addFailure(
  owner: CaseState,
  element: 'failure' | 'error',
  kind: string,
  message: string,
  body: string,
  truncated: boolean,
): void {
  const detail: FailureDetail = {
    kind: detach(kind),
    message: detachCompact(message),
    body: detachCompact(body),
  };
  if (truncated) detail.truncated = true;
  owner.failures ??= [];
  owner.failures.push(detail);
  if (element === 'error') owner.hasError = true;
  else owner.hasFailure = true;
}

function newCase(depth: number, suite: SuiteFrame, attrs: Record<string, string>): CaseState {
  return resetCase({} as CaseState, depth, suite, attrs);
}

function resetCase(c: CaseState, depth: number, suite: SuiteFrame, attrs: Record<string, string>): CaseState {
  c.depth = depth;
  c.suite = suite;
  c.name = attrs.name ?? '';
  c.classname = attrs.classname ?? '';
  c.file = attrs.file;
  c.time = attrs.time;
  c.statusAttr = attrs.status;
  c.resultAttr = attrs.result;
  c.failureAttr = attrs.failure !== undefined;
  c.shape = '';
  c.failures = undefined;
  c.hasFailure = false;
  c.hasError = false;
  c.skipped = undefined;
  c.xfail = false;
  c.retries = undefined;
  c.hasRerun = false;
  c.hasFlaky = false;
  c.properties = undefined;
  return c;
}
