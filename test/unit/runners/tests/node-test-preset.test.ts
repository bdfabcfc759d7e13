import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../../src/config/schema.js';
import { TestSession } from '../../../../src/runners/tests/session.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

/** The node-test preset on Node's own runner: what its JUnit report says, read by our parser, and subsets. */

const MATH = `import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
test('adds', () => assert.equal(1 + 1, 2));
test('adds twice', () => assert.equal(2 + 2, 4));
test('adds (1+1) [x]', () => {});
test('skipped plainly', { skip: true }, () => {});
test('skipped with words', { skip: 'not on CI' }, () => {});
test('todo later', { todo: true }, () => {});
describe('group', () => {
  it('inner passes', () => {});
  it('inner fails', () => assert.equal(1, 2));
});
`;
const OTHER = `import { test } from 'node:test';
test('other file', () => {});
`;

async function session() {
  const root = tempDir('pg-nodetest-');
  for (const [name, text] of Object.entries({ 'test/math.test.mjs': MATH, 'test/other.test.mjs': OTHER })) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  const logDir = tempDir('pg-nodetest-logs-');
  await sandbox.grant(root);
  await sandbox.grant(logDir);
  const tests = configSchema.parse({ tests: { preset: 'node-test' } }).tests;
  if (!tests) throw new Error('no tests config');
  return new TestSession({
    tests,
    head: { root },
    base: { root },
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    sandbox,
    logDir,
    signal: new AbortController().signal,
  });
}

describe('the node-test preset (node --test, its JUnit reporter)', () => {
  it('reports every test with its id, skips with their words, todo as a skip, and failures', async () => {
    const run = await (await session()).headRun(0);
    const byId = new Map(run.tests.map((t) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual([
      'group::test::inner fails',
      'group::test::inner passes',
      'test::adds',
      'test::adds (1+1) [x]',
      'test::adds twice',
      'test::other file',
      'test::skipped plainly',
      'test::skipped with words',
      'test::todo later',
    ]);
    expect(byId.get('test::skipped plainly')).toMatchObject({
      status: 'skipped',
      skipped: { type: 'skipped', message: 'true' },
    });
    expect(byId.get('test::skipped with words')?.skipped?.message).toBe('not on CI');
    expect(byId.get('test::todo later')).toMatchObject({ status: 'skipped', skipped: { type: 'todo' } });
    expect(byId.get('group::test::inner fails')?.status).toBe('failed');
    expect(byId.get('group::test::inner fails')?.failures[0]?.message).toContain(
      'Expected values to be strictly equal',
    );
    // Node 20's report says nothing of the file a test is in.
    expect(byId.get('test::adds')?.file).toBeUndefined();
  }, 60_000);

  it('a subset by name runs exactly the named tests (anchored, regex characters escaped); the rest are skipped', async () => {
    const s = await session();
    const run = await s.baseRun([
      { suite: '', classname: 'test', name: 'adds' },
      { suite: '', classname: 'test', name: 'adds (1+1) [x]' },
      { suite: 'group', classname: 'test', name: 'inner passes' },
    ]);
    const ran = run.tests.filter((t) => t.status === 'passed').map((t) => t.id);
    expect(ran.sort()).toEqual(['group::test::inner passes', 'test::adds', 'test::adds (1+1) [x]']);
    const left = run.tests.find((t) => t.id === 'test::adds twice');
    expect(left?.status).toBe('skipped');
    expect(left?.skipped?.message).toBe('test name does not match pattern');
  }, 60_000);

  it('a subset by file runs only that file', async () => {
    const run = await (await session()).baseRunFiles(['test/other.test.mjs']);
    expect(run.tests.map((t) => t.id)).toEqual(['test::other file']);
  }, 60_000);

  it("the base's inventory lists every test without running one", async () => {
    const inventory = await (await session()).baseInventory();
    expect(inventory.how).toBe('collected');
    expect(inventory.tests).toHaveLength(9);
  }, 60_000);
});
