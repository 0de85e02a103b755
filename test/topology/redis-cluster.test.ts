/**
 * The Redis stores on a real Redis Cluster (`REDIS_CLUSTER_NODES`, started by
 * scripts/ci-services.sh: 3 masters, 3 replicas): the session, throttle and reserving-throttle
 * contracts, keys spread over every master, and the invalidation bus hearing a PUBLISH made on
 * any node. Skipped (reported as skipped) when no cluster is named.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedisClusterClient, parseRedisClusterNodes, type RedisClusterClient } from '../../src/redis/redis-cluster-client.js'
import { RedisInvalidationBus } from '../../src/redis/redis-invalidation-bus.js'
import { RedisSessionStore } from '../../src/redis/redis-session-store.js'
import { RedisThrottleStore } from '../../src/redis/redis-throttle-store.js'
import type { InvalidationEvent } from '../../src/stores/invalidation-bus.js'
import { runSessionStoreSuite } from '../../src/testing/index.js'
import { runThrottleStoreSuite } from '../helpers/throttle-store-suite.js'
import { uniquePrefix } from '../helpers/redis.js'

/** `REDIS_CLUSTER_NODES`, or `undefined` when this machine has no cluster for tests. */
export const REDIS_CLUSTER_NODES: string | undefined = process.env['REDIS_CLUSTER_NODES'] || undefined

describe('parseRedisClusterNodes', () => {
  it('reads host:port lists, IPv6 and URLs with credentials and TLS', () => {
    expect(parseRedisClusterNodes(' 127.0.0.1:7000, localhost:7001 ,')).toEqual({
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: 'localhost', port: 7001 },
      ],
      tls: false,
    })
    expect(parseRedisClusterNodes('[::1]:7000').nodes).toEqual([{ host: '::1', port: 7000 }])
    expect(parseRedisClusterNodes('rediss://app:s%40cret@cache.example:6380,rediss://cache2.example')).toEqual({
      nodes: [
        { host: 'cache.example', port: 6380 },
        { host: 'cache2.example', port: 6379 },
      ],
      username: 'app',
      password: 's@cret',
      tls: true,
    })
  })

  it('refuses malformed entries and an empty list', () => {
    for (const bad of ['', ' , ', '127.0.0.1', '127.0.0.1:', ':7000', 'host:70000', 'host:0', 'host:7000x', 'redis://', 'http//x:1']) {
      expect(() => parseRedisClusterNodes(bad), bad).toThrow()
    }
  })
})

describe.skipIf(REDIS_CLUSTER_NODES === undefined)('Redis stores on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  const seeds = REDIS_CLUSTER_NODES ?? ''
  const prefix = uniquePrefix()
  const clients: RedisClusterClient[] = []
  const client = (): RedisClusterClient => {
    // Generous timeouts: the contracts are under test here, not the machine's load (redis-cluster-failover.test.ts bounds them).
    const c = createRedisClusterClient(seeds, { onError: () => {}, commandTimeoutMs: 15_000, connectTimeoutMs: 10_000 })
    clients.push(c)
    return c
  }
  const shared = REDIS_CLUSTER_NODES === undefined ? null : client()
  const redis = (): RedisClusterClient => shared as RedisClusterClient

  /** Every master's keys under `prefix` (SCAN on each master; a cluster has no cross-node SCAN). */
  async function keysPerMaster(): Promise<number[]> {
    const counts: number[] = []
    for (const master of redis().connection.nodes('master')) {
      let cursor = '0'
      let count = 0
      do {
        const [next, keys] = await master.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
        cursor = next
        count += keys.length
      } while (cursor !== '0')
      counts.push(count)
    }
    return counts
  }

  afterAll(async () => {
    if (shared !== null) {
      for (const master of shared.connection.nodes('master')) {
        let cursor = '0'
        do {
          const [next, keys] = await master.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
          cursor = next
          // One DEL per key: the keys of one node may still lie in different slots.
          for (const key of keys) await master.del(key)
        } while (cursor !== '0')
      }
    }
    await Promise.all(clients.map((c) => c.close()))
  })

  describe('SessionStore contract', () => {
    let made = 0
    runSessionStoreSuite({
      describe,
      it,
      create: (now) => new RedisSessionStore({ redis: redis(), prefix: `${prefix}session:`, now }),
      createUser: async () => ++made,
    })
  })

  describe('ThrottleStore and ReservingThrottleStore contracts', () => {
    runThrottleStoreSuite({ create: () => new RedisThrottleStore({ redis: redis(), prefix: `${prefix}throttle:` }) })
  })

  it('spreads sessions and a user index over every master, and deleteForUser finds them all', async () => {
    const store = new RedisSessionStore({ redis: redis(), prefix: `${prefix}spread:` })
    const expiresAt = new Date(Date.now() + 600_000)
    for (let i = 0; i < 60; i++) await store.save(`spread${i}`, { userId: 4242, data: { i }, expiresAt })
    const counts = await keysPerMaster()
    expect(counts).toHaveLength(3)
    for (const count of counts) expect(count).toBeGreaterThan(0)
    expect(await store.deleteForUser(4242)).toBe(60)
    for (let i = 0; i < 60; i += 7) expect(await store.get(`spread${i}`)).toBeNull()
  })

  it('three clients share one throttle budget exactly', async () => {
    const stores = [client(), client(), client()].map((c) => new RedisThrottleStore({ redis: c, prefix: `${prefix}budget:` }))
    const results = await Promise.all(
      stores.map((store) => Promise.all(Array.from({ length: 40 }, () => store.hit('shared', Date.now(), 60_000, 17)))),
    )
    expect(results.flat().filter((r) => r.allowed)).toHaveLength(17)
  })

  it('the invalidation bus hears a PUBLISH made on any node of the cluster', async () => {
    const channel = `${prefix}invalidate`
    const bus = new RedisInvalidationBus({ redis: client(), channel, onError: () => {} })
    const events: InvalidationEvent[] = []
    bus.subscribe((event) => events.push(event))
    try {
      await expect.poll(() => bus.listening, { timeout: 20_000 }).toBe(true)
      events.length = 0
      const nodes = parseRedisClusterNodes(seeds).nodes
      for (const [i, node] of nodes.entries()) {
        const raw = new Redis({ host: node.host, port: node.port })
        try {
          await raw.publish(channel, JSON.stringify({ u: 1000 + i, o: 'another-instance' }))
        } finally {
          raw.disconnect()
        }
      }
      await expect.poll(() => events.length, { timeout: 20_000 }).toBe(nodes.length)
      expect(events).toEqual(nodes.map((_, i) => ({ type: 'user', userId: 1000 + i })))
      // And through the client: another bus on the same cluster hears this one's publication.
      const other = new RedisInvalidationBus({ redis: client(), channel, onError: () => {} })
      const heard: InvalidationEvent[] = []
      other.subscribe((event) => heard.push(event))
      try {
        await expect.poll(() => other.listening, { timeout: 20_000 }).toBe(true)
        await bus.publish('a-uuid')
        await expect.poll(() => heard.some((e) => e.type === 'user' && e.userId === 'a-uuid'), { timeout: 20_000 }).toBe(true)
      } finally {
        await other.close()
      }
    } finally {
      await bus.close()
    }
  })
})
