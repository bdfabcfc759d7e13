import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { claimsCommand } from '../../../../src/cli/commands/claims.js';
import { memoryIO } from '../../../helpers/cli-io.js';
import { lines } from '../../../helpers/diff.js';
import { GitDir } from '../../../helpers/gitdir.js';

const BASE = {
  'patchgate.config.json': `${JSON.stringify({ tests: { preset: 'vitest' } })}\n`,
  'src/refund.ts': lines(
    'export function refund(captured: number, asked: number) {', // 1
    '  if (asked <= captured) return { refunded: asked };', // 2
    '  return { refunded: captured };', // 3
    '}', // 4
  ),
  'src/invoice.py': lines(
    'class Invoice:', // 1
    '    def total(self, items):', // 2
    '        return sum(items)', // 3
  ),
  'src/refund.test.ts': lines("it('refunds', () => {});"),
  'README.md': 'refunds\n',
};

const HEAD = {
  'src/refund.ts': lines(
    'export function refund(captured: number, asked: number) {', // 1
    '  if (asked < captured) return { refunded: asked };', // 2
    "  throw new RefundError('over cap');", // 3
    '}', // 4
  ),
  'src/invoice.py': lines(
    'class Invoice:', // 1
    '    def total(self, items):', // 2
    '        if not items:', // 3
    '            raise InvoiceError("empty")', // 4
    '        return sum(items)', // 5
  ),
  'src/refund.test.ts': lines("it('refunds', () => {});", "it('caps', () => { return 1; });"),
  'README.md': 'Refunds never return more than was captured.\n',
};

/** A repository with a base commit and a head commit touching a TS file, a Python file and a test file. */
function repo() {
  const g = GitDir.create(BASE, 'base');
  const base = g.head();
  g.write(HEAD);
  const head = g.commit('head');
  return { g, base, head };
}

async function run(dir: string, args: string[]) {
  const m = memoryIO(dir, process.env);
  const code = await claimsCommand(args, m.io);
  return { code, out: m.out(), err: m.err() };
}

describe('patchgate claims suggest', () => {
  it('prints a skeleton row per candidate of the production delta, and leaves the test side out', async () => {
    const { g, base, head } = repo();
    const { code, out } = await run(g.dir, ['suggest', '--base', base, '--head', head]);
    expect(code).toBe(0);
    const heads = out.split('\n').filter((l) => /^# src\//.test(l));
    expect(heads).toEqual([
      '# src/invoice.py:4 (Invoice.total) — raise InvoiceError',
      '# src/refund.ts:2 (refund) — asked <= captured became asked < captured',
      '# src/refund.ts:3 (refund) — throw RefundError',
    ]);
    expect(out).toContain('# test side, not scanned (1): src/refund.test.ts');
    expect(out).not.toMatch(/^# src\/refund\.test\.ts/m);
    // The rows are YAML a human fills in: ids in order, every cell a TODO, covers naming the symbol.
    const doc = parseYaml(out) as { claims: Record<string, unknown>[] };
    expect(doc.claims).toEqual([
      expect.objectContaining({ id: 'C1', fixture: 'TODO', covers: ['src/invoice.py#Invoice.total'] }),
      expect.objectContaining({ id: 'C2', property: 'TODO', covers: ['src/refund.ts#refund'] }),
      expect.objectContaining({ id: 'C3', freeze: 'TODO', covers: ['src/refund.ts#refund'] }),
    ]);
    expect(doc.claims[0]?.statement).toMatch(/^TODO: name the bound/);
    for (const l of out.split('\n')) expect([...l].length).toBeLessThanOrEqual(100);
  });

  it('prints the candidates as a JSON array with --json', async () => {
    const { g, base, head } = repo();
    const { code, out, err } = await run(g.dir, ['suggest', '--base', base, '--head', head, '--json']);
    expect(code).toBe(0);
    const rows = JSON.parse(out) as Record<string, unknown>[];
    expect(rows.map((r) => [r.id, r.file, r.line, r.kind, r.symbol, r.detail])).toEqual([
      ['C1', 'src/invoice.py', 4, 'raise', 'Invoice.total', 'InvoiceError'],
      ['C2', 'src/refund.ts', 2, 'comparison', 'refund', 'asked <= captured became asked < captured'],
      ['C3', 'src/refund.ts', 3, 'throw', 'refund', 'RefundError'],
    ]);
    expect(rows[2]?.text).toBe("throw new RefundError('over cap');");
    expect(rows.some((r) => r.file === 'src/refund.test.ts')).toBe(false);
    expect(err).toContain('test side, not scanned (1): src/refund.test.ts');
  });

  it('takes the working tree as head without --head, and uses the defaults in a repo with no config', async () => {
    const g = GitDir.create({ 'lib/a.go': 'package a\n', 'tests/a_test.py': 'x = 1\n' });
    const base = g.head();
    g.write({ 'lib/a.go': 'package a\nfunc F() int {\n\treturn 504\n}\n', 'tests/a_test.py': 'x = 2\n' });
    const { code, out } = await run(g.dir, ['suggest', '--base', base, '--json']);
    expect(code).toBe(0);
    expect(
      (JSON.parse(out) as { id: string; file: string; line: number; kind: string }[]).map((r) => [
        r.id,
        r.file,
        r.line,
        r.kind,
      ]),
    ).toEqual([['C1', 'lib/a.go', 3, 'return']]);
  });

  it('says there is nothing to suggest, exit 0, when the added lines hold no candidate', async () => {
    const g = GitDir.create({ 'src/a.ts': 'export const a = 1;\n' });
    const base = g.head();
    g.write({ 'src/a.ts': 'export const a = 2;\n' });
    const head = g.commit('head');
    const { code, out } = await run(g.dir, ['suggest', '--base', base, '--head', head]);
    expect(code).toBe(0);
    expect(out).toMatch(/nothing to suggest/);
    expect(out).not.toContain('claims:');
  });

  it('is a usage error without --base or with an unknown subcommand', async () => {
    const { g } = repo();
    await expect(run(g.dir, ['suggest'])).rejects.toMatchObject({ code: 'USAGE', message: /--base/ });
    await expect(run(g.dir, ['propose', '--base', 'HEAD'])).rejects.toMatchObject({
      code: 'USAGE',
      message: /unknown subcommand 'propose'/,
    });
    await expect(run(g.dir, [])).rejects.toMatchObject({ code: 'USAGE' });
  });
});
