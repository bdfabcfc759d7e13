import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { PatchgateError } from '../errors.js';

/** The file operations the out folder needs; a test swaps in one that fails. */
export interface OutFs {
  mkdir(dir: string, opts: { recursive: true }): Promise<unknown>;
  readFile(file: string, encoding: 'utf8'): Promise<string>;
  /** `content` is the text, its chunks in order, or bytes (a log, copied as it was written). */
  writeFile(file: string, content: string | readonly string[] | Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(target: string, opts: { recursive: true; force: true }): Promise<void>;
}

/** Log files copied at once: enough to keep the disk busy, few enough to stay far from the open-file limit. */
const COPY_BATCH = 16;

export const nodeOutFs: OutFs = {
  mkdir: (dir, opts) => fsp.mkdir(dir, opts),
  readFile: (file, encoding) => fsp.readFile(file, encoding),
  writeFile: (file, content) =>
    fsp.writeFile(
      file,
      typeof content === 'string' || content instanceof Uint8Array ? content : batched(content),
    ),
  rename: (from, to) => fsp.rename(from, to),
  rm: (target, opts) => fsp.rm(target, opts),
};

/** Joined chunks of about 4 MiB: one write per chunk would be a million writes for a million-line artifact. */
function* batched(chunks: readonly string[], size = 4 * 1024 * 1024): Generator<string> {
  let parts: string[] = [];
  let length = 0;
  for (const c of chunks) {
    parts.push(c);
    length += c.length;
    if (length >= size) {
      yield parts.join('');
      parts = [];
      length = 0;
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/** What a shard of a sharded check writes for `patchgate merge`. */
export const PART_FILE = 'part.json';
/** The suite runs a shard saw, beside its part: read only by `merge --history`. */
export const PART_RUNS_FILE = 'part-tests.json';

/** Lists what a run wrote, so the next run removes exactly that and nothing of the user's. */
const MANIFEST = '.patchgate-out.json';
/** What every run may write, removed even when an older run left no manifest. */
const ALWAYS = [
  'scorecard.json',
  'summary.md',
  'report.html',
  'hit_report.base.json',
  'hit_report.head.json',
  'seed_replay.json',
  PART_FILE,
  PART_RUNS_FILE,
  'tests',
];
/** Written last: a scorecard on disk means every other file of its run is complete. */
const SCORECARD = 'scorecard.json';

export interface OutFile {
  name: string;
  content: string | readonly string[];
}

function plainName(name: string): boolean {
  return name !== '' && !name.includes('/') && !name.includes('\\') && name !== '.' && name !== '..';
}

/**
 * The folder `check` reports into. A stale file from an earlier run must never
 * sit beside a new scorecard, and a disk that fills up must never leave a
 * truncated scorecard a CI step could read as a verdict: every file is written
 * under a temporary name and renamed into place, the scorecard last, and a
 * failure removes everything the run wrote.
 */
export class OutFolder {
  constructor(
    readonly dir: string,
    private readonly fs: OutFs = nodeOutFs,
  ) {}

  /** Removes the previous run's files (its manifest's, and the names a run always writes). */
  async clear(): Promise<void> {
    let listed: string[] = [];
    try {
      const parsed = JSON.parse(await this.fs.readFile(path.join(this.dir, MANIFEST), 'utf8')) as unknown;
      if (Array.isArray(parsed)) listed = parsed.filter((n): n is string => typeof n === 'string');
    } catch {
      // No manifest (first run, or an older patchgate): the fixed names still go.
    }
    for (const name of new Set([...ALWAYS, ...listed, MANIFEST])) {
      if (plainName(name)) await this.fs.rm(path.join(this.dir, name), { recursive: true, force: true });
    }
  }

  /** Where a run's logs go; listed in the manifest so the next run removes them. */
  get logDir(): string {
    return path.join(this.dir, 'tests');
  }

  /**
   * Copies the logs of a run (written by head processes into the gate's
   * scratch folder) into `tests/`, once every head process is gone. Only
   * regular files are copied (a symlink a head process planted is never
   * followed), each cut to its last `perFile` bytes, all of them to `total`.
   */
  async copyLogs(
    from: string,
    caps = { perFile: 8 * 1024 ** 2, total: 64 * 1024 ** 2 },
    /** A folder under tests/ to copy into (a shard's: shard-K). */
    into = '',
  ): Promise<void> {
    // Listed first, in name order (the budget goes to the first files), then copied many at a time: a
    // merge copies every shard's logs, and one file after another was most of its time.
    const files: { child: string; size: number }[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fsp.readdir(path.join(from, rel), { withFileTypes: true });
      } catch {
        return;
      }
      const sorted = entries.sort((a, b) => (a.name < b.name ? -1 : 1));
      const sizes = await Promise.all(
        sorted.map((e) =>
          e.isFile()
            ? fsp.lstat(path.join(from, rel, e.name)).then(
                (st) => (st.isFile() ? st.size : undefined),
                () => undefined,
              )
            : undefined,
        ),
      );
      for (const [i, e] of sorted.entries()) {
        const child = rel === '' ? e.name : path.join(rel, e.name);
        if (e.isDirectory()) await walk(child);
        const size = sizes[i];
        if (size !== undefined) files.push({ child, size });
      }
    };
    await walk('');
    let budget = caps.total;
    const copies: { child: string; size: number; keep: number }[] = [];
    for (const f of files) {
      if (budget <= 0) break;
      const keep = Math.min(f.size, caps.perFile, budget);
      budget -= keep;
      copies.push({ ...f, keep });
    }
    const copy = async ({ child, size, keep }: (typeof copies)[number]): Promise<void> => {
      const handle = await fsp.open(
        path.join(from, child),
        fsp.constants.O_RDONLY | fsp.constants.O_NOFOLLOW,
      );
      try {
        const buf = Buffer.alloc(keep);
        await handle.read(buf, 0, keep, size - keep);
        const dest = path.join(this.logDir, into, child);
        // Bytes as the process wrote them: a log is evidence, and decoding it would cost a merge most of its copy.
        const note = keep < size ? `[patchgate: the first ${size - keep} bytes of this log were cut]\n` : '';
        await this.fs.writeFile(dest, note === '' ? buf : Buffer.concat([Buffer.from(note), buf]));
      } finally {
        await handle.close();
      }
    };
    // Each folder made once, before the copies, rather than asked for again with every file.
    for (const dir of new Set(copies.map((c) => path.dirname(path.join(this.logDir, into, c.child)))))
      await this.fs.mkdir(dir, { recursive: true });
    for (let i = 0; i < copies.length; i += COPY_BATCH)
      await Promise.all(copies.slice(i, i + COPY_BATCH).map(copy));
  }

  /**
   * Writes `files` atomically, the scorecard last. On any failure, removes
   * every file of this run (renamed or not) and throws OUTPUT_WRITE_FAILED.
   */
  async publish(files: readonly OutFile[]): Promise<void> {
    const ordered = [
      ...files.filter((f) => f.name !== SCORECARD),
      ...files.filter((f) => f.name === SCORECARD),
    ];
    for (const f of ordered) {
      if (!plainName(f.name)) throw new TypeError(`out folder file names are plain names, got '${f.name}'`);
    }
    const manifest = {
      name: MANIFEST,
      content: `${JSON.stringify([...ordered.map((f) => f.name), 'tests'])}\n`,
    };
    const all = [manifest, ...ordered];
    const tag = randomBytes(4).toString('hex');
    const temp = (name: string) => path.join(this.dir, `.${name}.${tag}.tmp`);
    const placed: string[] = [];
    try {
      await this.fs.mkdir(this.dir, { recursive: true });
      for (const f of all) await this.fs.writeFile(temp(f.name), f.content);
      for (const f of all) {
        await this.fs.rename(temp(f.name), path.join(this.dir, f.name));
        placed.push(f.name);
      }
    } catch (err) {
      for (const f of all)
        await this.fs.rm(temp(f.name), { recursive: true, force: true }).catch(() => undefined);
      for (const name of placed)
        await this.fs.rm(path.join(this.dir, name), { recursive: true, force: true }).catch(() => undefined);
      const reason = err instanceof Error ? err.message : String(err);
      throw new PatchgateError(
        'OUTPUT_WRITE_FAILED',
        'internal',
        `could not write the reports to ${this.dir}: ${reason}; nothing of this run was left there`,
        { dir: this.dir },
        { cause: err },
      );
    }
  }
}
