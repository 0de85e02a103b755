/**
 * The switches that serve the reference API's conformance suite through the edge drivers from
 * Node (test/helpers/edge-drivers.ts): `GATEHOUSE_TEST_SQLITE_VIA=libsql` and
 * `GATEHOUSE_TEST_POSTGRES_VIA=neon` open the test database through `drf-gatehouse/libsql` and
 * `drf-gatehouse/neon`, not better-sqlite3 and pg, so a run under them proves those drivers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { freshPostgres, freshSqlite, postgresAvailable } from '../helpers/databases.js'
import { neonProxyConnections } from '../helpers/edge-drivers.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { unavailable } from '../helpers/requirements.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

/** bob's identity through his seed token: a read of the users and tokens tables. */
async function whoamiAsBob(server: RunningReference): Promise<unknown> {
  const response = await fetch(`${server.baseUrl}/api/whoami/`, { headers: { Authorization: `Token ${BOB_TOKEN}` } })
  expect(response.status).toBe(200)
  return ((await response.json()) as { username?: unknown }).username
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('GATEHOUSE_TEST_SQLITE_VIA', () => {
  it('unset: the reference API opens its SQLite file with better-sqlite3', async () => {
    vi.stubEnv('GATEHOUSE_TEST_SQLITE_VIA', '')
    const server = await startReference(freshSqlite(), {}, { framework: 'fastify' })
    try {
      expect(server.ref.database.sqliteDriver).toBe('better-sqlite3')
      expect(await whoamiAsBob(server)).toBe('bob')
    } finally {
      await server.close()
    }
  })

  it('libsql: the same file through openLibsql (no better-sqlite3 connection)', async () => {
    vi.stubEnv('GATEHOUSE_TEST_SQLITE_VIA', 'libsql')
    const server = await startReference(freshSqlite(), {}, { framework: 'fastify' })
    try {
      expect(server.ref.database.dialect).toBe('sqlite')
      expect(server.ref.database.sqliteDriver).toBeUndefined()
      expect(await whoamiAsBob(server)).toBe('bob')
    } finally {
      await server.close()
    }
  })

  it('anything else is an error, not a silent fallback', async () => {
    vi.stubEnv('GATEHOUSE_TEST_SQLITE_VIA', 'libsq1')
    const database = freshSqlite()
    await expect(startReference(database, {}, { framework: 'fastify' })).rejects.toThrow(/GATEHOUSE_TEST_SQLITE_VIA must be libsql/)
    await database.drop()
  })
})

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL=postgres://…)', postgresAvailable()))('GATEHOUSE_TEST_POSTGRES_VIA=neon', () => {
  it("opens the fresh database through Neon's driver, over the process's WebSocket proxy", async () => {
    vi.stubEnv('GATEHOUSE_TEST_POSTGRES_VIA', 'neon')
    const before = await neonProxyConnections()
    const server = await startReference(await freshPostgres(), {}, { framework: 'fastify' })
    try {
      expect(server.ref.database.dialect).toBe('postgres')
      expect(await whoamiAsBob(server)).toBe('bob')
      expect(await neonProxyConnections()).toBeGreaterThan(before)
    } finally {
      await server.close()
    }
  })
})
