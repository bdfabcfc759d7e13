/**
 * CI runs the gate as root (the README's GitLab recipe does), and vite writes
 * its caches into the node_modules it runs from. A benign patch that touches a
 * test file (so the overlay is a tree of its own) must be accepted, whoever
 * installed node_modules and whichever checkout borrows it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';
import { repoRoot } from '../helpers/shared.js';

const isRoot = process.getuid?.() === 0;

describe.runIf(isRoot)(
  'vitest with an installed node_modules, the gate as root',
  { timeout: 240_000 },
  () => {
    it('accepts a benign patch that touches a test file: no EACCES in node_modules/.vite-temp', async () => {
      const repo = GitDir.create({
        'patchgate.config.json': JSON.stringify({
          fixtures: { enabled: false },
          // An install of the kind `npm ci` makes: a folder of the checkout's own, written by the setup.
          tests: {
            preset: 'vitest',
            // (No cache folders in it yet, as after a fresh install.)
            setup: [
              'sh',
              '-c',
              `cp -a '${path.join(repoRoot, 'node_modules')}' node_modules && rm -rf node_modules/.vite-temp node_modules/.vite node_modules/.vitest node_modules/.cache`,
            ],
            setupNetwork: false,
          },
          signatures: {},
        }),
        'flake_signatures.json': '{"signatures": []}\n',
        'package.json':
          '{"name": "t", "private": true, "type": "module", "devDependencies": {"vitest": "4.0.15"}}\n',
        'package-lock.json': '{"name": "t", "lockfileVersion": 3, "packages": {}}\n',
        '.gitignore': 'node_modules\n.patchgate\n',
        'vitest.config.ts': "export default { test: { include: ['test/**/*.test.ts'] } };\n",
        'src/price.ts': 'export const net = (gross: number) => gross * 0.8;\n',
        'test/price.test.ts':
          "import { expect, it } from 'vitest';\nimport { net } from '../src/price.js';\nit('takes a fifth off', () => { expect(net(100)).toBe(80); });\n",
      });
      repo.git('checkout', '-q', '-b', 'agent');
      repo.write({
        'src/price.ts': 'export const net = (gross: number) => gross - gross / 5;\n',
        'test/price.test.ts':
          "import { expect, it } from 'vitest';\nimport { net } from '../src/price.js';\nit('takes a fifth off', () => { expect(net(100)).toBe(80); });\nit('is zero for nothing', () => { expect(net(0)).toBe(0); });\n",
      });
      repo.commit('agent: simpler net, one more test');
      const out = tempDir('pg-rootvitest-out-');
      const r = await runCli(
        ['check', '--base', 'main', '--head', 'agent', '--out', out, '--today', '2026-12-01'],
        {
          cwd: repo.dir,
        },
      );
      const card = readScorecard(out, r);
      expect(card.findings.map((f) => `${f.code}: ${f.message.slice(0, 200)}`)).toEqual([]);
      expect(card.verdict).toBe('accept');
      expect(r.code).toBe(0);
      const overlay = JSON.parse(readFileSync(path.join(out, 'overlay.json'), 'utf8')) as {
        restored: string[];
      };
      expect(overlay.restored).toEqual(['test/price.test.ts']);
    });
  },
);
