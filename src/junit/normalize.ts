import { firstLine, foldWhitespace } from './text.js';

// Runners that decorate suite names per run: cargo-nextest stress runs name
// each iteration `suite@stress-N`, and unittest-xml-reporting appends the
// start time as `-YYYYMMDDhhmmss`. Left in, the same test would get a new id on
// every run and look like a test that vanished plus one that appeared.
const NEXTEST_STRESS_SUFFIX = /@stress-\d+$/;
const XMLRUNNER_TIME_SUFFIX = /-\d{14}$/;

/** The suite name as it goes into ids. */
export function suiteKey(name: string): string {
  const folded = foldWhitespace(name);
  return folded.replace(NEXTEST_STRESS_SUFFIX, '').replace(XMLRUNNER_TIME_SUFFIX, '');
}

/**
 * Everything in a test's id before its name (see `TestOutcome.id`), ending in
 * `::` unless empty. Arguments are already whitespace-folded.
 */
export function idPrefix(suite: string, classname: string, project?: string): string {
  let prefix: string;
  if (classname === '' || classname === suite) prefix = suite === '' ? '' : `${suite}::`;
  else if (suite === '') prefix = `${classname}::`;
  else prefix = `${suite}::${classname}::`;
  return project === undefined ? prefix : `[${project}] ${prefix}`;
}

export const SUITE_LEVEL_NAME = '<suite>';

// The leading token of a message such as `AssertionError: expected 1`,
// `java.lang.IllegalStateException: bla` or pytest's `E   ValueError`.
const LEADING_NAME = /^(?:E\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?=[:\s(]|$)/;
const EXCEPTION_LIKE = /(?:Error|Exception|Failure|Fault|Panic)$/;
const RUST_PANIC = /^thread '.*' panicked at /;
// Rust 1.73+ prints the location first and the panic message on the next line.
const RUST_PANIC_LOCATION_ONLY = /^thread '.*' panicked at \S+:\d+:\d+:$/;
// The last line of a pytest traceback: `tests/test_x.py:25: AssertionError`.
const PYTEST_CRASH_LINE = /^\S+\.py:\d+: ([A-Za-z_][\w.]*)$/;

/**
 * What kind of failure this is, for signatures: the `type` attribute when the
 * runner wrote one, else an exception name read off the message or body.
 */
export function failureKind(type: string, message: string, body: string, element: string): string {
  const declared = foldWhitespace(type);
  if (declared !== '') return declared;
  for (const text of [message, body]) {
    const line = firstLine(text);
    if (line === '') continue;
    if (RUST_PANIC.test(line)) return 'panic';
    const m = LEADING_NAME.exec(line);
    if (m && EXCEPTION_LIKE.test(m[1]!)) return m[1]!;
  }
  const crash = lastLine(body, PYTEST_CRASH_LINE);
  if (crash !== undefined) return crash;
  return element;
}

/**
 * The message a human reads first, when the element has no `message`
 * attribute: the body's first non-blank line, or for a Rust panic printed
 * location-first, the panic message on the line after it.
 */
export function messageFromBody(body: string): string {
  const line = firstLine(body);
  if (!RUST_PANIC_LOCATION_ONLY.test(line)) return line;
  const rest = body.slice(body.indexOf(line) + line.length);
  return firstLine(rest) || line;
}

/** The capture of `pattern` on the last line it matches in `text` (scanned from the end). */
function lastLine(text: string, pattern: RegExp): string | undefined {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const m = pattern.exec(text.slice(start, end).trim());
    if (m) return m[1];
    end = start - 1;
  }
  return undefined;
}

// Times written with the runner's locale. One comma and no dot is a decimal
// comma: xUnit.net and TestNG on a German or French locale write 14 ms as
// "0,014", and "1,234" from them is 1.234 s. Only a dot or a second group
// makes the comma a thousands separator: JUnit 5 and the xunit logger on an
// English locale write "2,503.1" and "1,244.415". A German locale groups with
// dots, "1.234,5". A leading zero group is no thousands separator.
const DECIMAL_COMMA = /^\d+,\d+$/;
const THOUSANDS = /^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d*)?$/;
const THOUSANDS_DOT = /^[1-9]\d{0,2}(?:\.\d{3})+,\d+$/;
// Integer durations this large are not seconds (a million seconds is eleven
// days); container-structure-test writes Go's time.Duration, in nanoseconds.
const NANOSECONDS_ABOVE = 1e6;

/** Seconds, or undefined for a missing, negative or unreadable time. */
export function parseTime(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const fast = plainDecimal(raw);
  if (fast >= 0) return fast > NANOSECONDS_ABOVE && raw.indexOf('.') < 0 ? fast / 1e9 : fast;
  const s = raw.trim();
  if (s === '') return undefined;
  let n = Number(s);
  if (Number.isNaN(n)) {
    if (DECIMAL_COMMA.test(s)) n = Number(s.replace(',', '.'));
    else if (THOUSANDS.test(s)) n = Number(s.replace(/,/g, ''));
    else if (THOUSANDS_DOT.test(s)) n = Number(s.replace(/\./g, '').replace(',', '.'));
  }
  if (!Number.isFinite(n) || n < 0) return undefined;
  if (n > NANOSECONDS_ABOVE && /^\d+$/.test(s)) return n / 1e9;
  return n;
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * `digits[.digits]` with at most 15 significant digits, else -1. Such a value
 * is m / 10^k with m and 10^k exact doubles, so one IEEE division gives the
 * same correctly rounded result as Number(), at a fraction of its cost on the
 * sliced strings saxes hands out (profiles of large reports showed Number()
 * at 6% of the parse).
 */
function plainDecimal(s: string): number {
  let m = 0;
  let k = 0;
  let digits = 0;
  let dot = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30);
      digits++;
      if (dot) k++;
    } else if (c === 0x2e && !dot) dot = true;
    else return -1;
  }
  if (digits === 0 || digits > 15 || k > 22) return -1;
  return k === 0 ? m : m / POW10[k]!;
}

// Result markers written as testcase attributes rather than elements.
const SKIP_STATUS = new Set(['notrun', 'disabled', 'skipped', 'skip', 'ignored']);
const FAILED_STATUS = new Set(['failed', 'failure', 'fail']);
const ERROR_STATUS = new Set(['error', 'errored']);
const SKIP_RESULT = new Set(['skipped', 'suppressed']);

export type AttributeVerdict =
  | { status: 'skipped'; type: string }
  | { status: 'failed' | 'error'; type: string }
  | undefined;

/** The verdict a testcase's `status`/`result` attributes carry; elements always take precedence. */
export function attributeVerdict(status: string | undefined, result: string | undefined): AttributeVerdict {
  if (status !== undefined) {
    const s = status.trim().toLowerCase();
    if (ERROR_STATUS.has(s)) return { status: 'error', type: s };
    if (FAILED_STATUS.has(s)) return { status: 'failed', type: s };
    if (SKIP_STATUS.has(s)) return { status: 'skipped', type: s };
  }
  if (result !== undefined) {
    const r = result.trim().toLowerCase();
    if (SKIP_RESULT.has(r)) return { status: 'skipped', type: r };
  }
  return undefined;
}
