/**
 * The program head JavaScript runs in: one child process per pool slot,
 * started through the sandbox. The gate sends a setup line (the channel key
 * and the handler module, which is patchgate's own), then tasks, one at a
 * time; the handler (the hits scorer, the seed replayer) imports the head's
 * modules and answers. Answers and heartbeats are signed by the relay thread.
 */
import { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { decodeMessage, encodeMessage } from '../channel.js';

const CHANNEL_FD = 3;
const HEARTBEAT_BYTES = 16;

interface Setup {
  key: string;
  handler: string;
  beatMs: number;
}

type Handler = (task: unknown) => Promise<unknown>;

const channel = new Socket({ fd: CHANNEL_FD, readable: true, writable: false });
let buffered = '';
let setup: Setup | undefined;
let relay: Worker | undefined;
let handler: Handler | undefined;
let queue: Promise<void> = Promise.resolve();

function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`;
  return (text.split('\n')[0] ?? text).slice(0, 500);
}

async function runTask(id: number, task: Record<string, unknown>): Promise<void> {
  let body: string;
  try {
    if (Object.hasOwn(task, 'progress')) {
      const sab = new SharedArrayBuffer(HEARTBEAT_BYTES);
      task.progress = sab;
      relay?.postMessage({ kind: 'beat', id, sab });
    }
    const result = await (handler as Handler)(task);
    body = encodeMessage({ id, result });
  } catch (err) {
    body = JSON.stringify({ id, error: errorText(err) });
  }
  relay?.postMessage({ kind: 'send', body });
}

async function onLine(line: string): Promise<void> {
  if (setup === undefined) {
    setup = JSON.parse(line) as Setup;
    relay = new Worker(new URL('./relay.js', import.meta.url), {
      workerData: { fd: CHANNEL_FD, key: setup.key, beatMs: setup.beatMs },
    });
    relay.unref();
    const mod = (await import(setup.handler)) as { default: Handler };
    handler = mod.default;
    relay.postMessage({ kind: 'send', body: '{"ready":true}' });
    return;
  }
  const { id, task } = decodeMessage(line) as { id: number; task: Record<string, unknown> };
  queue = queue.then(() => runTask(id, task));
}

channel.setEncoding('utf8');
channel.on('data', (chunk: string) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    queue = queue.then(() => onLine(line));
  }
});
// The gate closed the channel: nothing more will be asked.
channel.on('end', () => {
  void queue.then(() => setTimeout(() => process.exit(0), 10));
});
channel.on('error', () => process.exit(70));
