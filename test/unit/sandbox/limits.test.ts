/**
 * What the gate reports when a head process hits a cap: which cap, the
 * observed size split into its parts, where it was, and the base config's key
 * to raise. These are the evidence of a finding, so each field is pinned.
 */
import { describe, expect, it } from 'vitest';
import {
  breachEvidence,
  DEFAULT_LIMITS,
  diskBreach,
  fileSizeBreach,
  memoryBreach,
} from '../../../src/sandbox/limits.js';

const MiB = 1024 ** 2;

describe('memoryBreach', () => {
  it('blames resident memory over the cap, even when tmpfs holds some too', () => {
    expect(memoryBreach({ resident: 300 * MiB, tmpfs: 20 * MiB, largestMount: '/tmp' }, 256 * MiB)).toEqual({
      limit: 'memory',
      cap: 256 * MiB,
      observed: 320 * MiB,
      resident: 300 * MiB,
      tmpfs: 20 * MiB,
      setting: 'sandbox.limits.memoryMb',
      message: 'used 300 MiB of resident memory, over the cap of 256 MiB; it was killed',
    });
  });

  it('blames the memory-backed folders when resident memory alone is under the cap, naming the fullest mount', () => {
    expect(
      memoryBreach({ resident: 100 * MiB, tmpfs: 200 * MiB, largestMount: '/dev/shm' }, 256 * MiB),
    ).toEqual({
      limit: 'tmpfs',
      cap: 256 * MiB,
      observed: 300 * MiB,
      resident: 100 * MiB,
      tmpfs: 200 * MiB,
      mount: '/dev/shm',
      setting: 'sandbox.limits.memoryMb',
      message:
        'held 200 MiB in memory-backed folders (most of it in /dev/shm) on top of 100 MiB of resident memory, over the memory cap of 256 MiB; it was killed',
    });
  });

  it('leaves the mount out when none is known, instead of naming undefined', () => {
    const b = memoryBreach({ resident: 1 * MiB, tmpfs: 300 * MiB }, 256 * MiB);
    expect(b.limit).toBe('tmpfs');
    expect('mount' in b).toBe(false);
    expect(b.message).not.toContain('undefined');
    expect(b.message).toContain('held 300 MiB in memory-backed folders on top of 1 MiB');
  });
});

describe('diskBreach', () => {
  it('names the folder that grew, its largest entry, and by how much', () => {
    expect(
      diskBreach({ folder: '/w/head', grown: 600 * MiB, entry: 'build', entryBytes: 550 * MiB }, 512 * MiB),
    ).toEqual({
      limit: 'disk',
      cap: 512 * MiB,
      observed: 600 * MiB,
      setting: 'sandbox.limits.diskMb',
      folder: '/w/head',
      entry: 'build',
      entryBytes: 550 * MiB,
      message:
        'wrote 600 MiB into /w/head (550 MiB of it under /w/head/build), over the disk cap of 512 MiB; it was killed',
    });
  });

  it('says a folder made unreadable cannot be counted, and claims no observed size', () => {
    const b = diskBreach({ folder: '/w/head', grown: 0, unreadable: '/w/head/locked' }, 512 * MiB);
    expect(b).toEqual({
      limit: 'disk',
      cap: 512 * MiB,
      setting: 'sandbox.limits.diskMb',
      folder: '/w/head',
      message:
        'made /w/head/locked unreadable to the gate, so what it wrote there cannot be counted against the disk cap of 512 MiB; it was killed',
    });
  });
});

describe('fileSizeBreach and breachEvidence', () => {
  it('a file over the cap is the kernel stopping it, with the setting to raise', () => {
    expect(fileSizeBreach(DEFAULT_LIMITS.fileBytes)).toEqual({
      limit: 'file-size',
      cap: 1024 * MiB,
      setting: 'sandbox.limits.fileMb',
      message: 'wrote a file larger than the cap of 1024 MiB; the kernel stopped it',
    });
  });

  it('evidence is every fact of the breach but its sentence', () => {
    const b = diskBreach({ folder: '/w', grown: 9 * MiB, entry: 'x', entryBytes: 8 * MiB }, 4 * MiB);
    const { message: _m, ...facts } = b;
    expect(breachEvidence(b)).toEqual(facts);
    expect(breachEvidence(b)).toMatchObject({
      folder: '/w',
      entry: 'x',
      entryBytes: 8 * MiB,
      observed: 9 * MiB,
    });
  });
});
