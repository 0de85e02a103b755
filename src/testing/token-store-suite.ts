import assert from 'node:assert/strict'
import type { UserId } from '../core/user.js'
import type { TokenStore } from '../stores/token-store.js'
import type { Factory, TestApi } from './test-api.js'

/** Options for `runTokenStoreSuite`. */
export interface TokenStoreSuiteOptions extends TestApi {
  /** Names the `describe` block. @default 'TokenStore contract' */
  readonly name?: string
  /** Your store. Called once per store a case needs (the concurrency cases make several on one database). */
  readonly create: Factory<TokenStore>
  /** Makes a user the tokens may belong to (a row your foreign key accepts) and answers its id. */
  readonly createUser: () => Promise<UserId>
  /** What every generated key looks like. @default /^[0-9a-f]{40}$/ (DRF's 40 hex characters) */
  readonly keyPattern?: RegExp
}

/**
 * The `TokenStore` contract (DRF's `authtoken.Token`): one token per user, get-or-create
 * answers the same key every time, regenerate replaces it atomically, and only the exact
 * key is ever found, even under concurrent calls. The optional methods, `findWithUser`
 * and `delete`, are checked on a store that has them (a store without them passes those
 * cases, which say "when present").
 *
 * @example
 * runTokenStoreSuite({ describe, it, create: () => new MyTokenStore(), createUser: async () => 42 })
 */
export function runTokenStoreSuite(options: TokenStoreSuiteOptions): void {
  const { describe, it, create, createUser } = options
  const keyPattern = options.keyPattern ?? /^[0-9a-f]{40}$/
  describe(options.name ?? 'TokenStore contract', () => {
    it('getOrCreate answers the same key, user and time on every call', async () => {
      const store = await create()
      const userId = await createUser()
      const first = await store.getOrCreate(userId)
      const second = await store.getOrCreate(userId)
      assert.match(first.key, keyPattern)
      assert.equal(second.key, first.key)
      assert.equal(first.userId, userId, 'userId keeps its value and type')
      assert.equal(second.userId, userId)
      assert.ok(first.created instanceof Date && !Number.isNaN(first.created.getTime()), 'created is a valid Date')
      assert.equal(second.created.getTime(), first.created.getTime())
    })

    it('gives different users different keys', async () => {
      const store = await create()
      const a = await store.getOrCreate(await createUser())
      const b = await store.getOrCreate(await createUser())
      assert.notEqual(a.key, b.key)
    })

    it('findByKey finds the exact key and nothing else', async () => {
      const store = await create()
      const userId = await createUser()
      const { key } = await store.getOrCreate(userId)
      const found = await store.findByKey(key)
      assert.equal(found?.key, key)
      assert.equal(found?.userId, userId)
      const variants = ['', key.toUpperCase(), key.slice(1), key.slice(0, -1), `${key}0`, `${key} `, ` ${key}`, `${key.slice(0, -1)}\0`, 'x'.repeat(10_000), '\ud800', "' or 1=1 --"]
      for (const wrong of variants.filter((v) => v !== key)) {
        assert.equal(await store.findByKey(wrong), null, `findByKey(${JSON.stringify(wrong.slice(0, 50))})`)
      }
    })

    it('regenerate replaces the key: the old one is no longer found', async () => {
      const store = await create()
      const userId = await createUser()
      const old = await store.getOrCreate(userId)
      const fresh = await store.regenerate(userId)
      assert.match(fresh.key, keyPattern)
      assert.notEqual(fresh.key, old.key)
      assert.equal(fresh.userId, userId)
      assert.equal(await store.findByKey(old.key), null)
      assert.equal((await store.findByKey(fresh.key))?.userId, userId)
      assert.equal((await store.getOrCreate(userId)).key, fresh.key)
    })

    it('regenerate creates a token for a user who has none', async () => {
      const store = await create()
      const userId = await createUser()
      const fresh = await store.regenerate(userId)
      assert.equal((await store.findByKey(fresh.key))?.userId, userId)
      assert.equal((await store.getOrCreate(userId)).key, fresh.key)
    })

    it('findWithUser (when present) answers the exact key with its user, and null for any other key', async () => {
      const store = await create()
      if (store.findWithUser === undefined) return
      const userId = await createUser()
      const token = await store.getOrCreate(userId)
      const found = await store.findWithUser(token.key)
      assert.equal(found?.token.key, token.key)
      assert.equal(found?.token.userId, userId, 'token.userId keeps its value and type')
      assert.equal(found?.token.created.getTime(), token.created.getTime())
      assert.equal(found?.user.id, userId, 'the user is the token owner')
      assert.equal(found?.user.isAuthenticated, true)
      assert.equal(typeof found?.user.isActive, 'boolean')
      const key = token.key
      for (const wrong of ['', key.toUpperCase(), key.slice(1), key.slice(0, -1), `${key}0`, ` ${key}`, `${key.slice(0, -1)}\0`, 'x'.repeat(10_000), '\ud800', "' or 1=1 --"]) {
        if (wrong !== key) assert.equal(await store.findWithUser(wrong), null, `findWithUser(${JSON.stringify(wrong.slice(0, 50))})`)
      }
      const fresh = await store.regenerate(userId)
      assert.equal(await store.findWithUser(key), null, 'the regenerated key is gone')
      assert.equal((await store.findWithUser(fresh.key))?.user.id, userId)
    })

    it('delete (when present) removes the token: its key stops working, getOrCreate makes a new one', async () => {
      const store = await create()
      if (store.delete === undefined) return
      const userId = await createUser()
      const other = await store.getOrCreate(await createUser())
      assert.equal(await store.delete(userId), false, 'false for a user without a token')
      const old = await store.getOrCreate(userId)
      assert.equal(await store.delete(userId), true)
      assert.equal(await store.findByKey(old.key), null)
      if (store.findWithUser !== undefined) assert.equal(await store.findWithUser(old.key), null)
      assert.equal(await store.delete(userId), false, 'false once deleted')
      const fresh = await store.getOrCreate(userId)
      assert.notEqual(fresh.key, old.key)
      assert.equal((await store.findByKey(fresh.key))?.userId, userId)
      assert.equal((await store.findByKey(other.key))?.key, other.key, "other users' tokens are untouched")
    })

    it('concurrent getOrCreate for one user (separate store instances) yields one token', async () => {
      const stores = await Promise.all(Array.from({ length: 8 }, () => create()))
      const userId = await createUser()
      const results = await Promise.all(stores.map((s) => s.getOrCreate(userId)))
      assert.equal(new Set(results.map((r) => r.key)).size, 1)
    })

    it('concurrent regenerate for one user never fails and leaves exactly one valid key', async () => {
      const store = await create()
      const userId = await createUser()
      const before = await store.getOrCreate(userId)
      const results = await Promise.all(Array.from({ length: 6 }, () => store.regenerate(userId)))
      const valid = []
      for (const key of [before.key, ...results.map((r) => r.key)]) if ((await store.findByKey(key)) !== null) valid.push(key)
      assert.equal(valid.length, 1, 'exactly one key works')
      assert.equal((await store.getOrCreate(userId)).key, valid[0])
    })
  })
}
