import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IniParseError, mergeIniSections, parseIni } from '../../../src/config/ini-sections.js';
import { iniconfigReads } from '../../helpers/pytest-oracle.js';

/**
 * iniconfig, the reader pytest uses for pytest.ini, tox.ini and setup.cfg, is
 * the specification of the INI split: generated files full of the lines
 * where readers disagree (indented headers, comment characters, continuation
 * lines, Unicode spaces, every line end Python's splitlines knows) must read
 * the same to both, and a merged file must read to iniconfig as the base's
 * test sections plus the head's others.
 */

const NAMES = [
  'pytest',
  'tool:pytest',
  'tox',
  'PYTEST',
  ' pytest ',
  'py test',
  'coverage:run',
  '[pytest]',
  '',
];
const SPACES = ['', ' ', '\t', '\u00a0', '\u3000', '\x1f', '\x85', '\ufeff'];
const ENDS = ['\n', '\r\n', '\r', '\f', '\v', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029'];

const space = fc.constantFrom(...SPACES);
const header = fc
  .tuple(space, fc.constantFrom(...NAMES), fc.constantFrom('', ' # c', ' ; c', '#c]', ';x]', ']', ' '))
  .map(([lead, name, tail]) => `${lead}[${name}]${tail}`);
const brokenHeader = fc.constantFrom('[pytest', '[pytest;x]', '[py#test]', '[]', '[ ]');
const value = fc
  .tuple(
    fc.constantFrom('addopts', 'testpaths', 'a:b', 'x=y', 'Key', 'addopts '),
    fc.constantFrom(' = ', '=', ': ', ':', ' '),
    fc.constantFrom('-p evil', '', 'tests', 'a=b:c', '# not a comment', '[pytest]'),
  )
  .map(([k, sep, v]) => `${k}${sep}${v}`);
const continuation = fc
  .tuple(
    fc.constantFrom(' ', '\t', '   ', '\u00a0', '\x1f'),
    fc.constantFrom('-p evil', '[pytest]', 'more', '#x'),
  )
  .map(([s, v]) => `${s}${v}`);
const comment = fc
  .tuple(space, fc.constantFrom('#', ';'), fc.constantFrom('', ' [pytest]', ' x = 1'))
  .map(([s, c, t]) => `${s}${c}${t}`);
const line = fc.oneof(
  { weight: 3, arbitrary: header },
  { weight: 1, arbitrary: brokenHeader },
  { weight: 4, arbitrary: value },
  { weight: 2, arbitrary: continuation },
  { weight: 1, arbitrary: comment },
  { weight: 1, arbitrary: space },
);
// Most files start with a plain header, so that enough of them are valid for the comparison to bite.
const iniText = fc
  .tuple(
    fc.constantFrom('[tox]\n', '[pytest]\n', ''),
    fc.array(fc.tuple(line, fc.constantFrom(...ENDS, ...ENDS, '\n', '\n', '\n')), {
      minLength: 1,
      maxLength: 10,
    }),
  )
  .map(([start, ls]) => start + ls.map(([l, e]) => l + e).join(''));

/** A text that iniconfig accepts (the generator above mostly yields errors): sections with keys. */
const validIni = fc
  .array(
    fc.tuple(
      fc.constantFrom('pytest', 'tox', 'metadata', 'coverage:run', 'tool:pytest'),
      fc.array(fc.tuple(fc.constantFrom('a', 'b', 'addopts', 'c'), fc.constantFrom('1', '-p x', '')), {
        maxLength: 3,
      }),
      fc.constantFrom(...ENDS),
    ),
    { maxLength: 4 },
  )
  .map((sections) => {
    const seen = new Set<string>();
    return sections
      .filter(([name]) => !seen.has(name) && seen.add(name))
      .map(([name, kvs, end]) => {
        const keys = new Set<string>();
        const body = kvs
          .filter(([k]) => !keys.has(k) && keys.add(k))
          .map(([k, v]) => `${k} = ${v}${end}`)
          .join('');
        return `[${name}]${end}${body}`;
      })
      .join('');
  });

type Reading = { sections: Record<string, Record<string, string>> } | { error: true };

function ours(text: string): Reading {
  try {
    const sections: Record<string, Record<string, string>> = {};
    for (const s of parseIni(text)) if (s.name !== undefined) sections[s.name] = Object.fromEntries(s.values);
    return { sections };
  } catch (err) {
    if (err instanceof IniParseError) return { error: true };
    throw err;
  }
}

describe('parseIni against iniconfig', () => {
  it('reads every generated file as iniconfig does: the same sections and values, or an error', () => {
    const texts = fc.sample(iniText, { numRuns: 600, seed: 1717 });
    const theirs = iniconfigReads(texts);
    const mismatches = texts.flatMap((t, i) => {
      const r = theirs[i];
      const expected: Reading = r && 'sections' in r ? { sections: r.sections } : { error: true };
      const got = ours(t);
      return JSON.stringify(got) === JSON.stringify(expected) ? [] : [{ text: t, got, expected }];
    });
    expect(mismatches.slice(0, 3)).toEqual([]);
    // The sample must hold both outcomes, or it proves little.
    expect(theirs.filter((r) => 'sections' in r).length).toBeGreaterThan(50);
    expect(theirs.filter((r) => 'error' in r).length).toBeGreaterThan(50);
  });

  it("merges so that iniconfig reads the base's test sections and the head's others", () => {
    const pairs = fc.sample(fc.tuple(validIni, fc.oneof(validIni, iniText)), { numRuns: 300, seed: 4242 });
    const usable = pairs.filter(([b, h]) => !('error' in ours(b)) && !('error' in ours(h)));
    expect(usable.length).toBeGreaterThan(100);
    const merged = usable.map(([b, h]) => mergeIniSections(['pytest', 'coverage:*'], b, h));
    const reads = iniconfigReads([...usable.flat(), ...merged]);
    const isTest = (name: string) => name === 'pytest' || name.startsWith('coverage:');
    usable.forEach(([b, h], i) => {
      const base = reads[2 * i];
      const head = reads[2 * i + 1];
      const out = reads[2 * usable.length + i];
      if (!base || !head || !out || !('sections' in base) || !('sections' in head))
        throw new Error(`iniconfig refused an input our reader accepts: ${JSON.stringify([b, h])}`);
      const want = Object.fromEntries([
        ...Object.entries(head.sections).filter(([n]) => !isTest(n)),
        ...Object.entries(base.sections).filter(([n]) => isTest(n)),
      ]);
      expect(out, JSON.stringify([b, h, merged[i]])).toEqual({ sections: want });
    });
  });
});
