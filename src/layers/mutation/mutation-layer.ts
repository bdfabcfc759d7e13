/**
 * The mutation probe (issue 22): do the base's tests still see the code the
 * patch changed? Each changed function's mutants run with the base's tests
 * that reach its file, on the base's checkout and on the overlay (the head's
 * code with the base's tests). A mutant the base's tests kill on the base
 * and not on the head's code is KILL_SURFACE_SHRANK; a changed function none
 * of whose mutants they kill on the head's code is CHANGED_CODE_UNSEEN.
 *
 * A mutant is a text edit the gate makes to one file of its own checkout
 * for one run (TestSession.editedRun); the gate's mutation code never runs in
 * a head process. Each mutant runs first on the overlay, judged against the
 * run of the base's tests on the head's code the earlier layers made; only a
 * mutant that survives there runs on the base, judged against a control run
 * with the file edited by a comment only (a mutant the head's code is seen
 * to break cannot be a shrink). A kill on the head is trusted only after a
 * control on the head: a head whose tests fail when only a comment is added
 * reacts to its own text (MUTATION_PROBE_DEFEATED), which would make every
 * mutant look killed.
 */
import { switchOf } from '../../config/layers-on.js';
import type { TestOutcome } from '../../junit/model.js';
import { testSideFor } from '../../overlay/test-side.js';
import { parsePythonTexts } from '../../runners/harness/python-parse.js';
import { TestRunError } from '../../runners/tests/errors.js';
import { EditRefused } from '../../runners/tests/file-edit.js';
import { testFileOf } from '../../runners/tests/presets.js';
import type { EditedRun, FileEdit, SuiteRun, TestSession } from '../../runners/tests/session.js';
import { pushAll } from '../../util/arrays.js';
import { Later } from '../../util/later.js';
import { requireTypescript } from '../../util/typescript.js';
import { ProgressTally } from '../progress.js';
import { whenParts } from '../shard-merge.js';
import { scopeOfPatch } from '../stability/scope-of-patch.js';
import type { Layer, LayerContext, LayerOutcome } from '../types.js';
import {
  type Defeat,
  type FunctionResult,
  judgeProbe,
  MUTATION_ARTIFACT,
  type MutantResult,
  type MutationPart,
  mergeMutationParts,
  mutationArtifact,
  type SideVerdict,
} from './judge.js';
import { applyMutant, type Mutant } from './mutant.js';
import {
  changedLines,
  chooseProbe,
  type ProbeFile,
  type ProbeFunction,
  planFunctions,
  probeKey,
  probeTargets,
} from './plan.js';
import { PYTHON_MUTANTS_PATH } from './python-mutants.js';

const LAYER = 'mutation';

/** The control's edit: a comment at the end, which changes the file's text and nothing it does. */
function controlText(text: string, lang: ProbeFunction['lang']): string {
  const comment = lang === 'py' ? '# patchgate: control' : '// patchgate: control';
  return `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${comment}\n`;
}

const passed = (t: TestOutcome) => t.status === 'passed' || t.status === 'flaky';
const failing = (t: TestOutcome) => t.status === 'failed' || t.status === 'error';

/**
 * The tests a run with the file edited is judged by: those that passed
 * with the file as it is (`baseline`), within the run's files (`inRun`: true
 * when the test's file is selected, undefined when its id does not say).
 */
interface Watch {
  baseline: SuiteRun;
  inRun: (t: TestOutcome) => boolean | undefined;
}

/** Whether a test is in `files` (all when undefined); undefined when its id does not name its file. */
function inFiles(
  files: readonly string[] | undefined,
  fileOf: (t: TestOutcome) => string | undefined,
): (t: TestOutcome) => boolean | undefined {
  if (files === undefined) return () => true;
  const set = new Set(files);
  return (t) => {
    const file = fileOf(t);
    return file === undefined ? undefined : set.has(file);
  };
}

/** What the head's control found: tests that fail on a comment alone, or a run that cannot finish with one. */
interface TextReaction {
  tests: string[];
  broken?: Broken;
}

/**
 * What a run with the file edited did to the watched tests (those that passed
 * in the baseline): `failed`, those it ran that failed or errored; `lost`,
 * those it should have run and did not report (a mutant that breaks the
 * import removes its tests; a lost test counts only when its file was run).
 */
function caught(watch: Watch, run: SuiteRun): { failed: TestOutcome[]; lost: TestOutcome[] } {
  const now = new Map(run.tests.map((t) => [t.id, t]));
  const failed: TestOutcome[] = [];
  const lost: TestOutcome[] = [];
  for (const t of watch.baseline.tests) {
    if (!passed(t) || watch.inRun(t) === false) continue;
    const after = now.get(t.id);
    if (after === undefined) {
      if (watch.inRun(t) === true) lost.push(t);
    } else if (!passed(after)) failed.push(t);
  }
  return { failed, lost };
}

/** The tests a run caught, failed ones first: a run that stopped at its first failure lost the rest by design. */
function killers(by: { failed: TestOutcome[]; lost: TestOutcome[] }): TestOutcome[] {
  return by.failed.length > 0 ? by.failed : by.lost;
}

/** Whether a run of the watched tests' files may stop at its first failure: only when none failed in the baseline, so the first failure is a watched test's. */
function mayStopEarly(watch: Watch): boolean {
  return !watch.baseline.tests.some((t) => failing(t) && watch.inRun(t) !== false);
}

/** How a run that broke counts: a timeout, a crash or a cap is a kill (as Stryker counts a timeout). */
function brokenRun(err: unknown): Broken | undefined {
  if (!(err instanceof TestRunError)) return undefined;
  if (err.code === 'TESTS_TIMEOUT') return 'timeout';
  if (err.code === 'RESOURCE_LIMIT') return 'resource';
  if (err.code === 'TESTS_NO_REPORT' || err.code === 'TESTS_RUN_FAILED') return 'crash';
  return undefined;
}

type Broken = NonNullable<SideVerdict['how']>;

const BROKEN_TEXT: Record<Broken, string> = {
  failed: 'tests failed',
  timeout: 'the run timed out',
  crash: 'the run crashed or wrote no report',
  resource: 'the run hit a sandbox cap',
};

/** A mutant's run may take a few times as long as its baseline, no less than 10 s, no more than the config's. */
function mutantTimeout(baseline: SuiteRun, cap: number): number {
  return Math.min(cap, Math.max(10_000, 3 * baseline.run.durationMs + 5_000));
}

interface SideTarget {
  side: 'base' | 'overlay';
  file: string;
  text: string;
}

const killedBy = (tests: readonly TestOutcome[]): SideVerdict => ({
  status: 'killed',
  how: 'failed',
  by: tests
    .map((t) => t.id)
    .sort()
    .slice(0, 5),
});

/**
 * Runs one side's mutants of one file, in its own checkout's turn. A mutant
 * run stops at its first failing test where that failure can only be a
 * watched test's (one failing test is a kill; a killed mutant then costs a
 * fraction of a run). On the overlay, a run is judged against the run of
 * the base's tests on the head's code the earlier layers made, checked
 * afterwards by {@link SideRunner.reactsToText}. On the base, a mutant is
 * run first: when no test fails it survived, and no control is needed; when
 * one fails, a control run with the file edited by a comment only (made
 * once) says whether that test already failed without the mutant.
 */
class SideRunner {
  private controlP?: Promise<Watch>;
  private n = 0;
  /** The baseline tests that killed a mutant here, by id. */
  private readonly killerTests = new Map<string, TestOutcome>();
  /** Whether some kill here named no test (a timeout, a crash, a cap). */
  private killedUnnamed = false;

  constructor(
    private readonly tests: TestSession,
    private readonly target: SideTarget,
    private readonly lang: ProbeFunction['lang'],
    private readonly testFiles: readonly string[] | undefined,
    private readonly capMs: number,
    private readonly labelStem: string,
    private readonly fileOf: (t: TestOutcome) => string | undefined,
    /** The run of the base's tests on the head's code (the earlier layers'). */
    private readonly overlayBaseline: SuiteRun,
  ) {}

  private label(what: string): string {
    return `${this.labelStem}-${what}-${++this.n}`;
  }

  private edit(text: string): FileEdit {
    return { file: this.target.file, text };
  }

  private run(
    what: string,
    edit: FileEdit | undefined,
    opts: {
      timeoutMs: number;
      failFast?: boolean;
      tests?: readonly TestOutcome[];
      files?: readonly string[];
    },
  ): Promise<EditedRun> {
    const files = opts.files ?? this.testFiles;
    return this.tests.editedRun(this.target.side, {
      ...(files !== undefined ? { files } : {}),
      ...(opts.tests !== undefined && opts.tests.length > 0 ? { tests: opts.tests } : {}),
      ...(edit ? { edit } : {}),
      label: this.label(what),
      timeoutMs: opts.timeoutMs,
      ...(opts.failFast ? { failFast: true } : {}),
    });
  }

  private controlEdit(): FileEdit {
    return this.edit(controlText(this.target.text, this.lang));
  }

  /** The overlay's watch: the earlier layers' run, narrowed to the selected files. */
  private overlayWatch(): Watch {
    return { baseline: this.overlayBaseline, inRun: inFiles(this.testFiles, this.fileOf) };
  }

  /** The base's watch: the selected tests with a comment added to the file, run once, when first needed. */
  private baseControl(): Promise<Watch> {
    this.controlP ??= this.run('control', this.controlEdit(), { timeoutMs: this.capMs }).then((baseline) => ({
      baseline,
      inRun: () => true,
    }));
    return this.controlP;
  }

  private async tryRun(edit: FileEdit, timeoutMs: number, failFast: boolean): Promise<SuiteRun | Broken> {
    try {
      return await this.run('mutant', edit, { timeoutMs, failFast });
    } catch (err) {
      const how = brokenRun(err);
      if (how === undefined) throw err;
      return how;
    }
  }

  private remember(v: SideVerdict, by: readonly TestOutcome[]): SideVerdict {
    for (const t of by) this.killerTests.set(t.id, t);
    if (v.status === 'killed' && by.length === 0) this.killedUnnamed = true;
    return v;
  }

  async mutant(m: Mutant): Promise<SideVerdict> {
    const overlay = this.overlayWatch();
    if (!overlay.baseline.tests.some((t) => passed(t) && overlay.inRun(t) !== false))
      return { status: 'unreached' };
    const edit = this.edit(applyMutant(this.target.text, m));
    const timeoutMs = mutantTimeout(this.overlayBaseline, this.capMs);
    // On the base too the overlay's run (the same tests) says whether a first failure can only be a watched
    // test's; a stop at a test that fails on the base anyway is caught below.
    const failFast = mayStopEarly(overlay);
    const first = await this.tryRun(edit, timeoutMs, failFast);
    if (this.target.side === 'overlay') {
      if (typeof first === 'string') return this.remember({ status: 'killed', how: first }, []);
      const by = killers(caught(overlay, first));
      return by.length === 0 ? { status: 'survived' } : this.remember(killedBy(by), by);
    }
    // The base: a run where no test failed and every watched test reported is a survivor whatever a control says.
    if (typeof first !== 'string' && !first.tests.some(failing) && caught(overlay, first).lost.length === 0)
      return { status: 'survived' };
    const control = await this.baseControl();
    if (typeof first === 'string') return { status: 'killed', how: first };
    let by = caught(control, first);
    // A run that stopped at a test that fails without the mutant too may have stopped before a kill.
    if (failFast && by.failed.length === 0 && first.tests.some(failing)) {
      const again = await this.tryRun(edit, timeoutMs, false);
      if (typeof again === 'string') return { status: 'killed', how: again };
      by = caught(control, again);
    }
    const tests = killers(by);
    return tests.length === 0 ? { status: 'survived' } : killedBy(tests);
  }

  /**
   * The base tests that passed on the head's code as committed and fail when
   * only a comment is added at the end of the file, twice, while passing
   * without it; or a run with that comment that times out, crashes or hits a
   * cap, twice, while the plain run finishes. A head that reacts to its own
   * text would make every mutant look killed. Run after the mutants, over the
   * tests that killed one (a head that reacts nowhere else gains nothing from
   * it; their files where the runner cannot select tests); over every
   * selected file when a kill named no test (a timeout or a crash).
   */
  async reactsToText(): Promise<TextReaction | undefined> {
    const named = this.killedUnnamed ? [] : [...this.killerTests.values()];
    const namedFiles = named.map((t) => this.fileOf(t));
    const files =
      named.length > 0 && namedFiles.every((f) => f !== undefined)
        ? [...new Set(namedFiles as string[])].sort()
        : this.testFiles;
    const baseline: SuiteRun =
      named.length > 0 ? { ...this.overlayBaseline, tests: named } : this.overlayBaseline;
    const watchOf = (run: EditedRun): Watch => ({
      baseline,
      inRun: run.selected === 'tests' ? () => true : inFiles(files, this.fileOf),
    });
    // As long as a mutant may take: a control that hangs must not hold the check for tests.timeoutMs.
    const timeoutMs = mutantTimeout(this.overlayBaseline, this.capMs);
    const select = { timeoutMs, tests: named, ...(files !== undefined ? { files } : {}) };
    const control = async (): Promise<EditedRun | Broken> => {
      try {
        return await this.run('control', this.controlEdit(), select);
      } catch (err) {
        const how = brokenRun(err);
        if (how === undefined) throw err;
        return how;
      }
    };
    const reacted = (run: EditedRun) => {
      const by = caught(watchOf(run), run);
      return [...by.failed, ...by.lost].map((t) => t.id);
    };
    const first = await control();
    const failed = typeof first === 'string' ? [] : reacted(first);
    if (typeof first !== 'string' && failed.length === 0) return undefined;
    const plain = await this.run('plain', undefined, { ...select, timeoutMs: this.capMs });
    const again = await control();
    if (typeof first === 'string')
      return typeof again === 'string' ? { tests: [], broken: first } : undefined;
    if (typeof again === 'string') return undefined;
    const passedPlain = new Set(plain.tests.filter(passed).map((t) => t.id));
    const failedAgain = new Set(reacted(again));
    const tests = failed.filter((id) => passedPlain.has(id) && failedAgain.has(id)).sort();
    return tests.length > 0 ? { tests } : undefined;
  }
}

async function probeFiles(ctx: LayerContext, targets: ReturnType<typeof probeTargets>): Promise<ProbeFile[]> {
  const hunks = await ctx.hunks();
  const out: ProbeFile[] = [];
  for (const t of targets) {
    const head = await ctx.head.readCommitted(t.file);
    if (head === undefined) continue;
    const base = t.baseFile !== undefined ? await ctx.base.readCommitted(t.baseFile) : undefined;
    const lines = changedLines(hunks, t.file);
    out.push({
      file: t.file,
      ...(t.baseFile !== undefined && base !== undefined ? { baseFile: t.baseFile } : {}),
      lang: t.lang,
      head,
      ...(base !== undefined ? { base } : {}),
      headLines: lines.head,
      baseLines: base !== undefined ? lines.base : [],
    });
  }
  return out;
}

const notRun: SideVerdict = { status: 'not-run' };

function resultOf(m: Mutant, onBase: boolean, base: SideVerdict, head: SideVerdict): MutantResult {
  return {
    id: m.id,
    operator: m.operator,
    line: m.line,
    original: m.original,
    mutated: m.mutated,
    onBase,
    base,
    head,
  };
}

async function probe(ctx: LayerContext, tests: TestSession): Promise<{ part: MutationPart; note: string }> {
  const cfg = ctx.config.mutation as NonNullable<LayerContext['config']['mutation']>;
  const testsCfg = ctx.config.tests as NonNullable<LayerContext['config']['tests']>;
  const targets = probeTargets(ctx.changes, testSideFor(ctx.config, ctx.overlay.named).isTestPath);
  const empty: MutationPart = { testFiles: [], scope: 'affected', functions: [], skipped: 0, defeats: [] };
  if (targets.length === 0)
    return {
      part: empty,
      note: 'the patch changed no production file the probe reads (TypeScript, JavaScript, Python)',
    };
  const files = await probeFiles(ctx, targets);
  let n = 0;
  const { functions, errors } = await planFunctions(files, {
    ts: requireTypescript,
    runPython: (texts, settings) =>
      parsePythonTexts({
        sandbox: ctx.sandbox,
        logDir: ctx.logDir,
        label: `mutation-mutants-${++n}`,
        script: PYTHON_MUTANTS_PATH,
        python: 'python3',
        signal: ctx.signal,
        texts,
        settings,
      }),
  });
  const headError = errors.find((e) => e.side === 'head');
  // The head's copy passed the base's tests, so it parses where they run: a parser that cannot read it
  // leaves the probe blind, which is no pass.
  if (headError)
    throw new Error(`the mutation probe could not parse ${headError.file} of the head: ${headError.error}`);
  const { chosen, skipped } = chooseProbe(functions, cfg.maxMutants);
  const withMutants = functions.filter((f) => f.head.some((m) => chosen.has(probeKey(f, m))));
  if (withMutants.length === 0)
    return {
      part: { ...empty, skipped },
      note: `no mutant in the ${functions.length} changed function(s) (only comments, docstrings, module code, declarations or logging changed)`,
    };

  const overlayRun = await tests.overlayRun();
  const probed = new Set(withMutants.map((f) => f.file));
  const scope = await scopeOfPatch(ctx, overlayRun, LAYER, {
    ...(ctx.overlay.tree ? { tree: ctx.overlay.tree } : {}),
    changes: ctx.changes.filter((c) => probed.has(c.path)),
  });
  const testFiles = scope.probed.map((p) => p.file);
  const reached = scope.mode === 'all' || testFiles.length > 0;
  const tally = new ProgressTally(ctx.progress, 'mutants');
  const defeats: Defeat[] = [];
  const results: FunctionResult[] = [];
  const fileOf = (t: TestOutcome) => testFileOf(testsCfg.preset, t);
  const byFile = new Map<string, ProbeFunction[]>();
  for (const f of withMutants) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  const textOf = new Map(files.map((f) => [f.file, f]));

  for (const [file, fns] of byFile) {
    const pf = textOf.get(file) as ProbeFile;
    const lang = pf.lang;
    const picked = (f: ProbeFunction) => f.head.filter((m) => chosen.has(probeKey(f, m)));
    if (!reached) {
      for (const f of fns)
        results.push({
          file,
          function: f.key,
          changed: f.changed,
          onBase: f.onBase,
          skipped: f.head.length - picked(f).length,
          mutants: picked(f).map((m) =>
            resultOf(m, f.base.has(m.id), f.base.has(m.id) ? { status: 'unreached' } : notRun, {
              status: 'unreached',
            }),
          ),
        });
      continue;
    }
    // The overlay's copy of a file is the head's unless it is one of the overlay's mixed files.
    if ((await ctx.overlay.readCommitted(file)) !== pf.head) {
      defeats.push({
        file,
        why: "the overlay's copy of the file is not the head's (a mixed file): it cannot be mutated alone",
      });
      continue;
    }
    tally.expect(fns.reduce((k, f) => k + picked(f).length, 0));
    const select = scope.mode === 'all' ? undefined : testFiles;
    const side = (target: SideTarget) =>
      new SideRunner(
        tests,
        target,
        lang,
        select,
        testsCfg.timeoutMs,
        `mutation-${target.side}-${results.length + 1}`,
        fileOf,
        overlayRun,
      );
    const head = side({ side: 'overlay', file, text: pf.head });
    const base =
      pf.base !== undefined ? side({ side: 'base', file: pf.baseFile ?? file, text: pf.base }) : undefined;
    const mine: FunctionResult[] = [];
    // The base's runs go next to the head's: each checkout takes its runs in turn, and the two can share the CPUs.
    const onBase = new Later();
    try {
      const verdicts = new Map<string, { base: SideVerdict; head: SideVerdict }>();
      for (const f of fns) {
        const mutants = picked(f);
        // The head's code first: a mutant its tests kill there cannot show a shrink, so only the head's
        // survivors run on the base. Every mutant the base also has is needed; the new ones only until
        // one is killed (one kill is all "seen" asks for).
        let seen = false;
        const order = [
          ...mutants.filter((m) => f.base.has(m.id)),
          ...mutants.filter((m) => !f.base.has(m.id)),
        ];
        for (const m of order) {
          const baseMutant = f.base.get(m.id);
          const v = { base: notRun, head: notRun };
          verdicts.set(probeKey(f, m), v);
          if (baseMutant === undefined && seen) {
            tally.finish(1);
            continue;
          }
          v.head = await head.mutant(m);
          tally.finish(1);
          if (v.head.status === 'killed') seen = true;
          if (baseMutant && base && v.head.status === 'survived') {
            tally.expect(1);
            onBase.add(
              base.mutant(baseMutant).then((b) => {
                v.base = b;
                tally.finish(1);
              }),
            );
          }
        }
      }
      const killedOnHead = [...verdicts.values()].some((v) => v.head.status === 'killed');
      if (killedOnHead) tally.expect(1);
      const reacting = killedOnHead ? await head.reactsToText() : undefined;
      if (killedOnHead) tally.finish(1);
      await onBase.done();
      if (reacting) {
        defeats.push({
          file,
          why: reacting.broken
            ? `the base's tests finish on the head's code as committed, and not when only a comment is added at the end of the file (${BROKEN_TEXT[reacting.broken]}, twice)`
            : `${reacting.tests.length} base test(s) pass on the head's code as committed and fail when only a comment is added at the end of the file`,
          ...(reacting.tests.length > 0 ? { tests: reacting.tests.slice(0, 10) } : {}),
        });
        continue;
      }
      for (const f of fns) {
        const mutants = picked(f);
        mine.push({
          file,
          function: f.key,
          changed: f.changed,
          onBase: f.onBase,
          skipped: f.head.length - mutants.length,
          mutants: mutants.map((m) => {
            const v = verdicts.get(probeKey(f, m)) as { base: SideVerdict; head: SideVerdict };
            return resultOf(m, f.base.has(m.id), v.base, v.head);
          }),
        });
      }
      pushAll(results, mine);
    } catch (err) {
      // What the base still runs is waited for (its edit undone) before the layer goes on or fails.
      await onBase.done().catch(() => undefined);
      if (!(err instanceof EditRefused)) throw err;
      defeats.push({ file, why: err.message });
    }
  }
  const part: MutationPart = { testFiles, scope: scope.mode, functions: results, skipped, defeats };
  const ran = results.reduce((k, f) => k + f.mutants.length, 0);
  const note = `${ran} mutant(s) of ${results.length} changed function(s) against ${scope.mode === 'all' ? 'every test file' : `${testFiles.length} base test file(s)`}${skipped > 0 ? `; ${skipped} more over the budget (mutation.maxMutants ${cfg.maxMutants})` : ''}`;
  return { part, note };
}

interface MutationShardPart {
  probe: MutationPart;
  unseen: 'warn' | 'reject';
  note: string;
}

function outcomeOf(part: MutationPart, unseen: 'warn' | 'reject', note: string): LayerOutcome {
  return {
    findings: judgeProbe(part, unseen),
    note,
    artifacts: [{ name: MUTATION_ARTIFACT, content: mutationArtifact(part) }],
  };
}

export const mutationLayer: Layer = {
  name: LAYER,
  runsHeadCode: true,
  onlyAfterClean: true,
  enabled: switchOf(LAYER),
  contractFiles: () => [],
  async run(ctx: LayerContext): Promise<LayerOutcome> {
    const cfg = ctx.config.mutation;
    if (!cfg || !ctx.tests) return { findings: [] };
    const { part, note } = await probe(ctx, ctx.tests);
    const outcome = outcomeOf(part, cfg.unseen, note);
    return ctx.shard
      ? { ...outcome, part: { probe: part, unseen: cfg.unseen, note } satisfies MutationShardPart }
      : outcome;
  },
  // Every shard runs every mutant against its share of the tests: a mutant is killed when any share's tests
  // kill it, so the parts put together are what one run of every test gives.
  shards: whenParts((parts) => {
    const mine = parts.map((p) => p.part as MutationShardPart);
    const first = mine[0] as MutationShardPart;
    const merged = mergeMutationParts(mine.map((p) => p.probe));
    return outcomeOf(merged, first.unseen, first.note);
  }),
};
