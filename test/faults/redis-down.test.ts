import { spawnSync } from 'node:child_process'
import { createServer, type Server, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { createApi } from '../../src/core/api.js'
import { jsonResponse } from '../../src/core/api-response.js'
import { createApiRequest } from '../../src/core/request/request-factory.js'
import { ServiceUnavailable } from '../../src/core/errors.js'
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js'
import { RedisSessionStore } from '../../src/redis/redis-session-store.js'
import { RedisThrottleStore } from '../../src/redis/redis-throttle-store.js'
import { AnonRateThrottle } from '../../src/throttling/anon-rate-throttle.js'
import { closedPort, startThrowawayRedis, type ThrowawayRedis } from '../helpers/redis.js'
import { unavailable } from '../helpers/requirements.js'

const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0
const quiet = { onError: (): void => {} }

/** Runs `fn` and answers how long it took to settle and how (liveness bound, not a benchmark). */
async function settle<T>(fn: () => Promise<T>): Promise<{ ms: number; error: unknown }> {
  const start = performance.now()
  try {
    await fn()
    return { ms: performance.now() - start, error: null }
  } catch (error) {
    return { ms: performance.now() - start, error }
  }
}

describe('Redis down: stores answer ServiceUnavailable quickly, never hang', () => {
  const clients: RedisClient[] = []
  const servers: Server[] = []
  const sockets: Socket[] = []
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    for (const socket of sockets) socket.destroy()
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
  })

  it('a closed port: throttle and session stores throw ServiceUnavailable within the timeout', async () => {
    const redis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, quiet)
    clients.push(redis)
    const throttles = new RedisThrottleStore({ redis })
    const sessions = new RedisSessionStore({ redis })
    const calls: (() => Promise<unknown>)[] = [
      () => throttles.hit('k', Date.now(), 60_000, 5),
      () => throttles.hit('k', Date.now(), 60_000, 5),
      () => sessions.get('abc'),
      () => sessions.save('abc', { userId: 1, data: {}, expiresAt: new Date(Date.now() + 60_000) }),
      () => sessions.delete('abc'),
    ]
    for (const call of calls) {
      const { ms, error } = await settle(call)
      expect(error).toBeInstanceOf(ServiceUnavailable)
      expect((error as ServiceUnavailable).status).toBe(503)
      expect(ms).toBeLessThan(3_000)
    }
  })

  it('a server that accepts but never answers: the command timeout ends the wait', async () => {
    const blackhole = createServer((socket) => sockets.push(socket))
    servers.push(blackhole)
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve))
    const { port } = blackhole.address() as { port: number }
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, { ...quiet, commandTimeoutMs: 500 })
    clients.push(redis)
    const store = new RedisThrottleStore({ redis })
    for (let i = 0; i < 2; i++) {
      const { ms, error } = await settle(() => store.hit('k', Date.now(), 60_000, 5))
      expect(error).toBeInstanceOf(ServiceUnavailable)
      expect(ms).toBeLessThan(3_000)
    }
  })

  it('a throttled view on a dead Redis answers 503 {"detail": …}, not 500', async () => {
    const redis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, quiet)
    clients.push(redis)
    const api = createApi({
      throttles: [new AnonRateThrottle({ store: new RedisThrottleStore({ redis }), rate: '5/min' })],
    })
    const view = api.view({ handlers: { GET: async () => jsonResponse(200, { ok: true }) } })
    const response = await view.handle(
      createApiRequest({ method: 'GET', url: new URL('http://testserver/'), headers: new Headers(), remoteAddress: '127.0.0.1', readBody: async () => null }),
    )
    expect(response.status).toBe(503)
    expect(response.body).toEqual({ detail: expect.any(String) })
    expect(JSON.stringify(response.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/)
  })

  describe.skipIf(unavailable('redis-server', hasRedisServer))('recovery with a throwaway redis-server', () => {
    let server: ThrowawayRedis | null = null
    afterAll(async () => {
      await server?.stop()
    })

    /** Polls `fn` until it succeeds (bounded). */
    async function eventually<T>(fn: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        try {
          return await fn()
        } catch (error) {
          if (Date.now() > deadline) throw error
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    }

    it('starts while Redis is down, recovers when it comes up, fails fast when it goes away, recovers again', async () => {
      const port = 26400 + Math.floor(Math.random() * 100)
      const redis = createRedisClient(`redis://127.0.0.1:${port}`, { ...quiet, maxReconnectDelayMs: 200 })
      clients.push(redis)
      const store = new RedisThrottleStore({ redis, prefix: 'gatehouse-test-recovery:' })

      await expect(store.hit('k', Date.now(), 60_000, 100)).rejects.toBeInstanceOf(ServiceUnavailable)

      server = await startThrowawayRedis(port)
      const first = await eventually(() => store.hit('k', Date.now(), 60_000, 100))
      expect(first.allowed).toBe(true)

      await server.stop()
      server = null
      const down = await settle(() => store.hit('k', Date.now(), 60_000, 100))
      expect(down.error).toBeInstanceOf(ServiceUnavailable)
      expect(down.ms).toBeLessThan(3_000)

      server = await startThrowawayRedis(port)
      const again = await eventually(() => store.hit('k', Date.now(), 60_000, 100))
      // A fresh server (no persistence): the history started over.
      expect(again).toMatchObject({ allowed: true, count: 1 })
    })
  })
})
