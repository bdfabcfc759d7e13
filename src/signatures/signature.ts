import { createHash } from 'node:crypto';
import { normalizeMessage, type SignatureScheme } from './normalize.js';

/**
 * A failure signature: the template is `kind|normalized message`,
 * the signature is the SHA-256 of the template's UTF-8 bytes. Rows in
 * `flake_signatures.json` match on this hash, never on a test name, so a
 * renamed test cannot step out from under its freeze.
 */
export interface FailureSignature {
  sha256: string;
  template: string;
}

/**
 * UTF-8 cannot encode a lone surrogate. Python's `str.encode()` raises on one;
 * `Buffer.from` would silently write U+FFFD. Replacing it in the template
 * first keeps the stored template and its hash in agreement. JUnit XML cannot
 * carry lone surrogates, so seed-hashed rows never contain one.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

/** SHA-256 (lowercase hex) of a template's UTF-8 bytes. */
export function templateDigest(template: string): string {
  return createHash('sha256').update(template, 'utf8').digest('hex');
}

export function failureSignature(kind: string, message: string, scheme: SignatureScheme): FailureSignature {
  const template = `${kind}|${normalizeMessage(message, scheme)}`.replace(LONE_SURROGATE, '\uFFFD');
  return { sha256: templateDigest(template), template };
}

/**
 * An exception name at the start of a message: dotted names allowed
 * (`java.lang.AssertionError`), an optional Node error code
 * (`AssertionError [ERR_ASSERTION]:`), then a colon. The name must look like
 * an error type, or `Expected: 5` would make "Expected" a kind.
 */
const MESSAGE_KIND =
  /^\s*((?:[A-Za-z_$][\w$]*\.)*(?:[A-Za-z_$][\w$]*(?:Error|Exception|Failure|Failed|Fault|Warning|Panic)|Error|Exception|panic))(?:[ \t]*\[[A-Z0-9_]+\])?[ \t]*:(?:\s|$)/;

/**
 * The kind half of a signature for one `<failure>` or `<error>` element: its
 * `type` attribute when the runner wrote one, else the exception named at the
 * start of the message, else the element's own name. Whitespace around a type
 * attribute is formatting, not identity.
 */
export function kindOf(failure: {
  type?: string | undefined;
  message?: string | undefined;
  element?: 'failure' | 'error' | undefined;
}): string {
  const type = failure.type?.trim();
  if (type) return type;
  const named = MESSAGE_KIND.exec(failure.message ?? '')?.[1];
  if (named) return named;
  return failure.element ?? 'failure';
}

/**
 * The kind for a skipped test. pytest marks expected failures as skips with
 * type `pytest.xfail`; they get their own kind so freezing a skip never also
 * freezes an xfail with the same reason text.
 */
export function skipKind(
  skipped: { type?: string | undefined } | undefined,
  status?: string,
): 'skipped' | 'xfailed' {
  if (skipped?.type?.trim() === 'pytest.xfail') return 'xfailed';
  if (status !== undefined && /^x-?fail/i.test(status)) return 'xfailed';
  return 'skipped';
}
