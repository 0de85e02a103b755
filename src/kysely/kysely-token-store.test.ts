import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAuthDatabase, type AuthTestDatabase } from '../../test/helpers/auth-database.js'
import { BACKENDS } from '../../test/helpers/databases.js'
import { ConfigurationError } from '../core/errors.js'
import type { UserId } from '../core/user.js'
import { LocalInvalidationBus } from '../stores/local-invalidation-bus.js'
import { runTokenStoreSuite } from '../testing/index.js'
import { chainTokenStores } from '../stores/token-store-chain.js'
import { KyselyTokenStore, tokenRow } from './kysely-token-store.js'
import { KyselyUserStore } from './kysely-user-store.js'
import { DEFAULT_USER_TABLE, type UserTable } from './user-table.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyTokenStore on ${backend.name}`, () => {
    let t: AuthTestDatabase
    let tokens: KyselyTokenStore
    const ids: Record<string, number> = {}

    beforeAll(async () => {
      t = await openAuthDatabase(await backend.create())
      tokens = new KyselyTokenStore({ db: t.db })
      const users = new KyselyUserStore({ db: t.db })
      for (const name of ['ann', 'ben', 'cat', 'dan', 'eve']) ids[name] = Number((await users.create({ username: name, password: null })).id)
    })
    afterAll(async () => t?.close())

    let made = 0
    runTokenStoreSuite({
      describe,
      it,
      create: () => new KyselyTokenStore({ db: t.db }),
      createUser: async () => (await new KyselyUserStore({ db: t.db }).create({ username: `suite-${++made}`, password: null })).id,
    })

    runTokenStoreSuite({
      describe,
      it,
      name: 'TokenStore contract, joined with the users table (findWithUser)',
      create: () => new KyselyTokenStore({ db: t.db, joinUsers: new KyselyUserStore({ db: t.db }).userTable }),
      createUser: async () => (await new KyselyUserStore({ db: t.db }).create({ username: `joined-${++made}`, password: null })).id,
    })

    it('findWithUser exists only when the store is given joinUsers, and answers the user\'s flags', async () => {
      expect(tokens.findWithUser).toBeUndefined()
      const users = new KyselyUserStore({ db: t.db })
      const joined = new KyselyTokenStore({ db: t.db, joinUsers: users.userTable })
      const staff = await users.create({ username: 'joined-staff', password: null, isStaff: true, isActive: false })
      const { key } = await joined.getOrCreate(staff.id)
      const found = await joined.findWithUser?.(key)
      expect(found?.user).toEqual({ id: staff.id, username: 'joined-staff', isActive: false, isStaff: true, isSuperuser: false, isAuthenticated: true })
      expect(found?.token).toEqual(await joined.findByKey(key))
    })

    it("a row found by the key's digest counts only when its own key is the presented one (a row whose digest names another key is no match)", async () => {
      const users = new KyselyUserStore({ db: t.db })
      const joined = new KyselyTokenStore({ db: t.db, joinUsers: users.userTable })
      const owner = await users.create({ username: 'digest-mismatch', password: null })
      const ownerId = owner.id as number
      const presented = 'a'.repeat(40)
      // The digest of the presented key, on a row that holds another key (a tampered or mistaken row).
      await t.db.insertInto('gatehouse_tokens').values({ ...tokenRow('b'.repeat(40), ownerId, new Date()), key_digest: tokenRow(presented, ownerId, new Date()).key_digest }).execute()
      expect(await joined.findWithUser?.(presented)).toBeNull()
      expect(await joined.findByKey(presented)).toBeNull()
      expect(await chainTokenStores(joined, { findByKey: async () => null, findWithUser: () => null }).findWithUser?.(presented)).toBeNull()
      await t.db.updateTable('gatehouse_tokens').set({ key: presented }).where('user_id', '=', ownerId).execute()
      expect((await joined.findWithUser?.(presented))?.user.id).toBe(owner.id)
    })

    it('joinUsers must be a well-formed UserTable: anything else is a ConfigurationError at construction', () => {
      // Layouts can come from untyped configuration, hence the casts.
      const malformed = [
        { findById: async () => null },
        { table: '', columns: DEFAULT_USER_TABLE.columns, idType: 'integer' },
        { table: 'gatehouse_users', columns: { id: 'id', username: 'username' }, idType: 'integer' },
        { ...DEFAULT_USER_TABLE, idType: 'ulid' },
      ] as unknown as UserTable[]
      for (const joinUsers of malformed) {
        expect(() => new KyselyTokenStore({ db: t.db, joinUsers })).toThrow(ConfigurationError)
      }
    })

    it('the join reads the layout it is given: DEFAULT_USER_TABLE is what a default KyselyUserStore joins', async () => {
      const users = new KyselyUserStore({ db: t.db })
      expect(users.userTable).toEqual(DEFAULT_USER_TABLE)
      const joined = new KyselyTokenStore({ db: t.db, joinUsers: DEFAULT_USER_TABLE })
      const user = await users.create({ username: 'joined-default', password: null })
      const { key } = await joined.getOrCreate(user.id)
      expect((await joined.findWithUser?.(key))?.user).toEqual(user)
      // A layout that names a missing column fails at the database, not silently.
      const wrong = new KyselyTokenStore({ db: t.db, joinUsers: { ...DEFAULT_USER_TABLE, columns: { ...DEFAULT_USER_TABLE.columns, username: 'login' } } })
      await expect(wrong.findWithUser?.(key)).rejects.toThrow()
    })

    it('regenerate and delete tell the invalidation bus after the change; getOrCreate does not', async () => {
      const bus = new LocalInvalidationBus()
      const store = new KyselyTokenStore({ db: t.db, invalidation: bus })
      const u = await new KyselyUserStore({ db: t.db }).create({ username: 'bus-token', password: null })
      const heard: UserId[] = []
      let visible: Promise<string | null> = Promise.resolve(null)
      bus.subscribe((event) => {
        if (event.type !== 'user') return
        heard.push(event.userId)
        visible = t.db.selectFrom('gatehouse_tokens').select('key').where('user_id', '=', Number(event.userId)).executeTakeFirst().then((r) => r?.key ?? null)
      })
      await store.getOrCreate(u.id)
      expect(heard).toEqual([])
      const fresh = await store.regenerate(u.id)
      expect(await visible).toBe(fresh.key)
      expect(await store.delete(u.id)).toBe(true)
      expect(await visible).toBeNull()
      expect(await store.delete(u.id)).toBe(false)
      expect(heard).toEqual([u.id, u.id])
    })

    it('getOrCreate returns the same 40-hex key every time', async () => {
      const first = await tokens.getOrCreate(ids['ann']!)
      const second = await tokens.getOrCreate(ids['ann']!)
      expect(first.key).toMatch(/^[0-9a-f]{40}$/)
      expect(second.key).toBe(first.key)
      expect(second.userId).toBe(ids['ann'])
      expect(first.created).toBeInstanceOf(Date)
      expect(Number.isNaN(first.created.getTime())).toBe(false)
    })

    it('different users get different keys', async () => {
      const a = await tokens.getOrCreate(ids['ann']!)
      const b = await tokens.getOrCreate(ids['ben']!)
      expect(a.key).not.toBe(b.key)
    })

    it('findByKey finds the exact key and nothing else', async () => {
      const { key } = await tokens.getOrCreate(ids['ben']!)
      expect(await tokens.findByKey(key)).toMatchObject({ key, userId: ids['ben'] })
      for (const wrong of ['', key.toUpperCase(), key.slice(1), `${key}0`, `${key} `, 'x'.repeat(10_000), `${key.slice(0, 39)}\0`, 'nope', '\ud800']) {
        expect(await tokens.findByKey(wrong)).toBeNull()
      }
    })

    it('regenerate replaces the key: the old one is no longer found', async () => {
      const old = await tokens.getOrCreate(ids['cat']!)
      const fresh = await tokens.regenerate(ids['cat']!)
      expect(fresh.key).toMatch(/^[0-9a-f]{40}$/)
      expect(fresh.key).not.toBe(old.key)
      expect(await tokens.findByKey(old.key)).toBeNull()
      expect(await tokens.findByKey(fresh.key)).toMatchObject({ userId: ids['cat'] })
      expect((await tokens.getOrCreate(ids['cat']!)).key).toBe(fresh.key)
      const rows = await t.db.selectFrom('gatehouse_tokens').select('key').where('user_id', '=', ids['cat']!).execute()
      expect(rows).toHaveLength(1)
    })

    it('regenerate creates a token for a user who has none', async () => {
      const fresh = await tokens.regenerate(ids['dan']!)
      expect(await tokens.findByKey(fresh.key)).toMatchObject({ userId: ids['dan'] })
    })

    it('concurrent getOrCreate for one user yields one token', async () => {
      // Separate store instances, as separate processes would have.
      const stores = Array.from({ length: 8 }, () => new KyselyTokenStore({ db: t.db }))
      const results = await Promise.all(stores.map((s) => s.getOrCreate(ids['eve']!)))
      expect(new Set(results.map((r) => r.key)).size).toBe(1)
      const rows = await t.db.selectFrom('gatehouse_tokens').select('key').where('user_id', '=', ids['eve']!).execute()
      expect(rows).toHaveLength(1)
    })

    it('concurrent regenerate for one user leaves exactly one valid token and never fails', async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => tokens.regenerate(ids['eve']!)))
      const rows = await t.db.selectFrom('gatehouse_tokens').select('key').where('user_id', '=', ids['eve']!).execute()
      expect(rows).toHaveLength(1)
      expect(results.map((r) => r.key)).toContain(rows[0]?.key)
    })

    it('a custom key generator is used', async () => {
      const custom = new KyselyTokenStore({ db: t.db, generateKey: () => 'f'.repeat(40) })
      const users = new KyselyUserStore({ db: t.db })
      const u = await users.create({ username: 'custom-key', password: null })
      expect((await custom.getOrCreate(u.id)).key).toBe('f'.repeat(40))
    })

    it('deleting the user deletes the token (cascade)', async () => {
      const users = new KyselyUserStore({ db: t.db })
      const u = await users.create({ username: 'leaver', password: null })
      const { key } = await tokens.getOrCreate(u.id)
      await t.db.deleteFrom('gatehouse_users').where('id', '=', Number(u.id)).execute()
      expect(await tokens.findByKey(key)).toBeNull()
    })
  })
}
