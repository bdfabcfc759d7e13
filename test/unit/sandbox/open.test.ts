import { describe, expect, it } from 'vitest';
import { limitsFromConfig } from '../../../src/sandbox/open.js';

describe('limitsFromConfig', () => {
  it("turns the base config's MiB into bytes and keeps the process count as it is", () => {
    expect(limitsFromConfig({ memoryMb: 512, processes: 64, fileMb: 3, diskMb: 2048 })).toEqual({
      memoryBytes: 512 * 1024 ** 2,
      processes: 64,
      fileBytes: 3 * 1024 ** 2,
      diskBytes: 2048 * 1024 ** 2,
    });
  });
});
