/**
 * design.md's scale-out picture on one machine: 3 reference-API processes on one
 * PostgreSQL database and one Redis, behind nginx. A token, a session and a throttle
 * budget obtained through one instance hold on the others, and a cursor walk that
 * switches instances on every page sees every article once.
 *
 * PostgreSQL: a fresh database on DATABASE_URL's server. Redis: a throwaway
 * redis-server (so no key of the shared one is touched). nginx: Debian's binary.
 */
import { execFileSync } from 'node:child_process'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type Cluster } from '../../scripts/multi-instance.js'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../helpers/databases.js'
import { startThrowawayRedis, type ThrowawayServer } from '../faults/throwaway-servers.js'
import { sessionKeys } from '../helpers/redis.js'
import { call, login } from './http-client.js'
import { unavailable } from '../helpers/requirements.js'

function nginxAvailable(): boolean {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' })
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const ARTICLE_COUNT = 137

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()) || unavailable('nginx', nginxAvailable()))('3 instances behind nginx on PostgreSQL and Redis', () => {
  let database: TestDatabase
  let redis: ThrowawayServer
  let cluster: Cluster
  /** The instances' own base URLs (A, B, C), bypassing nginx. */
  let direct: string[]

  beforeAll(async () => {
    database = await freshPostgres()
    redis = await startThrowawayRedis()
    cluster = await startCluster({ instances: 3, databaseUrl: database.url, redisUrl: redis.url })
    direct = cluster.instances.map((i) => i.baseUrl)
  }, 90_000)

  afterAll(async () => {
    await cluster?.close()
    await redis?.destroy()
    await database?.drop()
  }, 60_000)

  it('a token obtained through instance A authenticates on B and C, and through nginx', async () => {
    const [a, b, c] = direct as [string, string, string]
    const obtained = await call(a, '/api/auth/token/', { method: 'POST', json: { username: 'alice', password: 'alice-pass-1' } })
    expect(obtained.status).toBe(200)
    const key = (obtained.body as { token: string }).token
    expect(key).toMatch(/^[0-9a-f]{40}$/)
    for (const base of [b, c, cluster.baseUrl, cluster.baseUrl, cluster.baseUrl]) {
      const reply = await call(base, '/api/schemes/token/', { headers: { Authorization: `Token ${key}` } })
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ username: 'alice', authenticated: true, auth: key })
    }
    // Obtaining again on C returns the same key (one token per user, in the shared database).
    const again = await call(c, '/api/auth/token/', { method: 'POST', json: { username: 'alice', password: 'alice-pass-1' } })
    expect(again.body).toEqual({ token: key })
  })

  it("nginx drops a client's X-Remote-User: only a trusted (loopback) peer talking directly is believed", async () => {
    const [a] = direct as [string]
    const claim = { headers: { 'X-Remote-User': 'admin' } }
    expect(await call(a, '/api/schemes/remote-user/', claim)).toMatchObject({ status: 200, body: { username: 'admin' } })
    expect((await call(cluster.baseUrl, '/api/schemes/remote-user/', claim)).status).toBe(403)
  })

  it('a session logged in on A is recognised on B, and a CSRF-checked POST on C passes', async () => {
    const [a, b, c] = direct as [string, string, string]
    const { sessionid, csrftoken } = await login(a, 'bob', 'bob-pass-2')
    const cookies = { sessionid, csrftoken }
    // The session lives in the shared Redis, not in one process.
    const client = new Redis(redis.url)
    try {
      expect(await sessionKeys(client)).toHaveLength(1)
    } finally {
      client.disconnect()
    }

    const onB = await call(b, '/api/schemes/session/', { cookies })
    expect(onB.status).toBe(200)
    expect(onB.body).toEqual({ username: 'bob', authenticated: true, auth: null })

    const postOnC = await call(c, '/api/schemes/session/', { method: 'POST', cookies, headers: { 'X-CSRFToken': csrftoken }, json: {} })
    expect(postOnC.status).toBe(200)
    expect(postOnC.body).toEqual({ username: 'bob', authenticated: true, auth: null })
    // The CSRF rule is enforced there too: without the header the same POST is refused.
    const noCsrf = await call(c, '/api/schemes/session/', { method: 'POST', cookies, json: {} })
    expect(noCsrf.status).toBe(403)
    expect(noCsrf.body).toEqual({ detail: expect.stringMatching(/^CSRF Failed/) })

    // Logging out on B ends the session everywhere.
    const out = await call(b, '/api/auth/logout/', { method: 'POST', cookies, headers: { 'X-CSRFToken': csrftoken } })
    expect(out.status).toBe(204)
    for (const base of [a, c]) expect((await call(base, '/api/schemes/session/', { cookies })).status).toBe(403)
  })

  it('the throttled token endpoint has one budget across instances: 5 allowed, the 6th is 429', async () => {
    const [a, b, c] = direct as [string, string, string]
    const attempt = (base: string): Promise<{ status: number; retryAfter: string | null }> =>
      call(base, '/api/auth/token/throttled/', { method: 'POST', json: { username: 'bob', password: 'bob-pass-2' } }).then((r) => ({
        status: r.status,
        retryAfter: r.headers.get('retry-after'),
      }))
    const statuses: number[] = []
    for (const base of [a, b, c, a, b]) statuses.push((await attempt(base)).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200])
    const sixth = await attempt(c)
    expect(sixth.status).toBe(429)
    expect(Number(sixth.retryAfter)).toBeGreaterThan(0)
    expect((await attempt(a)).status).toBe(429)
    // Through nginx (which appends the client address, trusted with GATEHOUSE_NUM_PROXIES=1),
    // a client-chosen X-Forwarded-For does not buy a fresh budget.
    const spoofed = await call(cluster.baseUrl, '/api/auth/token/throttled/', {
      method: 'POST',
      headers: { 'X-Forwarded-For': '203.0.113.9' },
      json: { username: 'bob', password: 'bob-pass-2' },
    })
    expect(spoofed.status).toBe(429)
  })

  it('a cursor walk that switches instance on every page sees every article once', async () => {
    const seen: number[] = []
    let next: string | null = `${direct[0]}/api/articles/cursor/`
    let page = 0
    while (next !== null) {
      // Move the link onto the next instance: the cursor is all the state there is.
      const url: URL = new URL(next)
      const base = direct[page % direct.length] as string
      const reply = await call(base, `${url.pathname}${url.search}`)
      expect(reply.status).toBe(200)
      const body = reply.body as { next: string | null; results: { id: number }[] }
      seen.push(...body.results.map((r) => r.id))
      next = body.next
      page++
      if (page > 100) throw new Error('the walk does not end')
    }
    expect(page).toBe(Math.ceil(ARTICLE_COUNT / 10))
    expect(new Set(seen).size).toBe(seen.length)
    expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: ARTICLE_COUNT }, (_, i) => i + 1))
  })

  it('through nginx, links name nginx (Host passed through) and the walk also sees every article once', async () => {
    const seen: number[] = []
    let next: string | null = `${cluster.baseUrl}/api/articles/cursor/?page_size=25`
    while (next !== null) {
      expect(next.startsWith(`${cluster.baseUrl}/`)).toBe(true)
      const reply = await call(cluster.baseUrl, next)
      expect(reply.status).toBe(200)
      const body = reply.body as { next: string | null; results: { id: number }[] }
      seen.push(...body.results.map((r) => r.id))
      next = body.next
    }
    expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: ARTICLE_COUNT }, (_, i) => i + 1))
  })
})
