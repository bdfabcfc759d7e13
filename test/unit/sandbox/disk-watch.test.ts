import { chmodSync, linkSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type DiskUse,
  measureFolder,
  measureFolderSync,
  watchDisk,
} from '../../../src/sandbox/disk-watch.js';
import { tempDir } from '../../helpers/gitdir.js';

const blocksOf = (p: string) => statSync(p).blocks * 512;

describe('measuring a writable folder', () => {
  it('counts allocated bytes per top-level entry, each hard-linked file once, never through a symlink', async () => {
    const dir = tempDir('pg-disk-');
    mkdirSync(path.join(dir, 'a/b'), { recursive: true });
    writeFileSync(path.join(dir, 'a/b/big'), Buffer.alloc(300_000, 1));
    linkSync(path.join(dir, 'a/b/big'), path.join(dir, 'a/again'));
    writeFileSync(path.join(dir, 'top'), 'x');
    const outside = tempDir('pg-disk-outside-');
    writeFileSync(path.join(outside, 'huge'), Buffer.alloc(2_000_000, 1));
    symlinkSync(outside, path.join(dir, 'link'));
    const u = measureFolderSync(dir);
    const a =
      blocksOf(path.join(dir, 'a')) + blocksOf(path.join(dir, 'a/b')) + blocksOf(path.join(dir, 'a/b/big'));
    expect(u.byEntry.get('a')).toBe(a);
    expect(u.byEntry.get('top')).toBe(blocksOf(path.join(dir, 'top')));
    expect(u.byEntry.get('link')).toBeLessThan(4096 * 2);
    expect(u.bytes).toBeLessThan(1_000_000);
    expect((await measureFolder(dir)).bytes).toBe(u.bytes);
  });

  it('a folder that does not exist takes nothing', () => {
    expect(measureFolderSync(path.join(tempDir('pg-disk-'), 'gone')).bytes).toBe(0);
  });
});

describe('a folder head code made unreadable to the gate', () => {
  // Root reads any folder: drop the effective uid so the kernel really refuses, as it does a gate that is not root.
  function asNobody<T>(fn: () => T): T {
    const root = process.geteuid?.() === 0;
    if (root) process.seteuid!(65534);
    try {
      return fn();
    } finally {
      if (root) process.seteuid!(0);
    }
  }

  function hidden(): { dir: string; secret: string } {
    const dir = tempDir('pg-disk-');
    chmodSync(dir, 0o777);
    const secret = path.join(dir, 'secret');
    mkdirSync(secret);
    writeFileSync(path.join(secret, 'data'), Buffer.alloc(100_000, 1));
    chmodSync(secret, 0o000);
    return { dir, secret };
  }

  it('is reported by the walk', () => {
    const { dir, secret } = hidden();
    expect(asNobody(() => measureFolderSync(dir)).unreadable).toBe(secret);
  });

  it('fails closed: the watcher reports it as a breach of the disk cap', async () => {
    const { dir, secret } = hidden();
    const base = { bytes: 0, takenAt: 0, byEntry: new Map<string, number>() };
    let stop: (() => void) | undefined;
    const breach = await new Promise<DiskUse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no breach within 5 s')), 5000);
      asNobody(() => {
        stop = watchDisk({
          folders: [dir],
          baseline: () => base,
          capBytes: 1024 ** 3,
          onBreach: (use) => {
            clearTimeout(timer);
            resolve(use);
          },
        });
      });
    }).finally(() => stop?.());
    expect(breach).toMatchObject({ folder: dir, unreadable: secret });
  });
});
