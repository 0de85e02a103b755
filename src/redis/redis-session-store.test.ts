import { afterAll, describe, expect, it } from 'vitest'
import { createRedisClient, type RedisClient } from './redis-client.js'
import { RedisSessionStore } from './redis-session-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import { runSessionStoreSuite } from '../testing/index.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../../test/helpers/redis.js'
import { unavailable } from '../../test/helpers/requirements.js'

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('RedisSessionStore (real Redis at REDIS_URL)', () => {
  const url = REDIS_URL ?? ''
  const prefix = uniquePrefix()
  const redis: RedisClient | null = REDIS_URL === undefined ? null : createRedisClient(url)
  const store = (now?: () => number): RedisSessionStore =>
    new RedisSessionStore({ redis: redis as RedisClient, prefix, ...(now === undefined ? {} : { now }) })
  const inAnHour = (): Date => new Date(Date.now() + 3_600_000)

  afterAll(async () => {
    await deletePrefix(url, prefix)
    await redis?.close()
  })

  let made = 0
  runSessionStoreSuite({
    describe,
    it,
    create: (now) => new RedisSessionStore({ redis: redis as RedisClient, prefix, now }),
    // Redis keeps no users: alternate integer and UUID-shaped ids, both must come back as they went in.
    createUser: async () => (++made % 2 === 0 ? made : `00000000-0000-4000-8000-${String(made).padStart(12, '0')}`),
  })

  it('saves and reads back a session', async () => {
    const record: SessionRecord = { userId: 7, data: { csrf: 'abc', nested: { n: 1, s: 'ünï' } }, expiresAt: inAnHour() }
    await store().save('key-roundtrip', record)
    expect(await store().get('key-roundtrip')).toEqual(record)
  })

  it('keeps an anonymous session (userId null)', async () => {
    const record: SessionRecord = { userId: null, data: {}, expiresAt: inAnHour() }
    await store().save('key-anon', record)
    expect(await store().get('key-anon')).toEqual(record)
  })

  it('overwrites on save and forgets on delete', async () => {
    await store().save('key-over', { userId: 1, data: { a: 1 }, expiresAt: inAnHour() })
    const second: SessionRecord = { userId: 2, data: { b: 2 }, expiresAt: inAnHour() }
    await store().save('key-over', second)
    expect(await store().get('key-over')).toEqual(second)
    await store().delete('key-over')
    expect(await store().get('key-over')).toBeNull()
    await store().delete('key-over') // deleting twice is fine
  })

  it('answers null for unknown, empty and over-long keys', async () => {
    expect(await store().get('no-such-session')).toBeNull()
    expect(await store().get('')).toBeNull()
    expect(await store().get('x'.repeat(65))).toBeNull()
  })

  it('lets Redis expire the session when it expires', async () => {
    await store().save('key-ttl', { userId: 3, data: {}, expiresAt: new Date(Date.now() + 150) })
    expect(await store().get('key-ttl')).not.toBeNull()
    const ttl = await (redis as RedisClient).connection.pttl(`${prefix}key-ttl`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(150)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await (redis as RedisClient).connection.exists(`${prefix}key-ttl`)).toBe(0)
    expect(await store().get('key-ttl')).toBeNull()
  })

  it('treats an expiry in the past as a delete', async () => {
    await store().save('key-past', { userId: 4, data: {}, expiresAt: inAnHour() })
    await store().save('key-past', { userId: 4, data: {}, expiresAt: new Date(Date.now() - 1_000) })
    expect(await (redis as RedisClient).connection.exists(`${prefix}key-past`)).toBe(0)
  })

  it('reads a session as expired once the (injected) clock passes its expiry', async () => {
    const expiresAt = inAnHour()
    await store().save('key-clock', { userId: 5, data: {}, expiresAt })
    expect(await store(() => expiresAt.getTime() - 1).get('key-clock')).not.toBeNull()
    expect(await store(() => expiresAt.getTime()).get('key-clock')).toBeNull()
  })

  it('reads a corrupt value as no session, never throws', async () => {
    const conn = (redis as RedisClient).connection
    for (const [i, junk] of ['not json', '[]', '{"u":"x","e":1}', '{"u":1}', 'null', '42'].entries()) {
      await conn.set(`${prefix}key-junk-${i}`, junk, 'PX', 60_000)
      expect(await store().get(`key-junk-${i}`)).toBeNull()
    }
  })
})
