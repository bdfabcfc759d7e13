import { InputError } from '../errors.js';

export function usage(message: string): InputError {
  return new InputError('USAGE', `${message}\nRun \`patchgate --help\` for usage.`);
}
