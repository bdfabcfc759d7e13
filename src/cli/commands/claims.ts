import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import { configSchema, type PatchgateConfig } from '../../config/schema.js';
import { InputError } from '../../errors.js';
import { snapshotWorkingTree } from '../../git/changes.js';
import { execFile } from '../../git/exec.js';
import { Git } from '../../git/git.js';
import { diffHunks, type Hunk } from '../../git/hunks.js';
import { resolveRevisions } from '../../git/revisions.js';
import { type NumberedCandidate, suggestClaims } from '../../layers/claims/suggest/candidates.js';
import {
  type PythonCandidates,
  sandboxedPythonCandidates,
} from '../../layers/claims/suggest/candidates-python.js';
import { testSideFor } from '../../overlay/test-side.js';
import { limitsFromConfig, openSandbox } from '../../sandbox/open.js';
import { pushAll } from '../../util/arrays.js';
import { byCodePoint } from '../../util/compare.js';
import type { CliIO } from '../io.js';
import { parseCommand } from '../options.js';
import { CLAIMS_SUGGEST } from '../specs.js';
import { usage } from '../usage.js';

/** Every line this command prints fits this many columns (a path longer than that aside). */
const WIDTH = 100;

const STATEMENT = '"TODO: name the bound (never / always / at most / maps to …)"';

/** One printable line: control characters (a newline in a path) shown as `?`. */
function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing them is the point
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}

/** `s` cut to `width` characters, with `…` where it was cut. */
function cut(s: string, width = WIDTH): string {
  const chars = [...printable(s)];
  return chars.length <= width ? chars.join('') : `${chars.slice(0, width - 1).join('')}…`;
}

/** Items after `head`, as many as fit on one line, then `… and N more`. */
function oneLine(head: string, items: readonly string[]): string {
  for (let n = items.length; n > 0; n--) {
    const more = items.length - n;
    const line = `${head}${items.slice(0, n).map(printable).join(', ')}${more > 0 ? `, … and ${more} more` : ''}`;
    if ([...line].length <= WIDTH) return line;
  }
  return cut(`${head}${items.length} files`);
}

/** Items after `head`, wrapped at WIDTH onto `#   ` lines. */
function wrapped(head: string, items: readonly string[]): string[] {
  const out: string[] = [];
  let line = head;
  for (const [i, raw] of items.entries()) {
    const item = `${printable(raw)}${i < items.length - 1 ? ',' : ''}`;
    if ([...`${line} ${item}`].length > WIDTH && line !== head) {
      out.push(line);
      line = `#   ${item}`;
    } else line = `${line} ${item}`;
  }
  out.push(line);
  return out.map((l) => cut(l));
}

/** A YAML scalar: plain when it is a path-like word, else double-quoted (JSON's quoting is YAML's). */
function yamlScalar(s: string): string {
  return /^[\p{L}\p{N}_./][\p{L}\p{N}_./#@+-]*$/u.test(s) && !s.includes(' #') ? s : JSON.stringify(s);
}

/** What the comment above a row says the candidate is. */
function label(c: NumberedCandidate): string {
  switch (c.kind) {
    case 'return':
      return c.text;
    case 'throw':
    case 'raise':
      return c.detail ? `${c.kind} ${c.detail}` : c.text;
    case 'error-type':
      return `error type ${c.detail ?? c.text}`;
    default:
      return c.detail ?? c.text;
  }
}

function skeletonRow(c: NumberedCandidate): string[] {
  const cover = c.symbol !== undefined ? `${c.file}#${c.symbol}` : c.file;
  const flow = `    covers: [${yamlScalar(cover)}]`;
  return [
    cut(`# ${c.file}:${c.line}${c.symbol !== undefined ? ` (${c.symbol})` : ''} — ${label(c)}`),
    `  - id: ${c.id}`,
    `    statement: ${STATEMENT}`,
    '    fixture: TODO',
    '    property: TODO',
    '    freeze: TODO',
    ...([...flow].length <= WIDTH ? [flow] : ['    covers:', `      - ${yamlScalar(cover)}`]),
  ];
}

function hunkPlace(h: Hunk): string {
  if (h.newLines === 0) return `${h.file}:${h.newStart} (lines removed)`;
  return h.newLines === 1
    ? `${h.file}:${h.newStart}`
    : `${h.file}:${h.newStart}-${h.newStart + h.newLines - 1}`;
}

function inHunk(c: NumberedCandidate, h: Hunk): boolean {
  return c.file === h.file && h.newLines > 0 && c.line >= h.newStart && c.line < h.newStart + h.newLines;
}

/** The working tree's config (as `lock` and `explore` read it); the defaults in a repository without one. */
async function workingTreeConfig(root: string, signal: AbortSignal): Promise<PatchgateConfig> {
  try {
    return (await loadConfig(root, undefined, { signal })).config;
  } catch (err) {
    if (err instanceof InputError && err.code === 'CONFIG_NOT_FOUND') return configSchema.parse({});
    throw err;
  }
}

/** `treeish:file` from git's objects as UTF-8 text; undefined when the revision has no such blob. */
function blobReader(git: Git, treeish: string): (file: string) => Promise<string | undefined> {
  return async (file) => {
    if (/[\n\r]/.test(file)) return undefined; // cat-file --batch reads one name a line
    const out = await git.tryBuffer(['cat-file', '--batch'], `${treeish}:${file}\n`);
    const eol = out.indexOf(10);
    const header = out.subarray(0, eol < 0 ? out.length : eol).toString('utf8');
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!m || eol < 0) return undefined;
    return out.subarray(eol + 1, eol + 1 + Number(m[1])).toString('utf8');
  };
}

const SUGGEST_USAGE = 'patchgate claims suggest --base REV [--head REV] [--json]';

/**
 * `patchgate claims suggest`: the claim candidates of a patch's production
 * delta (the changed files off the test side), as skeleton rows of a claim
 * matrix for a human to fill in, or as JSON. It only reads: the working
 * tree's config, git's objects, and (for Python) Python's own parser in the
 * sandbox.
 */
export async function claimsCommand(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'suggest')
    throw usage(
      sub === undefined
        ? `claims: name a subcommand: ${SUGGEST_USAGE}`
        : `claims: unknown subcommand '${sub}'; the one there is: ${SUGGEST_USAGE}`,
    );
  const parsed = parseCommand(CLAIMS_SUGGEST, rest, io);
  if (!parsed) return 0;
  const { values } = parsed;
  if (values.base === undefined)
    throw usage(
      `claims suggest: --base REV is required (the revision the patch is against): ${SUGGEST_USAGE}`,
    );

  const git = Git.forEnv(execFile, io.cwd, io.env, io.signal);
  const revs = await resolveRevisions(git, values.base, values.head);
  const repo = git.at(revs.repoRoot);
  const config = await workingTreeConfig(revs.repoRoot, io.signal);
  const headTree = revs.head.worktree ? await snapshotWorkingTree(repo, []) : revs.head.commit;
  const diff = await diffHunks(repo, revs.baseCommit, headTree);
  const side = testSideFor(config);
  const production = diff.hunks.filter((h) => !side.isTestPath(h.file));
  const testFiles = [...new Set(diff.hunks.filter((h) => side.isTestPath(h.file)).map((h) => h.file))];
  const binary = diff.binary.filter((f) => !side.isTestPath(f));

  let logDir: string | undefined;
  let keepLogs = false;
  const python: PythonCandidates = async (sources) => {
    logDir = await mkdtemp(path.join(tmpdir(), 'patchgate-claims-'));
    // Our own parser on the committed text, but of the patch's files: through the door all the same.
    const sandbox = await openSandbox(io.env, {
      readOnly: config.sandbox.readOnly,
      limits: limitsFromConfig(config.sandbox.limits),
    });
    await sandbox.grant(logDir);
    try {
      return await sandboxedPythonCandidates({
        sandbox,
        logDir,
        signal: io.signal,
        python: config.claims?.python ?? 'python3',
      })(sources);
    } catch (err) {
      keepLogs = true;
      throw err;
    }
  };
  let suggestion: Awaited<ReturnType<typeof suggestClaims>>;
  try {
    suggestion = await suggestClaims({
      hunks: production,
      readHead: blobReader(repo, headTree),
      readBase: blobReader(repo, revs.baseCommit),
      python,
    });
  } finally {
    if (logDir !== undefined && !keepLogs) await rm(logDir, { recursive: true, force: true });
  }
  const { candidates, warnings } = suggestion;

  const notes: string[] = [];
  if (testFiles.length > 0)
    notes.push(oneLine(`# test side, not scanned (${testFiles.length}): `, testFiles));
  if (binary.length > 0) notes.push(oneLine(`# binary, skipped (${binary.length}): `, binary));
  for (const w of [...warnings].sort((a, b) => byCodePoint(a.file ?? '', b.file ?? ''))) {
    const where = w.file === undefined ? '' : `${w.file}${w.line !== undefined ? `:${w.line}` : ''}: `;
    notes.push(cut(`# warning: ${where}${w.message}`));
  }
  const bare = production.filter((h) => !candidates.some((c) => inHunk(c, h)));
  const files = new Set(production.map((h) => h.file)).size;

  if (values.json) {
    for (const n of notes) io.stderr.write(`${n.slice(2)}\n`);
    const rows = candidates.map((c) => ({
      id: c.id,
      file: c.file,
      line: c.line,
      kind: c.kind,
      text: c.text,
      ...(c.symbol !== undefined ? { symbol: c.symbol } : {}),
      ...(c.detail !== undefined ? { detail: c.detail } : {}),
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }

  const head = revs.head.worktree ? 'the working tree' : revs.head.commit.slice(0, 12);
  const out: string[] = [
    cut(`# patchgate claims suggest: ${revs.baseCommit.slice(0, 12)}..${head}`),
    ...notes,
  ];
  if (candidates.length === 0) {
    out.push(
      production.length === 0
        ? '# nothing to suggest: the patch changes no production file'
        : cut(
            `# nothing to suggest: no new return, throw, raise, status, field or comparison on the added lines of ${production.length} production hunk${production.length === 1 ? '' : 's'}`,
          ),
    );
    io.stdout.write(`${out.join('\n')}\n`);
    return 0;
  }
  out.push(
    cut(
      `# ${candidates.length} candidate${candidates.length === 1 ? '' : 's'} in ${production.length} production hunk${production.length === 1 ? '' : 's'} of ${files} file${files === 1 ? '' : 's'}: fill in each TODO, keep the rows that name a bound`,
    ),
    'claims:',
  );
  for (const c of candidates) pushAll(out, skeletonRow(c));
  if (bare.length > 0)
    pushAll(out, wrapped('# hunks with no candidate (claim them too, or say why not):', bare.map(hunkPlace)));
  io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
