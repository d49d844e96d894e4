import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      // Before '@netpolicy/core', which would match as a prefix (the first match wins).
      '@netpolicy/core/internal': fileURLToPath(new URL('./packages/core/src/internal.ts', import.meta.url)),
      '@netpolicy/core': src('core'),
      '@netpolicy/client': src('client'),
      '@netpolicy/language-service': src('language-service'),
      '@netpolicy/language-server': src('language-server'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'extension/test/unit/**/*.test.ts'],
    // Hang bounds, not budgets: `npm test` must pass under `nice` beside CPU-bound processes, where
    // a test runs ten or more times slower than on a quiet machine (the slowest take a few seconds
    // there). Time and memory budgets belong in `npm run bench`.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
  },
});
