import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    isolate: false,
    // One device at a time: lavapipe runs on the CPU cores the tests would otherwise share.
    fileParallelism: false,
    testTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
