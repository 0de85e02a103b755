import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAuthDatabase, type AuthTestDatabase } from '../../test/helpers/auth-database.js'
import { BACKENDS } from '../../test/helpers/databases.js'
import { runSessionStoreSuite } from '../testing/index.js'
import { KyselySessionStore } from './kysely-session-store.js'
import { KyselyUserStore } from './kysely-user-store.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

const HOUR = 3_600_000

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselySessionStore on ${backend.name}`, () => {
    let t: AuthTestDatabase
    let now = Date.UTC(2030, 0, 1)
    let sessions: KyselySessionStore
    let userId: number

    beforeAll(async () => {
      t = await openAuthDatabase(await backend.create())
      sessions = new KyselySessionStore({ db: t.db, now: () => now })
      userId = Number((await new KyselyUserStore({ db: t.db }).create({ username: 'sess', password: null })).id)
    })
    afterAll(async () => t?.close())

    let made = 0
    runSessionStoreSuite({
      describe,
      it,
      create: (clock) => new KyselySessionStore({ db: t.db, now: clock }),
      createUser: async () => (await new KyselyUserStore({ db: t.db }).create({ username: `suite-${++made}`, password: null })).id,
    })

    it('save then get returns the record', async () => {
      const expiresAt = new Date(now + HOUR)
      await sessions.save('k1', { userId, data: { csrf: 'abc', n: 1 }, expiresAt })
      expect(await sessions.get('k1')).toEqual({ userId, data: { csrf: 'abc', n: 1 }, expiresAt })
    })

    it('save again overwrites (upsert)', async () => {
      await sessions.save('k2', { userId, data: { a: 1 }, expiresAt: new Date(now + HOUR) })
      await sessions.save('k2', { userId: null, data: { b: 2 }, expiresAt: new Date(now + 2 * HOUR) })
      expect(await sessions.get('k2')).toEqual({ userId: null, data: { b: 2 }, expiresAt: new Date(now + 2 * HOUR) })
    })

    it('delete removes it; deleting a missing key is fine', async () => {
      await sessions.save('k3', { userId, data: {}, expiresAt: new Date(now + HOUR) })
      await sessions.delete('k3')
      expect(await sessions.get('k3')).toBeNull()
      await expect(sessions.delete('never-was')).resolves.toBeUndefined()
    })

    it('an expired session reads as absent, and clearExpired removes it', async () => {
      await sessions.save('k4', { userId, data: {}, expiresAt: new Date(now + 1000) })
      expect(await sessions.get('k4')).not.toBeNull()
      now += 1000
      expect(await sessions.get('k4')).toBeNull()
      expect(await sessions.clearExpired()).toBeGreaterThanOrEqual(1)
      const row = await t.db.selectFrom('gatehouse_sessions').select('session_key').where('session_key', '=', 'k4').executeTakeFirst()
      expect(row).toBeUndefined()
      expect(await sessions.get('k1')).not.toBeNull()
    })

    it('odd keys are null, never a driver error', async () => {
      for (const key of ['', 'x'.repeat(65), 'a\0b', '\ud800', 'nope', "' or 1=1 --"]) {
        expect(await sessions.get(key)).toBeNull()
      }
    })

    it('corrupt stored data reads as an empty session', async () => {
      await t.db
        .insertInto('gatehouse_sessions')
        .values({ session_key: 'bad-json', user_id: userId, data: '{not json', expires_at: new Date(now + HOUR).toISOString() })
        .execute()
      await t.db
        .insertInto('gatehouse_sessions')
        .values({ session_key: 'array-json', user_id: userId, data: '[1,2]', expires_at: new Date(now + HOUR).toISOString() })
        .execute()
      expect((await sessions.get('bad-json'))?.data).toEqual({})
      expect((await sessions.get('array-json'))?.data).toEqual({})
    })

    it('deleting the user deletes the sessions (cascade)', async () => {
      const other = await new KyselyUserStore({ db: t.db }).create({ username: 'gone', password: null })
      await sessions.save('k5', { userId: other.id, data: {}, expiresAt: new Date(now + HOUR) })
      await t.db.deleteFrom('gatehouse_users').where('id', '=', Number(other.id)).execute()
      expect(await sessions.get('k5')).toBeNull()
    })
  })
}
