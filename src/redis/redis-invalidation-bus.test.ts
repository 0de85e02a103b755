/**
 * RedisInvalidationBus against a real Redis: messages reach other processes' listeners with
 * the id's type kept, this process hears its own publication once, anything else on the
 * channel means "forget everything", and a lost connection makes listeners forget
 * everything both when it drops and when the subscription is back.
 */
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedisClient, type RedisClient } from './redis-client.js'
import { RedisInvalidationBus } from './redis-invalidation-bus.js'
import type { InvalidationEvent } from '../stores/invalidation-bus.js'
import { closedPort, REDIS_URL, startThrowawayRedis, uniquePrefix } from '../../test/helpers/redis.js'
import { unavailable } from '../../test/helpers/requirements.js'

const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0
const quiet = { onError: (): void => {} }

/** Closes everything a test opened, in reverse order. */
const cleanup: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of cleanup.reverse()) await close()
})

function client(url: string): RedisClient {
  const redis = createRedisClient(url, quiet)
  cleanup.push(() => redis.close())
  return redis
}

function bus(redis: RedisClient, channel: string, onError: (error: Error) => void = () => {}): { bus: RedisInvalidationBus; events: InvalidationEvent[] } {
  const created = new RedisInvalidationBus({ redis, channel, onError })
  cleanup.push(() => created.close())
  const events: InvalidationEvent[] = []
  created.subscribe((event) => events.push(event))
  return { bus: created, events }
}

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('RedisInvalidationBus', () => {
  const url = REDIS_URL ?? ''

  it('delivers a user id to every other bus on the channel, keeping its type; the publisher hears it once, at once', async () => {
    const channel = `${uniquePrefix()}invalidate`
    const a = bus(client(url), channel)
    const b = bus(client(url), channel)
    const elsewhere = bus(client(url), `${channel}-other`)
    await expect.poll(() => a.bus.listening && b.bus.listening && elsewhere.bus.listening).toBe(true)
    for (const events of [a.events, b.events, elsewhere.events]) events.length = 0
    const uuid = randomUUID()
    await a.bus.publish(42)
    await a.bus.publish(uuid)
    // The publisher's own listeners heard it before publish returned.
    expect(a.events).toEqual([{ type: 'user', userId: 42 }, { type: 'user', userId: uuid }])
    await expect.poll(() => b.events.length).toBe(2)
    expect(b.events).toEqual([{ type: 'user', userId: 42 }, { type: 'user', userId: uuid }])
    // Its own message coming back from Redis is not heard twice.
    await b.bus.publish(7)
    await expect.poll(() => a.events.length).toBe(3)
    expect(a.events.at(-1)).toEqual({ type: 'user', userId: 7 })
    expect(b.events).toHaveLength(3)
    expect(elsewhere.events).toEqual([])
  })

  it('hears the first subscription as "forget everything" (messages before it were missed)', async () => {
    const channel = `${uniquePrefix()}invalidate`
    const a = bus(client(url), channel)
    await expect.poll(() => a.bus.listening).toBe(true)
    expect(a.events).toEqual([{ type: 'all' }])
  })

  it('treats any other message on the channel as "forget everything"', async () => {
    const channel = `${uniquePrefix()}invalidate`
    const a = bus(client(url), channel)
    await expect.poll(() => a.bus.listening).toBe(true)
    a.events.length = 0
    const raw = new Redis(url)
    cleanup.push(async () => void raw.disconnect())
    for (const message of ['flush', '{"u":null}', '[1]', '{"u":{"id":1}}', 'null']) await raw.publish(channel, message)
    await raw.publish(channel, JSON.stringify({ u: 'abc', o: 'someone-else' }))
    await expect.poll(() => a.events.length).toBe(6)
    expect(a.events).toEqual([...Array.from({ length: 5 }, () => ({ type: 'all' })), { type: 'user', userId: 'abc' }])
  })

  it('a publish that cannot reach Redis still tells this process, resolves, and reports the error', async () => {
    const errors: Error[] = []
    const redis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, { ...quiet, connectTimeoutMs: 200, commandTimeoutMs: 200 })
    cleanup.push(() => redis.close())
    const lonely = new RedisInvalidationBus({ redis, channel: 'unused', onError: (error) => errors.push(error) })
    cleanup.push(() => lonely.close())
    const heard: InvalidationEvent[] = []
    lonely.subscribe((event) => heard.push(event))
    await expect(lonely.publish(5)).resolves.toBeUndefined()
    expect(heard).toContainEqual({ type: 'user', userId: 5 })
    expect(errors.length).toBeGreaterThan(0)
  })

  it('close() ends the subscription: nothing more is heard', async () => {
    const channel = `${uniquePrefix()}invalidate`
    const a = bus(client(url), channel)
    const b = bus(client(url), channel)
    await expect.poll(() => a.bus.listening && b.bus.listening).toBe(true)
    await b.bus.close()
    b.events.length = 0
    await a.bus.publish(1)
    const witness = bus(client(url), channel)
    await expect.poll(() => witness.bus.listening).toBe(true)
    await a.bus.publish(2)
    await expect.poll(() => witness.events.length).toBe(2) // 'all' on subscribing, then user 2
    expect(b.events).toEqual([])
    expect(b.bus.listening).toBe(false)
  })
})

describe.skipIf(unavailable('redis-server', hasRedisServer))('RedisInvalidationBus across a Redis restart (a throwaway redis-server)', () => {
  it('forgets everything when the connection drops and again when it is subscribed again, then delivers as before', async () => {
    const port = await closedPort()
    let server = await startThrowawayRedis(port)
    cleanup.push(() => server.stop())
    const channel = 'gatehouse-test:restart'
    const a = bus(client(server.url), channel)
    const b = bus(client(server.url), channel)
    await expect.poll(() => a.bus.listening && b.bus.listening).toBe(true)
    b.events.length = 0
    await server.stop()
    await expect.poll(() => b.events.length).toBe(1)
    expect(b.events).toEqual([{ type: 'all' }])
    expect(b.bus.listening).toBe(false)
    server = await startThrowawayRedis(port)
    await expect.poll(() => a.bus.listening && b.bus.listening, { timeout: 10_000 }).toBe(true)
    expect(b.events).toEqual([{ type: 'all' }, { type: 'all' }])
    await a.bus.publish(9)
    await expect.poll(() => b.events.at(-1)).toEqual({ type: 'user', userId: 9 })
  }, 30_000)
})
