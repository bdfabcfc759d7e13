import { assertSourcesFound, nothingConfigured } from '../../config/configured-sources.js';
import { contractReadOptions } from '../../config/contract-file.js';
import { asPatchgateError } from '../../errors.js';
import { scrubbedEnv } from '../../util/scrub-env.js';
import type { Finding, Layer, LayerContext, NamedContract } from '../types.js';
import { compareTapes } from './compare-tapes.js';
import type { SeedReplay } from './model.js';
import { COUNT_SEED, replayTape } from './replay-tape.js';
import { readTape, readTapeIfExists, type Tape, type TapeRow } from './tape.js';

const LAYER = 'seeds';

/** A replay as a finding; a pass is none. Exported for the tests of each status. */
export function replayFinding(tape: Tape, row: TapeRow | undefined, r: SeedReplay): Finding | undefined {
  if (r.status === 'pass') return undefined;
  const evidence = {
    property: r.property,
    ...(r.seed !== '' ? { seed: r.seed } : {}),
    ...(row
      ? { runner: row.runner, file: tape.file, ...(row.line !== undefined ? { line: row.line } : {}) }
      : {}),
    ...(row?.nodeid !== undefined ? { nodeid: row.nodeid } : {}),
    ...(row && row.seeds.length === 0
      ? { seed_source: `count run at the gate's fixed seed ${COUNT_SEED}` }
      : {}),
    ...(r.via ? { via: r.via } : {}),
    ...(r.counterexample !== undefined ? { counterexample: r.counterexample } : {}),
    ...(r.shrunk !== undefined ? { shrunk: r.shrunk } : {}),
    ...(r.path !== undefined ? { path: r.path } : {}),
    ...(r.message !== undefined ? { reason: r.message } : {}),
    ...(r.log !== undefined ? { log: r.log } : {}),
  };
  const seedText = r.seed === '' ? '' : ` at seed ${r.seed}`;
  switch (r.status) {
    case 'fail': {
      const via =
        r.via === 'counterexample'
          ? ' (its stored counterexample)'
          : r.via === 'path'
            ? ' (its recorded path)'
            : '';
      return {
        code: 'SEED_FAILED',
        layer: LAYER,
        severity: 'reject',
        message: `'${r.property}' fails${seedText}${via}: ${r.counterexample ? `counterexample ${r.counterexample.split('\n').join(' ').slice(0, 200)}` : (r.message ?? 'failed')}`,
        evidence,
      };
    }
    case 'not-found':
      return {
        code: 'SEED_FAILED',
        layer: LAYER,
        severity: 'reject',
        message: r.message ?? `property '${r.property}' not found`,
        evidence,
      };
    case 'not-run':
      return {
        code: 'SEED_FAILED',
        layer: LAYER,
        severity: 'reject',
        message: `'${r.property}'${seedText} did not run${r.message ? `: ${r.message}` : ''}; a recorded seed that no longer runs fails`,
        evidence,
      };
    case 'timeout':
      return {
        code: 'CHECK_TIMEOUT',
        layer: LAYER,
        severity: 'reject',
        message: `'${r.property}'${seedText}: ${r.message ?? 'did not finish'}`,
        evidence,
      };
    case 'error':
      return {
        code: 'SEED_FAILED',
        layer: LAYER,
        severity: 'error',
        message: `could not replay '${r.property}'${seedText}: ${r.message ?? 'the runner failed'}`,
        evidence,
      };
  }
}

/**
 * Seed 001's tape: the base's recorded seeds replay on the head's code at no
 * fewer examples than the base's floor, and the head's copy of the tape may
 * only grow. The base tape decides what runs and how (runner, switch,
 * command), so a patch cannot weaken the replay by editing the tape.
 */
export const seedsLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  enabled: (config) => config.seeds?.enabled === true,
  contractFiles: (config): NamedContract[] =>
    config.seeds ? [{ path: config.seeds.tape, role: 'seeds.tape' }] : [],
  async run(ctx: LayerContext) {
    const cfg = ctx.config.seeds;
    if (!cfg) return { findings: [] };
    const read = contractReadOptions(ctx.config, ctx.signal);
    const tape = await readTape(ctx.frozen.base, cfg.tape, 'the base revision', read);
    await assertSourcesFound(
      ctx.base.root,
      ctx.configFile,
      cfg.properties.map((g, i) => ({ key: `seeds.properties[${i}]`, kind: 'glob' as const, value: g })),
    );
    if (tape.rows.length === 0) {
      throw nothingConfigured(
        ctx.configFile,
        'seeds.tape',
        `the seeds layer is on, but the base tape ${cfg.tape} records no property (add rows with \`patchgate seeds add\`)`,
      );
    }
    let head: Tape | undefined;
    let headProblem: string | undefined;
    try {
      head = await readTapeIfExists(ctx.frozen.head, cfg.tape, 'the head', read);
      if (!head) headProblem = `${cfg.tape} was deleted`;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      headProblem = `${cfg.tape} does not parse: ${asPatchgateError(err).message.split('\n')[0]}`;
    }
    const findings = compareTapes(tape, head, headProblem);

    const replay = await replayTape({
      root: ctx.head.root,
      rows: tape.rows,
      config: cfg,
      // The base config's variables, never the head's: `seeds.env` is read from the base.
      env: { ...scrubbedEnv(ctx.env), ...cfg.env },
      sandbox: ctx.sandbox,
      logDir: ctx.logDir,
      signal: ctx.signal,
    });
    const rows = new Map(tape.rows.map((r) => [r.id, r]));
    for (const r of replay.replays) {
      const f = replayFinding(tape, rows.get(r.property), r);
      if (f) findings.push(f);
    }
    for (const c of replay.counts) {
      const row = rows.get(c.property);
      if (!row || c.counted >= row.min_examples) continue;
      findings.push({
        code: 'MIN_EXAMPLES_NOT_MET',
        layer: LAYER,
        severity: 'reject',
        message: `'${c.property}' ran ${c.counted} example(s), below its floor of ${row.min_examples} (${c.how})`,
        evidence: {
          property: c.property,
          field: 'min_examples',
          floor: row.min_examples,
          counted: c.counted,
          how: c.how,
          ...(c.stoppedBecause !== undefined ? { stopped_because: c.stoppedBecause } : {}),
          runner: row.runner,
          file: tape.file,
          ...(row.line !== undefined ? { line: row.line } : {}),
        },
      });
    }
    const report = {
      schema: 'patchgate/seed-replay@1',
      tape: tape.file,
      ...(replay.fastCheck ? { fast_check: replay.fastCheck } : {}),
      processes: replay.processes,
      replays: replay.replays,
      counts: replay.counts,
    };
    return {
      findings,
      artifacts: [{ name: 'seed_replay.json', content: `${JSON.stringify(report, null, 2)}\n` }],
    };
  },
};
