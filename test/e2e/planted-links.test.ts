/**
 * The sandbox mounts, read-only, where the gate's own symlinks in a checkout
 * lead (dependency folders it lent). A symlink head code plants in its
 * checkout must not become such a mount for the next head process: the
 * probe's reruns run in the same checkout. Real pytest, the real sandbox.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { runCli, tempDir } from '../helpers/gitdir.js';

describe('a symlink the head plants in its checkout', { timeout: 180_000 }, () => {
  it('does not open a host folder to a later head process (the probe reruns in the same checkout)', async () => {
    const secretDir = tempDir('pg-host-secret-');
    mkdirSync(path.join(secretDir, 'inner'));
    writeFileSync(path.join(secretDir, 'inner', 'token'), 'S3CRET-HOST-TOKEN\n');
    const repo = calcRepo({
      config: { stability: { runs: 3 } },
      files: { 'stability_freeze.json': '{"freezes": []}\n' },
    });
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({
      // Run 1 plants the link at the checkout's top level; any later run reads through it if it was mounted.
      'tests/test_leak.py': `import os, pathlib\n\n\ndef test_leak():\n    link = pathlib.Path(__file__).parent.parent / "leak"\n    if not link.is_symlink():\n        os.symlink(${JSON.stringify(secretDir)}, link)\n    try:\n        data = (link / "inner" / "token").read_text()\n    except OSError:\n        data = None\n    assert data is None, "read the host's " + data\n`,
    });
    repo.commit('agent: a test that plants a link');
    const out = tempDir('pg-links-out-');
    await runCli(['check', '--base', 'main', '--head', 'agent', '--out', out, '--today', '2026-12-01'], {
      cwd: repo.dir,
    });
    const text = readFileSync(path.join(out, 'scorecard.json'), 'utf8');
    const card = JSON.parse(text) as { findings: { code: string; evidence: Record<string, unknown> }[] };
    expect(text).not.toContain('S3CRET-HOST-TOKEN');
    const leak = card.findings.filter((f) => String(f.evidence.test ?? '').includes('test_leak'));
    expect(leak).toEqual([]);
    // The probe did rerun the file that planted the link: otherwise this pins nothing.
    const stability = JSON.parse(readFileSync(path.join(out, 'stability.json'), 'utf8')) as unknown;
    expect(JSON.stringify(stability)).toContain('test_leak');
  });
});
