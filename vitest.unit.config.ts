import { defineConfig } from 'vitest/config';

// Quick runs of pure engine and model tests without the integration services of the global setup:
// npx vitest run --config vitest.unit.config.ts test/engine/chem (also the web app's pure modules)
export default defineConfig({
  test: {
    include: [
      'test/engine/**/*.test.ts',
      'test/bench/**/*.test.ts',
      'test/models/**/*.test.ts',
      'test/web/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'test/web/e2e/**'],
    pool: 'forks',
    testTimeout: 120_000,
  },
});
