/**
 * A managed Redis's URL through `createRedisClient`: `rediss://` turns TLS on, an ACL user name
 * and a password (percent-encoded where they hold `@`, `/`, `:`) reach the server, the database
 * number is read. The parsing is ioredis's; these tests pin what gatehouse relies on, and a
 * throwaway redis-server with an ACL user checks that the credentials are really sent.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisClient, type RedisClient } from './redis-client.js'
import { startThrowawayRedis, throwawayServersAvailable, type ThrowawayServer } from '../../test/faults/throwaway-servers.js'
import { unavailable } from '../../test/helpers/requirements.js'
import { closedPort } from '../../test/helpers/redis.js'

/** The connection settings `createRedisClient` gave ioredis for `url` (nothing listens there). */
async function settingsOf(url: string): Promise<{ host: unknown; port: unknown; username: unknown; password: unknown; db: unknown; tls: unknown }> {
  const client = createRedisClient(url, { onError: () => {} })
  try {
    const o = client.connection.options as Record<string, unknown>
    return { host: o['host'], port: o['port'], username: o['username'] || undefined, password: o['password'] || undefined, db: o['db'], tls: o['tls'] ?? undefined }
  } finally {
    await client.close()
  }
}

describe('createRedisClient reads a managed Redis URL', () => {
  it('rediss:// with an ACL user, a percent-encoded password and a database number', async () => {
    const port = await closedPort()
    expect(await settingsOf(`rediss://app-user:p%40ss%2Fw%3Ard@127.0.0.1:${port}/2`)).toEqual({
      host: '127.0.0.1',
      port,
      username: 'app-user',
      password: 'p@ss/w:rd',
      db: 2,
      tls: expect.anything(),
    })
  })

  it('redis:// with a password only (requirepass) and no TLS', async () => {
    const port = await closedPort()
    expect(await settingsOf(`redis://:only-a-password@127.0.0.1:${port}`)).toEqual({
      host: '127.0.0.1',
      port,
      username: undefined,
      password: 'only-a-password',
      db: 0,
      tls: undefined,
    })
  })
})

describe.skipIf(unavailable('a throwaway redis-server', throwawayServersAvailable()))('createRedisClient with an ACL user on a real Redis (throwaway server)', () => {
  let server: ThrowawayServer
  const clients: RedisClient[] = []
  const client = (url: string): RedisClient => {
    const made = createRedisClient(url, { onError: () => {}, commandTimeoutMs: 5_000, connectTimeoutMs: 5_000 })
    clients.push(made)
    return made
  }

  beforeAll(async () => {
    server = await startThrowawayRedis()
    const admin = new Redis(server.url)
    try {
      // A user as a managed Redis gives one: its own name and password, no default user.
      await admin.call('ACL', 'SETUSER', 'app-user', 'on', '>p@ss/w:rd', '~*', '&*', '+@all')
      await admin.call('ACL', 'SETUSER', 'default', 'off')
    } finally {
      admin.disconnect()
    }
  }, 60_000)

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await server?.destroy()
  }, 60_000)

  it('the user and password of the URL log in; the stores\' commands work', async () => {
    const redis = client(`redis://app-user:p%40ss%2Fw%3Ard@127.0.0.1:${server.port}/3`)
    await redis.set('gatehouse-url-test', 'v', 60_000)
    expect(await redis.get('gatehouse-url-test')).toBe('v')
    expect(await redis.connection.call('ACL', 'WHOAMI')).toBe('app-user')
    expect(await redis.connection.call('CLIENT', 'INFO')).toMatch(/ db=3 /)
  })

  it('a wrong password fails the command (a 503 for the request), it does not run as another user', async () => {
    const redis = client(`redis://app-user:wrong@127.0.0.1:${server.port}`)
    await expect(redis.get('gatehouse-url-test')).rejects.toThrow()
  })
})
