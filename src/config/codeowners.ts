/**
 * A CODEOWNERS snippet for the files only humans change: the config, every
 * contract file the enabled layers name, the claim matrix's globs and the
 * protected globs (CI workflows, CODEOWNERS itself). With code-owner review
 * required on the branch, an agent's pull request cannot change them
 * unreviewed, on top of the gate rejecting it.
 */
import ignore from 'ignore';
import type { ContractPath } from '../contracts/format.js';

/** The owner as CODEOWNERS spells it: `@team`, `@org/team` or an e-mail address. */
export function codeownersOwner(owner: string | undefined): string {
  if (owner === undefined || owner.trim() === '') return '@OWNER';
  const o = owner.trim();
  return o.startsWith('@') || o.includes('@') ? o : `@${o}`;
}

/**
 * A repo-relative glob as a CODEOWNERS pattern anchored at the root, or
 * undefined when CODEOWNERS cannot express it (braces, character classes,
 * negation are not part of its syntax).
 */
export function codeownersPattern(glob: string): string | undefined {
  if (/[{}[\]!\\]/.test(glob) || /\s/.test(glob)) return undefined;
  const dir = /^(.*)\/\*\*$/.exec(glob);
  if (dir) return `/${dir[1]}/`;
  return `/${glob}`;
}

export interface CodeownersInput {
  /** The contract files the enabled layers name (globs included). */
  contracts: readonly ContractPath[];
  /** `contracts.protect`. */
  protect: readonly string[];
  owner?: string;
}

/** The snippet, one line per contract file or glob, with a header saying what it is for. */
export function codeownersSnippet(input: CodeownersInput): string {
  const owner = codeownersOwner(input.owner);
  const lines = [
    '# patchgate: the config and the contract files only humans change.',
    '# Add these lines to CODEOWNERS (or .github/CODEOWNERS) and require review from code owners',
    '# on the protected branch, so no agent pull request changes them without that review.',
  ];
  if (owner === '@OWNER')
    lines.push('# Replace @OWNER with the team that owns the rules, e.g. @your-org/maintainers.');
  const seen = new Set<string>();
  const add = (pattern: string | undefined, glob: string, why: string) => {
    if (pattern === undefined) {
      lines.push(`# ${glob} (${why}) cannot be written as a CODEOWNERS pattern: list its files one by one`);
      return;
    }
    if (seen.has(pattern)) return;
    seen.add(pattern);
    lines.push(`${pattern} ${owner}`);
  };
  // Every config file name: a patch may not shadow the config with another format either.
  add('/patchgate.config.*', 'patchgate.config.*', 'config');
  for (const c of input.contracts) add(codeownersPattern(c.path), c.path, c.role);
  for (const g of input.protect) add(codeownersPattern(g), g, 'contracts.protect');
  return `${lines.join('\n')}\n`;
}

/** Where GitHub looks for CODEOWNERS, in its order: the first one that exists is the one in force. */
export const CODEOWNERS_FILES = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;

export interface CodeownersRule {
  pattern: string;
  /** Empty for a pattern that leaves its files without an owner. */
  owners: string[];
  line: number;
}

/**
 * The rules of a CODEOWNERS text: `pattern owner…` per line, `#` comments
 * (a `\#` is a literal `#`), blank lines skipped.
 */
export function parseCodeowners(text: string): CodeownersRule[] {
  const rules: CodeownersRule[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/(^|[^\\])#.*$/, '$1').trim();
    if (line === '') continue;
    const [pattern, ...owners] = line.split(/\s+/);
    if (pattern === undefined) continue;
    // `\#` stays escaped: the pattern is read with gitignore's rules, where it means a literal `#`.
    rules.push({ pattern, owners, line: i + 1 });
  }
  return rules;
}

/**
 * The owners CODEOWNERS gives a repo-relative file: those of the last rule
 * whose pattern matches it, as GitHub decides (patterns follow gitignore's
 * rules, read with the `ignore` package, which implements them), or none.
 */
export function ownersOf(
  rules: readonly CodeownersRule[],
  file: string,
): { owners: string[]; line: number } | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    let matches = false;
    try {
      matches = ignore().add(rule.pattern).ignores(file);
    } catch {
      // A pattern gitignore cannot read matches nothing, as GitHub skips it.
    }
    if (matches) return { owners: rule.owners, line: rule.line };
  }
  return undefined;
}
