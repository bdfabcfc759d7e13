import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/layers/types.js';
import { type Scorecard, verdictOf } from '../../../src/report/scorecard.js';
import { evidenceText, renderTerminal } from '../../../src/report/terminal.js';
import { cutAtWord, wrapWords } from '../../../src/util/wrap.js';

const card = (findings: Finding[], extra: Partial<Scorecard> = {}): Scorecard => ({
  schema: 'patchgate/scorecard@1',
  verdict: verdictOf(findings),
  base: { ref: 'main', requested: 'a'.repeat(40), commit: 'b'.repeat(40) },
  head: { ref: 'WORKTREE', commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: true },
  config: { file: 'patchgate.config.json', revision: 'base' },
  layers: [
    { name: 'contracts', status: 'reject', findings: findings.length },
    {
      name: 'stability',
      status: 'skipped',
      findings: 0,
      reason:
        'an earlier layer did not pass (use --all-layers to run it anyway), and this reason goes on well past the edge',
    },
  ],
  findings,
  overrides: [],
  frozen: [],
  today: '2026-11-30',
  isolation: { mode: 'bwrap', user: 'separate' },
  timings: { revisionsMs: 0, setupMs: 0, cleanupMs: 0, totalMs: 5, layers: {} },
  ...extra,
});

const LONG_MESSAGE =
  'the patch modified FIXTURE_LOCK.json, a human-owned contract path (fixtures.lock); contract edits belong in a separate human commit, which a human job accepts by setting PATCHGATE_CONTRACTS_OVERRIDE';

const longFinding: Finding = {
  code: 'CONTRACT_TOUCHED',
  layer: 'contracts',
  severity: 'reject',
  message: LONG_MESSAGE,
  evidence: {
    path: 'FIXTURE_LOCK.json',
    next: 'land the contract change in its own human commit; the job that checks it sets PATCHGATE_CONTRACTS_OVERRIDE',
    output:
      'FAILED tests/test_invoice.py::test_total - AssertionError: assert 1499 == 1500\nE   where 1499 = total()',
  },
};

const words = (s: string) => s.split(/\s+/).filter((w) => w !== '');

describe('word wrapping', () => {
  it('breaks between words, with the first line indented and a hanging indent after it', () => {
    expect(wrapWords('aaa bbb ccc ddd', { width: 9, indent: 2, hanging: 4 })).toEqual([
      '  aaa bbb',
      '    ccc',
      '    ddd',
    ]);
  });

  it('breaks a word only when it is wider than the line itself', () => {
    expect(wrapWords('ab 0123456789abcdef cd', { width: 8 })).toEqual(['ab', '01234567', '89abcdef', 'cd']);
  });

  it('keeps line breaks of the text', () => {
    expect(wrapWords('one\ntwo three', { width: 80, indent: 1, hanging: 3 })).toEqual([
      ' one',
      '   two three',
    ]);
  });

  it('shortens at a word boundary with an ellipsis', () => {
    expect(cutAtWord('alpha beta gamma', 12)).toBe('alpha beta…');
    expect(cutAtWord('alpha beta gamma', 16)).toBe('alpha beta gamma');
    expect(cutAtWord('supercalifragilistic', 6)).toBe('super…');
  });
});

describe('terminal report width', () => {
  const plain = renderTerminal(card([longFinding]), { color: false });
  const lines = plain.split('\n');

  it('fits every line in 100 columns', () => {
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it('wraps the message on words under its column, never cutting one', () => {
    const start = lines.findIndex((l) => l.startsWith('reject   CONTRACT_TOUCHED'));
    const msgLines = [lines[start] as string];
    for (let i = start + 1; lines[i]?.startsWith(' '.repeat(36)) && !lines[i]?.includes('path='); i++)
      msgLines.push(lines[i] as string);
    expect(msgLines.length).toBeGreaterThan(1);
    for (const l of msgLines.slice(1)) expect(l.slice(0, 36).trim()).toBe('');
    const shown = msgLines.map((l, i) => (i === 0 ? l.slice(36) : l.trim())).join(' ');
    expect(shown).toBe(LONG_MESSAGE);
  });

  it('prints the whole evidence at its column, words intact, line breaks of values shown', () => {
    const from = lines.findIndex((l) => l.trimStart().startsWith('path='));
    const ev = lines.slice(from).filter((l) => l.startsWith(' '.repeat(36)));
    expect(ev.length).toBeGreaterThan(1);
    const text = ev.map((l) => l.trim()).join(' ');
    expect(text).toContain('path=FIXTURE_LOCK.json');
    expect(text).toContain(`next=${String(longFinding.evidence.next)}`);
    expect(text).toContain('assert 1499 == 1500 ↵ E where 1499 = total()');
  });

  it('wraps a layer reason under its own column', () => {
    const at = lines.findIndex((l) => l.startsWith('stability'));
    expect(lines[at]).toMatch(/^stability\s+skipped\s+0 {2}an earlier layer/);
    expect(lines[at + 1]?.slice(0, 24).trim()).toBe('');
    expect(`${lines[at]} ${lines[at + 1]?.trim()}`).toContain('goes on well past the edge');
  });

  it('shortens a huge evidence value between words, never inside one', () => {
    const text = evidenceText({ output: 'word '.repeat(500) });
    expect(text.length).toBeLessThanOrEqual(240 + 'output='.length);
    expect(text.endsWith('word…')).toBe(true);
    for (const w of words(text)) expect(['output=word', 'word', 'word…']).toContain(w);
    const small = evidenceText({ data: { a: [1, 2], b: 'x' } });
    expect(small).toBe('data={ "a": [ 1, 2 ], "b": "x" }');
  });

  it('keeps colour out of the width: coloured lines are as wide as plain ones once escapes are removed', () => {
    const coloured = renderTerminal(card([longFinding]), { color: true });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what we strip
    const stripped = coloured.replace(/\u001b\[[0-9;]*m/g, '');
    expect(stripped).toBe(plain);
  });
});

/** The table without its own colour codes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colour codes are what it removes
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('head text on the terminal', () => {
  // What a test name or a failure message could carry: an ESC sequence, a CSI, CR overwriting the line, a
  // bidi override, and words that a CI runner reads as workflow commands once wrapping puts them first.
  const hostile = `ok\u001b[2J\u009b31m\rforged \u202eesrever ##[add-mask]gate ${'word '.repeat(14)}::stop-commands::x`;
  const f: Finding = {
    code: 'UNKNOWN_FAILURE_SIGNATURE',
    layer: 'signatures',
    severity: 'reject',
    message: hostile,
    evidence: { test: hostile, template: `line\n::warning::planted` },
  };
  const shown = renderTerminal(
    card([f], {
      head: { ref: `feature\u001b]0;t\u0007`, commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: false },
      frozen: [
        {
          layer: 'signatures',
          covers: hostile,
          matched: hostile,
          owner: 'qa',
          expires: '2026-12-31',
          action: 'x',
          source: { file: 'flake_signatures.json', index: 0 },
        },
      ],
      overrides: [
        { layer: 'fixtures', code: 'FIXTURE_CHANGED', path: hostile, variable: 'FIXTURE_OVERRIDE' },
      ],
    }),
    { color: true },
  );

  it('shows controls and bidi overrides as \\u escapes, keeping its own colours', () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    const raw = plain(shown).match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/g);
    expect(raw).toBeNull();
    expect(shown).toContain('ok\\u001b[2J\\u009b31m\\u000dforged \\u202eesrever');
    expect(shown).toContain('feature\\u001b]0;t\\u0007');
    expect(shown).toContain('\u001b[31m');
  });

  it('never starts a line with a workflow command, and never carries the legacy ##[ one', () => {
    expect(shown).not.toContain('##[');
    for (const line of plain(shown).split('\n')) expect(line.trimStart()).not.toMatch(/^::/);
  });
});
