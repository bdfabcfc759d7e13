import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './gitdir.js';
import { OutFileError, readOutJson, readOutJsonIfAny, readScorecard } from './out.js';

describe('readScorecard and the out-folder readers', () => {
  const run = { code: 3, stdout: '', stderr: 'boom: the gate crashed\n' };

  it('reads a scorecard as written', () => {
    const out = tempDir('pg-out-');
    writeFileSync(path.join(out, 'scorecard.json'), '{"verdict":"accept","findings":[],"layers":[]}');
    expect(readScorecard(out).verdict).toBe('accept');
  });

  it('names the file, the exit code and the stderr when no scorecard was written', () => {
    const out = tempDir('pg-out-');
    const e = (() => {
      try {
        readScorecard(out, run);
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(OutFileError);
    expect((e as OutFileError).code).toBe('TEST_OUT_FILE');
    expect((e as Error).message).toBe(
      `${path.join(out, 'scorecard.json')}: not written (the run exited 3; stderr: boom: the gate crashed)`,
    );
  });

  it('names the file and the parse error when it is not JSON', () => {
    const out = tempDir('pg-out-');
    writeFileSync(path.join(out, 'overlay.json'), '{"a":');
    expect(() => readOutJson(out, 'overlay.json')).toThrow(/overlay\.json: not JSON: /);
  });

  it('names the field a scorecard lacks or has of the wrong kind', () => {
    const out = tempDir('pg-out-');
    writeFileSync(path.join(out, 'scorecard.json'), '[]');
    expect(() => readScorecard(out)).toThrow(/scorecard\.json: expected a JSON object$/);
    writeFileSync(path.join(out, 'scorecard.json'), '{"findings":[],"layers":[]}');
    expect(() => readScorecard(out)).toThrow(/scorecard\.json: field verdict: expected a string$/);
    writeFileSync(path.join(out, 'scorecard.json'), '{"verdict":"reject","findings":{},"layers":[]}');
    expect(() => readScorecard(out)).toThrow(/scorecard\.json: field findings: expected an array$/);
    writeFileSync(path.join(out, 'scorecard.json'), '{"verdict":"reject","findings":[]}');
    expect(() => readScorecard(out)).toThrow(/scorecard\.json: field layers: expected an array$/);
  });

  it('says undefined for an optional file the run did not write', () => {
    expect(readOutJsonIfAny(tempDir('pg-out-'), 'claims.json')).toBeUndefined();
  });
});

describe('tempDir lifetime', () => {
  let shared = '';
  let inFirstTest = '';
  beforeAll(() => {
    shared = tempDir('pg-shared-');
  });
  afterAll(() => {
    // The file-level cleanup runs after this hook (the helper's afterAll is the outer one).
    expect(existsSync(shared)).toBe(true);
  });

  it('a dir made in a beforeAll is there in the first test', () => {
    inFirstTest = tempDir('pg-own-');
    expect(existsSync(shared)).toBe(true);
  });

  it('and still there in the next, while the first test’s own dir is gone', () => {
    expect(existsSync(shared)).toBe(true);
    expect(inFirstTest).not.toBe('');
    expect(existsSync(inFirstTest)).toBe(false);
  });
});
