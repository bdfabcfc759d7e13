import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Finding } from '../../src/layers/types.js';
import type { Scorecard } from '../../src/report/scorecard.js';
import type { CliResult } from './gitdir.js';

export type { Finding, Scorecard };

/** Where `patchgate check` writes when no --out is given. */
export function defaultOut(repoDir: string): string {
  return path.join(repoDir, '.patchgate', 'out');
}

/** A file of the out folder that is missing or is not what it should be; says which file and why. */
export class OutFileError extends Error {
  readonly code = 'TEST_OUT_FILE';
  constructor(
    readonly file: string,
    why: string,
    run?: CliResult,
  ) {
    // The run's exit code and stderr are what explain a missing scorecard; without them a failing
    // test says only ENOENT.
    super(
      `${file}: ${why}${run ? ` (the run exited ${run.code}; stderr: ${run.stderr.trim().slice(-2000) || '(empty)'})` : ''}`,
    );
    this.name = 'OutFileError';
  }
}

/** The text of `name` in the out folder; throws OutFileError naming the file when it is not there. */
export function readOutText(outDir: string, name: string, run?: CliResult): string {
  const file = path.join(outDir, name);
  if (!existsSync(file)) throw new OutFileError(file, 'not written', run);
  return readFileSync(file, 'utf8');
}

/** `name` in the out folder parsed as JSON; throws OutFileError naming the file when absent or not JSON. */
export function readOutJson<T = unknown>(outDir: string, name: string, run?: CliResult): T {
  const text = readOutText(outDir, name, run);
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new OutFileError(path.join(outDir, name), `not JSON: ${(e as Error).message}`, run);
  }
}

/** `name` in the out folder parsed as JSON, or undefined when the run did not write it. */
export function readOutJsonIfAny<T = unknown>(outDir: string, name: string): T | undefined {
  return existsSync(path.join(outDir, name)) ? readOutJson<T>(outDir, name) : undefined;
}

/**
 * The run's scorecard.json, typed as the gate writes it. Its shape is checked where the tests lean on it
 * (verdict, findings, layers), so a scorecard the writer got wrong fails here naming the field rather
 * than as an `undefined` deep inside an assertion.
 */
export function readScorecard(outDir: string, run?: CliResult): Scorecard {
  const card = readOutJson<Record<string, unknown>>(outDir, 'scorecard.json', run);
  const file = path.join(outDir, 'scorecard.json');
  if (typeof card !== 'object' || card === null || Array.isArray(card))
    throw new OutFileError(file, 'expected a JSON object', run);
  if (typeof card.verdict !== 'string') throw new OutFileError(file, 'field verdict: expected a string', run);
  for (const field of ['findings', 'layers'])
    if (!Array.isArray(card[field])) throw new OutFileError(file, `field ${field}: expected an array`, run);
  return card as unknown as Scorecard;
}

/** The codes of the findings that count against the patch (warnings left out), in scorecard order. */
export function blockingCodes(card: Pick<Scorecard, 'findings'>): string[] {
  return card.findings.filter((f) => f.severity !== 'warn').map((f) => f.code);
}
