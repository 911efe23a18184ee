import { defineConfig } from 'vitest/config';

// Quick runs of pure engine and model tests without the integration services of the global setup:
// npx vitest run --config vitest.unit.config.ts test/engine/chem
export default defineConfig({
  test: {
    include: ['test/engine/**/*.test.ts', 'test/models/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
  },
});
