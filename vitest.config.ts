import { defineConfig } from 'vitest/config';

// Tests run against the compiled dist/ for child-process hosts, so the global setup builds first.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
