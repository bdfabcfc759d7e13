import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';

/** The text of a contract file, or undefined when it does not exist; any other read failure is an input error. */
export async function readContractTextIfExists(
  root: string,
  file: string,
  revision: string,
): Promise<string | undefined> {
  try {
    return await readFile(path.join(root, file), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError('FILE_UNREADABLE', `cannot read ${file} in ${revision}: ${(err as Error).message}`, {
      file,
    });
  }
}

/**
 * The text of a contract file the config names. A missing one is an input
 * error that says how a human creates it, never an empty contract.
 */
export async function readContractText(
  root: string,
  file: string,
  revision: string,
  howToCreate: string,
): Promise<string> {
  const text = await readContractTextIfExists(root, file, revision);
  if (text === undefined) {
    throw new InputError('CONTRACT_INVALID', `${file} does not exist in ${revision}; ${howToCreate}`, {
      file,
    });
  }
  return text;
}
