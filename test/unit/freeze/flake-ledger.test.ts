import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT_BYTES } from '../../../src/config/contract-file.js';
import { InputError } from '../../../src/errors.js';
import {
  formatFlakeLedger,
  ledgerRowToFreeze,
  parseFlakeLedger,
  readFlakeLedger,
} from '../../../src/freeze/flake-ledger.js';
import { tempDir } from '../../helpers/gitdir.js';
import { rejectionOf } from '../../helpers/problems.js';

const DIGEST = 'a'.repeat(64);
const FILE = 'flake_ledger.json';

const row = (over: Record<string, unknown> = {}) => ({
  property: 'invoice_total_matches_lines',
  cause_class: 'HASH_ORDER',
  fixture_digest: DIGEST,
  owner: 'maintainer',
  expires: '2026-10-04',
  action: 'sort line ids in the property',
  freeze_hits: false,
  ...over,
});

const problems = (text: string) =>
  rejectionOf(() => parseFlakeLedger(text, FILE), 'ledger', 'CONTRACT_INVALID');

describe('flake ledger reader', () => {
  it('reads the seed format and keeps each row’s line', () => {
    const text = formatFlakeLedger({ version: 1, rules: [row(), row({ property: 'other' })] });
    const ledger = parseFlakeLedger(text, FILE);
    expect(ledger.rules.map((r) => r.property)).toEqual(['invoice_total_matches_lines', 'other']);
    expect(ledger.rules.map((r) => r.line)).toEqual([4, 13]);
    expect(text.split('\n')[3]).toBe('    {');
  });

  it('leaves rule violations to the ledger rules, not the schema', () => {
    const text = JSON.stringify({
      version: 1,
      rules: [
        row({ cause_class: 'COSMIC_RAY' }),
        row({ freeze_hits: true }),
        row({ action: '   ' }),
        row({ expires: '2000-01-01' }),
        row({ fixture_digest: 'replace-with-lock-sha256' }),
      ],
    });
    expect(parseFlakeLedger(text, FILE).rules).toHaveLength(5);
  });

  it('reports every shape problem at once, located', () => {
    const text = [
      '{',
      '  "version": 2,',
      '  "rules": [',
      '    {',
      '      "property": "p",',
      '      "cause_class": 7,',
      '      "fixture_digest": "x",',
      '      "owner": "",',
      '      "expires": "2026-02-30",',
      '      "action": "fix it",',
      '      "freeze_hits": "no",',
      '      "ticket": "JIRA-1"',
      '    },',
      '    { "property": "q", "cause_class": "CLOCK", "fixture_digest": "x", "owner": "me", "expires": "26-1-1", "action": "a" }',
      '  ]',
      '}',
    ].join('\n');
    const got = problems(text);
    expect(got).toEqual([
      expect.stringMatching(/^flake_ledger\.json:2:14: version: expected one of 1, got the number 2\.$/),
      expect.stringMatching(
        /^flake_ledger\.json:6:22: rules\[0\]\.cause_class: expected a string, got the number 7\.$/,
      ),
      expect.stringMatching(/^flake_ledger\.json:8:16: rules\[0\]\.owner: expected the person or team/),
      expect.stringMatching(
        /^flake_ledger\.json:9:18: rules\[0\]\.expires: .*'2026-02-30'.*not a real calendar date/,
      ),
      expect.stringMatching(/^flake_ledger\.json:11:22: rules\[0\]\.freeze_hits: expected true or false/),
      expect.stringMatching(/^flake_ledger\.json:12:7: rules\[0\]\.ticket: unknown key 'ticket'/),
      expect.stringMatching(/^flake_ledger\.json:14:\d+: rules\[1\]\.expires: .*'26-1-1'.*YYYY-MM-DD/),
      expect.stringMatching(/^flake_ledger\.json:14:\d+: rules\[1\]\.freeze_hits: is required/),
    ]);
  });

  it('rejects a missing rules list, invalid JSON and duplicate keys', () => {
    expect(problems('{"version": 1}')).toEqual([
      expect.stringMatching(/rules: is required: expected a list/),
    ]);
    expect(problems('{"version": 1, "rules": [}')).toEqual([
      expect.stringMatching(/^flake_ledger\.json:1:\d+: is not valid JSON/),
    ]);
    expect(problems('{"version": 1, "version": 1, "rules": []}')).toHaveLength(1);
  });

  it('formats stably: file order, seed field order, two-space indent, final newline', () => {
    const shuffled = JSON.stringify({
      rules: [row({ property: 'z' }), row({ property: 'a' })].map((r) =>
        Object.fromEntries(Object.entries(r).reverse()),
      ),
      version: 1,
    });
    const ledger = parseFlakeLedger(shuffled, FILE);
    const text = formatFlakeLedger(ledger);
    expect(text.endsWith('}\n')).toBe(true);
    // `line` is where a row was read from, never part of the file.
    expect(ledger.rules[0]?.line).toBe(1);
    expect(text).not.toContain('"line"');
    expect(
      text.startsWith('{\n  "version": 1,\n  "rules": [\n    {\n      "property": "z",\n      "cause_class"'),
    ).toBe(true);
    expect(formatFlakeLedger(parseFlakeLedger(text, FILE))).toBe(text);
  });

  it('maps a row onto the shared freeze model', () => {
    const ledger = parseFlakeLedger(formatFlakeLedger({ version: 1, rules: [row()] }), FILE);
    expect(ledgerRowToFreeze(ledger.rules[0]!, 0, FILE)).toEqual({
      kind: 'flake-cause',
      covers: 'invoice_total_matches_lines',
      owner: 'maintainer',
      cause: 'HASH_ORDER',
      expires: '2026-10-04',
      action: 'sort line ids in the property',
      source: { file: FILE, index: 0, line: 4 },
    });
  });

  const READ = { maxBytes: DEFAULT_CONTRACT_BYTES };

  it('reads from a checkout and fails closed when the file is missing', async () => {
    const dir = tempDir();
    await expect(readFlakeLedger(dir, FILE, 'base abc123', READ)).rejects.toThrow(InputError);
    await expect(readFlakeLedger(dir, FILE, 'base abc123', READ)).rejects.toThrow(
      /does not exist in base abc123/,
    );
    writeFileSync(path.join(dir, FILE), '{"version":1,"rules":[]}');
    expect(await readFlakeLedger(dir, FILE, 'base abc123', READ)).toEqual({ version: 1, rules: [] });
  });
});
