import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../../src/cli/commands/check.js';
import { memoryIO } from '../../../helpers/cli-io.js';
import { fixtureRepo } from '../../../helpers/fixture-repo.js';

/** checkCommand in-process, with stderr claiming to be a terminal or not. */
async function check(args: string[], tty: boolean) {
  const repo = fixtureRepo();
  repo.write({ 'testdata/invoice_v3.json': '{"total_cents": 1}\n' });
  const mem = memoryIO(repo.dir);
  mem.io.stderr.isTTY = tty;
  const code = await checkCommand(['--base', 'main', ...args], mem.io);
  return { code, out: mem.out(), err: mem.err() };
}

describe('check on stderr and stdout', () => {
  it('draws the progress line in place on a terminal and clears it before the report', async () => {
    const r = await check([], true);
    expect(r.code).toBe(1);
    expect(r.err).toContain('\r\u001b[2Kpatchgate: running fixtures…');
    expect(r.err).not.toContain('\n');
    expect(r.err.endsWith('\r\u001b[2K')).toBe(true);
    expect(r.out).toContain('FIXTURE_CHANGED');
  });

  it('writes nothing to stderr off a terminal, with --quiet, or with --json', async () => {
    expect((await check([], false)).err).toBe('');
    expect((await check(['--quiet'], true)).err).toBe('');
    const json = await check(['--json'], true);
    expect(json.err).toBe('');
    expect(JSON.parse(json.out).verdict).toBe('reject');
  });

  it('prints GitHub annotations before the table when both reporters are asked for', async () => {
    const r = await check(['--reporter', 'github', '--reporter', 'terminal'], false);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(
      /^::error file=testdata\/invoice_v3\.json,title=FIXTURE_CHANGED::locked fixture/,
    );
    expect(lines[1]).toMatch(/^patchgate REJECT/);
    const only = await check(['--reporter', 'github'], false);
    expect(only.out.split('\n').every((l) => l === '' || l.startsWith('::'))).toBe(true);
  });
});
