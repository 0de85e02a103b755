import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/** `gatehouse/<entry>` → its source file, as tsconfig.json's `paths` say (tsx reads those itself). */
const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^gatehouse$/, replacement: source('./src/index.ts') },
      { find: /^gatehouse\/kysely$/, replacement: source('./src/kysely/index.ts') },
      { find: /^gatehouse\/redis$/, replacement: source('./src/redis/index.ts') },
      { find: /^gatehouse\/fastify$/, replacement: source('./src/adapters/fastify/index.ts') },
      { find: /^gatehouse\/express$/, replacement: source('./src/adapters/express/index.ts') },
      { find: /^gatehouse\/hono$/, replacement: source('./src/adapters/hono/index.ts') },
      { find: /^gatehouse\/node$/, replacement: source('./src/adapters/node-http/index.ts') },
      { find: /^gatehouse\/testing$/, replacement: source('./src/testing/index.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only contend for the CPU that scrypt and the databases need.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
})
