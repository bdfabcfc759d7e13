import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { outsideCode, RENDERERS, renderGfm, SUMMARY_TAGS, tagNames } from '../helpers/gfm.js';
import { runCli } from '../helpers/gitdir.js';
import { defaultOut, readScorecard } from '../helpers/out.js';

const MARK = 'ZQX';
/** What must never reach a reader raw: C0 but newline and tab, DEL, C1, bidi embeddings and overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const RAW_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
/**
 * A test name and a failure message the patch chose to make every report say
 * something else: a tracking pixel, a link labelled "accept", raw HTML, a
 * mention, an issue reference, an autolink, a CSI (U+009B) and a bidi
 * override for the terminal, and GitHub workflow commands for the CI log.
 * (A JUnit report is XML, which cannot carry ESC; the unit tests play that.)
 */
const NAME =
  `${MARK} ![pixel](https://evil.example/p.png) [accept](https://evil.example/ok) ` +
  `<img src=https://evil.example/i.png> @octocat #1 www.evil.example \u009b2J \u202egnissap ##[add-mask]gate`;
const MESSAGE = `${MARK} all good\n::stop-commands::pwned\n  ::warning file=README.md::looks fine\n\u009b31m`;

describe('reports carry the head text as text (a real vitest run)', { timeout: 180_000 }, () => {
  it('shows a test named with a markdown image, a link, <img>, U+009B and workflow commands only as text', async () => {
    const repo = vitestRepo({
      'sum.test.ts': "import { expect, it } from 'vitest';\nit('adds', () => { expect(1 + 1).toBe(2); });\n",
    });
    repo.write({
      'sum.test.ts': `import { it } from 'vitest';\nit(${JSON.stringify(NAME)}, () => { throw new Error(${JSON.stringify(MESSAGE)}); });\n`,
    });
    const r = await runCli(['check', '--base', 'main', '--reporter', 'github', '--reporter', 'terminal'], {
      cwd: repo.dir,
    });
    expect(r.code, r.stderr).toBe(1);
    const card = readScorecard(defaultOut(repo.dir), r);
    const failure = card.findings.find((f) => f.code === 'UNKNOWN_FAILURE_SIGNATURE');
    // The scorecard is data: it keeps what the runner reported (vitest's JUnit writer drops C1 controls itself).
    expect(String(failure?.evidence.test)).toContain('\u202egnissap ##[add-mask]gate');
    // vitest's JUnit drops U+009B from the name, so no rerun can select the test: the failure stands, never a flake.
    expect(failure?.evidence.class).toBe('unconfirmed');

    const summary = readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8');
    expect(summary).toContain(MARK);
    for (const renderer of RENDERERS) {
      const html = renderGfm(summary, renderer);
      for (const [tag] of tagNames(html)) expect(SUMMARY_TAGS).toContain(tag);
      expect(html).not.toMatch(/<a\b|<img\b/);
      expect(outsideCode(html)).not.toMatch(/ZQX|evil\.example|@octocat|#1\b/);
    }
    expect(summary).not.toMatch(RAW_UNSAFE);

    const html = readFileSync(repo.path('.patchgate/out/report.html'), 'utf8');
    expect(html).toContain(MARK);
    expect(html).not.toMatch(RAW_UNSAFE);

    // The CI log: the table and the annotations show the name, but no raw control or override, and the only
    // lines a runner reads as workflow commands are the gate's own annotations.
    expect(r.stdout).toContain(MARK);
    expect(r.stdout).toContain('\\u202egnissap ##\\u005badd-mask]gate');
    expect(r.stdout).not.toMatch(RAW_UNSAFE);
    expect(r.stdout).not.toContain('##[');
    const commands = r.stdout.split('\n').filter((l) => l.trimStart().startsWith('::'));
    for (const l of commands) expect(l).toMatch(/^::(error|warning) file=[^,:]+(,line=\d+)?,title=[A-Z_]+::/);
    expect(r.stdout).not.toMatch(/^\s*::stop-commands/m);
  });

  it('shows what a crashing run printed (ESC, U+009B, a bidi override, workflow commands) as text everywhere', async () => {
    const repo = vitestRepo({
      'sum.test.ts': "import { expect, it } from 'vitest';\nit('adds', () => { expect(1 + 1).toBe(2); });\n",
    });
    // The patch's vitest config prints to the terminal and dies before any report is written: the gate
    // quotes the run's last output in its finding.
    const printed = `${MARK}\u001b]0;owned\u0007\u001b[2J\u009b31mred\u202egnissap\n::stop-commands::pwned\n##[add-mask]gate\n`;
    repo.write({
      'vitest.config.ts': `process.stdout.write(${JSON.stringify(printed)});\nprocess.stderr.write(${JSON.stringify(printed)});\nprocess.exit(3);\n`,
    });
    const r = await runCli(['check', '--base', 'main', '--reporter', 'github', '--reporter', 'terminal'], {
      cwd: repo.dir,
    });
    const card = readScorecard(defaultOut(repo.dir), r);
    // The base's run of the same command reports: the patch broke the run, with the runner's own words.
    const broken = card.findings.find((f) => f.code === 'HEAD_RUN_BROKEN');
    expect(broken, JSON.stringify(card.findings.map((f) => f.code))).toBeDefined();
    expect(broken?.evidence.failed).toBe('TESTS_NO_REPORT');
    expect(String(broken?.evidence.output)).toContain('\u009b31mred\u202egnissap');

    for (const out of [r.stdout, r.stderr, readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8')]) {
      expect(out).not.toMatch(RAW_UNSAFE);
      expect(out).not.toContain('##[');
      expect(out).not.toMatch(/^\s*::stop-commands/m);
    }
    expect(r.stdout).toContain('\\u001b]0;owned\\u0007\\u001b[2J\\u009b31mred\\u202egnissap');
    const html = readFileSync(repo.path('.patchgate/out/report.html'), 'utf8');
    expect(html).toContain(MARK);
    expect(html).not.toMatch(RAW_UNSAFE);
  });
});
