import { describe, expect, it } from 'vitest';
import type { Hunk } from '../../../../../src/git/hunks.js';
import { suggestClaims } from '../../../../../src/layers/claims/suggest/candidates.js';
import {
  lineCandidates,
  operatorSkeleton,
} from '../../../../../src/layers/claims/suggest/candidates-lines.js';

/** One hunk replacing `removed` (from base line `at`) by `added` (from head line `at`). */
function hunk(file: string, at: number, removed: string[], added: string[]): Hunk {
  return {
    file,
    oldStart: at,
    oldLines: removed.length,
    newStart: at,
    newLines: added.length,
    removed: removed.map((text, i) => ({ line: at + i, text })),
    added: added.map((text, i) => ({ line: at + i, text })),
  };
}

const brief = (file: string, hunks: Hunk[]) =>
  lineCandidates(file, hunks).map((c) => [c.line, c.kind, c.detail ?? null] as const);

describe('lineCandidates: the line heuristic', () => {
  it('finds Go returns, errors.New, fmt.Errorf, panic and WriteHeader statuses', () => {
    const found = brief('srv/h.go', [
      hunk(
        'srv/h.go',
        10,
        [],
        [
          '\tif d > limit {',
          '\t\tw.WriteHeader(504)',
          '\t\treturn errors.New("timeout")',
          '\t}',
          '\tpanic(fmt.Errorf("bad %d", d))',
        ],
      ),
    ]);
    expect(found).toEqual([
      [11, 'status', 'status 504'],
      [12, 'return', null],
      [12, 'error-type', 'errors.New'],
      [14, 'throw', 'panic'],
      [14, 'error-type', 'fmt.Errorf'],
    ]);
  });

  it('finds Rust Err(...) with what it wraps, and panic!', () => {
    const found = brief('src/lib.rs', [
      hunk('src/lib.rs', 3, [], ['    return Err(Error::Timeout);', '    panic!("never");', '    Err(e)?']),
    ]);
    expect(found).toEqual([
      [3, 'return', null],
      [3, 'error-type', 'Error::Timeout'],
      [4, 'throw', 'panic'],
      [5, 'error-type', 'e'],
    ]);
  });

  it('finds raise and throw with the class when it reads as one', () => {
    const found = brief('lib/a.rb', [
      hunk('lib/a.rb', 1, [], ['  raise ArgumentError, "x" if n < 0', '  raise', '  throw new Http::Gone()']),
    ]);
    expect(found).toEqual([
      [1, 'raise', 'ArgumentError'],
      [2, 'raise', null],
      [3, 'throw', 'Http::Gone'],
    ]);
  });

  it('finds statuses in YAML and Java next to status or code words, not in a comparison', () => {
    const found = brief('conf/app.yaml', [
      hunk(
        'conf/app.yaml',
        1,
        [],
        ['timeout_status: 504', 'retries: 300', 'if (code == 504) {', 'httpCode = 429;'],
      ),
    ]);
    expect(found).toEqual([
      [1, 'status', 'status 504'],
      [4, 'status', 'status 429'],
    ]);
  });

  it('reports an operator that changed between a removed and an added line that read the same otherwise', () => {
    const found = brief('src/cap.go', [
      hunk(
        'src/cap.go',
        4,
        ['\tif refund <= captured {', '\tx := a < b'],
        ['\tif refund < captured {', '\tx := a < c'],
      ),
    ]);
    expect(found).toEqual([[4, 'comparison', '<= became <']]);
  });

  it('skips comment lines, blank lines and words that only contain return (returnValue, .return)', () => {
    const found = brief('src/a.java', [
      hunk(
        'src/a.java',
        1,
        [],
        ['// return 504', '  # raise X', '', '  * throw new Y()', 'returnValue = x.return;'],
      ),
    ]);
    expect(found).toEqual([]);
  });

  it('sets arrows and shifts aside from comparison operators', () => {
    expect(operatorSkeleton('f = (a) => a >> 1 < b').operators).toEqual(['<']);
  });
});

describe('suggestClaims', () => {
  const texts: Record<string, string> = {
    'b/x.go': 'package x\nfunc F() int {\n\treturn 1\n}\n',
    'a/y.ts': 'export function g() {\n  return 2;\n}\n',
    'docs/guide.md': 'Then return 504.\n',
  };
  const readHead = async (f: string) => texts[f];
  const readBase = async () => undefined;

  it('numbers candidates C1..Cn by file then line, and skips prose and deleted files', async () => {
    const { candidates, warnings } = await suggestClaims({
      hunks: [
        hunk('b/x.go', 3, [], ['\treturn 1']),
        hunk('docs/guide.md', 1, [], ['Then return 504.']),
        hunk('a/y.ts', 2, [], ['  return 2;']),
        hunk('gone.go', 1, ['return 3'], []),
      ],
      readHead,
      readBase,
      python: async () => {
        throw new Error('no Python file here');
      },
    });
    expect(warnings).toEqual([]);
    expect(candidates.map((c) => [c.id, c.file, c.line, c.kind, c.symbol ?? null])).toEqual([
      ['C1', 'a/y.ts', 2, 'return', 'g'],
      ['C2', 'b/x.go', 3, 'return', null],
    ]);
  });

  it('reads Python by the line heuristic, with a warning, when its parser gives no answer', async () => {
    const { candidates, warnings } = await suggestClaims({
      hunks: [hunk('svc/a.py', 2, [], ['    raise InvoiceError("x")'])],
      readHead: async () => 'def f():\n    raise InvoiceError("x")\n',
      readBase,
      python: async () => {
        throw new Error('python3: not found');
      },
    });
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining('line heuristic instead of Python'),
    ]);
    expect(candidates.map((c) => [c.id, c.kind, c.detail])).toEqual([['C1', 'raise', 'InvoiceError']]);
  });
});
