import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import `patchgate` as their users would; here it is this repository's source.
  resolve: { alias: { patchgate: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    // Each file in its own process: e2e tests spawn git and the CLI, and one test switches euid.
    pool: 'forks',
    // Most test time is spent waiting on child processes (git, the CLI, sandboxed runners), not on a CPU: on
    // a quiet 2-core CI machine three files at a time left the cores 40% idle. Four: the timing-sensitive
    // tests (harness start timeouts, caps) hold at a load average of 8-12 here, well past what four add.
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
