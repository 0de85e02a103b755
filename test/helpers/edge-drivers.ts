/**
 * The edge drivers the reference API's conformance suite can run on from Node (issue 43):
 *
 * - `GATEHOUSE_TEST_SQLITE_VIA=libsql`: every fresh SQLite test database a reference API serves
 *   is opened through `drf-gatehouse/libsql` (`openLibsql`, a `file:` URL to the same file).
 * - `GATEHOUSE_TEST_POSTGRES_VIA=neon`: every fresh PostgreSQL test database is opened through
 *   `drf-gatehouse/neon` (`openNeon`, Neon's WebSocket `Pool`), over a WebSocket → TCP proxy to
 *   the local PostgreSQL (test/edge/ws-tcp-proxy.ts, what Neon runs in front of its servers),
 *   started once per test process on first use and closed when the process exits.
 *
 * Unset (the default), `openReferenceContext` opens the database from its URL (better-sqlite3, pg).
 */
import type { ReferenceConfig } from '../../examples/reference-api/context.js'
import type { TestDatabase } from './databases.js'
import type { WsTcpProxy } from '../edge/ws-tcp-proxy.js'

/** A database a driver opened, as `ReferenceConfig.database` takes it (the caller closes it). */
export type OpenedTestDatabase = NonNullable<ReferenceConfig['database']>

/** The driver `GATEHOUSE_TEST_SQLITE_VIA` names (`libsql`), or `null` when unset. */
export function sqliteVia(env: NodeJS.ProcessEnv = process.env): 'libsql' | null {
  const via = env['GATEHOUSE_TEST_SQLITE_VIA'] ?? ''
  if (via === '') return null
  if (via !== 'libsql') throw new Error(`GATEHOUSE_TEST_SQLITE_VIA must be libsql, got "${via}"`)
  return via
}

let proxy: Promise<WsTcpProxy> | undefined

/** The process's WebSocket → TCP proxy, started on first use; closed when the process exits. */
function neonProxy(): Promise<WsTcpProxy> {
  proxy ??= import('../edge/ws-tcp-proxy.js').then(async ({ startWsTcpProxy }) => {
    const started = await startWsTcpProxy()
    // close() tears down synchronously before its first await, which is all an exit handler runs.
    process.once('exit', () => void started.close())
    return started
  })
  return proxy
}

/** WebSocket connections the process's Neon proxy has piped (0 when it never started). */
export async function neonProxyConnections(): Promise<number> {
  return proxy === undefined ? 0 : (await proxy).connections
}

/**
 * `database` opened through the driver `GATEHOUSE_TEST_SQLITE_VIA` / `GATEHOUSE_TEST_POSTGRES_VIA`
 * names for its dialect, or `null` when that variable is unset (open it from its URL). Loaded on
 * first use: the drivers are optional peers, and Bun and Deno run the file importing this one.
 */
export async function openThroughDriver(database: TestDatabase, env: NodeJS.ProcessEnv = process.env): Promise<OpenedTestDatabase | null> {
  if (database.name === 'sqlite') {
    if (sqliteVia(env) === null) return null
    if (!database.url.startsWith('sqlite:')) throw new Error(`GATEHOUSE_TEST_SQLITE_VIA=libsql opens a SQLite file (freshSqlite), not ${database.url}`)
    const { openLibsql } = await import('drf-gatehouse/libsql')
    return { opened: openLibsql({ url: `file:${database.url.slice('sqlite:'.length)}` }), transactions: true }
  }
  if ((env['GATEHOUSE_TEST_POSTGRES_VIA'] ?? '') !== 'neon') return null
  const [{ neonConfig }, { WebSocket }, { openNeon }, { address }] = await Promise.all([
    import('@neondatabase/serverless'),
    import('ws'),
    import('drf-gatehouse/neon'),
    neonProxy(),
  ])
  // Node 20 has no global WebSocket; the proxy speaks ws://, and PostgreSQL on loopback no TLS.
  neonConfig.webSocketConstructor = WebSocket
  neonConfig.wsProxy = (host, port) => `${address}/v2?address=${host}:${port}`
  neonConfig.useSecureWebSocket = false
  neonConfig.pipelineTLS = false
  neonConfig.pipelineConnect = false
  return { opened: openNeon(database.url), transactions: true }
}
