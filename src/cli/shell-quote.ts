/** Characters a POSIX shell passes through unquoted. */
const PLAIN = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** One argument, quoted for sh/bash/zsh so a printed command can be pasted as is. */
export function shellQuote(arg: string): string {
  if (arg !== '' && PLAIN.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
