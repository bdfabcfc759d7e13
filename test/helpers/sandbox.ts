import { openSandbox } from '../../src/sandbox/open.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

let opened: Promise<Sandbox> | undefined;

/**
 * The real sandbox of this machine (bubblewrap when it works here, plain
 * processes otherwise), opened once per test file: tests drive head code
 * through the same door the gate uses.
 */
export function testSandbox(): Promise<Sandbox> {
  opened ??= openSandbox(process.env);
  return opened;
}
