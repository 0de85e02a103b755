/**
 * The store conformance suites through `openNeon`: Neon's serverless driver (its WebSocket
 * `Pool`) against the local PostgreSQL, through a WebSocket → TCP proxy started here (what
 * Neon runs in front of its servers), in plain text as a proxy on loopback allows.
 */
import { neonConfig } from '@neondatabase/serverless'
import { afterAll, describe, expect, it } from 'vitest'
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
})
