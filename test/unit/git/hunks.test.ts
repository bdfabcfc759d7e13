import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snapshotWorkingTree } from '../../../src/git/changes.js';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { diffHunks, parseUnifiedDiff, readQuoted } from '../../../src/git/hunks.js';
import { GitDir, tempDir } from '../../helpers/gitdir.js';

const diff = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('parseUnifiedDiff', () => {
  it('numbers added lines in the head and removed lines in the base', () => {
    const { hunks } = parseUnifiedDiff(
      diff(
        'diff --git a/src/a.ts b/src/a.ts',
        'index 1111111..2222222 100644',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -3,2 +3,3 @@ function f() {',
        '-  return a <= b;',
        '-  x();',
        '+  return a < b;',
        '+  y();',
        '+  z();',
        '@@ -10,0 +12 @@ other',
        '+  w();',
      ),
    );
    expect(hunks).toEqual([
      {
        file: 'src/a.ts',
        oldStart: 3,
        oldLines: 2,
        newStart: 3,
        newLines: 3,
        removed: [
          { line: 3, text: '  return a <= b;' },
          { line: 4, text: '  x();' },
        ],
        added: [
          { line: 3, text: '  return a < b;' },
          { line: 4, text: '  y();' },
          { line: 5, text: '  z();' },
        ],
      },
      {
        file: 'src/a.ts',
        oldStart: 10,
        oldLines: 0,
        newStart: 12,
        newLines: 1,
        removed: [],
        added: [{ line: 12, text: '  w();' }],
      },
    ]);
  });

  it('takes an omitted count as 1 and a deletion-only hunk as newLines 0 at its position', () => {
    const { hunks } = parseUnifiedDiff(
      diff('diff --git a/x.py b/x.py', '--- a/x.py', '+++ b/x.py', '@@ -7 +6,0 @@', '-gone'),
    );
    expect(hunks[0]).toMatchObject({ oldStart: 7, oldLines: 1, newStart: 6, newLines: 0, added: [] });
    expect(hunks[0]?.removed).toEqual([{ line: 7, text: 'gone' }]);
  });

  it('names a new file by its head path and a deleted file by its base path', () => {
    const { hunks } = parseUnifiedDiff(
      diff(
        'diff --git a/new.go b/new.go',
        'new file mode 100644',
        'index 0000000..3e75765',
        '--- /dev/null',
        '+++ b/new.go',
        '@@ -0,0 +1,2 @@',
        '+package x',
        '+func F() {}',
        'diff --git a/old.go b/old.go',
        'deleted file mode 100644',
        'index 286c5f5..0000000',
        '--- a/old.go',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-package y',
      ),
    );
    expect(hunks.map((h) => [h.file, h.added.length, h.removed.length])).toEqual([
      ['new.go', 2, 0],
      ['old.go', 0, 1],
    ]);
  });

  it('does not take "\\ No newline at end of file" for a line of either side', () => {
    const { hunks } = parseUnifiedDiff(
      diff(
        'diff --git a/t.txt b/t.txt',
        '--- a/t.txt',
        '+++ b/t.txt',
        '@@ -1 +1 @@',
        '-q',
        '\\ No newline at end of file',
        '+r',
        '\\ No newline at end of file',
      ),
    );
    expect(hunks[0]?.removed).toEqual([{ line: 1, text: 'q' }]);
    expect(hunks[0]?.added).toEqual([{ line: 1, text: 'r' }]);
  });

  it('lists binary files and gives them no hunk, with spaces in their name', () => {
    const parsed = parseUnifiedDiff(
      diff(
        'diff --git a/img/a logo.png b/img/a logo.png',
        'index 8352675..1592e5c 100644',
        'Binary files a/img/a logo.png and b/img/a logo.png differ',
        'diff --git a/src/a.ts b/src/a.ts',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -1 +1 @@',
        '-a',
        '+b',
      ),
    );
    expect(parsed.binary).toEqual(['img/a logo.png']);
    expect(parsed.hunks.map((h) => h.file)).toEqual(['src/a.ts']);
  });

  it("decodes git's C-quoted paths (octal UTF-8, escaped quotes and tabs) and the tab after a spaced path", () => {
    const { hunks } = parseUnifiedDiff(
      diff(
        'diff --git "a/caf\\303\\251 \\"x\\".py" "b/caf\\303\\251 \\"x\\".py"',
        '--- "a/caf\\303\\251 \\"x\\".py"',
        '+++ "b/caf\\303\\251 \\"x\\".py"',
        '@@ -1 +1 @@',
        '-a',
        '+b',
        'diff --git a/my file.py b/my file.py',
        '--- a/my file.py\t',
        '+++ b/my file.py\t',
        '@@ -1 +1 @@',
        '-a',
        '+b',
        'diff --git "a/tab\\there" "b/tab\\there"',
        '--- "a/tab\\there"',
        '+++ "b/tab\\there"',
        '@@ -1 +1 @@',
        '-a',
        '+b',
      ),
    );
    expect(hunks.map((h) => h.file)).toEqual(['café "x".py', 'my file.py', 'tab\there']);
    expect(readQuoted('"\\316\\273 \\\\ \\n"')?.value).toBe('λ \\ \n');
    expect(readQuoted('"unterminated')).toBeUndefined();
  });

  it('drops the CR of CRLF lines, in the body and in a whole CRLF diff', () => {
    const body = parseUnifiedDiff(
      diff('diff --git a/w.ts b/w.ts', '--- a/w.ts', '+++ b/w.ts', '@@ -2 +2 @@ x', '-y\r', '+z\r'),
    );
    expect(body.hunks[0]?.added).toEqual([{ line: 2, text: 'z' }]);
    expect(body.hunks[0]?.removed).toEqual([{ line: 2, text: 'y' }]);
    const whole = parseUnifiedDiff(
      ['diff --git a/w.ts b/w.ts', '--- a/w.ts', '+++ b/w.ts', '@@ -2 +2 @@', '-y', '+z', ''].join('\r\n'),
    );
    expect(whole.hunks).toHaveLength(1);
    expect(whole.hunks[0]).toMatchObject({ file: 'w.ts', added: [{ line: 2, text: 'z' }] });
  });

  it('reads a hunk body by its counts, so content that looks like a header is content', () => {
    const { hunks } = parseUnifiedDiff(
      diff(
        'diff --git a/h.txt b/h.txt',
        '--- a/h.txt',
        '+++ b/h.txt',
        '@@ -1,2 +1,2 @@',
        '--- a/other',
        '-@@ -9 +9 @@',
        '+++ b/other',
        '+diff --git a/x b/x',
      ),
    );
    expect(hunks).toHaveLength(1);
    expect(hunks[0]?.file).toBe('h.txt');
    expect(hunks[0]?.removed.map((r) => r.text)).toEqual(['-- a/other', '@@ -9 +9 @@']);
    expect(hunks[0]?.added.map((a) => a.text)).toEqual(['++ b/other', 'diff --git a/x b/x']);
  });
});

describe('diffHunks (real git)', () => {
  it('diffs base..head with a tree id as head, whatever prefixes, renames or external diff the repo config sets', async () => {
    const repo = GitDir.create({ 'src/a b.py': 'x = 1\ny = 2\n', 'src/gone.ts': 'export const g = 1;\n' });
    const base = repo.head();
    repo.git('config', 'diff.noprefix', 'true');
    repo.git('config', 'diff.mnemonicPrefix', 'true');
    repo.git('config', 'diff.renames', 'copies');
    repo.git('config', 'diff.external', 'false');
    repo.git('config', 'diff.context', '5');
    repo.git('config', 'diff.interHunkContext', '10');
    repo.write({
      'src/a b.py': 'x = 1\ny = 3\n',
      'src/gone.ts': null,
      'src/moved.ts': 'export const g = 1;\n',
      'src/é.py': 'return 504\n',
    });
    const git = new Git(execFile, repo.dir);
    const tree = await snapshotWorkingTree(git, []);
    const { hunks, binary } = await diffHunks(git, base, tree);
    expect(binary).toEqual([]);
    expect(hunks.map((h) => [h.file, h.added.map((a) => a.line), h.removed.map((r) => r.line)])).toEqual([
      ['src/a b.py', [2], [2]],
      ['src/gone.ts', [], [1]],
      ['src/moved.ts', [1], []],
      ['src/é.py', [1], []],
    ]);
  });
});

describe('parseUnifiedDiff against git diff --no-index -U0', () => {
  const line = fc.constantFrom(
    'a',
    'b',
    'c',
    '',
    ' lead',
    '-- x',
    '++ y',
    '@@ -1 +1 @@',
    '\\ no',
    'crlf\r',
    'é',
  );
  it('every added line is the head line at its number and every removed line the base line at its number', () => {
    const dir = tempDir('pg-hunks-');
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.array(line, { maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        (beforeLines, afterLines, eolBefore, eolAfter) => {
          const text = (lines: string[], eol: boolean) =>
            lines.join('\n') + (eol && lines.length > 0 ? '\n' : '');
          // The lines of the file as written (a last empty element without a newline is no line).
          const linesOf = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
          const baseText = text(beforeLines, eolBefore);
          const headText = text(afterLines, eolAfter);
          const before = linesOf(baseText);
          const after = linesOf(headText);
          writeFileSync(path.join(dir, 'base.txt'), baseText);
          writeFileSync(path.join(dir, 'head.txt'), headText);
          const r = spawnSync('git', ['diff', '--no-index', '-U0', '--no-color', 'base.txt', 'head.txt'], {
            cwd: dir,
            encoding: 'utf8',
          });
          expect(r.status === 0 || r.status === 1).toBe(true);
          const { hunks } = parseUnifiedDiff(r.stdout);
          const strip = (s: string | undefined) => s?.replace(/\r$/, '');
          let added = 0;
          let removed = 0;
          for (const h of hunks) {
            expect(h.file).toBe('head.txt');
            for (const a of h.added) expect(a.text).toBe(strip(after[a.line - 1]));
            for (const d of h.removed) expect(d.text).toBe(strip(before[d.line - 1]));
            added += h.added.length;
            removed += h.removed.length;
          }
          // Lines neither added nor removed are shared, so both sides keep the same count of them.
          expect(before.length - removed).toBe(after.length - added);
        },
      ),
      { numRuns: 80 },
    );
  });
});
