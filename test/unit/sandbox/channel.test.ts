/**
 * The signed framing of the channel between the gate and a head process: a
 * line head code wrote itself (unsigned, replayed, reordered, edited, or
 * signed under another key) must never verify.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeMessage,
  encodeMessage,
  macOf,
  newChannelKey,
  signLine,
  verifyLine,
} from '../../../src/sandbox/channel.js';

const key = newChannelKey();
/** A signed line as the reader sees it: without its newline. */
const signed = (seq: number, body: string, k = key) => signLine(k, seq, body).slice(0, -1);

describe('signLine / verifyLine', () => {
  it('a line signed for its place in the sequence verifies, body intact (spaces included)', () => {
    const body = '{"id":1,"result":{"note":"a b  c"}}';
    const line = signLine(key, 3, body);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.split(' ', 1)[0]).toHaveLength(32);
    expect(verifyLine(key, 3, signed(3, body))).toEqual({ ok: true, body });
  });

  it('a line without a signature is refused as such', () => {
    expect(verifyLine(key, 0, '{"id":1,"result":true}')).toEqual({
      ok: false,
      reason: 'a line without the channel signature',
    });
    // A prefix of the wrong length is no signature either, whatever it looks like.
    expect(verifyLine(key, 0, `${macOf(key, 0, 'x').slice(0, 31)} x`)).toMatchObject({ ok: false });
  });

  const forged = "a line whose signature does not match (not written by patchgate's adapter)";

  it('a replayed or dropped line fails: the signature covers its sequence number', () => {
    const line = signed(4, '{"id":4}');
    expect(verifyLine(key, 5, line)).toEqual({ ok: false, reason: forged });
    expect(verifyLine(key, 3, line)).toEqual({ ok: false, reason: forged });
  });

  it('an edited body fails, and so does a line signed under another key', () => {
    const line = signed(0, '{"verdict":"fail"}');
    expect(verifyLine(key, 0, line.replace('fail', 'pass'))).toEqual({ ok: false, reason: forged });
    expect(verifyLine(key, 0, signed(0, '{"verdict":"pass"}', newChannelKey()))).toEqual({
      ok: false,
      reason: forged,
    });
  });

  it('each channel gets a fresh 256-bit key', () => {
    const a = newChannelKey();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(newChannelKey()).not.toBe(a);
  });
});

describe('encodeMessage / decodeMessage', () => {
  it('carries bytes as bytes, a view into a larger buffer included', () => {
    const whole = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const view = whole.subarray(2, 5);
    const back = decodeMessage(encodeMessage({ bytes: view, list: [new Uint8Array([0, 255])] })) as {
      bytes: Uint8Array;
      list: Uint8Array[];
    };
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect([...back.bytes]).toEqual([1, 2, 3]);
    expect([...(back.list[0] ?? [])]).toEqual([0, 255]);
  });

  it('leaves an object that only looks like bytes (another key beside $u8) as it is', () => {
    const value = { $u8: 'AQID', also: 1 };
    expect(decodeMessage(encodeMessage(value))).toEqual(value);
    expect(decodeMessage('{"$u8":5}')).toEqual({ $u8: 5 });
  });

  it('is plain JSON for everything else', () => {
    const value = { a: [1, 'two', null, true], b: { c: 'd' } };
    expect(encodeMessage(value)).toBe(JSON.stringify(value));
    expect(decodeMessage(JSON.stringify(value))).toEqual(value);
  });
});
