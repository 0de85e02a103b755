/**
 * The whole deployment under store faults: 2 instances behind nginx on a throwaway
 * PostgreSQL and a throwaway Redis, with steady traffic through nginx. Redis, then
 * PostgreSQL, is stopped mid-run and started again: the affected requests answer 503,
 * the others keep answering, everything recovers without restarting an instance, and
 * the counts of tokens (PostgreSQL) and sessions (Redis) are the same before and after.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import pg from 'pg'
import { startCluster, type Cluster } from '../../scripts/multi-instance.js'
import { sessionKeys } from '../helpers/redis.js'
import { call, login } from '../scale/http-client.js'
import { startThrowawayPostgres, startThrowawayRedis, throwawayServersAvailable, type ThrowawayServer } from './throwaway-servers.js'
import { unavailable } from '../helpers/requirements.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

function nginxAvailable(): boolean {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Counts each status seen by a loop of requests until stopped. */
class Traffic {
  readonly statuses = new Map<string, number>()
  private running = true
  private readonly loops: Promise<void>[]

  constructor(send: () => Promise<number>, label: string, concurrency: number) {
    this.loops = Array.from({ length: concurrency }, async () => {
      while (this.running) {
        const status = await send().catch(() => 0)
        const key = `${label} ${status}`
        this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1)
      }
    })
  }

  count(key: string): number {
    return this.statuses.get(key) ?? 0
  }

  /** Waits until `key` has been seen `more` more times than now. */
  async waitFor(key: string, more = 1): Promise<void> {
    const target = this.count(key) + more
    const deadline = Date.now() + 30_000
    while (this.count(key) < target) {
      if (Date.now() > deadline) throw new Error(`never saw ${key}: ${JSON.stringify(Object.fromEntries(this.statuses))}`)
      await new Promise((ok) => setTimeout(ok, 25))
    }
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }
}

describe.skipIf(unavailable('throwaway PostgreSQL and Redis servers', throwawayServersAvailable()) || unavailable('nginx', nginxAvailable()))('2 instances behind nginx: Redis and PostgreSQL stopped mid-run', () => {
  let postgres: ThrowawayServer
  let redis: ThrowawayServer
  let cluster: Cluster
  let cookies: Record<string, string>

  const counts = async (): Promise<{ tokens: number; sessions: number }> => {
    const client = new pg.Client({ connectionString: postgres.url })
    const r = new Redis(redis.url)
    try {
      await client.connect()
      const tokens = await client.query<{ n: number }>('select count(*)::int as n from gatehouse_tokens')
      return { tokens: tokens.rows[0]?.n ?? -1, sessions: (await sessionKeys(r)).length }
    } finally {
      r.disconnect()
      await client.end()
    }
  }

  beforeAll(async () => {
    ;[postgres, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()])
    cluster = await startCluster({
      instances: 2,
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      env: { GATEHOUSE_DB_TIMEOUT_MS: '1500', GATEHOUSE_REDIS_TIMEOUT_MS: '1000' },
    })
    const alice = await login(cluster.baseUrl, 'alice', 'alice-pass-1')
    cookies = { sessionid: alice.sessionid, csrftoken: alice.csrftoken }
    // A second token, obtained through nginx, so the count is not just the seed's.
    expect((await call(cluster.baseUrl, '/api/auth/token/', { method: 'POST', json: { username: 'admin', password: 'admin-pass-4' } })).status).toBe(200)
  }, 120_000)

  afterAll(async () => {
    await cluster?.close()
    await Promise.all([postgres?.destroy(), redis?.destroy()])
  }, 60_000)

  it('503s while a store is down, recovery after, nothing lost, no instance restarted', async () => {
    const before = await counts()
    expect(before.sessions).toBe(1)
    const token = new Traffic(
      () => call(cluster.baseUrl, '/api/articles/', { headers: { Authorization: `Token ${BOB_TOKEN}` }, timeoutMs: 8000 }).then((r) => r.status),
      'token',
      2,
    )
    const session = new Traffic(
      () => call(cluster.baseUrl, '/api/schemes/session/', { cookies, timeoutMs: 8000 }).then((r) => r.status),
      'session',
      2,
    )
    try {
      await token.waitFor('token 200', 10)
      await session.waitFor('session 200', 10)

      await redis.stop()
      await session.waitFor('session 503', 5)
      await token.waitFor('token 200', 10) // tokens do not need Redis
      await redis.start()
      await session.waitFor('session 200', 10)

      await postgres.stop()
      await token.waitFor('token 503', 5)
      await session.waitFor('session 503', 5) // the session's user is read from PostgreSQL
      await postgres.start()
      await token.waitFor('token 200', 10)
      await session.waitFor('session 200', 10)
    } finally {
      await token.stop()
      await session.stop()
    }
    const seen = Object.fromEntries([...token.statuses, ...session.statuses])
    // Only 200s and 503s: never a 500, a 502 from nginx (a dead instance), or a hang (0).
    expect(Object.keys(seen).sort()).toEqual(['session 200', 'session 503', 'token 200', 'token 503'])
    for (const instance of cluster.instances) expect(instance.child.exitCode).toBeNull()
    expect(await counts()).toEqual(before)
  }, 120_000)
})
