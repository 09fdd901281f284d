import { defineConfig } from 'vitest/config';

/**
 * Workspace packages resolve from their TypeScript sources (the `source` export condition), the
 * sources `pnpm fuzz` runs under `tsx --conditions=source`, so a test never runs a stale `dist/`.
 * Vite 6+ resolves the test files' imports in its server (SSR) environment, whose conditions come
 * from `ssr.resolve.conditions` (the top-level `resolve.conditions` is the browser's) and replace
 * Vite's defaults, which are therefore listed after `source`.
 */
const kSourceConditions = ['source', 'module', 'node', 'development|production'];

export default defineConfig({
  ssr: { resolve: { conditions: kSourceConditions } },
  test: {
    include: ['src/**/*.test.ts', 'mutants/**/*.test.ts', 'test/**/*.test.ts', 'alternatives/**/*.test.ts', 'examples/**/*.test.ts', 'regressions/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    testTimeout: 60_000,
    globalSetup: ['../ci/vitest-run-tmpdir.mjs'],
  },
});
