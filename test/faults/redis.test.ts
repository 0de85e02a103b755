/**
 * Redis goes away mid-run: session-authenticated and throttled requests answer 503
 * within the configured timeout, token requests (database only) keep working, and the
 * same process recovers by itself when Redis returns, with no session or token lost.
 * Runs on a throwaway redis-server and a fresh SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'
import { sessionKeys } from '../helpers/redis.js'
import { call, login } from '../scale/http-client.js'
import { startThrowawayRedis, throwawayServersAvailable, type ThrowawayServer } from './throwaway-servers.js'
import { unavailable } from '../helpers/requirements.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const TIMEOUT_MS = 1000
/** A request must be answered within the store timeout plus this much slack, or it hangs. */
const ANSWER_WITHIN_MS = TIMEOUT_MS * 2 + 3000

describe.skipIf(unavailable('throwaway PostgreSQL and Redis servers', throwawayServersAvailable()))('Redis down or slow (throwaway server)', () => {
  let redis: ThrowawayServer
  let database: TestDatabase
  let instance: Instance
  let sessionCookies: Record<string, string>

  const token = { Authorization: `Token ${BOB_TOKEN}` }
  const get = (path: string, options: { headers?: Record<string, string>; cookies?: Record<string, string> } = {}) =>
    call(instance.baseUrl, path, { ...options, timeoutMs: ANSWER_WITHIN_MS })

  /** Sessions in Redis and tokens in the database, counted outside the server. */
  const counts = async (): Promise<{ sessions: number; tokens: number }> => {
    const client = new Redis(redis.url)
    let db: Database<AuthDatabase> | null = null
    try {
      db = await openDatabase<AuthDatabase>(database.url)
      const tokens = await sql<{ n: number }>`select count(*) as n from gatehouse_tokens`.execute(db.db)
      return { sessions: (await sessionKeys(client)).length, tokens: Number(tokens.rows[0]?.n) }
    } finally {
      client.disconnect()
      await db?.close()
    }
  }

  const until200 = async (path: string, options: { headers?: Record<string, string>; cookies?: Record<string, string> }): Promise<void> => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const status = await get(path, options).then(
        (r) => r.status,
        () => 0,
      )
      if (status === 200) return
      if (Date.now() > deadline) throw new Error(`${path} did not recover (last status ${status})`)
      await new Promise((ok) => setTimeout(ok, 200))
    }
  }

  beforeAll(async () => {
    redis = await startThrowawayRedis()
    database = freshSqlite()
    instance = await startInstance({
      env: { DATABASE_URL: database.url, REDIS_URL: redis.url, GATEHOUSE_REDIS_TIMEOUT_MS: String(TIMEOUT_MS) },
    })
    const { sessionid, csrftoken } = await login(instance.baseUrl, 'alice', 'alice-pass-1')
    sessionCookies = { sessionid, csrftoken }
  }, 60_000)

  afterAll(async () => {
    await instance?.stop()
    await redis?.destroy()
    await database?.drop()
  }, 60_000)

  it('serves session and token requests while Redis is up (the session is in Redis)', async () => {
    expect(await get('/api/schemes/session/', { cookies: sessionCookies })).toMatchObject({ status: 200, body: { username: 'alice' } })
    expect(await get('/api/schemes/token/', { headers: token })).toMatchObject({ status: 200, body: { username: 'bob' } })
    expect((await counts()).sessions).toBe(1)
  })

  it('stopped: 503 for session and throttled requests, 200 for token and anonymous ones, then recovery', async () => {
    const before = await counts()
    await redis.stop()

    const session = await get('/api/schemes/session/', { cookies: sessionCookies })
    expect(session.status).toBe(503)
    expect(session.body).toEqual({ detail: expect.stringMatching(/unavailable/i) })
    const throttled = await call(instance.baseUrl, '/api/auth/token/throttled/', {
      method: 'POST',
      json: { username: 'bob', password: 'bob-pass-2' },
      timeoutMs: ANSWER_WITHIN_MS,
    })
    expect(throttled.status).toBe(503)
    expect(await get('/api/schemes/token/', { headers: token })).toMatchObject({ status: 200, body: { username: 'bob' } })
    expect(await get('/api/articles/', { headers: token })).toMatchObject({ status: 200 })
    expect(await get('/api/whoami/')).toMatchObject({ status: 200, body: { username: null, authenticated: false, auth: null } })

    await redis.start()
    await until200('/api/schemes/session/', { cookies: sessionCookies })
    expect(instance.child.exitCode).toBeNull()
    expect(await counts()).toEqual(before)
  }, 60_000)

  it('frozen (accepts, never answers): 503 within the timeout, token requests unaffected, then recovery', async () => {
    const before = await counts()
    await redis.freeze()
    try {
      const session = await get('/api/schemes/session/', { cookies: sessionCookies })
      expect(session.status).toBe(503)
      expect(session.body).toEqual({ detail: expect.stringMatching(/unavailable/i) })
      expect((await get('/api/schemes/token/', { headers: token })).status).toBe(200)
    } finally {
      await redis.thaw()
    }
    await until200('/api/schemes/session/', { cookies: sessionCookies })
    expect(instance.child.exitCode).toBeNull()
    expect(await counts()).toEqual(before)
  }, 60_000)
})
