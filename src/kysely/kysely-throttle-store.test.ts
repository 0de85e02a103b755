// KyselyThrottleStore against the ThrottleStore and ReservingThrottleStore contracts, on SQLite and PostgreSQL.
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { BACKENDS } from '../../test/helpers/databases.js'
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
