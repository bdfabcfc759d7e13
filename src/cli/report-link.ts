/**
 * Where a reviewer finds this run's report.html: `PATCHGATE_REPORT_URL` when
 * the job says, else the GitHub Actions run page (its artifacts are listed
 * there), else nothing. Only values the CI system sets are used, and only
 * http(s) URLs, since the link is written into markdown.
 */
export function reportLinkFrom(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const explicit = env.PATCHGATE_REPORT_URL;
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  const url =
    explicit !== undefined && explicit !== ''
      ? explicit
      : server && repo && run
        ? `${server}/${repo}/actions/runs/${run}`
        : undefined;
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    // No markdown can be smuggled in through a URL that is printed inside [..](..).
    return /[\s()<>[\]]/.test(url) ? undefined : url;
  } catch {
    return undefined;
  }
}
