import { describe, expect, it } from 'vitest';
import { reportLinkFrom } from '../../../src/cli/report-link.js';

describe('reportLinkFrom', () => {
  it('links the GitHub Actions run page, where the report artifact is', () => {
    expect(
      reportLinkFrom({
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_RUN_ID: '42',
      }),
    ).toBe('https://github.com/o/r/actions/runs/42');
  });

  it('prefers PATCHGATE_REPORT_URL, and gives nothing outside CI', () => {
    expect(reportLinkFrom({ PATCHGATE_REPORT_URL: 'https://ci.example/r/1', GITHUB_RUN_ID: '1' })).toBe(
      'https://ci.example/r/1',
    );
    expect(reportLinkFrom({})).toBeUndefined();
  });

  it('refuses a URL that is not http(s) or would break out of the markdown link', () => {
    expect(reportLinkFrom({ PATCHGATE_REPORT_URL: 'javascript:alert(1)' })).toBeUndefined();
    expect(
      reportLinkFrom({ PATCHGATE_REPORT_URL: 'https://x.example/a) [click](https://evil' }),
    ).toBeUndefined();
    expect(reportLinkFrom({ PATCHGATE_REPORT_URL: 'not a url' })).toBeUndefined();
  });
});
