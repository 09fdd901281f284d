import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['src/**/*.test.ts'], isolate: false, testTimeout: 30_000, globalSetup: ['../ci/vitest-run-tmpdir.mjs'], reporters: ['default', 'json'], outputFile: { json: 'test-results/vitest.json' } },
});
