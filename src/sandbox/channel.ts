/**
 * Framing of the channel between the gate and a head process (fd 3, never
 * stdout). The gate sends a fresh random key as its first line, before the
 * head process loads any head module; every line the head process sends back
 * carries an HMAC of its sequence number and body under that key. A module
 * that writes protocol-like lines of its own (on stdout, or on the channel
 * itself) cannot sign them, so they end the process in an error, never in
 * an answer. Python's adapter implements the same framing.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Hex characters of the MAC kept on each line: 128 bits. */
const MAC_HEX = 32;

export function newChannelKey(): string {
  return randomBytes(32).toString('hex');
}

export function macOf(key: string, seq: number, body: string): string {
  return createHmac('sha256', Buffer.from(key, 'hex'))
    .update(`${seq}\n${body}`)
    .digest('hex')
    .slice(0, MAC_HEX);
}

/** One signed line, newline included. */
export function signLine(key: string, seq: number, body: string): string {
  return `${macOf(key, seq, body)} ${body}\n`;
}

/**
 * The body of a signed line, or why it cannot be trusted. `seq` is the
 * number of lines accepted before it: a replayed or dropped line fails too.
 */
export function verifyLine(
  key: string,
  seq: number,
  line: string,
): { ok: true; body: string } | { ok: false; reason: string } {
  const space = line.indexOf(' ');
  if (space !== MAC_HEX) return { ok: false, reason: 'a line without the channel signature' };
  const got = Buffer.from(line.slice(0, space), 'utf8');
  const body = line.slice(space + 1);
  const want = Buffer.from(macOf(key, seq, body), 'utf8');
  if (got.length !== want.length || !timingSafeEqual(got, want)) {
    return {
      ok: false,
      reason: "a line whose signature does not match (not written by patchgate's adapter)",
    };
  }
  return { ok: true, body };
}

/**
 * JSON with typed arrays: a Uint8Array travels as `{"$u8": base64}`. Plain
 * JSON otherwise; the structured clone of worker threads is not available
 * between processes.
 */
export function encodeMessage(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v instanceof Uint8Array
      ? { $u8: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') }
      : v,
  );
}

export function decodeMessage(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.$u8 === 'string' && Object.keys(o).length === 1)
        return new Uint8Array(Buffer.from(o.$u8, 'base64'));
    }
    return v;
  });
}
