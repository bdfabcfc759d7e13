import { describe, expect, it } from 'vitest';
import { resolveReporters } from '../../../src/cli/publish.js';
import type { Finding } from '../../../src/layers/types.js';
import {
  escapeData,
  escapeProperty,
  findingLocation,
  renderGithubAnnotations,
} from '../../../src/report/github.js';

const finding = (over: Partial<Finding>): Finding => ({
  code: 'FIXTURE_CHANGED',
  layer: 'fixtures',
  severity: 'reject',
  message: 'changed',
  evidence: {},
  ...over,
});

describe('workflow-command escaping', () => {
  it('escapes %, CR and LF in the message, and also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b');
    expect(escapeProperty('dir,x/a:b%.json\n')).toBe('dir%2Cx/a%3Ab%25.json%0A');
  });

  it('escapes % first, so an escape already in the text is not read as one', () => {
    expect(escapeData('%0A')).toBe('%250A');
  });
});

describe('which findings become annotations', () => {
  it('takes file+line, else path (+line), else source {file, line}', () => {
    expect(findingLocation(finding({ evidence: { file: 'a.json', line: 3, path: 'b.json' } }))).toEqual({
      file: 'a.json',
      line: 3,
    });
    expect(findingLocation(finding({ evidence: { path: 'testdata/x.json' } }))).toEqual({
      file: 'testdata/x.json',
    });
    expect(findingLocation(finding({ evidence: { path: 'p.json', line: '12' } }))).toEqual({
      file: 'p.json',
      line: 12,
    });
    expect(
      findingLocation(finding({ evidence: { source: { file: 'flake_ledger.json', index: 0, line: 7 } } })),
    ).toEqual({ file: 'flake_ledger.json', line: 7 });
  });

  it('leaves out a line that is not a positive whole number', () => {
    for (const line of [null, 0, -1, 1.5, 'x'])
      expect(findingLocation(finding({ evidence: { file: 'a.txt', line } }))).toEqual({ file: 'a.txt' });
  });

  it('only points at repo-relative paths: never absolute, outside, or not a string', () => {
    for (const file of ['/tmp/patchgate-x/logs/run.log', '../outside.txt', 'C:/x', 'a\\b', '', 42])
      expect(findingLocation(finding({ evidence: { file } }))).toBeUndefined();
    // An absolute `file` does not hide a repo-relative `path`.
    expect(findingLocation(finding({ evidence: { file: '/abs/log', path: 'src/a.ts' } }))).toEqual({
      file: 'src/a.ts',
    });
  });

  it('writes ::error for reject and error, ::warning for warn, and nothing for findings without a file', () => {
    const out = renderGithubAnnotations({
      findings: [
        finding({
          evidence: { path: 'testdata/a,b.json' },
          message: 'locked fixture changed: 100%\nsee diff',
        }),
        finding({
          code: 'INTERNAL_ERROR',
          severity: 'error',
          evidence: { file: 'flake_ledger.json', line: 4 },
          message: 'boom',
        }),
        finding({
          code: 'FIXTURE_ADDED',
          severity: 'warn',
          evidence: { path: 'testdata/new.json' },
          message: 'new',
        }),
        finding({ code: 'CLAIMS_EMPTY', evidence: { matrix: ['claims/*.yaml'] }, message: 'no file' }),
        finding({ code: 'TESTS_TIMEOUT', severity: 'error', evidence: { stdout: '/tmp/x.log' } }),
      ],
    });
    expect(out).toBe(
      [
        '::error file=testdata/a%2Cb.json,title=FIXTURE_CHANGED::locked fixture changed: 100%25%0Asee diff',
        '::error file=flake_ledger.json,line=4,title=INTERNAL_ERROR::boom',
        '::warning file=testdata/new.json,title=FIXTURE_ADDED::new',
        '',
      ].join('\n'),
    );
  });
});

describe('--reporter', () => {
  it('defaults to the table, keeps --json, and combines github with either', () => {
    expect(resolveReporters(undefined, false)).toEqual(['terminal']);
    expect(resolveReporters(undefined, true)).toEqual(['json']);
    expect(resolveReporters(['github'], false)).toEqual(['github']);
    expect(resolveReporters(['github', 'terminal'], false)).toEqual(['terminal', 'github']);
    expect(resolveReporters(['github'], true)).toEqual(['github', 'json']);
    expect(resolveReporters(['terminal,github'], false)).toEqual(['terminal', 'github']);
  });

  it('refuses an unknown reporter, and json with the table (both would be stdout)', () => {
    expect(() => resolveReporters(['junit'], false)).toThrow(/unknown --reporter 'junit'/);
    expect(() => resolveReporters(['terminal'], true)).toThrow(/pick one/);
  });
});

describe('head text in annotations', () => {
  it('makes the message and file display-safe before the command escaping: one line, no escape sequence', () => {
    const out = renderGithubAnnotations({
      findings: [
        finding({
          message: `fine\u001b[8m hidden \u009b2J \u202eesrever\n::add-mask::gate ##[error]forged`,
          evidence: { file: 'src/a\u202e.ts', line: 2 },
        }),
      ],
    });
    expect(out.split('\n')).toEqual([
      '::error file=src/a\\u202e.ts,line=2,title=FIXTURE_CHANGED::fine\\u001b[8m hidden \\u009b2J \\u202eesrever%0A\\u003a:add-mask::gate ##\\u005berror]forged',
      '',
    ]);
  });
});
