import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['src/**/*.test.ts'], isolate: false, reporters: ['default', 'json'], outputFile: { json: 'test-results/vitest.json' } },
});
