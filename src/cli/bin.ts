#!/usr/bin/env node
import { main } from './main.js';

// The only file that touches the process: arguments, environment, signals, exit code.
const controller = new AbortController();
let signalled: NodeJS.Signals | undefined;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    // A second signal means "now": leave without waiting for cleanup.
    if (signalled) process.exit(sig === 'SIGINT' ? 130 : 143);
    signalled = sig;
    controller.abort(new Error(`received ${sig}`));
  });
}

const code = await main({
  argv: process.argv.slice(2),
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
  pid: process.pid,
  ...(process.argv[1] ? { script: process.argv[1] } : {}),
});
process.exitCode = signalled ? (signalled === 'SIGINT' ? 130 : 143) : code;
