/**
 * The store conformance suites through `openNeon`: Neon's serverless driver (its WebSocket
 * `Pool`) against the local PostgreSQL, through a WebSocket → TCP proxy started here (what
 * Neon runs in front of its servers), in plain text as a proxy on loopback allows.
 */
import { neonConfig } from '@neondatabase/serverless'
import { sql } from 'kysely'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { WebSocket } from 'ws'
import { openNeon } from 'drf-gatehouse/neon'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../helpers/databases.js'
import { unavailable } from '../helpers/requirements.js'
import { runEdgeStoreSuites } from './store-suites.js'
import { startWsTcpProxy, type WsTcpProxy } from './ws-tcp-proxy.js'

let proxy: WsTcpProxy | undefined
let database: TestDatabase | undefined

afterAll(async () => {
  await proxy?.close()
  await database?.drop()
})

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL=postgres://…)', postgresAvailable()))("Kysely stores on PostgreSQL through Neon's serverless driver", () => {
  runEdgeStoreSuites(async () => {
    proxy = await startWsTcpProxy()
    database = await freshPostgres({ prefix: 'edge_neon_' })
    const address = proxy.address
    // Node 20 has no global WebSocket; the proxy speaks ws://, and PostgreSQL on loopback no TLS.
    neonConfig.webSocketConstructor = WebSocket
    neonConfig.wsProxy = (host, port) => `${address}/v2?address=${host}:${port}`
    neonConfig.useSecureWebSocket = false
    neonConfig.pipelineTLS = false
    neonConfig.pipelineConnect = false
    return openNeon(database.url)
  })

  it('went through the WebSocket proxy, not a direct connection', () => {
    expect(proxy?.connections).toBeGreaterThan(0)
  })

  it('close() resolves once PostgreSQL has closed every connection, and reports none of them as lost', async () => {
    const errors = vi.spyOn(console, 'error')
    try {
      const opened = openNeon(database?.url ?? '')
      const before = proxy?.open ?? 0
      // Three connections at once, idle in the pool when it closes.
      await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.05)`.execute(opened.db)))
      expect(proxy?.open).toBe(before + 3)
      await opened.close()
      // Neon's pool (pg-pool) ends when it has asked its clients to end, not when they have: the
      // server still held them, and a DROP DATABASE … WITH (FORCE) right after was logged as a lost connection.
      expect(proxy?.open).toBe(before)
    } finally {
      errors.mockRestore()
    }
    expect(errors).not.toHaveBeenCalledWith(expect.stringContaining('idle Neon connection lost'))
  })
})
