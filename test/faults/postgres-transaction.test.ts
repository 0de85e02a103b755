/**
 * A transaction whose PostgreSQL freezes mid-way (SIGSTOP, throwaway server) fails within the
 * statement timeout, not twice it: the connection that timed out runs nothing more (Kysely's
 * ROLLBACK is not queued behind the stuck statement) and is discarded; the pool recovers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { isStoreUnavailable, describeStoreFault } from '../../src/core/store-faults.js'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { startThrowawayPostgres, throwawayServersAvailable, type ThrowawayServer } from './throwaway-servers.js'
import { unavailable } from '../helpers/requirements.js'

describe.skipIf(unavailable('throwaway PostgreSQL and Redis servers', throwawayServersAvailable()))('a transaction on a PostgreSQL that freezes (default timeouts)', () => {
  let server: ThrowawayServer
  let database: Database<Record<string, never>>

  beforeAll(async () => {
    server = await startThrowawayPostgres()
    database = await openDatabase(server.url, { poolSize: 2 })
  }, 60_000)

  afterAll(async () => {
    await server?.thaw()
    await database?.close()
    await server?.destroy()
  }, 60_000)

  it('fails as a store fault within about 2 s, then the next transaction works once it thaws', async () => {
    let started = 0
    const outcome = await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx)
        await server.freeze()
        started = performance.now()
        await sql`select 2`.execute(trx)
      })
      .then(
        () => null,
        (error: unknown) => error,
      )
    const elapsed = performance.now() - started
    await server.thaw()
    expect(isStoreUnavailable(outcome)).toBe(true)
    expect(describeStoreFault(outcome)).toEqual({ store: 'postgres', operation: 'query', reason: 'timeout' })
    // 2 s statement timeout, plus slack for a loaded machine; not 2 s more for the ROLLBACK.
    expect(elapsed).toBeLessThan(3_500)
    const deadline = Date.now() + 20_000
    for (;;) {
      const ok = await database.db
        .transaction()
        .execute(async (trx) => (await sql<{ n: number }>`select 3 as n`.execute(trx)).rows)
        .catch(() => null)
      if (ok !== null) {
        expect(ok).toEqual([{ n: 3 }])
        break
      }
      if (Date.now() > deadline) throw new Error('the pool did not recover')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }, 60_000)
})
