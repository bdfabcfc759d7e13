/**
 * The environment head code runs with: enough to find interpreters and
 * temp space, nothing else. Override tokens, CI secrets and cloud
 * credentials never reach a property, a harness or a test command.
 */
const PASS_THROUGH = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TEMP',
  'TMP',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'SYSTEMROOT',
  'PYENV_ROOT',
  'PYENV_VERSION',
];

export function scrubbedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PASS_THROUGH) {
    const v = env[key];
    if (v !== undefined) out[key] = v;
  }
  // Python's own output must be UTF-8 whatever the machine's locale, or digests and messages drift.
  out.PYTHONUTF8 = '1';
  out.PYTHONDONTWRITEBYTECODE = '1';
  return out;
}
