import { describe, expect, it } from 'vitest';
import {
  type FunctionResult,
  judgeProbe,
  type MutantResult,
  type MutationPart,
  mergeMutationParts,
  mutationArtifact,
  type SideVerdict,
} from '../../../../src/layers/mutation/judge.js';

const killed = (by: string): SideVerdict => ({ status: 'killed', how: 'failed', by: [by] });
const survived: SideVerdict = { status: 'survived' };
const notRun: SideVerdict = { status: 'not-run' };

function mutant(id: string, base: SideVerdict, head: SideVerdict): MutantResult {
  return {
    id,
    operator: 'drop-statement',
    line: 4,
    original: 'result += p',
    mutated: 'pass',
    onBase: base.status !== 'not-run',
    base,
    head,
  };
}

function fn(mutants: MutantResult[], over: Partial<FunctionResult> = {}): FunctionResult {
  return { file: 'src/cart.py', function: 'total', changed: [5], onBase: true, skipped: 0, mutants, ...over };
}

function part(functions: FunctionResult[], over: Partial<MutationPart> = {}): MutationPart {
  return {
    testFiles: ['tests/test_cart.py'],
    scope: 'affected',
    functions,
    skipped: 0,
    defeats: [],
    ...over,
  };
}

describe('judgeProbe', () => {
  it('rejects mutants killed on the base that survive on the head, with the tests that used to kill them', () => {
    const findings = judgeProbe(
      part([fn([mutant('a', killed('t::one'), survived), mutant('b', killed('t::two'), killed('t::two'))])]),
      'warn',
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      code: 'KILL_SURFACE_SHRANK',
      severity: 'reject',
      evidence: {
        function: 'total',
        killedOnBase: 2,
        tests: ['t::one'],
        mutants: [{ id: 'a', killedOnBaseBy: ['t::one'] }],
      },
    });
    expect(findings[0]?.message).toContain('1 of the 2 mutant(s)');
  });

  it('a mutant the base never killed cannot shrink anything: no finding when it survives on the head too', () => {
    expect(
      judgeProbe(
        part([fn([mutant('a', survived, survived), mutant('b', killed('t'), killed('t'))])]),
        'warn',
      ),
    ).toEqual([]);
  });

  it('reports a function none of whose mutants the head kills as unseen, at the configured severity', () => {
    const p = part([fn([mutant('a', notRun, survived)], { onBase: false, function: 'median' })]);
    expect(judgeProbe(p, 'warn')[0]).toMatchObject({
      code: 'CHANGED_CODE_UNSEEN',
      severity: 'warn',
      evidence: { new: true },
    });
    expect(judgeProbe(p, 'reject')[0]).toMatchObject({ code: 'CHANGED_CODE_UNSEEN', severity: 'reject' });
  });

  it('says nothing of a function whose mutants did not run at all (no evidence either way)', () => {
    expect(judgeProbe(part([fn([mutant('a', notRun, notRun)])]), 'reject')).toEqual([]);
  });

  it('turns every defeat into a reject naming the file and the tests', () => {
    const f = judgeProbe(
      part([], { defeats: [{ file: 'src/cart.py', why: 'reacts', tests: ['t::one'] }] }),
      'warn',
    );
    expect(f).toEqual([
      expect.objectContaining({
        code: 'MUTATION_PROBE_DEFEATED',
        severity: 'reject',
        evidence: { file: 'src/cart.py', why: 'reacts', tests: ['t::one'] },
      }),
    ]);
  });
});

describe('mergeMutationParts: shards each ran every mutant against their share of the tests', () => {
  it('a mutant is killed when any shard killed it, and survives only where no shard did', () => {
    const one = part([fn([mutant('a', killed('t::one'), survived), mutant('b', survived, survived)])], {
      testFiles: ['tests/a.py'],
    });
    const two = part(
      [fn([mutant('a', { status: 'unreached' }, killed('t::two')), mutant('b', survived, survived)])],
      {
        testFiles: ['tests/b.py'],
      },
    );
    const merged = mergeMutationParts([one, two]);
    expect(merged.testFiles).toEqual(['tests/a.py', 'tests/b.py']);
    expect(merged.functions[0]?.mutants.map((m) => [m.id, m.base.status, m.head.status])).toEqual([
      ['a', 'killed', 'killed'],
      ['b', 'survived', 'survived'],
    ]);
    // Shard one alone would reject; together, shard two's tests still see the mutant on the head.
    expect(judgeProbe(one, 'warn').map((f) => f.code)).toEqual(['KILL_SURFACE_SHRANK']);
    expect(judgeProbe(merged, 'warn')).toEqual([]);
  });

  it('writes mutation.json with killed and survived counts per side', () => {
    const text = mutationArtifact(part([fn([mutant('a', killed('t'), survived)])]));
    expect(JSON.parse(text).functions[0]).toMatchObject({
      base: { killed: 1, survived: 0 },
      head: { killed: 0, survived: 1 },
    });
  });
});
