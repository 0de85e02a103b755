/**
 * On SQLite (a synchronous driver) the store calls of a token-authenticated page answer
 * synchronously, without a single promise: the token⋈user lookup through `chainTokenStores`
 * (DRF store, then the named-token store), the named-token store's `touch`, the prepared page
 * source's `count` and `slice`, and a memory throttle's `check`. An `async` wrapper or a
 * `Promise.resolve` reintroduced in any of them makes a promise and fails these tests (counted
 * by a V8 promise hook, on only around synchronous calls: nothing else can run during them).
 */
import { promiseHooks } from 'node:v8'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chainTokenStores, MemoryThrottleStore, UserRateThrottle, type PolicyContext, type RequestContext, type TokenRecord } from '../../src/index.js'
import { createApiRequest } from '../../src/core/request/request-factory.js'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import { articleSources } from '../../examples/reference-api/routes/articles.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

/** `run()` and how many promises it made while it ran (it must not be awaited to count them). */
function counting<T>(run: () => T): { value: T; promises: number } {
  let promises = 0
  const stop = promiseHooks.onInit(() => {
    promises++
  })
  try {
    return { value: run(), promises }
  } finally {
    stop()
  }
}

describe('SQLite stores answer a token-authenticated page synchronously', () => {
  let database: TestDatabase
  let ref: ReferenceContext

  beforeAll(async () => {
    database = freshSqlite()
    ref = await openReferenceContext({ databaseUrl: database.url, scrypt: { N: 1024, r: 8, p: 1 } })
  })

  afterAll(async () => {
    await ref.close()
    await database.drop()
  })

  it('the token⋈user lookup through chainTokenStores, for a DRF token and a named one, and touch', async () => {
    const chain = chainTokenStores(ref.tokens, ref.namedTokens)
    const bob = await ref.users.findByUsername('bob')
    if (bob === null) throw new Error('no bob')
    const { key } = await ref.namedTokens.create(bob.id, { name: 'sync-test' })
    // Until its first statements the dialect cannot tell whether the Kysely instance logs: those go through Kysely.
    for (let i = 0; i < 3; i++) {
      await chain.findWithUser?.(BOB_TOKEN)
      await chain.findWithUser?.(key)
    }
    for (const presented of [BOB_TOKEN, key]) {
      const { value, promises } = counting(() => chain.findWithUser?.(presented))
      expect(value).not.toBeInstanceOf(Promise)
      expect(promises).toBe(0)
      expect((value as Awaited<typeof value>)?.user.id).toBe(bob.id)
    }
    expect(counting(() => chain.findWithUser?.('f'.repeat(40)))).toEqual({ value: null, promises: 0 })
    // touch: the first use of a named token writes its last-used time (a promise); then nothing to write.
    const named = (await chain.findWithUser?.(key))?.token as TokenRecord
    await chain.touch?.(named)
    const drf = (await chain.findWithUser?.(BOB_TOKEN))?.token as TokenRecord
    for (const token of [named, drf]) expect(counting(() => chain.touch?.(token))).toEqual({ value: undefined, promises: 0 })
  })

  it("the prepared page source's count and slice", async () => {
    const source = articleSources(ref)
    const ctx = { request: createApiRequest({ method: 'GET', url: new URL('http://127.0.0.1/api/articles/?page=3'), headers: { get: () => null }, remoteAddress: '127.0.0.1', readBody: async () => null }) } as unknown as RequestContext
    for (let i = 0; i < 3; i++) await Promise.all([source(ctx).count(), source(ctx).slice(20, 10)])
    const count = counting(() => source(ctx).count())
    expect(count.promises).toBe(0)
    expect(typeof count.value).toBe('number')
    const slice = counting(() => source(ctx).slice(20, 10))
    expect(slice.promises).toBe(0)
    expect((slice.value as readonly { id: number }[]).map((row) => row.id)).toEqual(Array.from({ length: 10 }, (_, i) => 21 + i))
  })

  it("a memory throttle's check", () => {
    const store = new MemoryThrottleStore()
    const throttle = new UserRateThrottle({ store, rate: '2/hour' })
    const ctx = {
      request: createApiRequest({ method: 'GET', url: new URL('http://127.0.0.1/'), headers: { get: () => null }, remoteAddress: '127.0.0.1', readBody: async () => null }),
      user: { id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true },
    } as unknown as PolicyContext
    expect(counting(() => throttle.check(ctx))).toEqual({ value: { allowed: true }, promises: 0 })
    expect(counting(() => throttle.check(ctx))).toEqual({ value: { allowed: true }, promises: 0 })
    const refused = counting(() => throttle.check(ctx))
    expect(refused.promises).toBe(0)
    expect(refused.value).toMatchObject({ allowed: false })
    expect(store.size).toBe(1)
  })
})
