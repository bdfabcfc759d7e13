import { describe, expect, it } from 'vitest';
import { mentioned, mentionsOf } from '../../../../src/layers/stability/changed-names.js';

describe('mentionsOf: what a file of a test closure names', () => {
  it('a plain `from m import a` is no use of a; an import under another name, and any later use, are', () => {
    const text = [
      'from .prices import total, tax',
      'from .fmt import (',
      '    label,',
      '    money,',
      ')',
      'from .x import q, \\',
      '    spare',
      'from .y import rate as r',
      'print(total([1]))',
      '',
    ].join('\n');
    const m = mentionsOf('pkg/__init__.py', text);
    expect(mentioned(m, ['tax'])).toBeUndefined();
    expect(mentioned(m, ['label'])).toBeUndefined();
    expect(mentioned(m, ['spare'])).toBeUndefined();
    expect(mentioned(m, ['rate'])).toEqual({ name: 'rate', computed: false });
    expect(mentioned(m, ['tax', 'total'])).toEqual({ name: 'total', computed: false });
  });

  it("a package's __all__ list is no use of the names it lists", () => {
    const m = mentionsOf(
      'pkg/__init__.py',
      '__all__ = [\n    "Encoder",\n    "Decoder",\n]\n\nDEFAULT = Decoder\n',
    );
    expect(mentioned(m, ['Encoder'])).toBeUndefined();
    expect(mentioned(m, ['Decoder'])).toEqual({ name: 'Decoder', computed: false });
  });

  it('JavaScript keeps its import lines: only Python import statements bind without running', () => {
    expect(mentioned(mentionsOf('a.test.ts', 'from .prices import tax\n'), ['tax'])).toEqual({
      name: 'tax',
      computed: false,
    });
  });

  it('a file that reaches attributes by computed names, or imports *, may use any name', () => {
    expect(mentioned(mentionsOf('t.py', 'getattr(mod, name)()\n'), ['tax'])).toEqual({
      name: 'tax',
      computed: true,
    });
    expect(mentioned(mentionsOf('t.py', 'from shop import *\n'), ['tax'])?.computed).toBe(true);
    expect(mentioned(mentionsOf('t.py', 'import shop\nshop.total()\n'), ['tax'])).toBeUndefined();
  });
});
