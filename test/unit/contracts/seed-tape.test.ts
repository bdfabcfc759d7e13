import { describe, expect, it } from 'vitest';
import { parseTape } from '../../../src/contracts/seed-tape.js';
import { compareTapes } from '../../../src/layers/seeds/compare-tapes.js';
import { rejectionOf } from '../../helpers/problems.js';

const FILE = 'property_seeds.json';

/** The example from seed 001, as printed there. */
const SEED_FORMAT = {
  properties: [
    {
      id: 'invoice_total_non_negative',
      nodeid: 'tests/test_invoice_properties.py::test_total_non_negative',
      min_examples: 200,
      seeds: ['1048291', '77', '9001'],
    },
  ],
};

const problemsOf = (value: unknown) =>
  rejectionOf(
    () => parseTape(typeof value === 'string' ? value : JSON.stringify(value, null, 2), FILE),
    'tape',
    'CONTRACT_INVALID',
  );

describe('seed tape', () => {
  it("reads the seed's own format unchanged as a pytest row with the Hypothesis switch", () => {
    const tape = parseTape(JSON.stringify(SEED_FORMAT, null, 2), FILE);
    expect(tape.rows).toEqual([
      {
        id: 'invoice_total_non_negative',
        runner: 'pytest',
        nodeid: 'tests/test_invoice_properties.py::test_total_non_negative',
        min_examples: 200,
        seeds: [{ seed: '1048291' }, { seed: '77' }, { seed: '9001' }],
        seed_switch: '--hypothesis-seed={seed}',
        index: 0,
        line: 3,
      },
    ]);
  });

  it('reads fast-check rows with a path and a stored counterexample, and integer seeds', () => {
    const tape = parseTape(
      JSON.stringify({
        properties: [
          {
            id: 'split',
            runner: 'fast-check',
            min_examples: 100,
            seeds: [-5, { seed: '12', path: '3:0:1', counterexample: [1, 2], note: 'rounding' }],
          },
        ],
      }),
      FILE,
    );
    expect(tape.rows[0]?.seeds).toEqual([
      { seed: '-5' },
      { seed: '12', path: '3:0:1', counterexample: [1, 2], note: 'rounding' },
    ]);
    expect(tape.rows[0]?.seed_switch).toBeUndefined();
  });

  it('rejects a floor below 1, a fractional or string floor, each located', () => {
    const messages = problemsOf({
      properties: [
        { ...SEED_FORMAT.properties[0], id: 'a', min_examples: 0 },
        { ...SEED_FORMAT.properties[0], id: 'b', min_examples: 2.5 },
        { ...SEED_FORMAT.properties[0], id: 'c', min_examples: '200' },
      ],
    });
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/properties\[0\]\.min_examples: expected at least 1, got the number 0/),
        expect.stringMatching(/properties\[1\]\.min_examples: expected an integer, got the number 2\.5/),
        expect.stringMatching(/properties\[2\]\.min_examples: expected a number, got the string "200"/),
      ]),
    );
    expect(messages.every((m) => /^property_seeds\.json:\d+:\d+: /.test(m))).toBe(true);
  });

  it('rejects seeds that are not decimal integers, duplicates, and fast-check seeds outside 32 bits', () => {
    const messages = problemsOf({
      properties: [
        { ...SEED_FORMAT.properties[0], id: 'a', seeds: ['0x1f', 1.5, '77', '77'] },
        { id: 'b', runner: 'fast-check', min_examples: 1, seeds: [2 ** 31] },
      ],
    });
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /properties\[0\]\.seeds\[0\]: expected a seed written as a decimal integer.*0x1f/,
        ),
        expect.stringMatching(/properties\[0\]\.seeds\[1\]: expected a seed written as a decimal integer/),
      ]),
    );
    // Shape problems stop the file before the cross-field rules run; fix them and the rules report.
    const rules = problemsOf({
      properties: [
        { ...SEED_FORMAT.properties[0], id: 'a', seeds: ['77', '77'] },
        { id: 'b', runner: 'fast-check', min_examples: 1, seeds: [2 ** 31] },
      ],
    });
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/properties\[0\]\.seeds: lists seed 77 twice/),
        expect.stringMatching(
          /properties\[1\]\.seeds: seed 2147483648 is outside fast-check's 32-bit seed range/,
        ),
      ]),
    );
  });

  it('rejects rows that cannot be replayed: no nodeid, a switch without {seed}, a command without {report}', () => {
    const messages = problemsOf({
      properties: [
        { id: 'a', min_examples: 1, seeds: [] },
        { id: 'b', nodeid: 't.py::t', min_examples: 1, seeds: [], seed_switch: '--seed' },
        {
          id: 'c',
          runner: 'command',
          nodeid: 'x',
          min_examples: 1,
          seeds: [],
          command: ['run', '{seed}', '{oops}'],
        },
        {
          id: 'd',
          runner: 'command',
          nodeid: 'x',
          min_examples: 1,
          seeds: [{ seed: '2', counterexample: { x: 1 } }],
        },
        { id: 'e', nodeid: 't.py::t', min_examples: 1, seeds: [{ seed: '1', counterexample: 1 }] },
        { id: 'e', runner: 'fast-check', min_examples: 1, seeds: [] },
      ],
    });
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/properties\[0\]: is a pytest row and needs a `nodeid`/),
        expect.stringMatching(/properties\[1\]\.seed_switch: must contain \{seed\}/),
        expect.stringMatching(/properties\[2\]\.command: uses \{oops\}/),
        expect.stringMatching(/properties\[2\]\.command: never uses \{report\}/),
        expect.stringMatching(/properties\[3\]: is a command row and needs a `command`/),
        expect.stringMatching(
          /properties\[3\]\.seeds: seed 2 has a counterexample, which only fast-check and pytest rows can replay/,
        ),
        expect.stringMatching(
          /properties\[4\]\.seeds: seed 1: a pytest counterexample is the test's arguments by name/,
        ),
        expect.stringMatching(/properties\[5\]\.id: repeats the id of properties\[4\]/),
      ]),
    );
  });

  it('rejects unknown fields and invalid JSON with a position', () => {
    expect(problemsOf({ properties: [{ ...SEED_FORMAT.properties[0], max_examples: 5 }] })).toEqual([
      expect.stringMatching(/max_examples/),
    ]);
    expect(problemsOf('{"properties": [')).toEqual([
      expect.stringMatching(/^property_seeds\.json:1:\d+: is not valid JSON/),
    ]);
  });
});

describe('base tape against head tape', () => {
  const base = parseTape(JSON.stringify(SEED_FORMAT, null, 2), FILE);
  const edit = (f: (row: Record<string, unknown>) => void) => {
    const copy = structuredClone(SEED_FORMAT) as { properties: Record<string, unknown>[] };
    f(copy.properties[0] as Record<string, unknown>);
    return parseTape(JSON.stringify(copy), FILE);
  };

  it('accepts an unchanged tape, added seeds and a raised floor', () => {
    expect(compareTapes(base, base)).toEqual([]);
    expect(
      compareTapes(
        base,
        edit((r) => {
          r.seeds = ['1048291', '77', '9001', '5'];
          r.min_examples = 500;
        }),
      ),
    ).toEqual([]);
  });

  it('reports a dropped seed with the property, the seed and the row line', () => {
    const findings = compareTapes(
      base,
      edit((r) => {
        r.seeds = ['1048291', '9001'];
      }),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'SEED_DROPPED',
        evidence: {
          property: 'invoice_total_non_negative',
          seed: '77',
          dropped: 'seed',
          file: FILE,
          line: 3,
        },
      }),
    ]);
  });

  it('reports a lowered floor even when every seed is kept', () => {
    const findings = compareTapes(
      base,
      edit((r) => {
        r.min_examples = 20;
      }),
    );
    expect(findings.map((f) => [f.code, f.evidence.base, f.evidence.head])).toEqual([
      ['MIN_EXAMPLES_LOWERED', 200, 20],
    ]);
  });

  it('drops every seed of a row that is renamed or removed, and of a deleted tape', () => {
    const renamed = edit((r) => {
      r.id = 'total_ok';
    });
    expect(compareTapes(base, renamed).map((f) => f.evidence.seed)).toEqual(['1048291', '77', '9001']);
    const gone = compareTapes(base, undefined, 'property_seeds.json was deleted');
    expect(gone).toHaveLength(3);
    expect(gone[0]?.message).toMatch(/deleted/);
  });

  it('reports a stored counterexample removed from a seed entry', () => {
    const withCx = parseTape(
      JSON.stringify({
        properties: [
          { id: 's', runner: 'fast-check', min_examples: 1, seeds: [{ seed: '3', counterexample: [1, 2] }] },
        ],
      }),
      FILE,
    );
    const bare = parseTape(
      JSON.stringify({ properties: [{ id: 's', runner: 'fast-check', min_examples: 1, seeds: ['3'] }] }),
      FILE,
    );
    expect(compareTapes(withCx, bare)).toEqual([
      expect.objectContaining({
        code: 'SEED_DROPPED',
        evidence: expect.objectContaining({ dropped: 'counterexample' }),
      }),
    ]);
  });
});
