import { access, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { codeownersSnippet } from '../../config/codeowners.js';
import { DEFAULT_CONTRACT_BYTES } from '../../config/contract-file.js';
import {
  type Detection,
  detectFixtureRoots,
  detectTests,
  FIXTURE_FOLDER_NAMES,
} from '../../config/detect.js';
import { type CandidateGroup, findFixtureCandidates } from '../../config/fixture-candidates.js';
import { CONFIG_FILE_NAMES, loadConfig } from '../../config/load.js';
import { configSchema, type PatchgateConfig, type PatchgateConfigInput } from '../../config/schema.js';
import { type SchemaRefs, schemaRefsFor } from '../../config/schema-ref.js';
import { TESTS_ON_NEXT, testsOffHeadline, testsOnLines } from '../../config/tests-off.js';
import { fixtureLockFormat } from '../../contracts/fixture-lock.js';
import {
  CONFIG_FILE_FOR,
  type ConfigFormat,
  emptyContractText,
  emptyContractWhat,
  isEmptyContractRole,
  renderConfig,
} from '../../contracts/scaffold.js';
import { readTapeIfExists } from '../../contracts/seed-tape.js';
import { validateContractFile } from '../../contracts/validate.js';
import { ContractFileError, InputError } from '../../errors.js';
import { defaultBase } from '../../git/default-branch.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { findRepoRoot } from '../../git/revisions.js';
import { relockFixtures } from '../../layers/fixtures/relock.js';
import type { NamedContract } from '../../layers/types.js';
import { LAYERS } from '../../pipeline.js';
import { pushAll } from '../../util/arrays.js';
import { assertRepoPath } from '../../util/repo-path.js';
import { TERMINAL_WIDTH, wrapWords } from '../../util/wrap.js';
import { writeFileAtomic } from '../atomic-write.js';
import { type BaselineFlowResult, prepareBaseline } from '../baseline-flow.js';
import { invocationOf } from '../invocation.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { shellCommand } from '../shell-quote.js';
import { INIT } from '../specs.js';
import { usage } from '../usage.js';

async function exists(abs: string): Promise<boolean> {
  return access(abs).then(
    () => true,
    () => false,
  );
}

async function isFile(abs: string): Promise<boolean> {
  return stat(abs).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The contract files the layers a config turns on read, in gate order. */
function contractsOf(config: PatchgateConfig): NamedContract[] {
  return LAYERS.filter((l) => l.enabled(config)).flatMap((l) => l.contractFiles(config));
}

export async function initCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(INIT, args, io);
  if (!parsed) return 0;
  const { values } = parsed;
  const format = values.format as ConfigFormat;
  if (!(format in CONFIG_FILE_FOR)) throw usage(`--format must be json, yaml or ts, got '${values.format}'`);
  const git0 = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const repoRoot = await findRepoRoot(git0);
  const git = git0.at(repoRoot);
  const out = (line = '') => io.stdout.write(`${line}\n`);
  // Sentences wrap at the terminal's width, between words; commands stay on one line to be pasted.
  const say = (line: string) => {
    for (const l of wrapWords(line, { width: TERMINAL_WIDTH, hanging: 2 })) out(l);
  };

  const existingConfigs: string[] = [];
  for (const name of CONFIG_FILE_NAMES)
    if (await exists(path.join(repoRoot, name))) existingConfigs.push(name);
  // On a repository that already has its config, --codeowners only prints that config's snippet.
  if (values.codeowners && existingConfigs.length > 0 && !values.force) {
    const { config } = await loadConfig(repoRoot, undefined, { signal: io.signal });
    io.stdout.write(
      codeownersSnippet({
        contracts: contractsOf(config),
        protect: config.contracts.protect,
        owner: values.owner,
      }),
    );
    return 0;
  }

  const found: string[] = [];
  const notes: string[] = [];
  let roots: string[];
  if (values.root !== undefined && values.root.length > 0) {
    roots = values.root.map((r) => assertRepoPath(r, '--root'));
    for (const r of roots) {
      if (!(await exists(path.join(repoRoot, r))))
        throw new InputError('FIXTURE_ROOT_MISSING', `--root ${r} does not exist in ${repoRoot}`);
    }
  } else {
    const detected: Detection[] = await detectFixtureRoots(repoRoot);
    roots = detected.map((d) => d.value);
    for (const d of detected) found.push(`found fixture folder ${d.value} (${d.reason})`);
  }
  // No fixture folder is no reason to write nothing: the other layers are set up, and the note says how to add one.
  const fixturesOn = roots.length > 0;

  const canonical: { file: string; digest: string }[] = [];
  if (await isFile(path.join(repoRoot, 'fixtures/lock.json'))) {
    canonical.push({ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' });
    found.push('found fixtures/lock.json: its canonical JSON digest is locked in fixtures/lock.sha256');
  }

  // `$schema` only where the schemas resolve from the repository: an installed package, or this one inside it.
  const refs = await schemaRefsFor(repoRoot);
  const tests = await detectTests(repoRoot);
  for (const r of tests.reasons) found.push(`${r.key}: ${r.value} (${r.reason})`);
  pushAll(notes, tests.notes);
  if (tests.tests)
    notes.push(
      'the test layers run the repository\'s tests, which are head code, in the sandbox (bubblewrap on Linux); in CI, install bubblewrap first (the README\'s "What head code can and cannot reach" says how)',
    );

  // A seed tape already in the repository turns the seeds layer on; an invalid one stops init with its
  // located problems rather than being wired in unread. No config exists yet, so it is held to the default cap.
  const tape = await readTapeIfExists(repoRoot, 'property_seeds.json', 'the working tree', {
    maxBytes: DEFAULT_CONTRACT_BYTES,
    signal: io.signal,
  });
  const seedsOn = tape !== undefined && tape.rows.length > 0;
  if (tape && !seedsOn) {
    notes.push(
      `${tape.file} records no property yet, so the seeds layer stays off (an empty tape checks nothing); add "seeds": {} to the config once \`patchgate seeds add\` has recorded a row`,
    );
  }
  const pythonPath = tests.tests?.env?.PYTHONPATH;
  const pytestRows = tape?.rows.some((r) => r.runner === 'pytest') ?? false;
  const input: PatchgateConfigInput = {
    fixtures: fixturesOn
      ? {
          roots,
          lock: 'FIXTURE_LOCK.json',
          ...(values.owner ? { owner: values.owner } : {}),
          canonical,
        }
      : { enabled: false },
    ...(seedsOn
      ? {
          seeds: {
            tape: tape.file,
            ...(pythonPath !== undefined && pytestRows ? { env: { PYTHONPATH: pythonPath } } : {}),
          },
        }
      : {}),
    // A test command turns on the layers that judge test outcomes; each reads a freeze file a human owns.
    ...(tests.tests
      ? {
          tests: tests.tests,
          signatures: { freeze: 'flake_signatures.json' },
          stability: { freeze: 'stability_freeze.json' },
        }
      : {}),
  };
  const config = configSchema.parse(input);
  const configFile = CONFIG_FILE_FOR[format];
  if (!fixturesOn)
    notes.push(
      `found no fixture folder (looked at any depth for folders named ${FIXTURE_FOLDER_NAMES.join(', ')}, outside node_modules, vendor, dist, build and hidden folders), so the fixtures layer is off ("fixtures": {"enabled": false}). To lock golden files later: set "fixtures": {"roots": ["DIR"]} in ${configFile} (each folder or file of fixtures, repo-relative), run \`patchgate lock\` to write FIXTURE_LOCK.json, and commit both in a human commit; or run \`patchgate init --force --root DIR\``,
    );
  const existing = [...existingConfigs];
  if (fixturesOn && (await exists(path.join(repoRoot, config.fixtures.lock))))
    existing.push(config.fixtures.lock);
  if (existing.length > 0 && !values.force) {
    throw new InputError(
      'ALREADY_EXISTS',
      `${existing.join(', ')} already exist(s); pass --force to overwrite`,
      { files: existing },
    );
  }

  // The empty contract file of every layer turned on. One already there is read as the gate reads it and kept,
  // even with --force: it may hold rows a human froze.
  const contracts = contractsOf(config);
  const toWrite: { file: string; role: string; text: string }[] = [];
  const kept: string[] = [];
  for (const c of contracts) {
    if (c.glob || !isEmptyContractRole(c.role) || toWrite.some((w) => w.file === c.path)) continue;
    // The tape init found and wired in was read above.
    if (c.path === tape?.file) continue;
    if (await exists(path.join(repoRoot, c.path))) {
      const checked = await validateContractFile(repoRoot, { config, file: configFile }, c, {
        signal: io.signal,
      });
      if (checked.problems.length > 0) throw new ContractFileError('CONTRACT_INVALID', checked.problems);
      kept.push(c.path);
      continue;
    }
    toWrite.push({ file: c.path, role: c.role, text: emptyContractText(c.role, c.path, { schema: refs }) });
  }

  // Golden files the tests read outside the folders found by name: listed for a human to confirm, never locked here.
  const candidates = await findFixtureCandidates(repoRoot, roots, [
    ...CONFIG_FILE_NAMES,
    config.fixtures.lock,
    ...canonical.map((c) => c.digest),
    ...contracts.filter((c) => !c.glob).map((c) => c.path),
  ]);

  // The baseline runs before anything is written: a refused baseline leaves the repository as it was.
  const baseline = values.baseline
    ? await initBaseline({ io, git, config, values, refs, toWrite, kept, repoRoot })
    : undefined;

  const lockSchema = refs(config.fixtures.lock, fixtureLockFormat.schema.file);
  const result = fixturesOn
    ? await relockFixtures({
        repoRoot,
        config,
        owner: values.owner,
        fresh: true,
        ...(lockSchema !== undefined ? { schema: lockSchema } : {}),
      })
    : undefined;
  await writeFile(path.join(repoRoot, configFile), renderConfig(input, format, { schema: refs }));
  for (const w of baseline?.writes ?? []) {
    const planned = toWrite.find((t) => t.file === w.file);
    if (planned) planned.text = w.text;
    else await writeFileAtomic(path.join(repoRoot, w.file), w.text, w.file);
  }
  for (const w of toWrite) {
    await mkdir(path.dirname(path.join(repoRoot, w.file)), { recursive: true });
    await writeFile(path.join(repoRoot, w.file), w.text);
  }

  const on = LAYERS.filter((l) => l.enabled(config)).map((l) => l.name);
  // No runner: the gate would judge patches without running a test. That is the first thing said, never a note.
  if (!tests.tests) {
    out(testsOffHeadline(on));
    for (const l of wrapWords(
      `init found no test runner it could use (the notes below say where it looked), so a patch that breaks every test is not rejected for it. To turn the test layers on, add these lines to ${configFile}:`,
      { width: TERMINAL_WIDTH, indent: 2, hanging: 2 },
    ))
      out(l);
    for (const line of testsOnLines(configFile, tests.suggestion ?? { preset: 'pytest' })) out(`    ${line}`);
    for (const l of wrapWords(TESTS_ON_NEXT, { width: TERMINAL_WIDTH, indent: 2, hanging: 2 })) out(l);
    out();
  }
  for (const line of found) say(line);
  if (seedsOn) {
    const fc = tape.rows.filter((r) => r.runner === 'fast-check').length;
    say(
      `found ${tape.file} (${tape.rows.length} propert${tape.rows.length === 1 ? 'y' : 'ies'}): the seeds layer replays it on every patch${fc > 0 ? `; its ${fc} fast-check row(s) need seeds.properties, the globs of your defineSeedProperty modules` : ''}`,
    );
  }
  say(
    `layers on: ${on.join(', ')}${config.stability ? ` (stability runs the head's tests ${config.stability.runs} times)` : ''}`,
  );
  for (const note of notes) say(`note: ${note}`);
  if (candidates.groups.length > 0) {
    out();
    for (const line of candidateLines(
      candidates.groups,
      candidates.truncated,
      roots,
      configFile,
      fixturesOn,
    )) {
      if (line.verbatim) out(line.text);
      else
        for (const l of wrapWords(line.text, {
          width: TERMINAL_WIDTH,
          indent: line.indent ?? 0,
          hanging: (line.indent ?? 0) + 2,
        }))
          out(l);
    }
  }
  out();
  out(`wrote ${configFile}`);
  if (result) {
    say(`wrote ${result.lockFile} (${result.changes.length} fixture file(s) under ${roots.join(', ')})`);
    for (const c of result.canonical) out(`wrote ${c.digestFile} (canonical digest of ${c.file})`);
  }
  const baselined = new Set(baseline?.writes.map((w) => w.file) ?? []);
  for (const w of toWrite)
    say(
      `wrote ${w.file} (${baselined.has(w.file) ? "with the baseline's rows, below" : (emptyContractWhat(w.role) ?? w.role)})`,
    );
  for (const k of kept)
    out(`${baselined.has(k) ? 'added the baseline rows to' : 'kept'} ${k} (already there and valid)`);
  if (baseline) {
    out();
    for (const line of baseline.lines) out(line);
  }

  const written = [
    configFile,
    ...(result ? [result.lockFile, ...result.canonical.map((c) => c.digestFile)] : []),
    ...toWrite.map((w) => w.file),
    ...kept,
  ];
  const base = await defaultBase(git);
  out();
  say(
    baseline && baseline.writes.length > 0
      ? 'Next: review the baseline rows above, commit these in a human commit, separate from any agent diff, then run the gate on a patch:'
      : 'Next: commit these in a human commit, separate from any agent diff, then run the gate on a patch:',
  );
  out(`  ${shellCommand(['git', 'add', ...written])} && git commit -m "patchgate: init"`);
  // Hints start patchgate the way this run was (a dependency, a global install, the bin's path): a bare
  // `npx patchgate` where it is not a dependency fetches from the registry, which may not have it.
  const run = await invocationOf(io);
  out(`  ${run.command} check --base ${shellCommand([base.ref])}`);
  if (run.kind === 'npx')
    for (const l of wrapWords(
      "(this patchgate ran from npx's cache: the line above fetches it again once the cache is cleared; install the same package with `npm install --save-dev` to keep a copy in the repository)",
      { width: TERMINAL_WIDTH, indent: 2, hanging: 3 },
    ))
      out(l);
  if (base.from === 'fallback')
    say(
      `(${base.ref} is a guess: this clone has no origin/HEAD and the branch has no upstream; pass the branch patches target as --base)`,
    );
  if (!baseline && tests.tests)
    say(
      `If the suite already fails or skips tests, run \`${run.command} baseline\` on the main branch after this commit: it freezes those as rows for a human's review, so they do not reject every patch.`,
    );
  say(
    `Run \`${run.command} validate\` after editing the config or a contract file, before committing the edit.`,
  );
  if (values.codeowners) {
    out();
    io.stdout.write(codeownersSnippet({ contracts, protect: config.contracts.protect, owner: values.owner }));
  }
  return 0;
}

/** Candidate groups listed in init's output, at most this many (the rest are counted). */
const MAX_GROUPS_SHOWN = 20;

/**
 * The golden-file candidates as init prints them: one line a group (its
 * suggested `fixtures.roots` entries, how many files of which kinds, why),
 * then the two ways to lock them, both a human's choice.
 */
function candidateLines(
  groups: readonly CandidateGroup[],
  truncated: boolean,
  roots: readonly string[],
  configFile: string,
  fixturesOn: boolean,
): { text: string; indent?: number; verbatim?: boolean }[] {
  const total = groups.reduce((n, g) => n + g.files.length, 0);
  const lines: { text: string; indent?: number; verbatim?: boolean }[] = [
    {
      text: `found ${total} possible golden file(s) outside the fixture folders, in ${groups.length} group(s); they are NOT locked until you confirm them:`,
    },
  ];
  for (const g of groups.slice(0, MAX_GROUPS_SHOWN)) {
    const also =
      g.alsoLocks.length > 0
        ? `; that folder also holds ${g.alsoLocks.length} other file(s) (${g.alsoLocks.slice(0, 3).join(', ')}${g.alsoLocks.length > 3 ? ', …' : ''}), which it would lock too`
        : '';
    lines.push({
      text: `${g.roots.map((r) => JSON.stringify(r)).join(', ')}: ${g.files.length} file(s) (${g.kinds.join(', ')}), ${g.evidence}${also}`,
      indent: 2,
    });
  }
  if (groups.length > MAX_GROUPS_SHOWN)
    lines.push({ text: `… and ${groups.length - MAX_GROUPS_SHOWN} more group(s)`, indent: 2 });
  if (truncated) lines.push({ text: '(the search stopped at its file cap: there may be more)', indent: 2 });
  const adopt = [...roots, ...groups.flatMap((g) => g.roots)];
  lines.push({
    text: `To lock them, keep the entries you confirm and run${roots.length > 0 ? ' (with the fixture roots found above)' : ''}:`,
  });
  lines.push({
    text: `  patchgate init --force ${adopt.map((r) => `--root ${shellCommand([r])}`).join(' ')}`,
    verbatim: true,
  });
  lines.push({
    text: `or set fixtures.roots in ${configFile} to [${adopt.map((r) => JSON.stringify(r)).join(', ')}]${fixturesOn ? '' : ' (in place of "enabled": false)'}, then run \`patchgate lock\`; commit the result in a human commit.`,
  });
  return lines;
}

/**
 * `init --baseline`: the suite of HEAD run before anything is written, with
 * the config init is about to write, and its rows put in the freeze files
 * init writes (or into the ones it keeps).
 */
async function initBaseline(opts: {
  io: CliIO;
  git: Git;
  config: PatchgateConfig;
  values: Record<string, unknown>;
  refs: SchemaRefs;
  toWrite: readonly { file: string; role: string; text: string }[];
  kept: readonly string[];
  repoRoot: string;
}): Promise<BaselineFlowResult> {
  const { io, git, config, values, refs, toWrite } = opts;
  if (!config.tests)
    throw new InputError(
      'BASELINE_REFUSED',
      'init --baseline: no test runner was found, so there is no suite to run; set up `tests` first (see the notes of `patchgate init`)',
    );
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return prepareBaseline({
    io,
    git,
    config,
    flags: {
      rev: 'HEAD',
      runs: str('runs') ?? '2',
      days: str('days') ?? '90',
      maxRows: str('max-rows') ?? '100',
      ...(str('expires') !== undefined ? { expires: str('expires') as string } : {}),
      ...(str('owner') !== undefined ? { owner: str('owner') as string } : {}),
      ...(str('today') !== undefined ? { today: str('today') as string } : {}),
    },
    // The empty files init is about to write are what the baseline adds to; the ones it keeps are read.
    readFile: async (file) => {
      const planned = toWrite.find((w) => w.file === file);
      if (planned) return planned.text;
      return readFile(path.join(opts.repoRoot, file), 'utf8').catch(() => undefined);
    },
    schemaFor: (schemaFile, file) => refs(file, schemaFile),
  });
}
