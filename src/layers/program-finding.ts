/**
 * The programs the base config will run as head processes, and what the
 * sandbox makes of each: the same file as on this machine (nothing to say),
 * another one further down PATH (`PROGRAM_SUBSTITUTED`, a warning that says
 * which ran and how to get the other), or none at all (`PROGRAM_HIDDEN`, an
 * error verdict before any head code runs: the run could only fail).
 */
import type { PatchgateConfig } from '../config/schema.js';
import { resolveTestCommand } from '../runners/tests/presets.js';
import type { ProgramView } from '../sandbox/program-view.js';
import type { Finding } from './types.js';

export interface ConfiguredProgram {
  /** The config key the program comes from, e.g. `tests.command` or `seeds.python`. */
  setting: string;
  program: string;
  /** The PATH the program is looked up on (the run's own environment). */
  searchPath: string | undefined;
}

/** Every program the enabled layers start, with the PATH each runs with. */
export function configuredPrograms(
  config: PatchgateConfig,
  enabled: (layer: string) => boolean,
  env: Readonly<Record<string, string | undefined>>,
  /** Whether the seed tape has rows seeds.python runs (pytest rows); fast-check rows run in Node. */
  seedsRunPython = true,
): ConfiguredProgram[] {
  const out: ConfiguredProgram[] = [];
  const add = (setting: string, program: string | undefined, extra?: Readonly<Record<string, string>>) => {
    if (program === undefined || program === '') return;
    const searchPath = extra?.PATH ?? env.PATH;
    if (!out.some((p) => p.program === program && p.searchPath === searchPath))
      out.push({ setting, program, searchPath });
  };
  const tests = config.tests;
  if (tests !== undefined) {
    // A preset's command starts with its program; the placeholders do not matter here.
    let argv0: string | undefined;
    try {
      argv0 = resolveTestCommand(tests, { junitPath: 'report.xml' }).argv[0];
    } catch {
      argv0 = undefined; // an unknown preset is the tests layer's own error
    }
    add(tests.command ? 'tests.command' : `tests.preset (${tests.preset ?? 'generic'})`, argv0, tests.env);
    add('tests.setup', tests.setup?.[0], tests.env);
  }
  if (config.seeds && enabled('seeds') && seedsRunPython)
    add('seeds.python', config.seeds.python, config.seeds.env);
  if (config.hits && enabled('hits')) {
    for (const p of config.hits.python) add('hits.python', p.python);
    for (const h of config.hits.harnesses) add('hits.harnesses', h.command[0]);
    for (const c of config.hits.commands) add('hits.commands', c.command[0]);
  }
  if (config.claims && enabled('claims') && config.claims.coverage !== 'off')
    add('claims.python', config.claims.python);
  return out;
}

function readOnlyHint(hidden: readonly string[]): string {
  return `add ${hidden.map((d) => JSON.stringify(d)).join(' and ')} to sandbox.readOnly in the base config (a human commit)`;
}

export function programFindings(
  views: readonly { program: ConfiguredProgram; view: ProgramView }[],
): Finding[] {
  const findings: Finding[] = [];
  for (const { program, view } of views) {
    const { host, sandbox } = view;
    if (host === undefined || host === sandbox) continue;
    const evidence = {
      setting: program.setting,
      program: view.program,
      host,
      hidden: view.hidden,
      ...(sandbox !== undefined ? { sandbox } : {}),
    };
    if (sandbox === undefined) {
      findings.push({
        code: 'PROGRAM_HIDDEN',
        layer: 'gate',
        severity: 'error',
        message: `${program.setting} runs ${JSON.stringify(view.program)}, which is ${host} on this machine's PATH, but the sandbox cannot see it (${view.hidden.join(', ')} is not in its view) and finds no other: nothing of the head was run`,
        evidence: {
          ...evidence,
          next: `${readOnlyHint(view.hidden)} so that head processes can run it, or install ${JSON.stringify(view.program)} system-wide (under /usr)`,
        },
      });
      continue;
    }
    findings.push({
      code: 'PROGRAM_SUBSTITUTED',
      layer: 'gate',
      severity: 'warn',
      message: `${program.setting} runs ${JSON.stringify(view.program)} as ${sandbox} in the sandbox, not as ${host} (this machine's PATH): ${view.hidden.join(', ')} is not in the sandbox's view`,
      evidence: {
        ...evidence,
        next: `if the run needs what ${host} has installed (say, pytest), ${readOnlyHint(view.hidden)}; otherwise install it for ${sandbox}, or name ${sandbox} in the config to say this is the one`,
      },
    });
  }
  return findings;
}
