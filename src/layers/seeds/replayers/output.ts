/** Shared by the seed replayers: their common options, reports they read back, and durations in messages. */
import { readFile } from 'node:fs/promises';
import type { TapeRow } from '../../../contracts/seed-tape.js';
import type { Sandbox } from '../../../sandbox/sandbox.js';

/** What every replayer is given; each adds its own (interpreter, modules, workers). */
export interface ReplayerOptions {
  /** The checkout whose code runs (cwd of every process). */
  root: string;
  /** The tape's rows; each replayer replays only those of its runner. */
  rows: readonly TapeRow[];
  /** Variables added to the sandbox's own environment (the base config's `seeds.env`). */
  env: Record<string, string>;
  sandbox: Sandbox;
  /** `seeds.network`: network for the replay processes. */
  network?: boolean;
  signal?: AbortSignal;
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

/**
 * A JSON report a child process wrote, or why it cannot be used, as a phrase
 * that follows "its report <path>": `missing` names the phrase for a file
 * that was never written.
 */
export async function readJsonReport(
  file: string,
  missing: string,
): Promise<{ value: unknown } | { problem: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { problem: missing };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { problem: `is not valid JSON (${(e as Error).message})` };
  }
}
