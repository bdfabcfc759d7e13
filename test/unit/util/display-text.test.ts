import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayText, isDisplaySafe, noWorkflowCommands } from '../../../src/util/display-text.js';

const hex = (cp: number) => `\\u${cp.toString(16).padStart(4, '0')}`;

describe('displayText', () => {
  it('writes every C0 control but newline and tab, DEL and every C1 control as its \\u escape', () => {
    const controls: number[] = [];
    for (let cp = 0; cp <= 0x1f; cp++) if (cp !== 0x0a && cp !== 0x09) controls.push(cp);
    controls.push(0x7f);
    for (let cp = 0x80; cp <= 0x9f; cp++) controls.push(cp);
    for (const cp of controls) expect(displayText(`a${String.fromCodePoint(cp)}b`)).toBe(`a${hex(cp)}b`);
    expect(displayText('line one\n\tline two')).toBe('line one\n\tline two');
  });

  it('shows a CSI (U+009B) and an ESC sequence as text, never as a sequence a terminal runs', () => {
    const shown = displayText('test_total\u009b2J\u001b]0;owned\u0007\u001b[31mred');
    expect(shown).toBe('test_total\\u009b2J\\u001b]0;owned\\u0007\\u001b[31mred');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('escapes bidi overrides, isolates and marks (Trojan Source), separators and zero-width characters', () => {
    const cps = [
      0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
      0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff,
    ];
    for (const cp of cps) expect(displayText(String.fromCodePoint(cp))).toBe(hex(cp));
    // "access granted" reordered by an override reads differently from what it is: shown as it is instead.
    expect(displayText('if (admin) \u202e} ⁦// not admin⁩ {')).toBe(
      'if (admin) \\u202e} \\u2066// not admin\\u2069 {',
    );
  });

  it('keeps ordinary text of any script, emoji and symbols as it is', () => {
    for (const s of ['déjà vu', 'テスト', 'שלום', '🙂 ✅ ↵ →', 'a::b', 'tests/test_x.py::test_y', '#1 @me'])
      expect(isDisplaySafe(s)).toBe(true);
  });

  it('breaks GitHub workflow commands: `::` starting a line after any spaces, `##[` anywhere', () => {
    expect(displayText('::add-mask::secret')).toBe('\\u003a:add-mask::secret');
    expect(displayText('ok\n   ::error file=a::fake\n\u00a0::stop-commands::x')).toBe(
      'ok\n   \\u003a:error file=a::fake\n\u00a0\\u003a:stop-commands::x',
    );
    expect(displayText('test name ##[error]fake annotation')).toBe(
      'test name ##\\u005b' + 'error]fake annotation',
    );
    // Not a command: `::` inside a line, as in a pytest id.
    expect(displayText('tests/a.py::test_b')).toBe('tests/a.py::test_b');
  });

  it('turns any JSON text into one that parses to the same value', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const weird = fc.constantFrom('\u009b', '\u202e', '\u2028', '##[', '::', '\n::x', '\ufeff', '\\');
    const strings = fc.oneof(
      text,
      fc.array(fc.oneof(text, weird), { maxLength: 8 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), strings, (value, s) => {
        for (const v of [value, s, { [s]: [s, value] }]) {
          for (const json of [JSON.stringify(v), JSON.stringify(v, null, 2)]) {
            const shown = displayText(json);
            expect(JSON.parse(shown)).toEqual(JSON.parse(json));
            expect(isDisplaySafe(shown)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('noWorkflowCommands', () => {
  it('breaks a command a line starts with and leaves the output its own colours', () => {
    const coloured = '\u001b[31mreject\u001b[39m  message\n      ::warning::planted\n';
    expect(noWorkflowCommands(coloured)).toBe(
      '\u001b[31mreject\u001b[39m  message\n      \\u003a:warning::planted\n',
    );
  });
});
