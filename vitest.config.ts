import { defineConfig } from 'vitest/config';

// Integration suites share one Temporal dev server, one PostgreSQL and one S3 server started in
// the global setup; files run in forked processes so native add-ons (Temporal core, ONNX) are isolated.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
