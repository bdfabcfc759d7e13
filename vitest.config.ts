import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    // Each file in its own process: e2e tests spawn git and the CLI, and one test switches euid.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
