import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import `patchgate` as their users would; here it is this repository's source.
  resolve: { alias: { patchgate: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    // Each file in its own process: e2e tests spawn git and the CLI, and one test switches euid.
    pool: 'forks',
    // Most test time is spent waiting on child processes (git, the CLI, sandboxed runners), not on a CPU:
    // three files at a time keep two cores busy without starving the runs that measure timeouts (four
    // saved 10% here, and made the signal test's 4-second stop lose its race at a load average of 9).
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
