import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAuthDatabase, type AuthTestDatabase } from '../../test/helpers/auth-database.js'
import { BACKENDS } from '../../test/helpers/databases.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { MemoryTokenCache } from '../authentication/memory-token-cache.js'
import { TokenAuthentication } from '../authentication/token-authentication.js'
import { AuthenticationFailed, ConfigurationError } from '../core/errors.js'
import type { UserId } from '../core/user.js'
import type { InvalidationEvent } from '../stores/invalidation-bus.js'
import { LocalInvalidationBus } from '../stores/local-invalidation-bus.js'
import { NamedTokenLimitExceeded, type NamedTokenRecord } from '../stores/named-token-store.js'
import { chainTokenStores } from '../stores/token-store-chain.js'
import { KyselyNamedTokenStore } from './kysely-named-token-store.js'
import { KyselyTokenStore } from './kysely-token-store.js'
import { KyselyUserStore } from './kysely-user-store.js'
import type { UserTable } from './user-table.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

/** Every column of every named-token row, as text. */
async function tableText(db: Kysely<unknown>): Promise<string> {
  const rows = await sql`select * from gatehouse_named_tokens`.execute(db)
  return JSON.stringify(rows.rows)
}

async function lastUsed(db: Kysely<unknown>, id: number): Promise<string | null> {
  const result = await sql<{ last_used_at: Date | string | null }>`select last_used_at from gatehouse_named_tokens where id = ${id}`.execute(db)
  const value = result.rows[0]?.last_used_at ?? null
  return value === null ? null : new Date(value).toISOString()
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyNamedTokenStore on ${backend.name}`, () => {
    let t: AuthTestDatabase
    let users: KyselyUserStore
    let made = 0
    const newUser = async (): Promise<UserId> => (await users.create({ username: `named-${++made}`, password: null })).id

    beforeAll(async () => {
      t = await openAuthDatabase(await backend.create())
      users = new KyselyUserStore({ db: t.db })
    })
    afterAll(async () => t?.close())

    it('create answers a gth_ token once; the table holds its digest and display prefix, never the token', async () => {
      const store = new KyselyNamedTokenStore({ db: t.db })
      const user = await newUser()
      const { key, info } = await store.create(user, { name: 'laptop' })
      expect(key).toMatch(/^gth_[A-Za-z0-9]{40}$/)
      expect(info).toMatchObject({ userId: user, name: 'laptop', displayPrefix: key.slice(0, 10), expiresAt: null, lastUsedAt: null })
      const text = await tableText(t.db as unknown as Kysely<unknown>)
      expect(text).not.toContain(key)
      expect(text).not.toContain(key.slice(4))
      expect(text).not.toContain(key.slice(10, 30))
      const found = await store.findByKey(key)
      expect(found).toEqual({ key, id: info.id, userId: user, name: 'laptop', created: info.created, expiresAt: null })
      expect(await store.findByKey(key.slice(0, -1))).toBeNull()
      expect(await store.findByKey(`${key}x`)).toBeNull()
      expect(await store.findByKey('')).toBeNull()
      expect(await store.findByKey('x'.repeat(10_000))).toBeNull()
    })

    it('a user holds many tokens; list shows them oldest first without any secret; two users never see each other\'s', async () => {
      const store = new KyselyNamedTokenStore({ db: t.db, prefix: 'acme_' })
      const [ann, ben] = [await newUser(), await newUser()]
      const a1 = await store.create(ann, { name: 'one' })
      const a2 = await store.create(ann, { name: 'two', expiresAt: new Date('2099-01-01T00:00:00.000Z') })
      const b1 = await store.create(ben, { name: 'bens' })
      expect(a1.key).toMatch(/^acme_[A-Za-z0-9]{40}$/)
      const listed = await store.list(ann)
      expect(listed.map((token) => token.name)).toEqual(['one', 'two'])
      expect(listed[1]).toEqual(a2.info)
      expect(listed[1]?.expiresAt?.toISOString()).toBe('2099-01-01T00:00:00.000Z')
      expect(JSON.stringify(listed)).not.toContain(a1.key)
      expect((await store.list(ben)).map((token) => token.id)).toEqual([b1.info.id])
    })

    it('an expired token is not found, like an unknown one; it still shows in the list until revoked', async () => {
      let now = new Date('2030-01-01T00:00:00.000Z')
      const store = new KyselyNamedTokenStore({ db: t.db, now: () => now })
      const user = await newUser()
      const { key } = await store.create(user, { name: 'short', expiresAt: new Date('2030-01-01T01:00:00.000Z') })
      expect(await store.findByKey(key)).not.toBeNull()
      now = new Date('2030-01-01T01:00:00.000Z')
      expect(await store.findByKey(key)).toBeNull()
      now = new Date('2030-01-01T00:00:00.000Z')
      const relative = await store.create(user, { name: 'relative', expiresIn: 90 })
      expect(relative.info.expiresAt?.toISOString()).toBe('2030-01-01T00:01:30.000Z')
      now = new Date('2030-01-01T00:01:30.000Z')
      expect(await store.findByKey(relative.key)).toBeNull()
      expect((await store.list(user)).map((token) => token.name)).toEqual(['short', 'relative'])
      const forever = await store.create(user, { name: 'forever' })
      now = new Date('2030-01-01T01:00:00.000Z')
      // Both expired ones go (this user's; other tests' tokens expire in 2099 or never).
      expect(await store.clearExpired()).toBeGreaterThanOrEqual(2)
      expect((await store.list(user)).map((token) => token.name)).toEqual(['forever'])
      expect(await store.findByKey(forever.key)).not.toBeNull()
    })

    it('revoke deletes one of the user\'s tokens only (another user\'s id is false) and tells the bus; revokeAll deletes all', async () => {
      const events: InvalidationEvent[] = []
      const bus = new LocalInvalidationBus()
      bus.subscribe((event) => events.push(event))
      const store = new KyselyNamedTokenStore({ db: t.db, invalidation: bus })
      const [ann, ben] = [await newUser(), await newUser()]
      const a1 = await store.create(ann, { name: 'a1' })
      const a2 = await store.create(ann, { name: 'a2' })
      const b1 = await store.create(ben, { name: 'b1' })
      expect(await store.revoke(ben, a1.info.id)).toBe(false)
      expect(await store.revoke(ann, 0)).toBe(false)
      expect(await store.revoke(ann, 2 ** 40)).toBe(false)
      expect(events).toEqual([])
      expect(await store.revoke(ann, a1.info.id)).toBe(true)
      expect(events).toEqual([{ type: 'user', userId: ann }])
      expect(await store.findByKey(a1.key)).toBeNull()
      expect(await store.findByKey(a2.key)).not.toBeNull()
      expect(await store.revoke(ann, a1.info.id)).toBe(false)
      expect(await store.revokeAll(ann)).toBe(1)
      expect(await store.revokeAll(ann)).toBe(0)
      expect(events).toHaveLength(2)
      expect(await store.findByKey(a2.key)).toBeNull()
      expect(await store.findByKey(b1.key)).not.toBeNull()
    })

    it('findWithUser joins the user in one statement, and refuses expired tokens too', async () => {
      let now = new Date('2030-01-01T00:00:00.000Z')
      const store = new KyselyNamedTokenStore({ db: t.db, joinUsers: users.userTable, now: () => now })
      const staff = await users.create({ username: `named-staff-${++made}`, password: null, isStaff: true })
      const { key, info } = await store.create(staff.id, { name: 'ci', expiresAt: new Date('2030-02-01T00:00:00.000Z') })
      const found = await store.findWithUser?.(key)
      expect(found?.user).toEqual(staff)
      expect(found?.token).toEqual(await store.findByKey(key))
      expect((found?.token as NamedTokenRecord).id).toBe(info.id)
      expect(await store.findWithUser?.('gth_unknown')).toBeNull()
      now = new Date('2030-03-01T00:00:00.000Z')
      expect(await store.findWithUser?.(key)).toBeNull()
      expect(new KyselyNamedTokenStore({ db: t.db }).findWithUser).toBeUndefined()
      expect(() => new KyselyNamedTokenStore({ db: t.db, joinUsers: {} as UserTable })).toThrow(ConfigurationError)
    })

    it('touch writes last_used_at at most once a minute per token, across processes too (the SQL condition)', async () => {
      let now = new Date('2030-01-01T00:00:00.000Z')
      const clock = (): Date => now
      const store = new KyselyNamedTokenStore({ db: t.db, now: clock })
      const user = await newUser()
      const { key, info } = await store.create(user, { name: 'hot' })
      const record = await store.findByKey(key)
      if (record === null) throw new Error('token not found')
      const db = t.db as unknown as Kysely<unknown>
      await store.touch(record)
      expect(await lastUsed(db, info.id)).toBe('2030-01-01T00:00:00.000Z')
      now = new Date('2030-01-01T00:00:30.000Z')
      await store.touch(record)
      // Another process (no memory of the first write) is held back by the SQL condition.
      await new KyselyNamedTokenStore({ db: t.db, now: clock }).touch(record)
      expect(await lastUsed(db, info.id)).toBe('2030-01-01T00:00:00.000Z')
      now = new Date('2030-01-01T00:01:00.001Z')
      await store.touch(record)
      expect(await lastUsed(db, info.id)).toBe('2030-01-01T00:01:00.001Z')
      expect((await store.list(user))[0]?.lastUsedAt?.toISOString()).toBe('2030-01-01T00:01:00.001Z')
      // A DRF token (no id, no name) is not this store's: nothing happens.
      await store.touch({ key: 'a'.repeat(40), userId: user, created: now })
    })

    it('touch is memoised: a hot token issues no UPDATE within the minute (an out-of-band reset stays unseen)', async () => {
      let now = new Date('2030-01-01T00:00:00.000Z')
      const store = new KyselyNamedTokenStore({ db: t.db, now: () => now })
      const { key, info } = await store.create(await newUser(), { name: 'memo' })
      const record = await store.findByKey(key)
      if (record === null) throw new Error('token not found')
      const db = t.db as unknown as Kysely<unknown>
      await store.touch(record)
      await sql`update gatehouse_named_tokens set last_used_at = null where id = ${info.id}`.execute(db)
      now = new Date('2030-01-01T00:00:59.000Z')
      await store.touch(record)
      expect(await lastUsed(db, info.id)).toBeNull()
      now = new Date('2030-01-01T00:01:00.000Z')
      await store.touch(record)
      expect(await lastUsed(db, info.id)).toBe('2030-01-01T00:01:00.000Z')
    })

    it('adopt keeps an existing DRF key as a named token (same key works), and is idempotent', async () => {
      const store = new KyselyNamedTokenStore({ db: t.db })
      const user = await newUser()
      const drf = await new KyselyTokenStore({ db: t.db }).getOrCreate(user)
      const adopted = await store.adopt(user, drf.key, { name: 'drf', created: drf.created })
      expect(adopted).toMatchObject({ name: 'drf', displayPrefix: drf.key.slice(0, 6), created: drf.created })
      expect(await store.adopt(user, drf.key, { name: 'drf' })).toBeNull()
      expect(await store.list(user)).toHaveLength(1)
      expect(await store.findByKey(drf.key)).toMatchObject({ key: drf.key, userId: user, name: 'drf' })
    })

    it('TokenAuthentication over DRF and named tokens: both work; revoked and expired are "Invalid token.", through a cache too', async () => {
      const bus = new LocalInvalidationBus()
      const drfTokens = new KyselyTokenStore({ db: t.db, joinUsers: users.userTable, invalidation: bus })
      const named = new KyselyNamedTokenStore({ db: t.db, joinUsers: users.userTable, invalidation: bus })
      const cache = new MemoryTokenCache({ ttlMs: 3_600_000, invalidation: bus })
      const scheme = new TokenAuthentication({ tokens: chainTokenStores(drfTokens, named), users, cache })
      const auth = (key: string): Promise<unknown> => Promise.resolve(scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } })))
      const user = await users.create({ username: `named-auth-${++made}`, password: null })
      const drf = await drfTokens.getOrCreate(user.id)
      const { key, info } = await named.create(user.id, { name: 'cli' })
      const other = await named.create(user.id, { name: 'other' })
      expect(await auth(drf.key)).toMatchObject({ user: { id: user.id }, auth: { key: drf.key } })
      expect(await auth(key)).toMatchObject({ user: { id: user.id }, auth: { key, id: info.id, name: 'cli' } })
      expect(await auth(other.key)).toMatchObject({ auth: { name: 'other' } })
      expect(cache.size).toBe(3)
      // The last-used time was written through the chain's touch.
      expect((await named.list(user.id))[0]?.lastUsedAt).not.toBeNull()
      await named.revoke(user.id, info.id)
      await expect(auth(key)).rejects.toThrow(new AuthenticationFailed('Invalid token.'))
      expect(await auth(other.key)).toMatchObject({ auth: { name: 'other' } })
      await named.revokeAll(user.id)
      await expect(auth(other.key)).rejects.toThrow(new AuthenticationFailed('Invalid token.'))
      expect(await auth(drf.key)).toMatchObject({ auth: { key: drf.key } })
      // A token that expired while cached is refused, whatever the cache's TTL.
      const short = await named.create(user.id, { name: 'short', expiresAt: new Date(Date.now() + 60_000) })
      expect(await auth(short.key)).toMatchObject({ auth: { name: 'short' } })
      await sql`update gatehouse_named_tokens set expires_at = ${backend.name === 'postgres' ? new Date(0) : new Date(0).toISOString()} where id = ${short.info.id}`.execute(t.db as unknown as Kysely<unknown>)
      expect(await auth(short.key)).toMatchObject({ auth: { name: 'short' } }) // still cached, still in date
      cache.clear()
      await expect(auth(short.key)).rejects.toThrow(new AuthenticationFailed('Invalid token.'))
      cache.close()
    })

    it('chained after the DRF store: a 40-character named token is looked up there first, then here; a key in both is the DRF one', async () => {
      const drfTokens = new KyselyTokenStore({ db: t.db, joinUsers: users.userTable })
      // No prefix: 40 letters and digits, which the DRF store does look up (it skips only longer keys).
      const named = new KyselyNamedTokenStore({ db: t.db, joinUsers: users.userTable, prefix: '' })
      const chain = chainTokenStores(drfTokens, named)
      const owner = await newUser()
      const { key, info } = await named.create(owner, { name: 'bare' })
      expect(key).toHaveLength(40)
      const found = await chain.findWithUser?.(key)
      expect(found?.token).toMatchObject({ key, id: info.id, name: 'bare' })
      expect(found?.user.id).toBe(owner)
      expect(await chain.findWithUser?.('f'.repeat(40))).toBeNull()
      // A DRF token kept as a named one too (adopt): the first store of the chain answers it.
      const other = await newUser()
      const drf = await drfTokens.getOrCreate(other)
      await named.adopt(other, drf.key, { name: 'adopted' })
      const both = await chain.findWithUser?.(drf.key)
      expect(both?.token).toEqual({ key: drf.key, userId: other, created: drf.created })
      expect(await named.findWithUser?.(drf.key)).toMatchObject({ token: { name: 'adopted' } })
    })

    it('create with a limit counts and inserts as one step: 30 concurrent creates from 95 tokens end at exactly 100', async () => {
      const store = new KyselyNamedTokenStore({ db: t.db })
      const user = await newUser()
      const other = await newUser()
      for (let i = 0; i < 95; i++) await store.create(user, { name: `existing ${i}` })
      await store.create(other, { name: 'not counted' })
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => store.create(user, { name: `burst ${i}`, limit: { max: 100 } })))
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5)
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      expect(refused).toHaveLength(25)
      for (const r of refused) expect(r.reason).toBeInstanceOf(NamedTokenLimitExceeded)
      expect(await store.list(user)).toHaveLength(100)
      expect(await store.list(other)).toHaveLength(1)
    })

    it('a limit may count one name only, and unexpired tokens only', async () => {
      const store = new KyselyNamedTokenStore({ db: t.db })
      const user = await newUser()
      await store.create(user, { name: 'laptop' })
      await store.create(user, { name: 'obtain', expiresAt: new Date(Date.now() - 1000) })
      await store.create(user, { name: 'obtain', expiresIn: 3600 })
      const limit = { max: 2, name: 'obtain', unexpiredOnly: true }
      // One live `obtain` token: the expired one and the laptop's do not count.
      await store.create(user, { name: 'obtain', expiresIn: 3600, limit })
      await expect(store.create(user, { name: 'obtain', expiresIn: 3600, limit })).rejects.toBeInstanceOf(NamedTokenLimitExceeded)
      // Without a name, every token counts, expired ones too.
      await expect(store.create(user, { name: 'obtain', limit: { max: 4 } })).rejects.toBeInstanceOf(NamedTokenLimitExceeded)
      await expect(store.create(user, { name: 'obtain', limit: { max: 0 } })).rejects.toThrow(ConfigurationError)
      expect(await store.list(user)).toHaveLength(4)
    })

    it('rejects a malformed prefix or touch interval at construction', () => {
      expect(() => new KyselyNamedTokenStore({ db: t.db, prefix: 'bad prefix' })).toThrow(ConfigurationError)
      expect(() => new KyselyNamedTokenStore({ db: t.db, prefix: 'x'.repeat(17) })).toThrow(ConfigurationError)
      expect(() => new KyselyNamedTokenStore({ db: t.db, touchIntervalMs: -1 })).toThrow(ConfigurationError)
      expect(new KyselyNamedTokenStore({ db: t.db, prefix: '' }).generateKey()).toMatch(/^[A-Za-z0-9]{40}$/)
    })
  })
}
