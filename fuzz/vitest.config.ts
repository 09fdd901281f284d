import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'mutants/**/*.test.ts', 'test/**/*.test.ts', 'alternatives/**/*.test.ts', 'examples/**/*.test.ts', 'regressions/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    testTimeout: 60_000,
  },
});
