/**
 * The host's writer thread: the only code that writes the channel. It signs
 * every line, and while the main thread is busy in a long synchronous loop
 * of head code it keeps forwarding the task's heartbeat (checks started,
 * check running), so the gate can tell a slow run from a hung check without
 * head code ever having to yield.
 */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { signLine } from '../channel.js';

const { fd, key, beatMs } = workerData as { fd: number; key: string; beatMs: number };
let seq = 0;
let beat: { id: number; slots: Int32Array } | undefined;
let last = '';
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function send(body: string): void {
  const line = Buffer.from(signLine(key, seq++, body), 'utf8');
  for (let off = 0; off < line.length; ) {
    try {
      off += writeSync(fd, line, off);
    } catch (err) {
      // The channel is non-blocking on the gate's side of the loop: wait for room.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

function tick(): void {
  if (!beat) return;
  const s = beat.slots;
  const now = `${Atomics.load(s, 0)},${Atomics.load(s, 1)},${Atomics.load(s, 2)},${Atomics.load(s, 3)}`;
  if (now === last) return;
  last = now;
  send(`{"id":${beat.id},"beat":[${now}]}`);
}

setInterval(tick, beatMs);

parentPort?.on(
  'message',
  (
    m:
      | { kind: 'send'; body: string }
      | { kind: 'beat'; id: number; sab: SharedArrayBuffer }
      | { kind: 'idle' },
  ) => {
    if (m.kind === 'send') {
      // The last beat of a task goes out before its answer.
      tick();
      beat = undefined;
      last = '';
      send(m.body);
    } else if (m.kind === 'beat') {
      beat = { id: m.id, slots: new Int32Array(m.sab) };
      last = '';
    }
  },
);
