import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../src/cli/commands/check.js';
import { exitCodeForError } from '../../../src/cli/exit-codes.js';
import { nodeOutFs, OutFolder, type OutFs } from '../../../src/cli/out-folder.js';
import { asPatchgateError } from '../../../src/errors.js';
import { memoryIO } from '../../helpers/cli-io.js';
import { fixtureRepo } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/gitdir.js';

/** The real file system, except that the write or rename whose target matches `failOn` fails as a full disk would. */
function failing(failOn: (op: 'write' | 'rename', target: string) => boolean): OutFs {
  const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  return {
    ...nodeOutFs,
    writeFile: async (file, content) => {
      if (failOn('write', file)) {
        // A full disk leaves what fitted: half a file.
        await nodeOutFs.writeFile(file, content.slice(0, content.length >> 1));
        throw full();
      }
      return nodeOutFs.writeFile(file, content);
    },
    rename: async (from, to) => {
      if (failOn('rename', to)) throw full();
      return nodeOutFs.rename(from, to);
    },
  };
}

describe('the out folder', () => {
  it('removes what the previous run wrote, and nothing of the user', async () => {
    const dir = tempDir();
    const folder = new OutFolder(dir);
    await folder.publish([
      { name: 'hit_report.head.json', content: '[]\n' },
      { name: 'custom-artifact.json', content: '{}\n' },
      { name: 'scorecard.json', content: '{}\n' },
    ]);
    mkdirSync(path.join(dir, 'tests'));
    writeFileSync(path.join(dir, 'tests', 'head-run-1.stdout.log'), 'old');
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    await folder.clear();
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('leaves no scorecard, no partial file and no temp file when a write fails mid-way', async () => {
    const dir = tempDir();
    const folder = new OutFolder(
      dir,
      failing((op, target) => op === 'write' && target.includes('summary.md')),
    );
    await expect(
      folder.publish([
        { name: 'hit_report.base.json', content: '[1]\n' },
        { name: 'summary.md', content: '# verdict\n'.repeat(100) },
        { name: 'scorecard.json', content: '{"verdict":"accept"}\n' },
      ]),
    ).rejects.toMatchObject({ code: 'OUTPUT_WRITE_FAILED', kind: 'internal' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes the files already renamed into place when the scorecard rename fails', async () => {
    const dir = tempDir();
    const folder = new OutFolder(
      dir,
      failing((op, target) => op === 'rename' && target.endsWith('scorecard.json')),
    );
    await expect(
      folder.publish([
        { name: 'summary.md', content: 'x\n' },
        { name: 'scorecard.json', content: '{}\n' },
      ]),
    ).rejects.toMatchObject({ code: 'OUTPUT_WRITE_FAILED' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('makes check exit 3 with no scorecard on a full disk', async () => {
    const repo = fixtureRepo();
    const { io } = memoryIO(repo.dir);
    const out = repo.path('.patchgate/out');
    const outFs = failing((op, target) => op === 'write' && target.includes('scorecard.json'));
    const err = await checkCommand(['--base', 'main'], io, undefined, { outFs }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(exitCodeForError(asPatchgateError(err))).toBe(3);
    expect(existsSync(path.join(out, 'scorecard.json'))).toBe(false);
    expect(readdirSync(out).filter((n) => n.endsWith('.tmp') || n === 'summary.md')).toEqual([]);
  });

  it('writes complete files that a later run replaces', async () => {
    const repo = fixtureRepo();
    const { io } = memoryIO(repo.dir);
    expect(await checkCommand(['--base', 'main'], io)).toBe(0);
    const out = repo.path('.patchgate/out');
    writeFileSync(path.join(out, 'seed_replay.json'), '{"stale": true}\n');
    expect(await checkCommand(['--base', 'main'], memoryIO(repo.dir).io)).toBe(0);
    expect(existsSync(path.join(out, 'seed_replay.json'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(out, 'scorecard.json'), 'utf8')).verdict).toBe('accept');
  });
});

describe("copying a run's logs into the out folder", () => {
  it('copies every log as the process wrote its bytes, folders included, into a shard’s own folder', async () => {
    const from = tempDir();
    mkdirSync(path.join(from, 'sub'));
    const bytes = Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0x0a]); // not UTF-8: kept, never replaced
    writeFileSync(path.join(from, 'a.log'), bytes);
    writeFileSync(path.join(from, 'sub', 'b.log'), 'b\n');
    const out = tempDir();
    const folder = new OutFolder(out);
    await folder.copyLogs(from, undefined, 'shard-2');
    expect(readFileSync(path.join(folder.logDir, 'shard-2', 'a.log'))).toEqual(bytes);
    expect(readFileSync(path.join(folder.logDir, 'shard-2', 'sub', 'b.log'), 'utf8')).toBe('b\n');
  });

  it('keeps the end of a log over the per-file cap and says how much was cut; spends the total budget in name order', async () => {
    const from = tempDir();
    writeFileSync(path.join(from, 'a.log'), 'x'.repeat(10) + 'TAIL');
    writeFileSync(path.join(from, 'b.log'), 'yy');
    writeFileSync(path.join(from, 'c.log'), 'never reached');
    const folder = new OutFolder(tempDir());
    await folder.copyLogs(from, { perFile: 4, total: 6 });
    expect(readFileSync(path.join(folder.logDir, 'a.log'), 'utf8')).toBe(
      '[patchgate: the first 10 bytes of this log were cut]\nTAIL',
    );
    expect(readFileSync(path.join(folder.logDir, 'b.log'), 'utf8')).toBe('yy');
    expect(existsSync(path.join(folder.logDir, 'c.log'))).toBe(false);
  });

  it('copies no symbolic link, wherever it points', async () => {
    const from = tempDir();
    writeFileSync(path.join(from, 'real.log'), 'real\n');
    symlinkSync('/etc/passwd', path.join(from, 'link.log'));
    const folder = new OutFolder(tempDir());
    await folder.copyLogs(from);
    expect(readdirSync(folder.logDir)).toEqual(['real.log']);
  });
});
