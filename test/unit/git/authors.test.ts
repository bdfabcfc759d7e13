import { describe, expect, it } from 'vitest';
import { identitiesOf, MAX_AUTHORS, parseIdentity, patchIdentity } from '../../../src/git/authors.js';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import type { Scorecard } from '../../../src/report/scorecard.js';
import { outsideCode, RENDERERS, renderGfm } from '../../helpers/gfm.js';
import { GitDir } from '../../helpers/gitdir.js';

const gitAt = (repo: GitDir) => Git.forEnv(execFile, repo.dir, process.env);

/** A base commit on main, then `agent` with two commits by an agent, one co-authored twice, one by a human. */
function agentRepo(): { repo: GitDir; base: string } {
  const repo = GitDir.create({ 'a.txt': 'base\n' });
  const base = repo.head();
  repo.git('checkout', '-q', '-b', 'agent');
  const commitAs = (author: string, text: string, message: string) => {
    repo.write({ 'a.txt': text });
    repo.git('add', '-A');
    repo.git('commit', '-q', `--author=${author}`, '-m', message);
  };
  commitAs(
    'Agent A <agent-a@agents.example>',
    'one\n',
    'agent: one\n\nCo-authored-by: Jane Doe <JANE@example.com>\nCo-authored-by: Claude <noreply@anthropic.com>',
  );
  commitAs(
    'agent a <Agent-A@Agents.Example>',
    'two\n',
    'agent: two\n\nCo-authored-by: Jane Doe <jane@example.com>',
  );
  return { repo, base };
}

describe('patchIdentity', () => {
  it('names the authors, committer and Co-authored-by trailers of merge-base..head, one entry per address', async () => {
    const { repo, base } = agentRepo();
    const head = { ref: 'agent', commit: repo.head(), worktree: false };
    expect(await patchIdentity(gitAt(repo), base, head)).toEqual({
      commits: 2,
      authors: [
        // Addresses are told apart case-folded: both commits are the same agent's; the first name seen stays.
        { name: 'Agent A', email: 'agent-a@agents.example', roles: ['author'], commits: 2 },
        { name: 'Jane Doe', email: 'JANE@example.com', roles: ['co-author'], commits: 2 },
        { name: 'Test', email: 'test@example.com', roles: ['committer'], commits: 2 },
        { name: 'Claude', email: 'noreply@anthropic.com', roles: ['co-author'], commits: 1 },
      ],
      branch: 'agent',
    });
  });

  it('says no branch for a detached head, and no commit for a head the base already has', async () => {
    const { repo, base } = agentRepo();
    const tip = repo.head();
    repo.git('checkout', '-q', '--detach');
    const detached = await patchIdentity(gitAt(repo), base, { ref: 'HEAD', commit: tip, worktree: false });
    expect(detached.branch).toBeUndefined();
    expect(detached.commits).toBe(2);
    const none = await patchIdentity(gitAt(repo), tip, { ref: tip, commit: tip, worktree: false });
    expect(none).toEqual({ commits: 0, authors: [] });
  });

  it('takes a detached HEAD’s branch from the CI system’s pull request variable, and says which', async () => {
    const { repo, base } = agentRepo();
    const tip = repo.head();
    repo.git('checkout', '-q', '--detach');
    const env = { GITHUB_HEAD_REF: ' agent/fix-1 ', CIRCLE_BRANCH: 'other' };
    const id = await patchIdentity(gitAt(repo), base, { ref: 'HEAD', commit: tip, worktree: false }, env);
    expect(id).toMatchObject({ branch: 'agent/fix-1', branchFrom: 'GITHUB_HEAD_REF' });
    // An empty variable (a push event) names nothing; the next one the list knows does.
    const gitlab = { GITHUB_HEAD_REF: '', CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'mr-7' };
    const mr = await patchIdentity(gitAt(repo), base, { ref: 'HEAD', commit: tip, worktree: false }, gitlab);
    expect(mr).toMatchObject({ branch: 'mr-7', branchFrom: 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME' });
    // A head given by another name than HEAD is not the CI checkout: its branch is not the variable's.
    const bySha = await patchIdentity(gitAt(repo), base, { ref: tip, commit: tip, worktree: false }, env);
    expect(bySha.branch).toBeUndefined();
    // A head on a local branch keeps git's answer.
    repo.git('checkout', '-q', 'agent');
    const onBranch = await patchIdentity(
      gitAt(repo),
      base,
      { ref: 'HEAD', commit: tip, worktree: false },
      env,
    );
    expect(onBranch.branch).toBe('agent');
    expect(onBranch.branchFrom).toBeUndefined();
  });

  it('reads the branch of a working-tree head from HEAD', async () => {
    const { repo, base } = agentRepo();
    const id = await patchIdentity(gitAt(repo), base, { ref: 'HEAD', commit: repo.head(), worktree: true });
    expect(id.branch).toBe('agent');
  });
});

describe('identities of log records', () => {
  it('reads a trailer as a name with an address, a name alone, or nothing', () => {
    expect(parseIdentity('Jane Doe <jane@example.com>')).toEqual({
      name: 'Jane Doe',
      email: 'jane@example.com',
    });
    expect(parseIdentity('  Jane  ')).toEqual({ name: 'Jane', email: '' });
    expect(parseIdentity('<bot@example.com>')).toEqual({ name: '', email: 'bot@example.com' });
    expect(parseIdentity('   ')).toBeUndefined();
  });

  it('counts a record whose name holds the field separator as a commit, and reads what it can', () => {
    const r = identitiesOf([
      'Evil\x1eName\x1eevil@x\x1eTest\x1etest@example.com',
      'A\x1ea@x\x1eA\x1ea@x\x1e',
    ]);
    expect(r.commits).toBe(2);
    expect(r.authors.find((a) => a.email === 'a@x')).toEqual({
      name: 'A',
      email: 'a@x',
      roles: ['author', 'committer'],
      commits: 1,
    });
  });

  it(`keeps the ${MAX_AUTHORS} identities with most commits and counts the rest`, () => {
    const records = Array.from({ length: MAX_AUTHORS + 5 }, (_, i) => `N${i}\x1en${i}@x\x1eCI\x1eci@x\x1e`);
    const r = identitiesOf(records);
    expect(r.authors).toHaveLength(MAX_AUTHORS);
    expect(r.authors[0]).toMatchObject({ email: 'ci@x', commits: MAX_AUTHORS + 5 });
    expect(r.moreAuthors).toBe(6);
  });
});

describe('a patch that signs its commits with markdown', () => {
  it('shows each identity and its branch as code in summary.md, rendered as GitHub renders it', async () => {
    const repo = GitDir.create({ 'a.txt': 'base\n' });
    const base = repo.head();
    // The patch chooses its branch name, its author name and its trailers; git keeps what it is given.
    repo.git('checkout', '-q', '-b', 'ZQX-@octocat-#7-_x_');
    repo.write({ 'a.txt': 'x\n' });
    repo.git('add', '-A');
    repo.git(
      'commit',
      '-q',
      '--author=ZQX [accept](https://evil.example/a) @octocat ![p](https://evil.example/p.png) <a@evil.example>',
      '-m',
      'agent\n\nCo-authored-by: ZQX <img src=https://evil.example/i.png> #123 <c@evil.example>',
    );
    const head = { ref: 'HEAD', commit: repo.head(), worktree: false };
    const patch = await patchIdentity(gitAt(repo), base, head);
    expect(patch.authors.map((a) => a.name)).toEqual([
      'Test',
      'ZQX <img src=https://evil.example/i.png> #123',
      'ZQX [accept](https://evil.example/a) @octocat ![p](https://evil.example/p.png)',
    ]);
    expect(patch.branch).toBe('ZQX-@octocat-#7-_x_');
    const card = {
      schema: 'patchgate/scorecard@1',
      verdict: 'accept',
      base: { ref: 'main', requested: base, commit: base },
      head: { ...head, tree: 'd'.repeat(40) },
      patch,
      config: { file: 'patchgate.config.json', revision: 'base' },
      layers: [],
      findings: [],
      overrides: [],
      frozen: [],
      today: '2026-12-01',
      isolation: { mode: 'bwrap', user: 'separate' },
      timings: { revisionsMs: 0, setupMs: 0, cleanupMs: 0, totalMs: 1, layers: {} },
    } satisfies Scorecard;
    const md = renderMarkdown(card);
    expect(md).toContain('Patch: 1 commit(s) by ');
    for (const renderer of RENDERERS) {
      const html = renderGfm(md, renderer);
      expect(html).not.toMatch(/<a\b|<img\b/i);
      const live = outsideCode(html);
      expect(live).not.toContain('ZQX');
      expect(live).not.toMatch(/evil\.example|@octocat|#123|#7/);
    }
  });
});
