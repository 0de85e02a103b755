import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { webStandardUnitTests } from './test/helpers/web-standard-core.js'

/** `gatehouse/<entry>` → its source file, as tsconfig.json's `paths` say (tsx reads those itself). */
const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

/**
 * Suites that run once per framework the reference API serves (GATEHOUSE_TEST_FRAMEWORK picks
 * it in test/helpers/reference-server.ts): the conformance suite and the DRF-oracle comparison.
 * Only test/oracle's own files: its subfolders (simplejwt/, drf/, django/) compare in-process,
 * with no framework, and run once in 'main'.
 */
const PER_FRAMEWORK = ['test/conformance/**/*.test.ts', 'test/oracle/*.test.ts']
const FRAMEWORKS = ['fastify', 'express', 'hono', 'node'] as const

/**
 * 'main''s files that import the reference API (four frameworks, the stores, the admin) and mock
 * nothing (no vi.mock, vi.stubEnv, vi.spyOn, no process.env or global written): the 'shared'
 * project evaluates those modules once per worker instead of once per file, as the framework
 * projects do. A file that mocks or writes global state belongs in 'main'.
 */
const SHARED = ['test/reference/**/*.test.ts', 'test/property/**/*.test.ts']

/**
 * Unit tests of the Web-standard core (what `drf-gatehouse` and `drf-gatehouse/hono` reach) that cannot
 * run without Node's globals, each with the reason. Everything else there runs twice: as usual,
 * and in the 'web-standard' project with `Buffer` and `process.getBuiltinModule` removed.
 */
const NEEDS_NODE_GLOBALS: readonly string[] = [
  // RS*/ES* signing keys are PEM, which only node:crypto reads here (jwt-keys.ts); HS* runs anywhere.
  'src/jwt/asymmetric.test.ts',
  // gatehouse/setup is not part of that core: it serves over node:http and opens SQLite, PostgreSQL and Redis.
  'src/setup.test.ts',
  'src/setup-features.test.ts',
]

export default defineConfig({
  resolve: {
    alias: [
      { find: /^drf-gatehouse$/, replacement: source('./src/index.ts') },
      { find: /^drf-gatehouse\/kysely$/, replacement: source('./src/kysely/index.ts') },
      { find: /^drf-gatehouse\/d1$/, replacement: source('./src/edge/d1.ts') },
      { find: /^drf-gatehouse\/libsql$/, replacement: source('./src/edge/libsql.ts') },
      { find: /^drf-gatehouse\/neon$/, replacement: source('./src/edge/neon.ts') },
      { find: /^drf-gatehouse\/redis$/, replacement: source('./src/redis/index.ts') },
      { find: /^drf-gatehouse\/fastify$/, replacement: source('./src/adapters/fastify/index.ts') },
      { find: /^drf-gatehouse\/express$/, replacement: source('./src/adapters/express/index.ts') },
      { find: /^drf-gatehouse\/hono$/, replacement: source('./src/adapters/hono/index.ts') },
      { find: /^drf-gatehouse\/node$/, replacement: source('./src/adapters/node-http/index.ts') },
      { find: /^drf-gatehouse\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^drf-gatehouse\/http$/, replacement: source('./src/http/index.ts') },
      { find: /^drf-gatehouse\/jwt$/, replacement: source('./src/jwt/index.ts') },
      { find: /^drf-gatehouse\/oauth2$/, replacement: source('./src/oauth2/index.ts') },
      { find: /^drf-gatehouse\/setup$/, replacement: source('./src/setup.ts') },
      { find: /^drf-gatehouse\/admin$/, replacement: source('./src/admin/index.ts') },
    ],
  },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'main', include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: [...configDefaults.exclude, ...PER_FRAMEWORK, ...SHARED, 'test/web-standard/without-node-globals.test.ts'] },
      },
      { extends: true, test: { name: 'shared', include: SHARED, isolate: false } },
      {
        extends: true,
        test: {
          name: 'web-standard',
          include: [...webStandardUnitTests(fileURLToPath(new URL('.', import.meta.url))), 'test/integration/core-*.test.ts', 'test/web-standard/without-node-globals.test.ts'],
          exclude: [...configDefaults.exclude, ...NEEDS_NODE_GLOBALS],
          setupFiles: ['./test/helpers/without-node-globals.ts'],
        },
      },
      // isolate: false: these files import the whole reference API (four frameworks, the stores,
      // the admin) and mock nothing; evaluating it once per worker instead of once per file cut
      // the Hono project's run from 213 s to 174 s.
      ...FRAMEWORKS.map((framework) => ({
        extends: true as const,
        test: { name: framework, include: PER_FRAMEWORK, env: { GATEHOUSE_TEST_FRAMEWORK: framework }, isolate: false },
      })),
    ],
    // One simplejwt oracle (Django) per database, started on first use, shared by the framework projects.
    globalSetup: ['./test/oracle/simplejwt/simplejwt-oracle-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Generous: on a loaded 2-core machine (load 15-20 seen) a test that spawns the CLI or
    // bundles it on first use took over 30 s; a runner timeout there is not a failure of gatehouse.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only contend for the CPU that scrypt and the databases need.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
})
