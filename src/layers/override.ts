import type { Finding, Override, OverrideTokens } from './types.js';

/**
 * The override tokens of `env`, the only thing layers learn of it. A token
 * counts only when the variable holds something; whitespace is not a token.
 */
export function overrideTokens(env: Readonly<Record<string, string | undefined>>): OverrideTokens {
  return { active: (variable) => (env[variable] ?? '').trim().length > 0 };
}

/**
 * Turns a rejection a human job accepted into a warning that says so, and
 * records the override for the scorecard (the variable's name, never its value).
 */
/**
 * A finding a human job may override, marked with the variable that does it, so
 * the reviewer sees there is a human path (and which) without reading docs.
 */
export function overridable(f: Finding, variable: string): Finding {
  return { ...f, evidence: { ...f.evidence, override: variable } };
}

export function acceptedByHuman(f: Finding, path: string, variable: string, overrides: Override[]): Finding {
  overrides.push({ layer: f.layer, code: f.code, path, variable });
  return {
    ...f,
    severity: 'warn',
    message: `${f.message}; accepted because ${variable} is set (human override)`,
  };
}
