import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JUnitParseError, parseJUnitFile } from '../../../src/junit/index.js';
import { sharedDir } from '../../helpers/shared.js';

const corpus = path.join(sharedDir(), 'corpus', 'junit');
const here = path.dirname(fileURLToPath(import.meta.url));

interface Expected {
  path: string;
  outcome: 'ok' | 'error';
  counts: { tests: number; failed: number; error: number; skipped: number; xfailed: number; flaky: number };
  position: string;
  message: string;
}

function manifestPaths(): string[] {
  const lines = fs.readFileSync(path.join(corpus, 'MANIFEST.tsv'), 'utf8').split('\n');
  expect(lines[0]?.split('\t')[0]).toBe('local_path');
  return lines
    .slice(1)
    .filter((l) => l.trim() !== '')
    .map((l) => l.split('\t')[0]!);
}

function expectedRows(): Expected[] {
  const lines = fs
    .readFileSync(path.join(here, 'corpus-expected.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const header = lines[0]!.split('\t');
  expect(header.slice(0, 10)).toEqual([
    'path',
    'outcome',
    'tests',
    'failed',
    'error',
    'skipped',
    'xfailed',
    'flaky',
    'position',
    'message',
  ]);
  return lines.slice(1).map((line) => {
    const [p, outcome, tests, failed, error, skipped, xfailed, flaky, position, message] = line.split('\t');
    if (outcome !== 'ok' && outcome !== 'error') throw new Error(`bad outcome in row for ${p}: ${outcome}`);
    return {
      path: p!,
      outcome,
      counts: {
        tests: Number(tests),
        failed: Number(failed),
        error: Number(error),
        skipped: Number(skipped),
        xfailed: Number(xfailed),
        flaky: Number(flaky),
      },
      position: position!,
      message: message!,
    };
  });
}

const rows = expectedRows();

describe('JUnit corpus table', () => {
  it('has exactly one row per file of the corpus manifest', () => {
    const listed = rows.map((r) => r.path);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...manifestPaths()].sort());
  });

  it('names only files that exist', () => {
    for (const r of rows) expect(fs.statSync(path.join(corpus, r.path)).isFile(), r.path).toBe(true);
  });
});

describe('JUnit corpus', () => {
  it.each(rows.map((r) => [r.path, r] as const))('%s', async (_name, row) => {
    const file = path.join(corpus, row.path);
    if (row.outcome === 'ok') {
      const report = await parseJUnitFile(file);
      const { passed, ...rest } = report.counts;
      expect(rest).toEqual(row.counts);
      const c = row.counts;
      expect(passed).toBe(c.tests - c.failed - c.error - c.skipped - c.xfailed - c.flaky);
      expect(report.tests).toHaveLength(c.tests);
      for (const t of report.tests) {
        expect(typeof t.id).toBe('string');
        if (t.status === 'failed' || t.status === 'error') {
          // Only a status attribute or rerun elements can fail a test without details.
          if (t.failures.length === 0) expect(t.retries ?? [], t.id).not.toHaveLength(0);
        }
        if (t.status === 'skipped' || t.status === 'xfailed') expect(t.skipped, t.id).toBeDefined();
        if (t.status === 'flaky') expect(t.retries, t.id).toBeDefined();
      }
      return;
    }
    const err = await parseJUnitFile(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(JUnitParseError);
    const e = err as JUnitParseError;
    expect(`${e.line}:${e.column}`).toBe(row.position);
    expect(e.file).toBe(file);
    expect(e.message.startsWith(`${file}:${row.position}: `)).toBe(true);
    expect(e.reason).toContain(row.message);
  });
});
