import { spawnSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decimalDigitRanges } from '../../../src/signatures/normalize.js';
import { failureSignature } from '../../../src/signatures/signature.js';
import { pythonEnv, sharedFile, skipWithoutShared } from '../../helpers/shared.js';
import { kindArb, messageArb } from './messages.js';

/**
 * The seed's own signature.py, imported unmodified from the shared folder, is
 * the judge of the `seed` scheme. One python3 process answers every case: it
 * also lists the code points its `\d` and `str.split()` treat as digits and
 * whitespace, so the pinned tables can be checked against the interpreter.
 */

const ORACLE = `
import json, re, sys, unicodedata
sys.path.insert(0, sys.argv[1])
from signature import signature
cases = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = {
    "unidata": unicodedata.unidata_version,
    "digits": [c for c in range(sys.maxunicode + 1) if re.match(r"\\d", chr(c))],
    "spaces": [c for c in range(sys.maxunicode + 1) if len(("a" + chr(c) + "b").split()) == 2],
    "results": [list(signature(kind, msg)) for kind, msg in cases],
}
sys.stdout.buffer.write(json.dumps(out).encode("utf-8"))
`;

interface OracleAnswer {
  unidata: string;
  digits: number[];
  spaces: number[];
  results: [string, string][];
}

function askOracle(cases: [string, string][]): OracleAnswer {
  const dir = path.dirname(sharedFile('reference', 'seed001', 'signature.py'));
  const run = spawnSync('python3', ['-c', ORACLE, dir], {
    input: JSON.stringify(cases),
    env: pythonEnv(),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  if (run.error) throw new Error(`cannot run python3 (the seed oracle): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`python3 oracle exited with ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleAnswer;
}

const PINNED_UNICODE = '14.0.0';

const ourDigits = (): Set<number> => {
  const set = new Set<number>();
  for (const [a, b] of decimalDigitRanges()) for (let c = a; c <= b; c++) set.add(c);
  return set;
};

// Everything either language might call whitespace, one character per case.
const SPACE_CANDIDATES = [
  ...Array.from({ length: 0x21 }, (_, i) => i),
  0x7f,
  ...Array.from({ length: 0x21 }, (_, i) => 0x80 + i),
  0x1680,
  0x180e,
  ...Array.from({ length: 0x10 }, (_, i) => 0x2000 + i),
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x2060,
  0x3000,
  0xfeff,
];

const handPicked: [string, string][] = [
  ['Error', 'Segmentation fault at 0x7ffe12'],
  ['Error', 'Segmentation fault at 0x7fab34'],
  ['AssertionError', 'deadline 2024-03-05T10:20:30.123Z passed'],
  ['AssertionError', 'expected 3 == 42\r\n  at test_a.py:12\r\n'],
  ['skipped', ''],
  ['xfailed', '   '],
  ['', 'no kind'],
  ['Kind|with|pipes', 'a|b'],
  ['AssertionError', '\x1b[31mred\x1b[0m and #x1B[1m'],
  ['error', 'Zoë Ångström — 東京 😀 \u{1d7ce}\u{1d7ff} ٣٤ ３'],
  ['error', 'new digits: \u{11f50}\u{11f59} \u{1e4f0}\u{1e4f9} \u{10d40} \u{16130}'],
  ...SPACE_CANDIDATES.map((c): [string, string] => [
    'ws',
    `a${String.fromCodePoint(c)}b${String.fromCodePoint(c)}`,
  ]),
  ...decimalDigitRanges().flatMap(([a, b]): [string, string][] => [
    ['digit', `x${String.fromCodePoint(a)}y${String.fromCodePoint(b)}${String.fromCodePoint(a)}z`],
    ['digit-edge', `${String.fromCodePoint(a - 1)}${String.fromCodePoint(b + 1)}`],
  ]),
];

describe.skipIf(skipWithoutShared())("seed scheme against the seed's signature.py", () => {
  const seed = Date.now() >>> 0;
  const generated = fc.sample(fc.tuple(kindArb, messageArb), { numRuns: 300, seed });
  const cases = [...handPicked, ...generated];
  let oracle: OracleAnswer;

  beforeAll(() => {
    oracle = askOracle(cases);
  });

  it('pins the same decimal digits as the interpreter', () => {
    const python = new Set(oracle.digits);
    const ours = ourDigits();
    const onlyOurs = [...ours].filter((c) => !python.has(c));
    expect(onlyOurs, 'digits in our table that Python does not match with \\d').toEqual([]);
    if (oracle.unidata === PINNED_UNICODE) expect(ours.size).toBe(python.size);
  });

  it('gives the same sha256 and template for every case', () => {
    // A newer interpreter knows digits added after the pinned Unicode version;
    // only messages holding one of those may differ from it. On the pinned
    // version nothing is exempt.
    const ours = ourDigits();
    const newer = new Set(oracle.unidata === PINNED_UNICODE ? [] : oracle.digits.filter((c) => !ours.has(c)));
    const comparable = (msg: string) => ![...msg].some((ch) => newer.has(ch.codePointAt(0) ?? -1));
    expect(oracle.results).toHaveLength(cases.length);
    let compared = 0;
    cases.forEach(([kind, msg], i) => {
      if (!comparable(msg)) return;
      compared++;
      const [sha256, template] = oracle.results[i] ?? ['', ''];
      expect(
        failureSignature(kind, msg, 'seed'),
        `case ${i} (fast-check seed ${seed}): ${JSON.stringify([kind, msg])}`,
      ).toEqual({ sha256, template });
    });
    expect(compared).toBeGreaterThan(cases.length * 0.9);
  });

  it('splits on exactly the characters Python calls whitespace', () => {
    const python = new Set(oracle.spaces);
    for (const c of SPACE_CANDIDATES) {
      const ch = String.fromCodePoint(c);
      const { template } = failureSignature('ws', `a${ch}b`, 'seed');
      expect(template === 'ws|a b', `U+${c.toString(16).padStart(4, '0')}`).toBe(python.has(c));
    }
  });
});
