import { describe, expect, it } from 'vitest';
import { parseTape } from '../../../../src/contracts/seed-tape.js';
import type { SeedReplay } from '../../../../src/layers/seeds/model.js';
import { replayFinding } from '../../../../src/layers/seeds/seeds-layer.js';

const tape = parseTape(
  JSON.stringify(
    {
      properties: [
        { id: 'p', nodeid: 'tests/t.py::test_p', min_examples: 10, seeds: ['7'] },
        { id: 'q', nodeid: 'tests/t.py::test_q', min_examples: 10, seeds: [] },
      ],
    },
    null,
    2,
  ),
  'property_seeds.json',
);
const at = (r: Partial<SeedReplay>) => {
  const replay: SeedReplay = { property: 'p', seed: '7', status: 'pass', ...r };
  return replayFinding(
    tape,
    tape.rows.find((row) => row.id === replay.property),
    replay,
  );
};

describe('a replay as a finding', () => {
  it('a pass is no finding', () => {
    expect(at({ status: 'pass', examples: 10 })).toBeUndefined();
  });

  it('a failure carries the counterexample as printed, the node id and the tape line', () => {
    const f = at({
      status: 'fail',
      counterexample: 'Falsifying example: f(\n    x=1,\n)',
      log: '/logs/a.log',
    });
    expect(f).toMatchObject({ code: 'SEED_FAILED', severity: 'reject' });
    expect(f?.evidence).toEqual({
      property: 'p',
      seed: '7',
      runner: 'pytest',
      nodeid: 'tests/t.py::test_p',
      file: 'property_seeds.json',
      line: 3,
      counterexample: 'Falsifying example: f(\n    x=1,\n)',
      log: '/logs/a.log',
    });
    expect(f?.message).toBe("'p' fails at seed 7: counterexample Falsifying example: f(     x=1, )");
  });

  it('a seed that no longer runs rejects: a skip is not a pass', () => {
    const f = at({ status: 'not-run', message: 'skipped: flaky' });
    expect(f).toMatchObject({ code: 'SEED_FAILED', severity: 'reject' });
    expect(f?.message).toMatch(/did not run: skipped: flaky; a recorded seed that no longer runs fails/);
  });

  it('a hang is CHECK_TIMEOUT, never a pass', () => {
    expect(at({ status: 'timeout', message: 'did not finish in 10 s' })).toMatchObject({
      code: 'CHECK_TIMEOUT',
      severity: 'reject',
    });
  });

  it('a runner that broke makes the verdict error, not reject', () => {
    expect(at({ status: 'error', message: 'pytest exited 3' })).toMatchObject({
      code: 'SEED_FAILED',
      severity: 'error',
    });
  });

  it("marks the count run of a row without seeds with the gate's fixed seed", () => {
    const f = at({ property: 'q', seed: '0', status: 'fail', message: 'boom' });
    expect(f?.evidence.seed_source).toMatch(/count run at the gate's fixed seed 0/);
  });
});
