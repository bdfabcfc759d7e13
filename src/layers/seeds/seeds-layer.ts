import path from 'node:path';
import picomatch from 'picomatch';
import { assertSourcesFound, nothingConfigured } from '../../config/configured-sources.js';
import { contractReadOptions } from '../../config/contract-file.js';
import { switchOf } from '../../config/layers-on.js';
import { contractFilesOf } from '../../contracts/registry.js';
import { readTape, readTapeIfExists, type Tape, type TapeRow } from '../../contracts/seed-tape.js';
import { asPatchgateError } from '../../errors.js';
import { testSideFor } from '../../overlay/test-side.js';
import { breachEvidence } from '../../sandbox/sandbox.js';
import { pushAll } from '../../util/arrays.js';
import { ProgressTally } from '../progress.js';
import { agreed, byUnit, jsonArtifact, jsonParts } from '../shard-merge.js';
import { attachEdits, queryOfNodeId } from '../test-edits/attach.js';
import type { Finding, Layer, LayerContext, LayerOutcome, NamedContract, PropertyProof } from '../types.js';
import { compareTapes } from './compare-tapes.js';
import type { ExampleCount, SeedReplay } from './model.js';
import { COUNT_SEED, replayOrder, replayTape } from './replay-tape.js';

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
  if (r.limit !== undefined) {
    // A cap the head's code hit: no result, and the patch's doing (a rejection naming the cap).
    return {
      code: 'RESOURCE_LIMIT',
      layer: LAYER,
      severity: 'reject',
      message: `'${r.property}'${seedText}: the replay ${r.limit.message}`,
      evidence: { ...evidence, ...breachEvidence(r.limit) },
    };
  }
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
 * The seed tape: the base's recorded seeds replay on the head's code at no
 * fewer examples than the base's floor, and the head's copy of the tape may
 * only grow. The base tape decides what runs and how (runner, switch,
 * command), so a patch cannot weaken the replay by editing the tape.
 */
/** The same finding from both replays is reported once. */
const findingKey = (f: Finding) =>
  `${f.code}\u241f${String(f.evidence.property)}\u241f${String(f.evidence.seed ?? '')}`;

export const seedsLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  enabled: switchOf(LAYER),
  contractFiles: (config): NamedContract[] => contractFilesOf(LAYER, config),
  async run(ctx: LayerContext) {
    const cfg = ctx.config.seeds;
    if (!cfg) return { findings: [] };
    const read = contractReadOptions(ctx.config, ctx.signal);
    const tape = await readTape(ctx.snapshot.base, cfg.tape, 'the base revision', read);
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
      head = await readTapeIfExists(ctx.snapshot.head, cfg.tape, 'the head', read);
      if (!head) headProblem = `${cfg.tape} was deleted`;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      headProblem = `${cfg.tape} does not parse: ${asPatchgateError(err).message.split('\n')[0]}`;
    }
    const findings = compareTapes(tape, head, headProblem);

    const rows = new Map(tape.rows.map((r) => [r.id, r]));
    // A shard replays the rows it owns; the tape's own comparison is every shard's alike.
    const shard = ctx.shard;
    const mine = shard ? tape.rows.filter((r) => shard.owns('tape-row', r.id)) : tape.rows;
    // One count over the head's replay and the overlay's, when that runs too.
    const progress = new ProgressTally(ctx.progress, 'seed replays');
    const replayOn = (root: string, logDir: string) =>
      replayTape({
        progress,
        root,
        rows: mine,
        config: cfg,
        // The base config's variables, never the head's: `seeds.env` is read from the base.
        env: ctx.sandbox.environment(cfg.env),
        sandbox: ctx.sandbox,
        logDir,
        signal: ctx.signal,
        isTestPath: testSideFor(ctx.config, ctx.overlay.named).isTestPath,
      });
    const judgeReplay = (replay: Awaited<ReturnType<typeof replayTape>>): Finding[] => {
      const out: Finding[] = [];
      for (const r of replay.replays) {
        const f = replayFinding(tape, rows.get(r.property), r);
        if (f) out.push(f);
      }
      for (const c of replay.counts) {
        const row = rows.get(c.property);
        if (!row || c.counted >= row.min_examples) continue;
        out.push({
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
      return out;
    };
    const reportOf = (replay: Awaited<ReturnType<typeof replayTape>>) =>
      `${JSON.stringify(
        {
          schema: 'patchgate/seed-replay@1',
          tape: tape.file,
          ...(replay.fastCheck ? { fast_check: replay.fastCheck } : {}),
          processes: replay.processes,
          replays: replay.replays,
          counts: replay.counts,
        },
        null,
        2,
      )}\n`;

    // The head's own seed properties on its code (its edits add evidence), and, when the patch touched the
    // test side, the base's seed properties and generators on the head's code (its edits remove none).
    // The head's own replay adds evidence only where the head's seed properties differ from the base's; for
    // the rest it would run the very files the overlay runs.
    const changed = [...ctx.overlay.restored, ...ctx.overlay.headOnly];
    const ownModule = picomatch([...(cfg.properties ?? [])], { dot: true });
    const headDiffers =
      ctx.overlay.sameAsHead ||
      changed.some(
        (p) => ownModule(p) || tape.rows.some((r) => r.nodeid !== undefined && r.nodeid.split('::')[0] === p),
      );
    const artifacts: { name: string; content: string }[] = [];
    let judged: Awaited<ReturnType<typeof replayOn>> | undefined;
    if (headDiffers) {
      const onHead = await replayOn(ctx.head.root, ctx.logDir);
      judged = onHead;
      pushAll(findings, judgeReplay(onHead));
      artifacts.push({ name: 'seed_replay.json', content: reportOf(onHead) });
    }
    if (!ctx.overlay.sameAsHead) {
      // Its own log folder: the head replay's io folders were handed to the sandbox user already.
      const overlay = await replayOn(ctx.overlay.root, path.join(ctx.logDir, 'overlay'));
      judged = overlay;
      const seen = new Set(findings.map(findingKey));
      for (const f of judgeReplay(overlay)) {
        if (seen.has(findingKey(f))) continue;
        findings.push({
          ...f,
          message: `the base's seed property on the head's code: ${f.message}`,
          evidence: { ...f.evidence, side: 'overlay' },
        });
      }
      artifacts.push({
        name: headDiffers ? 'seed_replay.overlay.json' : 'seed_replay.json',
        content: reportOf(overlay),
      });
    }
    // A replay that could not run on the head's code is the patch's doing when it runs on the base.
    if (findings.some((f) => f.code === 'SEED_FAILED' && f.severity === 'error')) {
      const onBase = await replayOn(ctx.base.root, path.join(ctx.logDir, 'base'));
      const baseStatus = new Map(onBase.replays.map((r) => [`${r.property}\u241f${r.seed}`, r]));
      for (const [i, f] of findings.entries()) {
        if (f.code !== 'SEED_FAILED' || f.severity !== 'error') continue;
        const b = baseStatus.get(`${String(f.evidence.property)}\u241f${String(f.evidence.seed ?? '')}`);
        if (b === undefined || b.status === 'error') continue;
        findings[i] = {
          ...f,
          code: 'HEAD_RUN_BROKEN',
          severity: 'reject',
          message: `${f.message.replace(/^the base's seed property on the head's code: /, '')}; the same replay runs on the base (${b.status}): the patch broke it`,
          evidence: {
            ...f.evidence,
            base: b.status,
            next: "read the runner's output in the replay's log (an import error, a syntax error, a collection error) and fix the code",
          },
        };
      }
    }
    // A failing or under-counted seed property names the edit to it: the narrowed generator, the lowered numRuns.
    const explained = await attachEdits(ctx, findings, (f) => {
      if (f.code !== 'SEED_FAILED' && f.code !== 'MIN_EXAMPLES_NOT_MET') return undefined;
      const row = rows.get(String(f.evidence.property));
      if (!row) return undefined;
      return row.nodeid !== undefined ? queryOfNodeId(row.nodeid) : { file: '', name: row.id, kind: 'seed' };
    });
    return {
      findings: explained,
      artifacts,
      proofs: judged ? seedProofs(mine, judged, ctx.overlay.sameAsHead ? 'head' : 'overlay') : [],
      ...(shard ? { part: { rows: tape.rows.map((r) => ({ id: r.id, seeds: r.seeds })) } } : {}),
    };
  },
  // A row is replayed and judged on the shard that owns it; the tape's comparison is the whole patch's.
  shards: byUnit({
    unitOf: (f) => (f.code === 'SEED_DROPPED' || f.code === 'MIN_EXAMPLES_LOWERED' ? undefined : 'tape-row'),
    artifacts: { 'seed_replay.json': mergeReplays, 'seed_replay.overlay.json': mergeReplays },
  }),
};

interface ReplayReport {
  schema: string;
  tape: string;
  fast_check?: unknown;
  processes: { pytest: number; command: number };
  replays: SeedReplay[];
  counts: ExampleCount[];
}

/** A replay report of one run: every shard's replays and counts in tape order; processes add up. */
function mergeReplays(contents: readonly string[], parts: readonly LayerOutcome[]): string {
  const reports = jsonParts<ReplayReport>(contents);
  const rows = agreed(
    'the seed tape',
    parts.map((p) => (p.part as { rows: Pick<TapeRow, 'id' | 'seeds'>[] }).rows),
  );
  const order = replayOrder(rows);
  const first = reports[0] as ReplayReport;
  const fastCheck = reports.find((r) => r.fast_check !== undefined)?.fast_check;
  return jsonArtifact({
    schema: first.schema,
    tape: agreed(
      'the tape replayed',
      reports.map((r) => r.tape),
    ),
    ...(fastCheck !== undefined ? { fast_check: fastCheck } : {}),
    processes: {
      pytest: reports.reduce((n, r) => n + r.processes.pytest, 0),
      command: reports.reduce((n, r) => n + r.processes.command, 0),
    },
    replays: reports.flatMap((r) => r.replays).sort(order.replays),
    counts: reports.flatMap((r) => r.counts).sort(order.counts),
  });
}

/**
 * Per tape row, whether the replay the base's seed code ran on the head's code
 * held: every recorded seed passed and the counted examples met the floor.
 */
function seedProofs(
  rows: readonly TapeRow[],
  replay: Awaited<ReturnType<typeof replayTape>>,
  side: 'head' | 'overlay',
): PropertyProof[] {
  return rows.map((row) => {
    const replays = replay.replays.filter((r) => r.property === row.id);
    const count = replay.counts.find((c) => c.property === row.id);
    const bad = replays.find((r) => r.status !== 'pass');
    const why = bad
      ? `${bad.status}${bad.seed !== '' ? ` at seed ${bad.seed}` : ''}${bad.message ? `: ${bad.message.split('\n')[0]}` : ''}`
      : count === undefined
        ? 'no example count'
        : count.counted < Math.max(1, row.min_examples)
          ? `ran ${count.counted} example(s), below its floor of ${row.min_examples}`
          : undefined;
    return {
      kind: 'seed' as const,
      name: row.id,
      side,
      onBase: true,
      passed: why === undefined,
      ...(count !== undefined ? { examples: count.counted } : {}),
      ...(why !== undefined ? { why } : {}),
    };
  });
}
