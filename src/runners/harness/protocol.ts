/**
 * The patchgate-harness/1 wire format (docs/harness-protocol.md): JSON lines
 * between patchgate and a child process that runs properties written in
 * another language. The child is head code, so everything it writes is
 * validated here before the client believes any of it.
 */
import { z } from 'zod';
import type { Status } from '../../layers/hits/model.js';

/** The only protocol this client speaks; a harness announcing anything else is refused. */
export const HARNESS_PROTOCOL = 'patchgate-harness/2';

export type HarnessErrorCode =
  /** The child wrote something that is not a valid response (bad JSON, wrong id, wrong shape or length, wrong version). */
  | 'HARNESS_PROTOCOL'
  /** The child exited (or was killed by someone else) while requests were pending. */
  | 'HARNESS_CRASHED'
  /** A request took longer than its budget; the child was killed. */
  | 'HARNESS_TIMEOUT'
  /** The child could not be spawned, exited before answering `hello`, or refused it. */
  | 'HARNESS_START_FAILED'
  /** The harness answered a request with `{"error": …}` (e.g. an unknown property); it is still running. */
  | 'HARNESS_REQUEST_FAILED'
  /** The request was made after (or cut off by) `close()`. */
  | 'HARNESS_CLOSED';

/**
 * Anything that went wrong talking to a harness or running a check command.
 * The message names the command; `details` carries the machine-readable facts
 * (offending line, property, fixture range, exit code, stderr tail…).
 */
export class HarnessError extends Error {
  readonly code: HarnessErrorCode;
  readonly command: readonly string[];
  readonly details: Record<string, unknown>;

  constructor(
    code: HarnessErrorCode,
    command: readonly string[],
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HarnessError';
    this.code = code;
    this.command = [...command];
    this.details = details;
  }
}

/** A command as a shell user would read it, for messages (not for running). */
export function formatCommand(command: readonly string[]): string {
  return command.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** At most `max` characters of an offending line, quoted, with its real length when cut. */
export function truncateLine(line: string, max = 200): string {
  if (line.length <= max) return JSON.stringify(line);
  return `${JSON.stringify(line.slice(0, max))}… (${line.length} characters)`;
}

/** A harness-supplied error text as one bounded line. */
export function oneLine(text: string, max = 500): string {
  const first =
    text
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  return first.length <= max ? first : `${first.slice(0, max)}…`;
}

/**
 * A fixture that is already JSON text, sent verbatim instead of through
 * `JSON.stringify`. Use it to keep what plain JS values lose: integers beyond
 * 2^53, `-0`, or Python's `NaN`/`Infinity` extensions. The text must be one
 * JSON value; line breaks (only legal as whitespace) are flattened.
 */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, ' ') : text;
  }
}

/** The JSON text of one fixture for the wire. Throws TypeError for values JSON cannot carry. */
export function fixtureJson(fixture: unknown): string {
  if (fixture instanceof JsonText) return fixture.text;
  const text = JSON.stringify(fixture);
  if (typeof text !== 'string') {
    throw new TypeError(`a fixture must be a JSON value, got ${typeof fixture}`);
  }
  return text;
}

// ---------------------------------------------------------------- messages

const requestId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const harnessMethodSchema = z.enum(['hello', 'list', 'check', 'shutdown']);
export type HarnessMethod = z.infer<typeof harnessMethodSchema>;

/** What patchgate sends. Exported for implementers' tests and fakes; the client builds these itself. */
export const harnessRequestSchema = z.object({
  id: requestId,
  method: harnessMethodSchema,
  params: z.unknown().optional(),
});
export type HarnessRequest = z.infer<typeof harnessRequestSchema>;

export const helloParamsSchema = z.object({ protocol: z.string() });
export const checkParamsSchema = z.object({ property: z.string(), fixtures: z.array(z.unknown()) });

/** Every line a harness writes on stdout: exactly one of `result` and `error`. */
export const harnessResponseSchema = z
  .object({
    id: requestId,
    result: z.unknown().optional(),
    error: z.object({ message: z.string() }).optional(),
  })
  .refine((r) => 'result' in r !== 'error' in r, {
    message: 'a response has exactly one of "result" and "error"',
  });
export type HarnessResponse = z.infer<typeof harnessResponseSchema>;

export const helloResultSchema = z.object({
  protocol: z.string(),
  language: z.string(),
  implementation: z.string(),
});
export type HarnessHello = z.infer<typeof helloResultSchema>;

export const listResultSchema = z
  .object({
    properties: z.array(z.object({ name: z.string().min(1), claims: z.array(z.string()) })),
  })
  .superRefine((r, ctx) => {
    const seen = new Set<string>();
    r.properties.forEach((p, i) => {
      if (seen.has(p.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['properties', i, 'name'],
          message: `duplicate property name ${JSON.stringify(p.name)}`,
        });
      }
      seen.add(p.name);
    });
  });
export type HarnessListResult = z.infer<typeof listResultSchema>;

export const checkResultSchema = z.object({
  results: z.array(
    z.object({
      status: z.enum(['pass', 'fail']),
      // null is tolerated for "no error": some JSON writers cannot omit a field.
      error: z.string().nullish(),
    }),
  ),
});
export type HarnessCheckResult = z.infer<typeof checkResultSchema>;

export const shutdownResultSchema = z.unknown();

/** A property as a harness lists it. */
export interface HarnessProperty {
  name: string;
  /** Claimed fixture fields (JSON paths), in the harness's order (the Python adapter sorts them). */
  claims: string[];
}

/** What one check of one fixture produced. */
export interface CheckOutcome {
  status: Status;
  /** Why it failed: one line, from the harness or the command. Absent on pass. */
  error?: string;
}

// ---------------------------------------------------------------- decoding

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The first few zod issues as one line. */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => {
    const where = i.path.length > 0 ? i.path.map(String).join('.') : '(root)';
    return `${where}: ${i.message}`;
  });
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

/** One stdout line of a harness, as an envelope, or why it is not one. */
export function decodeResponseLine(line: string): Decoded<HarnessResponse> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { ok: false, reason: `not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, reason: 'a response must be a JSON object' };
  }
  const parsed = harnessResponseSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: `not a response: ${describeIssues(parsed.error)}` };
  return { ok: true, value: parsed.data };
}

/** A `result` checked against the schema of the method that was asked. */
export function decodeResult<T>(schema: z.ZodType<T>, result: unknown, method: string): Decoded<T> {
  const parsed = schema.safeParse(result);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, reason: `invalid ${method} result: ${describeIssues(parsed.error)}` };
}

/** A check result that must answer exactly `expected` fixtures, normalized to outcomes. */
export function decodeCheckResult(result: unknown, expected: number): Decoded<CheckOutcome[]> {
  const parsed = decodeResult(checkResultSchema, result, 'check');
  if (!parsed.ok) return parsed;
  const { results } = parsed.value;
  if (results.length !== expected) {
    return {
      ok: false,
      reason: `check answered ${results.length} result${results.length === 1 ? '' : 's'} for ${expected} fixture${expected === 1 ? '' : 's'}`,
    };
  }
  return {
    ok: true,
    value: results.map((r): CheckOutcome => {
      if (r.status === 'pass') return { status: 'pass' };
      const error = typeof r.error === 'string' ? oneLine(r.error) : '';
      return error === '' ? { status: 'fail' } : { status: 'fail', error };
    }),
  };
}
