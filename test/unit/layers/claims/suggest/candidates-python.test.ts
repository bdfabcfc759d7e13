import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Hunk } from '../../../../../src/git/hunks.js';
import { suggestClaims } from '../../../../../src/layers/claims/suggest/candidates.js';
import {
  type PythonFacts,
  pythonCandidatesFor,
  sandboxedPythonCandidates,
} from '../../../../../src/layers/claims/suggest/candidates-python.js';
import { hunksOf, lines } from '../../../../helpers/diff.js';
import { tempDir } from '../../../../helpers/gitdir.js';
import { testSandbox } from '../../../../helpers/sandbox.js';

// Python is read by Python's own ast, through the sandbox like any process the gate starts.
const sandbox = await testSandbox();

function adapter() {
  const logDir = tempDir('pg-claims-py-');
  return {
    logDir,
    python: sandboxedPythonCandidates({ sandbox, logDir, python: 'python3' }),
  };
}

const BASE = lines(
  'class InvoiceError(Exception):', // 1
  '    pass', // 2
  '', // 3
  '', // 4
  'class Invoice:', // 5
  '    def __init__(self, captured):', // 6
  '        self.captured = captured', // 7
  '', // 8
  '    def total(self, refund):', // 9
  '        if refund <= self.captured:', // 10
  '            return {"captured": self.captured}', // 11
  '        return {"captured": self.captured}', // 12
);

const HEAD = lines(
  'class InvoiceError(Exception):', // 1
  '    pass', // 2
  '', // 3
  '', // 4
  'class Invoice:', // 5
  '    def __init__(self, captured):', // 6
  '        self.captured = captured', // 7
  '        self.refunded_cents = 0', // 8
  '', // 9
  '    def total(self, refund):', // 10
  '        if refund < self.captured:', // 11
  '            return {"captured": self.captured, "refunded_cents": refund}', // 12
  '        raise InvoiceError("over cap")', // 13
  '', // 14
  '', // 15
  'def status_for_timeout(delay_ms):', // 16
  '    if delay_ms >= 10_000:', // 17
  '        return 504', // 18
  '    return {"status": 200, "code": "ok"}', // 19
);

describe('sandboxedPythonCandidates (real Python, in the sandbox)', () => {
  it("reports Python's facts and spans for every file in one run", async () => {
    const { python } = adapter();
    const [head, base] = await python([
      { file: 'src/invoice.py', side: 'head', text: HEAD },
      { file: 'src/invoice.py', side: 'base', text: BASE },
    ]);
    expect(head?.ok).toBe(true);
    expect(base?.ok).toBe(true);
    if (!head?.ok) return;
    expect(head.spans).toEqual([
      { name: 'InvoiceError', start: 1, end: 2 },
      { name: 'Invoice', start: 5, end: 13 },
      { name: 'Invoice.__init__', start: 6, end: 8 },
      { name: 'Invoice.total', start: 10, end: 13 },
      { name: 'status_for_timeout', start: 16, end: 19 },
    ]);
    expect(head.items).toContainEqual({
      line: 13,
      kind: 'raise',
      symbol: 'Invoice.total',
      cls: 'InvoiceError',
      code: "raise InvoiceError('over cap')",
    });
    expect(head.items).toContainEqual({
      line: 11,
      kind: 'comparison',
      symbol: 'Invoice.total',
      op: '<',
      left: 'refund',
      right: 'self.captured',
    });
  });

  it('answers a file with a SyntaxError with its line, and still reads the other files', async () => {
    const { python } = adapter();
    const [bad, good] = await python([
      { file: 'src/bad.py', side: 'head', text: 'def f(:\n    return 1\n' },
      { file: 'src/good.py', side: 'head', text: 'def g():\n    return 1\n' },
    ]);
    expect(bad).toEqual({ ok: false, error: expect.stringMatching(/^SyntaxError: /), line: 1 });
    expect(good?.ok).toBe(true);
  });

  it('never imports the file it reads: code at the top level does not run', async () => {
    const { python, logDir } = adapter();
    // Inside the io folder, which the parser may write: if the file ran, the marker would be there.
    const io = path.join(logDir, 'claims-python.io');
    const marker = path.join(io, 'ran');
    const text = `open(${JSON.stringify(marker)}, "w").write("x")\nraise SystemExit(3)\n`;
    const [facts] = await python([{ file: 'src/evil.py', side: 'head', text }]);
    expect(facts?.ok).toBe(true);
    expect(readdirSync(io)).not.toContain('ran');
  });

  it('fails with the exit code and log when the interpreter gives no answer', async () => {
    const logDir = tempDir('pg-claims-py-');
    const python = sandboxedPythonCandidates({ sandbox, logDir, python: 'false' });
    await expect(python([{ file: 'a.py', side: 'head', text: 'x = 1\n' }])).rejects.toThrow(/gave no answer/);
  });
});

describe('Python candidates on the added lines', () => {
  it('keeps new returns, raises, statuses, new fields and changed comparisons, each with its function', async () => {
    const { python } = adapter();
    const { candidates, warnings, spans } = await suggestClaims({
      hunks: hunksOf('src/invoice.py', BASE, HEAD),
      readHead: async () => HEAD,
      readBase: async () => BASE,
      python,
    });
    expect(warnings).toEqual([]);
    expect(candidates.map((c) => [c.id, c.line, c.kind, c.symbol, c.detail ?? null])).toEqual([
      ['C1', 8, 'field', 'Invoice.__init__', 'new field refunded_cents'],
      ['C2', 11, 'comparison', 'Invoice.total', 'refund <= self.captured became refund < self.captured'],
      ['C3', 12, 'return', 'Invoice.total', null],
      ['C4', 12, 'field', 'Invoice.total', 'new field refunded_cents'],
      ['C5', 13, 'raise', 'Invoice.total', 'InvoiceError'],
      ['C6', 17, 'comparison', 'status_for_timeout', 'new comparison delay_ms >= 10000'],
      ['C7', 18, 'return', 'status_for_timeout', null],
      ['C8', 18, 'status', 'status_for_timeout', 'status 504'],
      ['C9', 19, 'return', 'status_for_timeout', null],
      ['C10', 19, 'status', 'status_for_timeout', 'status 200'],
      // "code" holds no number here: a new key of a returned dict like any other.
      ['C11', 19, 'field', 'status_for_timeout', 'new field code'],
    ]);
    expect(candidates[4]?.text).toBe('raise InvoiceError("over cap")');
    expect(spans.get('src/invoice.py')?.map((s) => s.name)).toContain('Invoice.total');
  });

  it('does not take a return or status a rewritten line carried over for new', async () => {
    const { python } = adapter();
    const base = lines('def status_for(ms):', '    if ms > 10: return 504', '    return 200');
    const head = base.replace('ms > 10', 'ms >= 10');
    const { candidates } = await suggestClaims({
      hunks: hunksOf('src/s.py', base, head),
      readHead: async () => head,
      readBase: async () => base,
      python,
    });
    expect(candidates.map((c) => [c.line, c.kind, c.detail])).toEqual([
      [2, 'comparison', 'ms > 10 became ms >= 10'],
    ]);
  });

  it('turns a SyntaxError in the head into a warning with its line and no candidates, never a crash', async () => {
    const { python } = adapter();
    const head = lines('def f(x):', '    return x', 'def g(:', '    return 1');
    const { candidates, warnings } = await suggestClaims({
      hunks: hunksOf('src/broken.py', '', head),
      readHead: async () => head,
      readBase: async () => undefined,
      python,
    });
    expect(candidates).toEqual([]);
    expect(warnings).toEqual([
      { file: 'src/broken.py', line: 3, message: expect.stringMatching(/^SyntaxError: .*no candidates/) },
    ]);
  });

  it('drops facts off the added lines, and a field the base already had', () => {
    const head: Extract<PythonFacts, { ok: true }> = {
      ok: true,
      spans: [],
      items: [
        { line: 1, kind: 'return' },
        { line: 2, kind: 'field', name: 'captured' },
        { line: 2, kind: 'field', name: 'fresh' },
      ],
    };
    const base: Extract<PythonFacts, { ok: true }> = {
      ok: true,
      spans: [],
      items: [{ line: 9, kind: 'field', name: 'captured' }],
    };
    const hunks: Hunk[] = [
      {
        file: 'a.py',
        oldStart: 1,
        oldLines: 0,
        newStart: 2,
        newLines: 1,
        added: [{ line: 2, text: 'x' }],
        removed: [],
      },
    ];
    const found = pythonCandidatesFor(
      'a.py',
      hunks,
      'return 1\nx = {"captured": 1, "fresh": 2}\n',
      head,
      base,
    );
    expect(found.map((c) => [c.line, c.kind, c.detail])).toEqual([[2, 'field', 'new field fresh']]);
  });
});
