import { inspect } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../core/errors.js'
import type { StoredUser, UserId } from '../core/user.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import { LocalInvalidationBus } from '../stores/local-invalidation-bus.js'
import type { TokenWithUser } from '../stores/token-store.js'
import { MemoryTokenCache, type MemoryTokenCacheOptions } from './memory-token-cache.js'

const KEY_A = 'a'.repeat(39) + '1'
const KEY_B = 'b'.repeat(39) + '2'
const KEY_C = 'c'.repeat(39) + '3'

function user(id: UserId, isActive = true): StoredUser {
  return { id, username: `user-${String(id)}`, isActive, isStaff: false, isAuthenticated: true }
}

function pair(key: string, userId: UserId, isActive = true): TokenWithUser {
  return { token: { key, userId, created: new Date(0) }, user: user(userId, isActive) }
}

/** A loader over a mutable table of key → pair, counting its calls. */
function table(entries: Record<string, TokenWithUser> = {}): { rows: Map<string, TokenWithUser>; calls: string[]; load: (key: string) => Promise<TokenWithUser | null> } {
  const rows = new Map(Object.entries(entries))
  const calls: string[] = []
  return { rows, calls, load: async (key) => (calls.push(key), rows.get(key) ?? null) }
}

/** A promise resolved from outside, for lookups that are still in flight. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

function makeCache(options: Partial<MemoryTokenCacheOptions> & { bus?: LocalInvalidationBus } = {}): { cache: MemoryTokenCache; bus: LocalInvalidationBus; clock: { now: number } } {
  const bus = options.bus ?? new LocalInvalidationBus()
  const clock = { now: 1_000_000 }
  const cache = new MemoryTokenCache({ ttlMs: 60_000, invalidation: bus, now: () => clock.now, ...options })
  return { cache, bus, clock }
}

describe('MemoryTokenCache: hits, expiry, bound', () => {
  it('answers the second lookup of a key from memory, with the key and the user', async () => {
    const { cache } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    expect(await cache.get(KEY_A, t.load)).toEqual(pair(KEY_A, 1))
    expect(await cache.get(KEY_A, t.load)).toEqual(pair(KEY_A, 1))
    expect(t.calls).toEqual([KEY_A])
    expect(cache.size).toBe(1)
  })

  it('expires an entry ttlMs after its lookup started (injected clock)', async () => {
    const { cache, clock } = makeCache({ ttlMs: 1_000 })
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    await cache.get(KEY_A, t.load)
    clock.now += 999
    await cache.get(KEY_A, t.load)
    expect(t.calls).toHaveLength(1)
    clock.now += 1
    await cache.get(KEY_A, t.load)
    expect(t.calls).toHaveLength(2)
  })

  it('counts the time-to-live from the start of a slow lookup', async () => {
    const { cache, clock } = makeCache({ ttlMs: 1_000 })
    const slow = deferred<TokenWithUser | null>()
    const first = cache.get(KEY_A, () => slow.promise)
    clock.now += 600
    slow.resolve(pair(KEY_A, 1))
    await first
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    clock.now += 399
    await cache.get(KEY_A, t.load)
    expect(t.calls).toHaveLength(0)
    clock.now += 1
    await cache.get(KEY_A, t.load)
    expect(t.calls).toHaveLength(1)
  })

  it('keeps at most maxEntries, evicting the least recently used', async () => {
    const { cache } = makeCache({ maxEntries: 2 })
    const t = table({ [KEY_A]: pair(KEY_A, 1), [KEY_B]: pair(KEY_B, 2), [KEY_C]: pair(KEY_C, 3) })
    await cache.get(KEY_A, t.load)
    await cache.get(KEY_B, t.load)
    await cache.get(KEY_A, t.load) // A is now the most recently used
    await cache.get(KEY_C, t.load) // evicts B
    expect(cache.size).toBe(2)
    t.calls.length = 0
    await cache.get(KEY_A, t.load)
    await cache.get(KEY_C, t.load)
    expect(t.calls).toEqual([])
    await cache.get(KEY_B, t.load)
    expect(t.calls).toEqual([KEY_B])
    expect(cache.size).toBe(2)
  })

  it('stays within maxEntries under many keys, and an evicted user index does not keep evicted keys', async () => {
    const { cache, bus } = makeCache({ maxEntries: 50 })
    const load = async (key: string): Promise<TokenWithUser> => pair(key, Number(key.slice(1)) % 7)
    for (let i = 0; i < 1_000; i++) {
      await cache.get(`k${i}`, load)
      expect(cache.size).toBeLessThanOrEqual(50)
    }
    for (let u = 0; u < 7; u++) void bus.publish(u)
    expect(cache.size).toBe(0)
  })

  it('never keeps a miss: an unknown key reaches the store every time, and a key created later is found', async () => {
    const { cache } = makeCache()
    const t = table()
    expect(await cache.get(KEY_A, t.load)).toBeNull()
    expect(await cache.get(KEY_A, t.load)).toBeNull()
    t.rows.set(KEY_A, pair(KEY_A, 1))
    expect(await cache.get(KEY_A, t.load)).toEqual(pair(KEY_A, 1))
    expect(t.calls).toEqual([KEY_A, KEY_A, KEY_A])
    expect(cache.size).toBe(1)
  })

  it('keeps an inactive user (the scheme refuses it) until invalidated', async () => {
    const { cache, bus } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1, false) })
    await cache.get(KEY_A, t.load)
    expect((await cache.get(KEY_A, t.load))?.user.isActive).toBe(false)
    expect(t.calls).toHaveLength(1)
    t.rows.set(KEY_A, pair(KEY_A, 1, true))
    await bus.publish(1)
    expect((await cache.get(KEY_A, t.load))?.user.isActive).toBe(true)
  })

  it('lets a failed lookup reach the caller and keeps nothing', async () => {
    const { cache } = makeCache()
    const down = new Error('database down')
    await expect(cache.get(KEY_A, async () => Promise.reject(down))).rejects.toBe(down)
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    await cache.get(KEY_A, t.load)
    expect(t.calls).toHaveLength(1)
  })

  it('holds no raw key: the map is keyed by digest and entries keep the token without its key', async () => {
    const { cache } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    await cache.get(KEY_A, t.load)
    const dump = inspect(cache, { depth: 20, showHidden: true, maxArrayLength: null, maxStringLength: null })
    expect(dump).toContain('user-1')
    expect(dump).not.toContain(KEY_A)
    expect(dump).not.toContain(KEY_A.slice(0, 20))
  })
})

describe('MemoryTokenCache: invalidation', () => {
  it("a user event drops that user's entries (all their keys) and no one else's", async () => {
    const { cache, bus } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1), [KEY_B]: pair(KEY_B, 1), [KEY_C]: pair(KEY_C, 2) })
    for (const key of [KEY_A, KEY_B, KEY_C]) await cache.get(key, t.load)
    await bus.publish(1)
    expect(cache.size).toBe(1)
    t.calls.length = 0
    for (const key of [KEY_A, KEY_B, KEY_C]) await cache.get(key, t.load)
    expect(t.calls).toEqual([KEY_A, KEY_B])
  })

  it('matches user ids by their text: an event for "1" drops the entries of user 1', async () => {
    const { cache, bus } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    await cache.get(KEY_A, t.load)
    await bus.publish('1')
    expect(cache.size).toBe(0)
  })

  it('an "all" event forgets everything; clear() does too', async () => {
    const { cache, bus } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1), [KEY_C]: pair(KEY_C, 2) })
    await cache.get(KEY_A, t.load)
    await cache.get(KEY_C, t.load)
    bus.deliver({ type: 'all' })
    expect(cache.size).toBe(0)
    await cache.get(KEY_A, t.load)
    cache.clear()
    expect(cache.size).toBe(0)
  })

  it('a lookup in flight when its user is invalidated answers its request but is not kept', async () => {
    const { cache, bus } = makeCache()
    const slow = deferred<TokenWithUser | null>()
    const inFlight = cache.get(KEY_A, () => slow.promise)
    await bus.publish(1) // e.g. the token was regenerated while the old row was being read
    slow.resolve(pair(KEY_A, 1))
    expect(await inFlight).toEqual(pair(KEY_A, 1))
    expect(cache.size).toBe(0)
    const t = table()
    expect(await cache.get(KEY_A, t.load)).toBeNull()
    expect(t.calls).toEqual([KEY_A])
  })

  it("an invalidation of another user, or one that came before the lookup started, does not stop it being kept", async () => {
    const { cache, bus } = makeCache()
    await bus.publish(1)
    const slow = deferred<TokenWithUser | null>()
    const inFlight = cache.get(KEY_A, () => slow.promise)
    await bus.publish(2)
    slow.resolve(pair(KEY_A, 1))
    await inFlight
    expect(cache.size).toBe(1)
  })

  it('an "all" event during a lookup keeps it out too', async () => {
    const { cache, bus } = makeCache()
    const slow = deferred<TokenWithUser | null>()
    const inFlight = cache.get(KEY_A, () => slow.promise)
    bus.deliver({ type: 'all' })
    slow.resolve(pair(KEY_A, 1))
    await inFlight
    expect(cache.size).toBe(0)
  })

  it('concurrent lookups of one key share one store lookup; after an invalidation a new request does not join it', async () => {
    const { cache, bus } = makeCache()
    const slow = deferred<TokenWithUser | null>()
    let loads = 0
    const load = (): Promise<TokenWithUser | null> => (loads++, slow.promise)
    const first = cache.get(KEY_A, load)
    const second = cache.get(KEY_A, load)
    expect(loads).toBe(1)
    await bus.publish(1)
    const fresh = deferred<TokenWithUser | null>()
    const third = cache.get(KEY_A, () => (loads++, fresh.promise))
    expect(loads).toBe(2)
    slow.resolve(pair(KEY_A, 1))
    fresh.resolve(null) // the token was deleted meanwhile
    expect(await first).toEqual(pair(KEY_A, 1))
    expect(await second).toEqual(pair(KEY_A, 1))
    expect(await third).toBeNull()
    expect(cache.size).toBe(0)
  })

  it('forgets per-user invalidation marks once no older lookup is in flight (bounded memory)', async () => {
    const { cache, bus } = makeCache()
    const slow = deferred<TokenWithUser | null>()
    const inFlight = cache.get(KEY_A, () => slow.promise)
    for (let u = 0; u < 100; u++) await bus.publish(u)
    const marks = (cache as unknown as { invalidatedAt: Map<string, number> }).invalidatedAt
    expect(marks.size).toBe(100)
    slow.resolve(pair(KEY_A, 1))
    await inFlight
    expect(marks.size).toBe(0)
    for (let u = 0; u < 100; u++) await bus.publish(u)
    expect(marks.size).toBe(0)
  })

  it('close() stops listening', async () => {
    const { cache, bus } = makeCache()
    const t = table({ [KEY_A]: pair(KEY_A, 1) })
    await cache.get(KEY_A, t.load)
    cache.close()
    await bus.publish(1)
    expect(cache.size).toBe(1)
  })

  it('model check: every answer not loaded by its own request is the current state, under interleaved lookups and changes', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('resolve' as const), index: fc.nat() }),
      fc.record({ kind: fc.constant('change' as const), user: fc.integer({ min: 0, max: 1 }) }),
      fc.record({ kind: fc.constant('all' as const) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        // key k belongs to user k % 2; the "database" holds a version per user.
        const version = [0, 0]
        const bus = new LocalInvalidationBus()
        const cache = new MemoryTokenCache({ ttlMs: 1e9, maxEntries: 3, invalidation: bus })
        const waiting: { read: TokenWithUser; resolve: (v: TokenWithUser) => void }[] = []
        const checks: Promise<void>[] = []
        const state = (key: number): TokenWithUser => {
          const owner = key % 2
          return { token: { key: `key-${key}`, userId: owner, created: new Date(version[owner] ?? 0) }, user: user(owner) }
        }
        for (const o of ops) {
          if (o.kind === 'get') {
            let loadedHere = false
            const expected = state(o.key)
            const answer = cache.get(`key-${o.key}`, () => {
              loadedHere = true
              // The store reads the state now; the answer arrives later.
              return new Promise<TokenWithUser>((resolve) => waiting.push({ read: state(o.key), resolve }))
            })
            checks.push(
              Promise.resolve(answer).then((got) => {
                if (!loadedHere) expect(got?.token.created.getTime()).toBe(expected.token.created.getTime())
              }),
            )
          } else if (o.kind === 'resolve') {
            const w = waiting.splice(o.index % Math.max(waiting.length, 1), 1)[0]
            w?.resolve(w.read)
            await new Promise((r) => setImmediate(r))
          } else if (o.kind === 'change') {
            version[o.user] = (version[o.user] ?? 0) + 1
            await bus.publish(o.user)
          } else {
            bus.deliver({ type: 'all' })
          }
        }
        for (const w of waiting.splice(0)) w.resolve(w.read)
        await Promise.all(checks)
      }),
      { numRuns: 300 },
    )
  })
})

describe('MemoryTokenCache: options', () => {
  const bus: InvalidationBus = new LocalInvalidationBus()
  it.each([
    ['ttlMs 0', { ttlMs: 0, invalidation: bus }],
    ['ttlMs negative', { ttlMs: -1, invalidation: bus }],
    ['ttlMs NaN', { ttlMs: Number.NaN, invalidation: bus }],
    ['ttlMs Infinity', { ttlMs: Number.POSITIVE_INFINITY, invalidation: bus }],
    ['ttlMs as text', { ttlMs: '60000', invalidation: bus }],
    ['maxEntries 0', { ttlMs: 1, maxEntries: 0, invalidation: bus }],
    ['maxEntries 1.5', { ttlMs: 1, maxEntries: 1.5, invalidation: bus }],
    ['no invalidation bus', { ttlMs: 1 }],
  ])('%s is a ConfigurationError', (_name, options) => {
    expect(() => new MemoryTokenCache(options as unknown as MemoryTokenCacheOptions)).toThrow(ConfigurationError)
  })

  it('defaults maxEntries to 10,000 and leaves the options object alone', () => {
    const options = Object.freeze({ ttlMs: 5_000, invalidation: bus })
    const cache = new MemoryTokenCache(options)
    expect(cache.maxEntries).toBe(10_000)
    expect(cache.ttlMs).toBe(5_000)
  })
})

describe('MemoryTokenCache: tokens with an expiry', () => {
  it('keeps a token no longer than its expiresAt, even with a longer TTL', async () => {
    const { cache, clock } = makeCache({ ttlMs: 3_600_000 })
    const expiring: TokenWithUser = { token: { key: KEY_A, userId: 1, created: new Date(0), expiresAt: new Date(clock.now + 1_000) }, user: user(1) }
    const { calls, load } = table({ [KEY_A]: expiring })
    await cache.get(KEY_A, load)
    clock.now += 999
    await cache.get(KEY_A, load)
    expect(calls).toHaveLength(1)
    clock.now += 1
    await cache.get(KEY_A, load)
    expect(calls).toHaveLength(2)
  })
})
