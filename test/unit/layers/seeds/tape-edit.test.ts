import { describe, expect, it } from 'vitest';
import { parseTape } from '../../../../src/contracts/seed-tape.js';
import { InputError } from '../../../../src/errors.js';
import {
  type AddSeedRequest,
  addSeed,
  emptyTape,
  formatTape,
  parseJsonFlag,
  rawTapeValue,
  seedRequestFromFlags,
} from '../../../../src/layers/seeds/tape-edit.js';

const FILE = 'property_seeds.json';

/** A tape written the way the seed writes it, plus a fast-check row with every seed form. */
const TAPE_TEXT = `{
  "properties": [
    {
      "id": "invoice_total_non_negative",
      "nodeid": "tests/test_invoice_properties.py::test_total_non_negative",
      "min_examples": 200,
      "seeds": ["1048291", 77, "9001"]
    },
    {
      "id": "sum_commutes",
      "runner": "fast-check",
      "min_examples": 50,
      "seeds": [12, "-5", { "seed": "400", "path": "1:2", "note": "found in review" }]
    }
  ]
}
`;

function tape(): unknown {
  return rawTapeValue(TAPE_TEXT, FILE);
}

function rows(value: unknown): Record<string, unknown>[] {
  return (value as { properties: Record<string, unknown>[] }).properties;
}

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

const add = (req: AddSeedRequest, value: unknown = tape()) => addSeed(value, req);

describe('addSeed: creating', () => {
  it('creates a fast-check row in an empty tape, the seed bare when only --seed is given', () => {
    const r = add({ id: 'p', seed: '7', runner: 'fast-check', minExamples: 100 }, emptyTape());
    expect(r.changed).toBe(true);
    expect(r.createdRow).toBe(true);
    expect(r.value).toEqual({
      properties: [{ id: 'p', runner: 'fast-check', min_examples: 100, seeds: ['7'] }],
    });
    expect(r.message).toBe("created row 'p' (fast-check, min_examples 100) with seed 7");
    expect(() => formatTape(r.value, FILE)).not.toThrow();
  });

  it('writes a seed with a path, counterexample or note as an object, in that key order', () => {
    const r = add(
      {
        id: 'p',
        seed: '-3',
        runner: 'fast-check',
        minExamples: 10,
        note: 'why',
        counterexample: [1, 'a'],
        path: '4:0',
      },
      emptyTape(),
    );
    const seeds = rows(r.value)[0]?.seeds as unknown[];
    expect(seeds).toEqual([{ seed: '-3', path: '4:0', counterexample: [1, 'a'], note: 'why' }]);
    expect(Object.keys(seeds[0] as object)).toEqual(['seed', 'path', 'counterexample', 'note']);
    expect(r.message).toContain('seed -3 (path 4:0, counterexample [1,"a"], note "why")');
  });

  it('creates a pytest row in the seed format (no runner field) and a command row', () => {
    const py = add({ id: 'q', seed: '5', nodeid: 't.py::test_q', minExamples: 20 }, emptyTape());
    expect(rows(py.value)[0]).toEqual({ id: 'q', nodeid: 't.py::test_q', min_examples: 20, seeds: ['5'] });
    const cmd = add(
      {
        id: 'c',
        seed: '5',
        runner: 'command',
        nodeid: 'x',
        minExamples: 1,
        command: ['prop', '--seed', '{seed}', '--report', '{report}'],
      },
      emptyTape(),
    );
    expect(rows(cmd.value)[0]).toEqual({
      id: 'c',
      runner: 'command',
      nodeid: 'x',
      min_examples: 1,
      seeds: ['5'],
      command: ['prop', '--seed', '{seed}', '--report', '{report}'],
    });
    expect(() => formatTape(cmd.value, FILE)).not.toThrow();
  });

  it('appends a new row after the existing ones, leaving them exactly as written', () => {
    const before = tape();
    const r = add({ id: 'new', seed: '1', runner: 'fast-check', minExamples: 5 }, before);
    expect(rows(r.value).slice(0, 2)).toEqual(rows(before));
    expect(rows(r.value)[0]?.seeds).toEqual(['1048291', 77, '9001']);
    expect(rows(r.value)).toHaveLength(3);
  });

  it('needs --min-examples for a new row', () => {
    expect(errorOf(() => add({ id: 'p', seed: '1', runner: 'fast-check' }, emptyTape())).message).toBe(
      "seeds add: 'p' is not on the tape yet; creating its row needs --min-examples N, the floor of examples the property must run",
    );
  });

  it('needs --nodeid for a new pytest or command row, and --command for a command row', () => {
    expect(errorOf(() => add({ id: 'p', seed: '1', minExamples: 3 }, emptyTape())).message).toBe(
      "seeds add: 'p' is not on the tape yet and would be a pytest row, which needs --nodeid: the test the seeds are replayed through (pass --runner fast-check for a property defined with defineSeedProperty)",
    );
    expect(
      errorOf(() => add({ id: 'p', seed: '1', minExamples: 3, runner: 'command' }, emptyTape())).message,
    ).toBe(
      "seeds add: 'p' is not on the tape yet and would be a command row, which needs --nodeid: the test the seeds are replayed through",
    );
    expect(
      errorOf(() => add({ id: 'p', seed: '1', minExamples: 3, runner: 'command', nodeid: 'n' }, emptyTape()))
        .message,
    ).toBe(
      "seeds add: 'p' is not on the tape yet and would be a command row, which needs --command: the argv (JSON) with {seed} and {report}",
    );
  });

  it('does not mutate the value it is given', () => {
    const before = tape();
    const copy = structuredClone(before);
    add({ id: 'sum_commutes', seed: '9', minExamples: 60 }, before);
    add({ id: 'zzz', seed: '9', runner: 'fast-check', minExamples: 60 }, before);
    expect(before).toEqual(copy);
  });
});

describe('addSeed: extending', () => {
  it('appends a new seed to an existing row, keeping numbers numbers and bare strings strings', () => {
    const r = add({ id: 'invoice_total_non_negative', seed: '31337' });
    expect(r.changed).toBe(true);
    expect(r.createdRow).toBe(false);
    expect(rows(r.value)[0]?.seeds).toEqual(['1048291', 77, '9001', '31337']);
    expect(r.message).toBe("added seed 31337 to 'invoice_total_non_negative'");
  });

  it('says an identical seed is already there and changes nothing', () => {
    const before = tape();
    for (const req of [
      { id: 'invoice_total_non_negative', seed: '77' },
      { id: 'sum_commutes', seed: '400', path: '1:2' },
      { id: 'sum_commutes', seed: '400', note: 'found in review', minExamples: 50 },
      { id: 'invoice_total_non_negative', seed: '1048291', runner: 'pytest' as const },
    ]) {
      const r = add(req, before);
      expect(r.changed).toBe(false);
      expect(r.value).toBe(before);
      expect(r.message).toBe(
        `seed ${req.seed} is already on '${req.id}' with everything given; nothing to change`,
      );
    }
  });

  it('upgrades a bare seed to an object when a path or counterexample is added, keeping its seed as written', () => {
    const r = add({ id: 'sum_commutes', seed: '12', path: '3:1', counterexample: [0, -1] });
    expect((rows(r.value)[1]?.seeds as unknown[])[0]).toEqual({
      seed: 12,
      path: '3:1',
      counterexample: [0, -1],
    });
    expect(r.message).toBe(
      "recorded path and counterexample for seed 12 of 'sum_commutes' (it was already on the tape)",
    );
    const s = add({ id: 'sum_commutes', seed: '-5', counterexample: [2, 2] });
    expect((rows(s.value)[1]?.seeds as unknown[])[1]).toEqual({ seed: '-5', counterexample: [2, 2] });
  });

  it('adds missing fields to an object seed and never removes the ones it has', () => {
    const r = add({ id: 'sum_commutes', seed: '400', counterexample: [1, 1] });
    expect((rows(r.value)[1]?.seeds as unknown[])[2]).toEqual({
      seed: '400',
      path: '1:2',
      note: 'found in review',
      counterexample: [1, 1],
    });
  });

  it('refuses to replace what a seed already records', () => {
    expect(errorOf(() => add({ id: 'sum_commutes', seed: '400', path: '9:9' })).message).toBe(
      `seeds add: seed 400 of 'sum_commutes' already records path "1:2"; seeds add never replaces what the tape records (a different path is a hand edit, in a human commit)`,
    );
    expect(errorOf(() => add({ id: 'sum_commutes', seed: '400', note: 'other' })).message).toContain(
      'already records note "found in review"',
    );
  });

  it('raises min_examples when asked for more, and refuses to lower it, naming the current floor', () => {
    const up = add({ id: 'invoice_total_non_negative', seed: '77', minExamples: 500 });
    expect(up.changed).toBe(true);
    expect(rows(up.value)[0]?.min_examples).toBe(500);
    expect(up.message).toBe(
      "raised min_examples of 'invoice_total_non_negative' from 200 to 500; seed 77 was already on 'invoice_total_non_negative'",
    );
    const both = add({ id: 'invoice_total_non_negative', seed: '5', minExamples: 201 });
    expect(both.message).toBe(
      "raised min_examples of 'invoice_total_non_negative' from 200 to 201; added seed 5 to 'invoice_total_non_negative'",
    );
    const e = errorOf(() => add({ id: 'invoice_total_non_negative', seed: '5', minExamples: 199 }));
    expect(e.message).toBe(
      "seeds add: --min-examples 199 is lower than the current floor of 'invoice_total_non_negative', min_examples 200; the floor may stay or rise, never fall",
    );
    expect(e.details).toMatchObject({ floor: 200, requested: 199 });
  });

  it('matches the row id and seed the way the tape reads them (trimmed, numbers as text)', () => {
    const value = { properties: [{ id: ' p ', runner: 'fast-check', min_examples: 1, seeds: [' 8 '] }] };
    expect(add({ id: 'p', seed: '8' }, value).changed).toBe(false);
  });
});

describe('addSeed: runner rules', () => {
  it('keeps fast-check seeds in the 32-bit range', () => {
    expect(errorOf(() => add({ id: 'sum_commutes', seed: '2147483648' })).message).toBe(
      "seeds add: seed 2147483648 is outside fast-check's 32-bit seed range [-2147483648, 2147483647]",
    );
    expect(add({ id: 'sum_commutes', seed: '-2147483648' }).changed).toBe(true);
    expect(add({ id: 'invoice_total_non_negative', seed: '99999999999' }).changed).toBe(true);
  });

  it('takes a path only on fast-check rows, and a pytest counterexample only as arguments by name', () => {
    expect(errorOf(() => add({ id: 'invoice_total_non_negative', seed: '1', path: '1' })).message).toBe(
      "seeds add: --path only applies to fast-check rows, and 'invoice_total_non_negative' is a pytest row: it replays the seed alone",
    );
    expect(
      errorOf(() => add({ id: 'invoice_total_non_negative', seed: '1', counterexample: [1] })).message,
    ).toContain("--counterexample must be the JSON object of the test's arguments by name");
    const added = add({ id: 'invoice_total_non_negative', seed: '1', counterexample: { total: -1 } });
    expect(added.changed).toBe(true);
  });

  it("wants a fast-check counterexample to be the tuple of the property's arguments", () => {
    expect(errorOf(() => add({ id: 'sum_commutes', seed: '1', counterexample: 5 })).message).toBe(
      "seeds add: --counterexample must be the JSON array of the property's arguments (fast-check's counterexample tuple, e.g. [3,-1]), got 5",
    );
  });

  it('never changes how an existing row replays', () => {
    expect(errorOf(() => add({ id: 'sum_commutes', seed: '1', runner: 'pytest' })).message).toBe(
      `seeds add: 'sum_commutes' already has runner "fast-check", and --runner "pytest" would change how it replays; seeds add only adds seeds and raises floors (change it by hand, in a human commit)`,
    );
    expect(
      errorOf(() => add({ id: 'invoice_total_non_negative', seed: '1', nodeid: 'other' })).message,
    ).toContain(
      'already has nodeid "tests/test_invoice_properties.py::test_total_non_negative", and --nodeid "other"',
    );
    expect(
      errorOf(() => add({ id: 'invoice_total_non_negative', seed: '1', seedSwitch: '--seed={seed}' }))
        .message,
    ).toContain('already has seed_switch "--hypothesis-seed={seed}"');
    expect(errorOf(() => add({ id: 'sum_commutes', seed: '1', nodeid: 'x' })).message).toContain(
      'already has no nodeid',
    );
    // Restating what the row already says is fine.
    expect(
      add({
        id: 'invoice_total_non_negative',
        seed: '77',
        nodeid: 'tests/test_invoice_properties.py::test_total_non_negative',
        seedSwitch: '--hypothesis-seed={seed}',
      }).changed,
    ).toBe(false);
  });

  it('checks --seed-switch and --command against the runner', () => {
    expect(
      errorOf(() =>
        add({ id: 'p', seed: '1', runner: 'fast-check', minExamples: 1, seedSwitch: 'x{seed}' }, emptyTape()),
      ).message,
    ).toBe("seeds add: --seed-switch only applies to pytest rows, and 'p' is a fast-check row");
    expect(
      errorOf(() =>
        add({ id: 'p', seed: '1', nodeid: 'n', minExamples: 1, seedSwitch: '--seed' }, emptyTape()),
      ).message,
    ).toBe(
      'seeds add: --seed-switch must contain {seed}, where the recorded seed goes (e.g. "--hypothesis-seed={seed}"), got "--seed"',
    );
    expect(
      errorOf(() =>
        add({ id: 'p', seed: '1', nodeid: 'n', minExamples: 1, command: ['x', '{seed}'] }, emptyTape()),
      ).message,
    ).toBe("seeds add: --command only applies to command rows, and 'p' is a pytest row");
  });

  it('refuses a value that is not a tape', () => {
    expect(errorOf(() => addSeed([], { id: 'p', seed: '1' })).message).toBe(
      'seeds add: the tape is not an object with a `properties` array',
    );
  });
});

describe('seedRequestFromFlags', () => {
  it('builds the request from the flags', () => {
    expect(
      seedRequestFromFlags(' p ', {
        seed: ' 42 ',
        path: '1:0',
        counterexample: '[1, {"a": null}]',
        note: 'n',
        'min-examples': '30',
        runner: 'fast-check',
      }),
    ).toEqual({
      id: 'p',
      seed: '42',
      path: '1:0',
      counterexample: [1, { a: null }],
      note: 'n',
      minExamples: 30,
      runner: 'fast-check',
    });
    expect(
      seedRequestFromFlags('c', {
        seed: '1',
        nodeid: 'n',
        'seed-switch': '--s={seed}',
        command: '["run", "{seed}", "{report}"]',
      }),
    ).toEqual({
      id: 'c',
      seed: '1',
      nodeid: 'n',
      seedSwitch: '--s={seed}',
      command: ['run', '{seed}', '{report}'],
    });
  });

  it.each([
    [
      undefined,
      { seed: '1' },
      'seeds add: needs the property id: patchgate seeds add <property-id> --seed S',
    ],
    ['p', {}, 'seeds add: --seed is required: the seed that found the counterexample'],
    ['p', { seed: '0x10' }, 'seeds add: --seed must be a decimal integer such as 1048291, got "0x10"'],
    ['p', { seed: '007' }, 'seeds add: --seed must be a decimal integer such as 1048291, got "007"'],
    [
      'p',
      { seed: '1', path: 'a:b' },
      'seeds add: --path must be a fast-check replay path such as 12:0:3, got "a:b"',
    ],
    [
      'p',
      { seed: '1', 'min-examples': '0' },
      'seeds add: --min-examples must be a whole number of examples, at least 1, got "0"',
    ],
    [
      'p',
      { seed: '1', 'min-examples': '2.5' },
      'seeds add: --min-examples must be a whole number of examples, at least 1, got "2.5"',
    ],
    [
      'p',
      { seed: '1', runner: 'jest' },
      "seeds add: unknown --runner 'jest'; allowed: pytest, fast-check, command",
    ],
    ['p', { seed: '1', note: '  ' }, 'seeds add: --note must not be empty'],
    [
      'p',
      { seed: '1', command: '["run", 3]' },
      `seeds add: --command must be a JSON array of non-empty strings (argv), such as '["node","prop.js","--seed","{seed}","--report","{report}"]', got ["run", 3]`,
    ],
  ] as const)('rejects %s %j', (id, flags, message) => {
    expect(errorOf(() => seedRequestFromFlags(id, flags)).message).toBe(message);
  });

  it('names the flag and the JSON problem when --counterexample is not JSON', () => {
    expect(errorOf(() => seedRequestFromFlags('p', { seed: '1', counterexample: '[1, 2' })).message).toMatch(
      /^seeds add: --counterexample must be JSON: .+ \(line 1, column 6\); got \[1, 2$/,
    );
    expect(
      errorOf(() => seedRequestFromFlags('p', { seed: '1', counterexample: "['a']" })).message,
    ).toContain('--counterexample must be JSON: ');
  });
});

describe('JSON without lost digits', () => {
  it('refuses a flag number JavaScript would round', () => {
    expect(errorOf(() => parseJsonFlag('counterexample', '[9007199254740993]')).message).toBe(
      'seeds add: --counterexample holds the number 9007199254740993, which JavaScript cannot hold exactly',
    );
    expect(parseJsonFlag('counterexample', '[9007199254740992, 1.5, -0]')).toEqual([
      9007199254740992, 1.5, -0,
    ]);
  });

  it('refuses to rewrite a tape holding such a number, naming where it is', () => {
    const text =
      '{"properties": [{"id": "p", "runner": "fast-check", "min_examples": 1,\n "seeds": [{"seed": "1", "counterexample": [12345678901234567890]}]}]}';
    parseTape(text, FILE);
    expect(errorOf(() => rawTapeValue(text, FILE)).message).toMatch(
      /^seeds add: property_seeds\.json:2:45 holds the number 12345678901234567890, which would change when the file is rewritten/,
    );
  });
});

describe('formatTape', () => {
  it('writes 2-space JSON with a trailing newline that the gate reads back', () => {
    const { text, tape } = formatTape(
      add({ id: 'sum_commutes', seed: '8', counterexample: [3, 4] }).value,
      FILE,
    );
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "properties": [\n    {\n      "id": "invoice_total_non_negative",');
    expect(tape.rows[1]?.seeds.at(-1)).toEqual({ seed: '8', counterexample: [3, 4] });
    expect(tape.rows[0]?.seeds.map((s) => s.seed)).toEqual(['1048291', '77', '9001']);
  });

  it('never passes a tape the gate would reject, and says why', () => {
    const r = add(
      { id: 'c', seed: '1', runner: 'command', nodeid: 'n', minExamples: 1, command: ['run', '{seed}'] },
      emptyTape(),
    );
    const e = errorOf(() => formatTape(r.value, FILE));
    expect(e.code).toBe('CONTRACT_INVALID');
    expect(e.message).toBe(
      'seeds add: the edit would make property_seeds.json invalid, so nothing was written:\n' +
        '  - property_seeds.json: properties[0].command: never uses {report}: the command must write how many examples it ran to that file, so the floor is counted, not trusted.',
    );
  });
});
