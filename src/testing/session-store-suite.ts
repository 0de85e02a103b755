import assert from 'node:assert/strict'
import type { UserId } from '../core/user.js'
import type { SessionRecord, SessionStore } from '../stores/session-store.js'
import { uniqueName, type TestApi } from './test-api.js'

/** Options for `runSessionStoreSuite`. */
export interface SessionStoreSuiteOptions extends TestApi {
  /** Names the `describe` block. @default 'SessionStore contract' */
  readonly name?: string
  /**
   * Your store, reading time from `now` (ms since the epoch): the suite moves that clock
   * forward to expire sessions without waiting. `now` starts at the real time.
   */
  readonly create: (now: () => number) => SessionStore | Promise<SessionStore>
  /** Makes a user a session may belong to (a row your foreign key accepts) and answers its id. */
  readonly createUser: () => Promise<UserId>
}

const HOUR = 3_600_000

/** A session key as the library makes them (at most 64 characters), unique per case. */
function freshKey(): string {
  return uniqueName('sess').slice(0, 64)
}

/**
 * The `SessionStore` contract (Django's session table): save, get and delete by key, an
 * expired session reads as absent, data round-trips as JSON, and odd keys are "not found",
 * never an error.
 *
 * @example
 * runSessionStoreSuite({ describe, it, create: (now) => new MySessionStore({ now }), createUser: async () => 1 })
 */
export function runSessionStoreSuite(options: SessionStoreSuiteOptions): void {
  const { describe, it, create, createUser } = options
  describe(options.name ?? 'SessionStore contract', () => {
    /** A store and the clock it reads, which a case may move forward. */
    async function setup(): Promise<{ store: SessionStore; clock: { now: number } }> {
      // Whole milliseconds, as every store keeps them.
      const clock = { now: Math.floor(Date.now()) }
      return { store: await create(() => clock.now), clock }
    }

    it('save then get answers the record: user id (value and type), data and expiry', async () => {
      const { store, clock } = await setup()
      const userId = await createUser()
      const record: SessionRecord = {
        userId,
        data: { csrf: 'abc', n: 1, nested: { list: [1, 'two', null], text: 'ünïcödé ✓' }, flag: false },
        expiresAt: new Date(clock.now + HOUR),
      }
      const key = freshKey()
      await store.save(key, record)
      assert.deepEqual(await store.get(key), record)
    })

    it('keeps an anonymous session (userId null)', async () => {
      const { store, clock } = await setup()
      const key = freshKey()
      const record: SessionRecord = { userId: null, data: { csrftoken: 'x' }, expiresAt: new Date(clock.now + HOUR) }
      await store.save(key, record)
      assert.deepEqual(await store.get(key), record)
    })

    it('save again overwrites', async () => {
      const { store, clock } = await setup()
      const key = freshKey()
      await store.save(key, { userId: await createUser(), data: { a: 1 }, expiresAt: new Date(clock.now + HOUR) })
      const second: SessionRecord = { userId: null, data: { b: 2 }, expiresAt: new Date(clock.now + 2 * HOUR) }
      await store.save(key, second)
      assert.deepEqual(await store.get(key), second)
    })

    it('delete removes the session; deleting a missing one is fine', async () => {
      const { store, clock } = await setup()
      const key = freshKey()
      await store.save(key, { userId: await createUser(), data: {}, expiresAt: new Date(clock.now + HOUR) })
      await store.delete(key)
      assert.equal(await store.get(key), null)
      await store.delete(key)
      await store.delete(freshKey())
    })

    it('keeps sessions apart', async () => {
      const { store, clock } = await setup()
      const [a, b] = [freshKey(), freshKey()]
      const userA = await createUser()
      const userB = await createUser()
      await store.save(a, { userId: userA, data: { who: 'a' }, expiresAt: new Date(clock.now + HOUR) })
      await store.save(b, { userId: userB, data: { who: 'b' }, expiresAt: new Date(clock.now + HOUR) })
      assert.equal((await store.get(a))?.userId, userA)
      assert.deepEqual((await store.get(b))?.data, { who: 'b' })
      await store.delete(a)
      assert.notEqual(await store.get(b), null)
    })

    it('a session reads as absent from its expiry on (by the store\'s clock)', async () => {
      const { store, clock } = await setup()
      const key = freshKey()
      const expiresAt = new Date(clock.now + 60_000)
      await store.save(key, { userId: await createUser(), data: {}, expiresAt })
      clock.now = expiresAt.getTime() - 1
      assert.notEqual(await store.get(key), null)
      clock.now = expiresAt.getTime()
      assert.equal(await store.get(key), null)
    })

    it('deleteForUser (when the store has it) ends every session of that user and no other', async () => {
      const { store, clock } = await setup()
      // An optional method: a store without it has nothing to check here.
      if (store.deleteForUser === undefined) return
      const [userA, userB] = [await createUser(), await createUser()]
      const keysA = [freshKey(), freshKey(), freshKey()]
      const keyB = freshKey()
      for (const key of keysA) await store.save(key, { userId: userA, data: {}, expiresAt: new Date(clock.now + HOUR) })
      await store.save(keyB, { userId: userB, data: {}, expiresAt: new Date(clock.now + HOUR) })
      assert.ok((await store.deleteForUser(userA)) >= 3)
      for (const key of keysA) assert.equal(await store.get(key), null)
      assert.equal((await store.get(keyB))?.userId, userB)
      assert.equal(await store.deleteForUser(userA), 0)
    })

    it('unknown and odd keys are null, never an error', async () => {
      const { store } = await setup()
      for (const key of [freshKey(), '', 'x'.repeat(65), 'x'.repeat(10_000), 'a\0b', '\ud800', "' or 1=1 --", 'user:1']) {
        assert.equal(await store.get(key), null, `get(${JSON.stringify(key.slice(0, 20))})`)
      }
    })
  })
}
