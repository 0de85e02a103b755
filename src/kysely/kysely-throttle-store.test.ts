// KyselyThrottleStore against the ThrottleStore and ReservingThrottleStore contracts, on SQLite and PostgreSQL.
import { Kysely, sql } from 'kysely'
import { D1Dialect, type D1DialectConfig } from 'kysely-d1'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { describeStoreFault, StoreUnavailable } from '../core/store-faults.js'
import { BACKENDS, freshSqlite } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'
import { runReservingThrottleStoreSuite, runThrottleStoreSuite } from '../testing/index.js'
import { openDatabase, type Database } from './database.js'
import { KyselyThrottleStore } from './kysely-throttle-store.js'
import { migrate } from './migrations.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyThrottleStore on ${backend.name}`, () => {
    let database: Database<unknown>
    let drop: () => Promise<void>
    const store = (): KyselyThrottleStore => new KyselyThrottleStore({ db: database.db, dialect: database.dialect })
    beforeAll(async () => {
      const test = await backend.create()
      drop = () => test.drop()
      database = await openDatabase<unknown>(test.url)
      await migrate(database.db, KyselyThrottleStore.migrations(database.dialect), 'gatehouse_throttle_migrations')
    })
    afterEach(() => {
      vi.restoreAllMocks()
    })
    afterAll(async () => {
      await database?.close()
      await drop?.()
    })
    runThrottleStoreSuite({ describe, it, create: store })
    runReservingThrottleStoreSuite({ describe, it, create: store })

    it('keeps hits and reservations of one key apart, in one row', async () => {
      const s = store()
      await s.hit('shared_key', 1_000, 60_000, 1)
      expect((await s.reserve('shared_key', 'a', 1_000, 60_000, 1, 3_000)).allowed).toBe(true)
      expect(await s.hit('shared_key', 1_001, 60_000, 1)).toEqual({ allowed: false, count: 1, oldest: 1_000 })
    })

    it('sweeps rows a minute after their last entry ended, by chance (one step in 1,000), and keeps live ones', async () => {
      const s = store()
      await s.hit('sweep_old', 1_000, 1_000, 5)
      await s.confirm('sweep_failure', 'x', 1_000, 100_000)
      await s.hit('sweep_live', 40_000, 30_000, 5)
      const keys = async (): Promise<string[]> => {
        const { rows } = await sql<{ throttle_key: string }>`select throttle_key from gatehouse_throttles where throttle_key like 'sweep_%' order by throttle_key`.execute(database.db)
        return rows.map((r) => r.throttle_key)
      }
      expect(await keys()).toEqual(['sweep_failure', 'sweep_live', 'sweep_old'])
      vi.spyOn(Math, 'random').mockReturnValue(0)
      // At 62,000 sweep_old ended at 2,000 (over a minute ago); sweep_live ends at 70,000, the failure at 101,000.
      await s.hit('sweep_trigger', 62_000, 1_000, 5)
      expect(await keys()).toEqual(['sweep_failure', 'sweep_live', 'sweep_trigger'])
      expect(await s.hit('sweep_live', 62_001, 30_000, 5)).toEqual({ allowed: true, count: 2, oldest: 40_000 })
    })

    it('takes any key text, quotes and NUL-free unicode included, and lease ids that look like JSON', async () => {
      const s = store()
      const key = `throttle_"quoted'_\u00e9_${'x'.repeat(300)}`
      expect(await s.hit(key, 5, 1_000, 1)).toEqual({ allowed: true, count: 1, oldest: 5 })
      expect((await s.reserve(key, '"]', 5, 1_000, 2, 50)).allowed).toBe(true)
      expect((await s.reserve(key, '$[0]', 6, 1_000, 2, 60)).pending).toBe(2)
      await s.cancel(key, '"]')
      expect(await s.reserve(key, 'c', 7, 1_000, 2, 70)).toEqual({ allowed: true, failures: 0, pending: 2, oldest: null, nextLeaseEnd: 60 })
      await s.confirm(key, '$[0]', 8, 1_000)
      expect(await s.reserve(key, 'd', 9, 1_000, 2, 90)).toEqual({ allowed: false, failures: 1, pending: 1, oldest: 8, nextLeaseEnd: 70 })
    })
  })
}

describe('KyselyThrottleStore when the database is unavailable', () => {
  it('a write lock held past the busy timeout (SQLITE_BUSY) is StoreUnavailable (503), naming the step; the store works once the lock is gone', async () => {
    const test = freshSqlite()
    const database = await openDatabase<unknown>(test.url)
    // A second connection of the runtime's own driver (better-sqlite3, bun:sqlite, node:sqlite) holds the lock.
    const holder = await openDatabase<unknown>(test.url)
    try {
      await migrate(database.db, KyselyThrottleStore.migrations(database.dialect), 'gatehouse_throttle_migrations')
      // No waiting for the lock: the busy timeout elapses at once.
      await sql`PRAGMA busy_timeout = 0`.execute(database.db)
      const store = new KyselyThrottleStore({ db: database.db, dialect: database.dialect })
      await sql`BEGIN IMMEDIATE`.execute(holder.db)
      const error: unknown = await store.hit('busy_key', 1_000, 60_000, 5).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreUnavailable)
      expect((error as StoreUnavailable).status).toBe(503)
      expect(describeStoreFault(error)).toEqual({ store: 'sqlite', operation: 'throttle hit', reason: 'busy' })
      await expect(store.reserve('busy_key', 'r', 1_000, 60_000, 5, 2_000)).rejects.toBeInstanceOf(StoreUnavailable)
      await expect(store.cancel('busy_key', 'r')).rejects.toBeInstanceOf(StoreUnavailable)
      await sql`ROLLBACK`.execute(holder.db)
      expect(await store.hit('busy_key', 1_001, 60_000, 5)).toEqual({ allowed: true, count: 1, oldest: 1_001 })
    } finally {
      await holder.close()
      await database.close()
      await test.drop()
    }
  })

  /**
   * A D1 binding answering every statement as D1 does for a locked database: an `Error` whose
   * text, not a code, carries SQLite's `SQLITE_BUSY` (Miniflare's single local D1 never is busy).
   */
  function d1Answering(message: string): D1DialectConfig['database'] {
    const fail = async (): Promise<never> => Promise.reject(new Error(message))
    const statement = { bind: () => statement, all: fail, run: fail, first: fail, raw: fail }
    return { prepare: () => statement } as unknown as D1DialectConfig['database']
  }

  it("D1's SQLITE_BUSY (an error without a code) is StoreUnavailable (503); a D1 error that is no fault (no such table) is thrown as it came", async () => {
    const busy = new KyselyThrottleStore({ db: new Kysely<unknown>({ dialect: new D1Dialect({ database: d1Answering('D1_ERROR: database is locked: SQLITE_BUSY') }) }), dialect: 'sqlite' })
    const error: unknown = await busy.hit('k', 1_000, 60_000, 5).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreUnavailable)
    expect(describeStoreFault(error)).toEqual({ store: 'sqlite', operation: 'throttle hit', reason: 'busy' })
    await expect(busy.confirm('k', 'r', 1_000, 60_000)).rejects.toBeInstanceOf(StoreUnavailable)

    const missing = new KyselyThrottleStore({
      db: new Kysely<unknown>({ dialect: new D1Dialect({ database: d1Answering('D1_ERROR: no such table: gatehouse_throttles: SQLITE_ERROR') }) }),
      dialect: 'sqlite',
    })
    const bug: unknown = await missing.hit('k', 1_000, 60_000, 5).catch((e: unknown) => e)
    expect(bug).not.toBeInstanceOf(StoreUnavailable)
    expect((bug as Error).message).toBe('D1_ERROR: no such table: gatehouse_throttles: SQLITE_ERROR')
  })
})
