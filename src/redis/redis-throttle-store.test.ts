import { afterAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import { createRedisClient, type RedisClient } from './redis-client.js'
import { RedisThrottleStore } from './redis-throttle-store.js'
import { runThrottleStoreSuite } from '../../test/helpers/throttle-store-suite.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../../test/helpers/redis.js'
import { unavailable } from '../../test/helpers/requirements.js'

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('RedisThrottleStore (real Redis at REDIS_URL)', () => {
  const url = REDIS_URL ?? ''
  const prefix = uniquePrefix()
  const clients: RedisClient[] = []
  const client = (): RedisClient => {
    const c = createRedisClient(url)
    clients.push(c)
    return c
  }
  const shared = REDIS_URL === undefined ? null : client()

  afterAll(async () => {
    await deletePrefix(url, prefix)
    await Promise.all(clients.map((c) => c.close()))
  })

  describe('ThrottleStore contract', () => {
    runThrottleStoreSuite({ create: () => new RedisThrottleStore({ redis: shared as RedisClient, prefix }) })
  })

  it('stores histories under the prefix and lets them expire with the window', async () => {
    const store = new RedisThrottleStore({ redis: shared as RedisClient, prefix })
    const now = Date.now()
    await store.hit('throttle_ttl_check', now, 30_000, 3)
    const raw = new Redis(url)
    try {
      const ttl = await raw.pttl(`${prefix}throttle_ttl_check`)
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(30_000)
      expect(await raw.lrange(`${prefix}throttle_ttl_check`, 0, -1)).toEqual([String(now)])
    } finally {
      raw.disconnect()
    }
  })

  it('re-sends the script after the server lost its script cache (NOSCRIPT)', async () => {
    const store = new RedisThrottleStore({ redis: shared as RedisClient, prefix })
    await store.hit('throttle_noscript', 0, 60_000, 5)
    // SCRIPT FLUSH only empties the script cache; no data is touched.
    await (shared as RedisClient).connection.script('FLUSH')
    expect(await store.hit('throttle_noscript', 1, 60_000, 5)).toEqual({ allowed: true, count: 2, oldest: 0 })
  })

  it('three processes worth of clients share one budget exactly', async () => {
    const stores = [client(), client(), client()].map((redis) => new RedisThrottleStore({ redis, prefix }))
    const limit = 37
    const perClient = 120
    const results = await Promise.all(
      stores.map((store) =>
        Promise.all(Array.from({ length: perClient }, () => store.hit('throttle_exact_shared', Date.now(), 60_000, limit))),
      ),
    )
    const allowed = results.flat().filter((r) => r.allowed).length
    expect(allowed).toBe(limit)
    // Every client took part: the limit was not reached by one connection alone before the others started.
    expect(results.flat()).toHaveLength(3 * perClient)
  })
})
