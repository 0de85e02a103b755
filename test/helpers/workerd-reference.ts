/**
 * The reference API's Worker entry (examples/reference-api/worker.ts) served from workerd
 * through Miniflare, with a real D1 binding (`DB`, kept in the `d1:` folder of a `freshD1`
 * database) and a `ThrottleCounter` Durable Object namespace (`THROTTLES`), over HTTP on
 * loopback. The tables are made and seeded from Node through Miniflare's binding proxy by
 * `openReferenceContext`, as a deploy step would, and that context (on the same D1) is the
 * `ref` the tests read the stores through.
 */
import { Log, LogLevel, Miniflare } from 'miniflare'
import { pbkdf2Hasher } from 'drf-gatehouse'
import { openD1 } from 'drf-gatehouse/d1'
import { openReferenceContext, type ReferenceConfig } from '../../examples/reference-api/context.js'
import type { ReferenceDatabase } from '../../examples/reference-api/database.js'
import type { TestDatabase } from './databases.js'
import type { RunningReference } from './reference-server.js'
import { bundleWorkerNodeCompat } from '../edge/worker-bundle.js'

/** The cheap PBKDF2 cost the tests run the Worker at (Django's 1,000,000 takes about a second a check). */
export const TEST_PBKDF2_ITERATIONS = 1000

const ENTRY = 'examples/reference-api/worker.ts'
let bundled: Promise<string> | undefined

/** The Worker, bundled once per test process as Wrangler would (Node's built-ins left as imports: none may be). */
function workerCode(): Promise<string> {
  bundled ??= bundleWorkerNodeCompat(ENTRY).then(({ code }) => {
    const nodeImport = /\bfrom\s*["'](node:)?(async_hooks|crypto|util|events|fs|path|net|tls|os|stream|buffer)["']/.exec(code)
    if (nodeImport !== null) throw new Error(`${ENTRY} imports a Node module (${nodeImport[0]}): workerd without nodejs_compat cannot load it`)
    return code
  })
  return bundled
}

/** Settings only the Node entry has; the Worker's own are read from its bindings. */
type Config = Omit<ReferenceConfig, 'databaseUrl'>

/**
 * `config` as the Worker's text bindings (the variables the Node entry reads, same names).
 * `scrypt` and `dbTimeoutMs` have no meaning there (PBKDF2; no PostgreSQL) and are dropped;
 * any other setting the Worker lacks throws rather than be silently ignored.
 */
function workerBindings(config: Config): Record<string, string> {
  const bindings: Record<string, string> = { GATEHOUSE_PBKDF2_ITERATIONS: String(TEST_PBKDF2_ITERATIONS) }
  for (const [key, value] of Object.entries(config) as [keyof Config, unknown][]) {
    if (value === undefined) continue
    switch (key) {
      case 'loginFailures':
        bindings['GATEHOUSE_LOGIN_FAILURES'] = String(value)
        break
      case 'tokenCacheTtlMs':
        bindings['GATEHOUSE_TOKEN_CACHE_TTL_MS'] = String(value)
        break
      case 'numProxies':
        bindings['GATEHOUSE_NUM_PROXIES'] = String(value)
        break
      case 'allowedHosts':
        bindings['GATEHOUSE_ALLOWED_HOSTS'] = (value as readonly string[]).join(',')
        break
      case 'secrets':
        bindings['GATEHOUSE_SECRET'] = (value as readonly string[]).join(',')
        break
      case 'scrypt':
      case 'dbTimeoutMs':
        break
      default:
        throw new Error(`the reference API's Worker has no "${key}" setting`)
    }
  }
  return bindings
}

/** Serves the Worker on `database` (a `freshD1`), migrated and seeded, at `http://127.0.0.1:<port>`. */
export async function startWorkerdReference(database: TestDatabase, config: Config, dropDatabase: boolean): Promise<RunningReference> {
  if (!database.url.startsWith('d1:')) throw new Error(`the Worker serves a D1 database (freshD1), not ${database.url}`)
  const miniflare = new Miniflare({
    modules: true,
    script: await workerCode(),
    // No compatibility flags: `nodejs_compat` would let `node:` modules and `Buffer` in.
    compatibilityDate: '2025-09-01',
    compatibilityFlags: [],
    d1Databases: { DB: 'reference' },
    d1Persist: database.url.slice('d1:'.length),
    durableObjects: { THROTTLES: 'ThrottleCounter' },
    bindings: workerBindings(config),
    host: '127.0.0.1',
    port: 0,
    // A placeholder `request.cf`: Miniflare otherwise fetches a real one from Cloudflare.
    cf: false,
    // The Worker's uncaught errors and console.error/warn reach the test output: a 500 names its cause.
    log: new Log(LogLevel.WARN),
  })
  let ref: RunningReference['ref'] | undefined
  try {
    const url = await miniflare.ready
    const opened = openD1<ReferenceDatabase>(await miniflare.getD1Database('DB'))
    ref = await openReferenceContext({
      ...config,
      database: { opened, transactions: false },
      passwordHasher: pbkdf2Hasher({ iterations: TEST_PBKDF2_ITERATIONS }),
    })
    const started = ref
    return {
      baseUrl: url.origin,
      databaseUrl: database.url,
      ref: started,
      framework: 'hono',
      close: async () => {
        try {
          await started.close()
          await opened.close()
        } finally {
          await miniflare.dispose()
          if (dropDatabase) await database.drop()
        }
      },
    }
  } catch (error) {
    await ref?.close()
    await miniflare.dispose()
    if (dropDatabase) await database.drop()
    throw error
  }
}
