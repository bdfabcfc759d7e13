/**
 * The programs the base config will run as head processes, and what the
 * sandbox makes of each: the same file as on this machine (nothing to say),
 * another one further down PATH (`PROGRAM_SUBSTITUTED`, a warning that says
 * which ran and how to get the other), or none at all (`PROGRAM_HIDDEN`, an
 * error verdict before any head code runs: the run could only fail).
 */
import type { PatchgateConfig } from '../config/schema.js';
import { resolveTestCommand } from '../runners/tests/presets.js';
import type { InterpreterView, ProgramView } from '../sandbox/program-view.js';
import { pushAll } from '../util/arrays.js';
import { launchedPrograms } from './program-launchers.js';
import type { Finding } from './types.js';

export interface ConfiguredProgram {
  /** The config key the program comes from, e.g. `tests.command` or `seeds.python`. */
  setting: string;
  program: string;
  /** The PATH the program is looked up on (the run's own environment, or what a launcher sets). */
  searchPath: string | undefined;
  /** How the configured command reaches it when it does not name it first (`env`, `the sh -c script`). */
  via?: string;
  /** The configured command, for the words of the finding. */
  command?: readonly string[];
}

/** Every program the enabled layers start, with the PATH each runs with, launchers' programs included. */
export function configuredPrograms(
  config: PatchgateConfig,
  enabled: (layer: string) => boolean,
  env: Readonly<Record<string, string | undefined>>,
  /** Whether the seed tape has rows seeds.python runs (pytest rows); fast-check rows run in Node. */
  seedsRunPython = true,
): ConfiguredProgram[] {
  const out: ConfiguredProgram[] = [];
  const add = (setting: string, argv: readonly string[], extra?: Readonly<Record<string, string>>) => {
    const first = argv[0];
    if (first === undefined || first === '') return;
    for (const p of launchedPrograms(argv, extra?.PATH ?? env.PATH)) {
      if (out.some((o) => o.program === p.program && o.searchPath === p.searchPath)) continue;
      out.push({
        setting,
        program: p.program,
        searchPath: p.searchPath,
        ...(p.via !== undefined ? { via: p.via, command: [...argv] } : {}),
      });
    }
  };
  const one = (program: string | undefined) => (program === undefined ? [] : [program]);
  const tests = config.tests;
  if (tests !== undefined) {
    let argv: readonly string[] = [];
    try {
      argv = resolveTestCommand(tests, { junitPath: 'report.xml' }).argv;
    } catch {
      argv = []; // an unknown preset is the tests layer's own error
    }
    add(tests.command ? 'tests.command' : `tests.preset (${tests.preset ?? 'generic'})`, argv, tests.env);
    add('tests.setup', tests.setup ?? [], tests.env);
  }
  if (config.seeds && enabled('seeds') && seedsRunPython)
    add('seeds.python', one(config.seeds.python), config.seeds.env);
  if (config.hits && enabled('hits')) {
    for (const p of config.hits.python) add('hits.python', [p.python]);
    for (const h of config.hits.harnesses) add('hits.harnesses', h.command);
    for (const c of config.hits.commands) add('hits.commands', c.command);
  }
  if (config.claims && enabled('claims') && config.claims.coverage !== 'off')
    add('claims.python', one(config.claims.python));
  return out;
}

function readOnlyHint(hidden: readonly string[]): string {
  return `add ${hidden.map((d) => JSON.stringify(d)).join(' and ')} to sandbox.readOnly in the base config (a human commit)`;
}

/** How the program is reached, for a finding's words: ` (through the sh -c script of ["sh","-c","…"])`. */
function reached(program: ConfiguredProgram): string {
  return program.via === undefined
    ? ''
    : ` (through ${program.via} of ${JSON.stringify(program.command ?? [])})`;
}

export function programFindings(
  views: readonly { program: ConfiguredProgram; view: ProgramView }[],
): Finding[] {
  const findings: Finding[] = [];
  for (const { program, view } of views) {
    const runs = `${program.setting} runs ${JSON.stringify(view.program)}${reached(program)}`;
    pushAll(findings, viewFindings(program, view, runs, {}));
  }
  return findings;
}

/**
 * The findings of one view, and of the interpreters its script names: `runs`
 * says how the config reaches the program looked at, `chain` what evidence
 * the way there adds.
 */
function viewFindings(
  program: ConfiguredProgram,
  view: ProgramView | InterpreterView,
  runs: string,
  chain: Record<string, unknown>,
): Finding[] {
  const findings: Finding[] = [];
  const { host, sandbox } = view;
  const evidence = {
    setting: program.setting,
    ...(program.command !== undefined ? { command: program.command } : {}),
    ...(program.via !== undefined ? { via: program.via } : {}),
    ...chain,
    program: view.program,
    ...(host !== undefined ? { host } : {}),
    hidden: view.hidden,
    ...(sandbox !== undefined ? { sandbox } : {}),
  };
  if (host !== undefined && host !== sandbox) {
    if (sandbox === undefined) {
      findings.push({
        code: 'PROGRAM_HIDDEN',
        layer: 'gate',
        severity: 'error',
        message: `${runs}, which is ${host} on this machine's PATH, but the sandbox cannot see it (${view.hidden.join(', ')} is not in its view) and finds no other: nothing of the head was run`,
        evidence: {
          ...evidence,
          next: `${readOnlyHint(view.hidden)} so that head processes can run it, or install ${JSON.stringify(view.program)} system-wide (under /usr)`,
        },
      });
      return findings;
    }
    findings.push({
      code: 'PROGRAM_SUBSTITUTED',
      layer: 'gate',
      severity: 'warn',
      message: `${runs} as ${sandbox} in the sandbox, not as ${host} (this machine's PATH): ${view.hidden.join(', ')} is not in the sandbox's view`,
      evidence: {
        ...evidence,
        next: `if the run needs what ${host} has installed (say, pytest), ${readOnlyHint(view.hidden)}; otherwise install it for ${sandbox}, or name ${sandbox} in the config to say this is the one`,
      },
    });
  }
  const inner = view.interpreter;
  if (inner !== undefined) {
    pushAll(
      findings,
      viewFindings(
        program,
        inner,
        `${runs} as ${inner.script}, a script whose first line (${inner.line}) runs ${JSON.stringify(inner.program)}`,
        {
          ...chain,
          scripts: [...((chain.scripts as string[] | undefined) ?? []), inner.script],
          line: inner.line,
        },
      ),
    );
  }
  return findings;
}
