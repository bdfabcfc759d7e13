import { InputError } from '../errors.js';

/** The line every usage error ends with: where the command's options are explained. */
export function seeHelp(command?: string): string {
  return `see patchgate ${command ? `${command} ` : ''}--help`;
}

/**
 * A usage error (exit 2). With `command`, it ends with the pointer to that
 * command's help; without, the CLI's dispatcher adds the pointer for the
 * command it was running (see `withHelpPointer`).
 */
export function usage(message: string, command?: string): InputError {
  return new InputError('USAGE', command ? `${message}\n${seeHelp(command)}` : message);
}

/** A usage error's message, ending with the help pointer of `command` unless it already ends with one. */
export function withHelpPointer(message: string, command?: string): string {
  return /\nsee patchgate [a-z ]*--help$/.test(message) ? message : `${message}\n${seeHelp(command)}`;
}
