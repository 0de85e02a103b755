/**
 * Frozen stores (SIGSTOP: the server accepts connections and answers nothing) with the
 * library's default timeouts, on Fastify and Express (issue 27):
 * - a frozen PostgreSQL answers 503 within about 2 s (pool acquisition, connect, statement);
 * - a statement stuck behind a lock is cancelled by the server before the client gives up,
 *   so a write that answered 503 did not commit;
 * - a frozen Redis with failed-login throttling leaves no failure that no wrong password
 *   made, and right passwords are not 429 after it thaws;
 * - each 503 is one log line naming the store, the operation and the reason, and the stack
 *   comes once per outage.
 * Throwaway servers only (never the shared ones).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import pg from 'pg'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'
import { call, type Reply } from '../scale/http-client.js'
import { startThrowawayPostgres, startThrowawayRedis, throwawayServersAvailable, type ThrowawayServer } from './throwaway-servers.js'
import { unavailable } from '../helpers/requirements.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
/** The library's default: a statement gets 2 s, waiting for a connection 1 s. */
const DEFAULT_BOUND_MS = 2_000
/** Slack for a loaded two-core machine (the old defaults held requests for 10 s). */
const SLACK_MS = 1_500
const token = { Authorization: `Token ${BOB_TOKEN}` }
const basic = (username: string, password: string): Record<string, string> => ({
  Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
})

/** One request, timed; a request that gets no answer at all within 15 s fails the test. */
async function timed(base: string, path: string, options: Parameters<typeof call>[2] = {}): Promise<Reply & { readonly ms: number }> {
  const started = performance.now()
  const reply = await call(base, path, { timeoutMs: 15_000, ...options })
  return { ...reply, ms: performance.now() - started }
}

/** Polls `path` until it answers 200; answers the statuses seen on the way. */
async function until200(base: string, path: string, headers: Record<string, string>): Promise<number[]> {
  const seen: number[] = []
  const deadline = Date.now() + 30_000
  for (;;) {
    const { status } = await call(base, path, { headers, timeoutMs: 15_000 }).catch(() => ({ status: 0 }))
    seen.push(status)
    if (status === 200) return seen
    if (Date.now() > deadline) throw new Error(`${path} did not recover: ${seen.join(',')}`)
    await new Promise((ok) => setTimeout(ok, 100))
  }
}

/** The log lines the instance wrote since `from` characters of output. */
function linesSince(instance: Instance, from: number): string[] {
  return instance.output().slice(from).split('\n')
}

describe.skipIf(unavailable('throwaway PostgreSQL and Redis servers', throwawayServersAvailable())).each(['fastify', 'express'])('frozen stores with default timeouts (%s)', (framework) => {
  let postgres: ThrowawayServer
  let redis: ThrowawayServer
  let sqlite: TestDatabase
  let onPostgres: Instance
  let onRedis: Instance

  beforeAll(async () => {
    ;[postgres, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()])
    sqlite = freshSqlite()
    // No GATEHOUSE_DB_TIMEOUT_MS / GATEHOUSE_REDIS_TIMEOUT_MS: the library's defaults. The stores'
    // faults are under test, not the hashing: scrypt at the other reference tests' cheap cost (the
    // default, about 0.3 s a check, made the seed and the Redis test's 17 logins take half the file).
    // TEST_SCRYPT's N (test/helpers/reference-server.ts), not imported: that module loads the whole
    // reference API into this process, which only spawns it (4 s more per run).
    const scryptN = String(2 ** 12)
    ;[onPostgres, onRedis] = await Promise.all([
      startInstance({
        env: { DATABASE_URL: postgres.url, REDIS_URL: undefined, GATEHOUSE_FRAMEWORK: framework, GATEHOUSE_DB_TIMEOUT_MS: undefined, GATEHOUSE_SCRYPT_N: scryptN },
      }),
      startInstance({
        env: {
          DATABASE_URL: sqlite.url,
          REDIS_URL: redis.url,
          GATEHOUSE_FRAMEWORK: framework,
          GATEHOUSE_REDIS_TIMEOUT_MS: undefined,
          GATEHOUSE_LOGIN_FAILURES: '5/min',
          GATEHOUSE_SCRYPT_N: scryptN,
        },
      }),
    ])
  }, 120_000)

  afterAll(async () => {
    await Promise.all([onPostgres?.stop(), onRedis?.stop()])
    await Promise.all([postgres?.destroy(), redis?.destroy()])
    await sqlite?.drop()
  }, 60_000)

  it('a frozen PostgreSQL: every request that needs it answers 503 within about 2 s, logged one line each, one stack', async () => {
    const base = onPostgres.baseUrl
    expect((await call(base, '/api/schemes/token/', { headers: token })).status).toBe(200)
    const logFrom = onPostgres.output().length
    await postgres.freeze()
    let replies: (Reply & { readonly ms: number })[]
    try {
      // More requests than the pool has connections (10): some wait for one, some hang on a statement.
      replies = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          i % 3 === 0
            ? timed(base, '/api/schemes/token/', { headers: token })
            : i % 3 === 1
              ? timed(base, '/api/articles/')
              : timed(base, '/api/articles/', { method: 'POST', headers: token, json: { title: `frozen ${framework} ${i}`, score: 1 } }),
        ),
      )
    } finally {
      await postgres.thaw()
    }
    for (const reply of replies) {
      expect(reply.status).toBe(503)
      expect(reply.body).toEqual({ detail: 'A data store is temporarily unavailable. Try again later.' })
      expect(reply.ms).toBeLessThan(DEFAULT_BOUND_MS + SLACK_MS)
    }
    await until200(base, '/api/schemes/token/', token)
    const lines = linesSince(onPostgres, logFrom)
    const perRequest = lines.filter((line) => line.startsWith('gatehouse: 503 '))
    expect(perRequest).toHaveLength(replies.length)
    for (const line of perRequest) expect(line).toMatch(/^gatehouse: 503 (GET|POST) \/api\/(schemes\/token|articles)\/: postgres (query|pool acquisition|connect) timeout \(.+\)$/)
    expect(lines.filter((line) => line.includes('postgres outage began'))).toHaveLength(1)
    // No stack per request (the old log wrote one for each).
    expect(lines.filter((line) => /^\s+at /.test(line)).length).toBeLessThan(40)
  }, 90_000)

  it('a write stuck behind a lock is cancelled by the server before the client gives up: the 503 means not written', async () => {
    const base = onPostgres.baseUrl
    const holder = new pg.Client({ connectionString: postgres.url })
    holder.on('error', () => undefined)
    await holder.connect()
    const title = `behind a lock ${framework} ${Date.now()}`
    try {
      await holder.query('BEGIN')
      await holder.query('LOCK TABLE articles IN ACCESS EXCLUSIVE MODE')
      const reply = await timed(base, '/api/articles/', { method: 'POST', headers: token, json: { title, score: 1 } })
      expect(reply.status).toBe(503)
      expect(reply.ms).toBeLessThan(DEFAULT_BOUND_MS + SLACK_MS)
      // Hold the lock past the client's timeout: a statement the server had not cancelled would commit now.
      await new Promise((ok) => setTimeout(ok, 1_000))
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined)
    }
    await new Promise((ok) => setTimeout(ok, 500))
    const found = await holder.query('select count(*)::int as n from articles where title = $1', [title])
    await holder.end()
    expect(found.rows[0]).toEqual({ n: 0 })
    expect(onPostgres.output()).toMatch(/gatehouse: 503 POST \/api\/articles\/: postgres query timeout \(canceling statement due to statement timeout\)/)
    expect((await call(base, '/api/articles/', { method: 'POST', headers: token, json: { title, score: 1 } })).status).toBe(201)
  }, 60_000)

  it('a frozen Redis with failed-login throttling: no phantom failures, no 429 for right passwords after it thaws', async () => {
    const base = onRedis.baseUrl
    expect((await call(base, '/api/schemes/basic/', { headers: basic('alice', 'alice-pass-1') })).status).toBe(200)
    const logFrom = onRedis.output().length
    await redis.freeze()
    let replies: Reply[]
    try {
      // The issue's reproduction: six right-password Basic requests (5/min), and two token obtains.
      replies = await Promise.all([
        ...Array.from({ length: 6 }, () => timed(base, '/api/schemes/basic/', { headers: basic('alice', 'alice-pass-1') })),
        ...Array.from({ length: 2 }, () => timed(base, '/api/auth/token/', { method: 'POST', json: { username: 'alice', password: 'alice-pass-1' } })),
      ])
      // Past the client's 2 s timeout before Redis resumes, so it runs the reserving steps late.
      await new Promise((ok) => setTimeout(ok, 1_000))
    } finally {
      await redis.thaw()
    }
    for (const reply of replies) expect(reply.status).toBe(503)
    const statuses = await until200(base, '/api/schemes/basic/', basic('alice', 'alice-pass-1'))
    expect(statuses.filter((status) => status === 429)).toEqual([])
    for (let i = 0; i < 5; i++) {
      expect((await call(base, '/api/schemes/basic/', { headers: basic('alice', 'alice-pass-1') })).status).toBe(200)
      expect((await call(base, '/api/auth/token/', { method: 'POST', json: { username: 'alice', password: 'alice-pass-1' } })).status).toBe(200)
    }
    // Nothing in Redis counts as a failure: no wrong password was sent.
    const client = new Redis(redis.url)
    try {
      for (const key of await client.keys('gatehouse:login_failures_*')) {
        expect((await client.zrange(key, 0, '-1')).filter((member) => member.startsWith('f:'))).toEqual([])
      }
    } finally {
      client.disconnect()
    }
    const lines = linesSince(onRedis, logFrom)
    expect(lines.filter((line) => line.startsWith('gatehouse: 503 '))).toHaveLength(replies.length)
    expect(lines).toContain('gatehouse: 503 GET /api/schemes/basic/: redis throttle reserve timeout (Command timed out)')
    expect(lines.filter((line) => line.includes('redis outage began'))).toHaveLength(1)
    // Wrong passwords still count after the outage.
    for (let i = 0; i < 5; i++) expect((await call(base, '/api/schemes/basic/', { headers: basic('bob', 'wrong') })).status).toBe(401)
    expect((await call(base, '/api/schemes/basic/', { headers: basic('bob', 'bob-pass-2') })).status).toBe(429)
  }, 90_000)
})
