import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditRefused, withFileEdited } from '../../../../src/runners/tests/file-edit.js';

function checkout(): { root: string; outside: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-edit-'));
  const root = path.join(dir, 'checkout');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  writeFileSync(path.join(root, 'src/cart.py'), 'def total(xs):\n    return sum(xs)\n');
  const outside = path.join(dir, 'users-file.py');
  writeFileSync(outside, 'precious\n');
  return { root, outside };
}

describe('withFileEdited: a mutant in the gate’s checkout for one run', () => {
  it('holds the edit during the run and puts back the bytes and the modification time after', async () => {
    const { root } = checkout();
    const file = path.join(root, 'src/cart.py');
    utimesSync(file, new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'));
    const before = statSync(file).mtimeMs;
    const seen = await withFileEdited(root, 'src/cart.py', 'def total(xs):\n    return None\n', async () => ({
      text: readFileSync(file, 'utf8'),
      mtime: statSync(file).mtimeMs,
    }));
    expect(seen.text).toContain('return None');
    // A time of its own: bytecode cached for the original (same size, same second) is never taken for it.
    expect(seen.mtime).not.toBe(before);
    expect(readFileSync(file, 'utf8')).toBe('def total(xs):\n    return sum(xs)\n');
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('puts the file back when the run throws', async () => {
    const { root } = checkout();
    await expect(
      withFileEdited(root, 'src/cart.py', 'broken', async () => {
        throw new Error('run failed');
      }),
    ).rejects.toThrow('run failed');
    expect(readFileSync(path.join(root, 'src/cart.py'), 'utf8')).toContain('return sum(xs)');
  });

  it('refuses a file head code replaced with a symbolic link, and writes nothing through it', async () => {
    const { root, outside } = checkout();
    const file = path.join(root, 'src/cart.py');
    writeFileSync(file, '');
    const { rmSync } = await import('node:fs');
    rmSync(file);
    symlinkSync(outside, file);
    const err = await withFileEdited(root, 'src/cart.py', 'pwned\n', async () => 'ran').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EditRefused);
    expect((err as EditRefused).message).toContain('is a symbolic link');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });

  it('refuses a folder on the way that is a symbolic link', async () => {
    const { root, outside } = checkout();
    const { renameSync } = await import('node:fs');
    const elsewhere = path.join(path.dirname(outside), 'elsewhere');
    renameSync(path.join(root, 'src'), elsewhere);
    symlinkSync(elsewhere, path.join(root, 'src'));
    const err = await withFileEdited(root, 'src/cart.py', 'pwned\n', async () => 'ran').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EditRefused);
    expect((err as EditRefused).message).toMatch(/folder .*src is a symbolic link/);
    expect(readFileSync(path.join(elsewhere, 'cart.py'), 'utf8')).toContain('return sum(xs)');
  });

  it('refuses a path that leaves the checkout, and a file that is not there', async () => {
    const { root } = checkout();
    await expect(withFileEdited(root, '../users-file.py', 'x', async () => 1)).rejects.toThrow(EditRefused);
    await expect(withFileEdited(root, 'src/none.py', 'x', async () => 1)).rejects.toThrow('is not there');
  });

  it('refuses to put the original back through a link the run planted, and says so', async () => {
    const { root, outside } = checkout();
    const file = path.join(root, 'src/cart.py');
    const { rmSync } = await import('node:fs');
    const err = await withFileEdited(root, 'src/cart.py', 'mutant\n', async () => {
      rmSync(file);
      symlinkSync(outside, file);
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EditRefused);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });
});
