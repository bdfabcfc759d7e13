/**
 * The Python half of the mutation probe's mutants: the shipped script, run
 * with Python's own ast in the real sandbox, finds the same kinds of site by
 * the same rules as the TypeScript half, with offsets the gate's strings can
 * apply (UTF-16, past characters outside the BMP too).
 */
import { describe, expect, it } from 'vitest';
import { applyMutant, type Mutant } from '../../../../src/layers/mutation/mutant.js';
import { PYTHON_MUTANTS_PATH, pythonMutants } from '../../../../src/layers/mutation/python-mutants.js';
import { parsePythonTexts } from '../../../../src/runners/harness/python-parse.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();
let n = 0;
const run = (texts: ReadonlyMap<string, string>, settings: Record<string, unknown>) =>
  parsePythonTexts({
    sandbox,
    logDir: tempDir(),
    label: `mutants-${++n}`,
    script: PYTHON_MUTANTS_PATH,
    python: 'python3',
    texts,
    settings,
  });

const INVOICE = `import logging

log = logging.getLogger(__name__)


class Invoice:
    def __init__(self, lines):
        super().__init__()
        self.lines = lines

    def total(self):
        """The sum of the lines."""
        s = 0
        for line in self.lines:
            s = s + line
        log.info("total %s", s * 2)
        return round(s)

    @property
    def empty(self):
        return len(self.lines) == 0


def discount(total, vip):
    def apply(t):
        return t * 0.9
    if vip and total > 100 and not total is None:
        return apply(total)
    return sorted([total], key=lambda x: x % 7)[0]


def label(n):
    return "n=" + str(n)
`;

const keys = (ms: readonly Mutant[] | undefined) =>
  (ms ?? []).map((m) => `${m.operator}: ${m.original} → ${m.mutated}`);

describe('pythonMutants', () => {
  it('finds the functions around the changed lines, by qualified name, and the lines outside every def', async () => {
    const r = await pythonMutants(
      [
        {
          key: 'inv.py',
          text: INVOICE,
          changed: [
            { start: 1, end: 1 },
            { start: 15, end: 15 },
            { start: 21, end: 21 },
            { start: 26, end: 26 },
          ],
        },
      ],
      run,
    );
    const f = r.get('inv.py');
    expect(f).toMatchObject({
      ok: true,
      touched: ['Invoice.total', 'Invoice.empty', 'discount.apply'],
      outside: [1],
    });
  });

  it('a change only to a docstring, a comment or a blank line touches no function and is no module code', async () => {
    const text = `"""Module."""


def total(xs):
    """The sum.

    Of all of them.
    """
    # one by one

    return sum(xs)
`;
    const r = await pythonMutants(
      [
        {
          key: 'doc.py',
          text,
          changed: [
            { start: 1, end: 3 },
            { start: 5, end: 10 },
          ],
        },
        { key: 'code.py', text, changed: [{ start: 9, end: 11 }] },
      ],
      run,
    );
    expect(r.get('doc.py')).toMatchObject({ ok: true, touched: [], outside: [] });
    expect(r.get('code.py')).toMatchObject({ ok: true, touched: ['total'], outside: [] });
  });

  it('makes the TypeScript half’s mutants, and none of a docstring, a logging call or a super() call', async () => {
    const r = await pythonMutants(
      [
        {
          key: 'inv.py',
          text: INVOICE,
          functions: ['Invoice.__init__', 'Invoice.total', 'Invoice.empty', 'discount', 'label'],
        },
      ],
      run,
    );
    const f = r.get('inv.py');
    if (!f?.ok) throw new Error(`no answer: ${JSON.stringify(f)}`);
    const total = keys(f.mutants.get('Invoice.total'));
    expect(total).toContain('swap-arithmetic: s + line → s - line');
    expect(total).toContain('constant-return: return round(s) → return None');
    expect(total).toContain("raise: return round(s) → raise Exception('patchgate mutant')");
    expect(total).toContain('drop-statement: s = s + line → pass');
    expect(total.filter((m) => m.includes('log.info') || m.includes('s * 2') || m.includes('"""'))).toEqual(
      [],
    );
    expect(keys(f.mutants.get('Invoice.__init__'))).toEqual(['drop-statement: self.lines = lines → pass']);
    expect(keys(f.mutants.get('Invoice.empty'))).toEqual(
      expect.arrayContaining([
        'negate-return: return len(self.lines) == 0 → return not (len(self.lines) == 0)',
        'flip-comparison: len(self.lines) == 0 → len(self.lines) != 0',
      ]),
    );
    const discount = keys(f.mutants.get('discount'));
    expect(discount).toContain('flip-comparison: total > 100 → total <= 100');
    expect(discount).toContain(
      'flip-boolean: vip and total > 100 and not total is None → vip or total > 100 and not total is None',
    );
    expect(discount).toContain('flip-boolean: not total is None → total is None');
    expect(discount).toContain('flip-comparison: total is None → total is not None');
    // The lambda is part of discount; the nested def is a site of its own.
    expect(discount).toContain('swap-arithmetic: x % 7 → x * 7');
    expect(discount.some((m) => m.includes('0.9'))).toBe(false);
    expect(keys(f.mutants.get('label')).some((m) => m.startsWith('swap-arithmetic'))).toBe(false);
  });

  it('makes nothing of a value only a logging call reads, and still mutates one that is also returned', async () => {
    const text = `import logging

log = logging.getLogger(__name__)


def add(value, sensitive):
    shown = value if not sensitive else b"REDACTED"
    shown = shown + b"!"
    log.debug("adding %s", shown)
    kept = value + 1
    log.debug("kept %s", kept)
    entry = table.add(value * 2)
    log.info("added %s", entry)
    return kept
`;
    const r = await pythonMutants([{ key: 'a.py', text, functions: ['add'] }], run);
    const f = r.get('a.py');
    if (!f?.ok) throw new Error('no answer');
    const ms = keys(f.mutants.get('add'));
    expect(ms.filter((m) => m.includes('shown') || m.includes('sensitive'))).toEqual([]);
    expect(ms).toContain('swap-arithmetic: value + 1 → value - 1');
    // A value only the log reads, made by a call with effects: still behaviour.
    expect(ms).toContain('swap-arithmetic: value * 2 → value / 2');
  });

  it('gives offsets the gate applies as they are, past characters outside the BMP', async () => {
    const text = 'def f(a):\n    note = "🎉 ünïcode"\n    return a < 3\n';
    const r = await pythonMutants([{ key: 'u.py', text, functions: ['f'] }], run);
    const f = r.get('u.py');
    if (!f?.ok) throw new Error('no answer');
    const flip = f.mutants.get('f')?.find((m) => m.operator === 'flip-comparison');
    expect(flip).toBeDefined();
    expect(applyMutant(text, flip as Mutant)).toBe('def f(a):\n    note = "🎉 ünïcode"\n    return a >= 3\n');
  });

  it('keeps a file that does not parse to itself: its error, while the other files are answered', async () => {
    const r = await pythonMutants(
      [
        { key: 'bad.py', text: 'def f(:\n', changed: [{ start: 1, end: 1 }] },
        { key: 'ok.py', text: 'def g():\n    return 1\n', changed: [{ start: 2, end: 2 }] },
      ],
      run,
    );
    expect(r.get('bad.py')).toMatchObject({ ok: false, error: expect.stringMatching(/^SyntaxError/) });
    expect(r.get('ok.py')).toMatchObject({ ok: true, touched: ['g'] });
  });

  it('takes an answer that is not the script’s as that file’s error, never as no mutants', async () => {
    const r = await pythonMutants([{ key: 'a.py', text: 'def g():\n    return 1\n' }], async () => ({
      'a.py': { touched: [], outside: [], mutants: { g: [{ operator: 'invent', line: 1 }] } },
    }));
    expect(r.get('a.py')).toMatchObject({ ok: false });
    const outside = await pythonMutants([{ key: 'a.py', text: 'x' }], async () => ({
      'a.py': {
        touched: [],
        outside: [],
        mutants: {
          g: [
            { operator: 'raise', line: 1, start: 0, end: 99, replacement: 'y', original: 'x', mutated: 'y' },
          ],
        },
        spans: { g: [1, 1] },
      },
    }));
    expect(outside.get('a.py')).toMatchObject({
      ok: false,
      error: expect.stringContaining('outside the file'),
    });
    // A function's mutants without its lines: the finder's answer is not whole.
    const noSpan = await pythonMutants([{ key: 'a.py', text: 'def g():\n    return 1\n' }], async () => ({
      'a.py': { touched: ['g'], outside: [], mutants: { g: [] }, spans: {} },
    }));
    expect(noSpan.get('a.py')).toMatchObject({
      ok: false,
      error: expect.stringContaining('no lines for the function g'),
    });
  });

  it('leaves out a function it was asked for that the file does not have, and gives each function found its lines', async () => {
    const r = await pythonMutants(
      [{ key: 'a.py', text: 'def g():\n    x = 1\n    return x + 1\n', functions: ['g', 'gone'] }],
      run,
    );
    const a = r.get('a.py');
    if (!a?.ok) throw new Error(`expected an answer: ${JSON.stringify(a)}`);
    expect([...a.mutants.keys()]).toEqual(['g']);
    expect(a.spans.get('g')).toEqual({ start: 1, end: 3 });
  });
});
