import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@netpolicy/core': src('core'),
      '@netpolicy/client': src('client'),
      '@netpolicy/language-service': src('language-service'),
      '@netpolicy/language-server': src('language-server'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'extension/test/unit/**/*.test.ts'],
    testTimeout: 20000,
    hookTimeout: 30000,
  },
});
