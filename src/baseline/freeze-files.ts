/**
 * The freeze files a baseline adds rows to, read and rendered with the very
 * readers the gate uses: what is written must read back, and a file that
 * does not read is never rewritten (the human fixes it first).
 */
import { InputError } from '../errors.js';
import {
  formatSignatureFreeze,
  parseSignatureFreeze,
  type SignatureFreeze,
  type SignatureRow,
} from '../freeze/signature-freeze.js';
import {
  formatStabilityFreeze,
  parseStabilityFreeze,
  type StabilityFreezeRow,
  stabilityFreezeSchema,
} from '../freeze/stability-freeze.js';
import type { Git } from '../git/git.js';

/** One freeze file as the working tree has it. */
export interface FreezeFileNow {
  file: string;
  /** Undefined when the file does not exist yet. */
  text: string | undefined;
}

/**
 * Refuses a freeze file with changes git has not committed: the rows a
 * baseline adds are reviewed as one diff against what is committed, never
 * mixed with an edit in progress. A file that is not tracked yet may only be
 * empty of rows (`patchgate init` writes it so).
 */
export async function refuseUncommitted(git: Git, now: FreezeFileNow, rows: number): Promise<void> {
  const status = await git.out(['status', '--porcelain=v1', '--untracked-files=all', '--', now.file]);
  const code = status.slice(0, 2);
  if (status === '' || (code === '??' && rows === 0)) return;
  throw new InputError(
    'BASELINE_REFUSED',
    code === '??'
      ? `${now.file} has ${rows} row(s) but is not committed: commit it (or remove it) first, so the baseline's rows are reviewed on their own`
      : `${now.file} has changes that are not committed (git status: ${JSON.stringify(code.trim())}): commit or revert them first, so the baseline's rows are reviewed on their own`,
    { file: now.file, status: code },
  );
}

export function readSignatureFreezeNow(now: FreezeFileNow): SignatureFreeze {
  return now.text === undefined ? { file: now.file, rows: [] } : parseSignatureFreeze(now.text, now.file);
}

/** The stability freeze's rows as written (the gate's reader checks them first). */
export function readStabilityRowsNow(now: FreezeFileNow): {
  $schema?: string;
  freezes: StabilityFreezeRow[];
} {
  if (now.text === undefined) return { freezes: [] };
  parseStabilityFreeze(now.text, now.file);
  return stabilityFreezeSchema.parse(JSON.parse(now.text));
}

/** The signature freeze with `rows` appended, read back with the gate's reader before it is returned. */
export function signatureFreezeWith(
  freeze: SignatureFreeze,
  rows: readonly SignatureRow[],
  schema?: string,
): string {
  const $schema = freeze.$schema ?? schema;
  const text = formatSignatureFreeze({
    ...($schema !== undefined ? { $schema } : {}),
    rows: [...freeze.rows, ...rows],
  });
  parseSignatureFreeze(text, freeze.file);
  return text;
}

/** The stability freeze with `rows` appended, read back with the gate's reader before it is returned. */
export function stabilityFreezeWith(
  file: string,
  now: { $schema?: string; freezes: readonly StabilityFreezeRow[] },
  rows: readonly StabilityFreezeRow[],
  schema?: string,
): string {
  const $schema = now.$schema ?? schema;
  const text = formatStabilityFreeze({
    ...($schema !== undefined ? { $schema } : {}),
    freezes: [...now.freezes, ...rows],
  });
  parseStabilityFreeze(text, file);
  return text;
}
