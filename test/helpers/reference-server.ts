import { FRAMEWORKS, startApp, type BuildAppOptions, type Framework } from '../../examples/reference-api/app.js'
import { openReferenceContext, type ReferenceConfig, type ReferenceContext } from '../../examples/reference-api/context.js'
import { afterAll, beforeAll } from 'vitest'
import type { TestDatabase } from './databases.js'
import { openThroughDriver, sqliteVia } from './edge-drivers.js'
import { topologyRedis } from './topology.js'

/**
 * The cheap scrypt cost tests run the reference API at (the library default, OWASP's
 * N=2^17, takes about 0.3 s per Basic check, and the suites make thousands).
 */
export const TEST_SCRYPT = Object.freeze({ N: 2 ** 12, r: 8, p: 1 })

/** Where the reference API runs: on Node on one of the frameworks, or in workerd as a Worker (Hono). */
export type ReferenceTarget = Framework | 'workerd'

/**
 * Where the reference API runs in this test run: `GATEHOUSE_TEST_FRAMEWORK` (set per vitest
 * project, so the conformance and oracle suites run on each), else Fastify. `workerd`: the
 * Worker entry in workerd, on D1 (vitest.workerd.config.ts).
 */
export function testTarget(): ReferenceTarget {
  const name = process.env['GATEHOUSE_TEST_FRAMEWORK']
  if (name === undefined || name === '') return 'fastify'
  if (name === 'workerd') return name
  const known = FRAMEWORKS.find((f) => f === name)
  if (known === undefined) throw new Error(`GATEHOUSE_TEST_FRAMEWORK must be one of ${FRAMEWORKS.join(', ')} or workerd, got "${name}"`)
  return known
}

/** The framework of `testTarget()`: the Worker is a Hono app. */
export function testFramework(): Framework {
  const target = testTarget()
  return target === 'workerd' ? 'hono' : target
}

/** A reference API listening on a real loopback socket, on its own fresh database. */
export interface RunningReference {
  readonly baseUrl: string
  /** The `DATABASE_URL` it serves (for the command line run beside it). */
  readonly databaseUrl: string
  readonly ref: ReferenceContext
  /** The framework it runs on (`hono` for the Worker). */
  readonly framework: Framework
  close(): Promise<void>
}

/**
 * Migrates and seeds `database`, then serves the reference API on 127.0.0.1 at a free port
 * (in workerd, on a `freshD1` database, for `framework: 'workerd'`).
 * `config` adds reference settings (Redis, proxies; scrypt defaults to `TEST_SCRYPT`); `dropDatabase: false` keeps the
 * database for another instance sharing it.
 */
export async function startReference(
  database: TestDatabase,
  config: Omit<ReferenceConfig, 'databaseUrl'> = {},
  {
    dropDatabase = true,
    app: appOptions = {},
    framework = testTarget(),
  }: { readonly dropDatabase?: boolean; readonly app?: BuildAppOptions; readonly framework?: ReferenceTarget } = {},
): Promise<RunningReference> {
  if (framework === 'workerd') {
    if (Object.keys(appOptions).length > 0) throw new Error('the Worker takes no server options')
    if (sqliteVia() !== null) throw new Error('GATEHOUSE_TEST_SQLITE_VIA is for the Node targets: the Worker serves D1')
    // Loaded here: Miniflare and esbuild are for this target only (Bun and Deno run the rest of this file).
    const { startWorkerdReference } = await import('./workerd-reference.js')
    return startWorkerdReference(database, config, dropDatabase)
  }
  // GATEHOUSE_TEST_REDIS puts a reference API that names no Redis itself on a Redis (Cluster).
  const redis = config.redisUrl === undefined && config.redisClusterNodes === undefined ? topologyRedis() : {}
  // A 20 s PostgreSQL timeout unless the test sets one: the suites test answers, not speed, and on a
  // busy machine 30 requests queued on one lock (the named-token cap) pass the 2 s default.
  // GATEHOUSE_TEST_SQLITE_VIA=libsql and GATEHOUSE_TEST_POSTGRES_VIA=neon open it through an edge driver.
  const driver = config.database === undefined ? await openThroughDriver(database) : null
  let ref: ReferenceContext
  try {
    ref = await openReferenceContext({
      scrypt: TEST_SCRYPT,
      dbTimeoutMs: 20_000,
      ...redis,
      ...config,
      databaseUrl: database.url,
      ...(driver === null ? {} : { database: driver }),
    })
  } catch (error) {
    await driver?.opened.close()
    throw error
  }
  const app = await startApp(framework, ref, { port: 0, host: '127.0.0.1' }, appOptions)
  return {
    baseUrl: app.address,
    databaseUrl: database.url,
    ref,
    framework,
    close: async () => {
      await app.close()
      await ref.close()
      // The driver's database stays the caller's to close (ReferenceConfig.database).
      await driver?.opened.close()
      if (dropDatabase) await database.drop()
    },
  }
}

/**
 * A reference API on a fresh database of `backend`, started before the enclosing describe
 * block's tests and closed after them; call the returned function inside a test.
 */
export function useReference(backend: { create(): Promise<TestDatabase> }): () => RunningReference {
  let server: RunningReference | undefined
  beforeAll(async () => {
    server = await startReference(await backend.create())
  })
  afterAll(async () => {
    await server?.close()
  })
  return () => {
    if (server === undefined) throw new Error('the reference API has not started')
    return server
  }
}
