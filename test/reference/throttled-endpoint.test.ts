import { afterAll, describe, expect, it } from 'vitest'
import { openReferenceContext, referenceConfigFromEnv } from '../../examples/reference-api/context.js'
import { articleRoutes } from '../../examples/reference-api/routes/articles.js'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { RedisSessionStore } from '../../src/redis/redis-session-store.js'
import { RedisThrottleStore } from '../../src/redis/redis-throttle-store.js'
import { MemoryThrottleStore } from '../../src/throttling/memory-throttle-store.js'
import { KyselySessionStore } from '../../src/kysely/kysely-session-store.js'
import { ArrayPageSource, paginatedList } from 'drf-gatehouse'
import { createApiRequest } from 'drf-gatehouse/http'
import { unavailable } from '../helpers/requirements.js'

const PATH = '/api/auth/token/throttled/'

async function obtain(
  server: RunningReference,
  password = 'alice-pass-1',
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const response = await fetch(server.baseUrl + PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username: 'alice', password }),
  })
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> }
}

function expectThrottled(result: Awaited<ReturnType<typeof obtain>>): void {
  expect(result.status).toBe(429)
  const wait = Number(result.retryAfter)
  expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true)
  expect(result.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} ${wait === 1 ? 'second' : 'seconds'}.` })
}

describe('POST /api/auth/token/throttled/ over HTTP (memory store, the default)', () => {
  const servers: RunningReference[] = []
  afterAll(async () => {
    for (const server of servers) await server.close()
  })

  it('answers 200 five times, then 429 with Retry-After', async () => {
    const server = await startReference(freshSqlite())
    servers.push(server)
    expect(server.ref.throttleStore).toBeInstanceOf(MemoryThrottleStore)
    const tokens = new Set<unknown>()
    for (let i = 0; i < 5; i++) {
      const result = await obtain(server)
      expect(result.status).toBe(200)
      expect(result.retryAfter).toBeNull()
      tokens.add(result.body['token'])
    }
    expect(tokens.size).toBe(1)
    expectThrottled(await obtain(server))
    // The plain token endpoint is not throttled (DRF's default).
    const plain = await fetch(`${server.baseUrl}/api/auth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }),
    })
    expect(plain.status).toBe(200)
  })

  it('counts failed logins too, and a client-sent X-Forwarded-For does not buy a new budget', async () => {
    const server = await startReference(freshSqlite())
    servers.push(server)
    for (let i = 0; i < 5; i++) expect((await obtain(server, 'wrong', { 'x-forwarded-for': `10.0.0.${i}` })).status).toBe(400)
    expectThrottled(await obtain(server, 'alice-pass-1', { 'x-forwarded-for': '203.0.113.77' }))
    expectThrottled(await obtain(server, 'alice-pass-1', { 'x-forwarded-for': '203.0.113.78, 127.0.0.1' }))
  })

  it('keys by client address even when the request is authenticated', async () => {
    const server = await startReference(freshSqlite())
    servers.push(server)
    const basic = (user: string, password: string): Record<string, string> => ({
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    })
    for (let i = 0; i < 3; i++) expect((await obtain(server, 'alice-pass-1', basic('bob', 'bob-pass-2'))).status).toBe(200)
    for (let i = 0; i < 2; i++) expect((await obtain(server, 'alice-pass-1', basic('admin', 'admin-pass-4'))).status).toBe(200)
    expectThrottled(await obtain(server))
  })

  it('with GATEHOUSE_NUM_PROXIES=1 the proxy-appended address is the client', async () => {
    const server = await startReference(freshSqlite(), { numProxies: 1 })
    servers.push(server)
    for (let i = 0; i < 5; i++) expect((await obtain(server, 'alice-pass-1', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200)
    expectThrottled(await obtain(server, 'alice-pass-1', { 'x-forwarded-for': '198.51.100.1' }))
    // A spoofed leftmost entry does not matter: the proxy's (rightmost) entry decides.
    expectThrottled(await obtain(server, 'alice-pass-1', { 'x-forwarded-for': '1.2.3.4, 198.51.100.1' }))
    expect((await obtain(server, 'alice-pass-1', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200)
  })
})

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('the throttled endpoint and sessions with REDIS_URL (two instances, one Redis)', () => {
  const prefix = uniquePrefix()
  const servers: RunningReference[] = []
  afterAll(async () => {
    for (const server of servers) await server.close()
    await deletePrefix(REDIS_URL ?? '', prefix)
  })

  it('shares one budget and one session store between instances', async () => {
    const database = freshSqlite()
    const a = await startReference(database, { redisUrl: REDIS_URL, redisPrefix: prefix }, { dropDatabase: false })
    servers.push(a)
    const b = await startReference(database, { redisUrl: REDIS_URL, redisPrefix: prefix })
    servers.push(b)
    expect(a.ref.throttleStore).toBeInstanceOf(RedisThrottleStore)
    expect(a.ref.sessions).toBeInstanceOf(RedisSessionStore)

    for (const server of [a, b, a, b, a]) expect((await obtain(server)).status).toBe(200)
    expectThrottled(await obtain(b))
    expectThrottled(await obtain(a))

    // A session created through A authenticates on B.
    const csrf = await fetch(`${a.baseUrl}/api/auth/csrf/`)
    const csrfCookie = /csrftoken=([^;]+)/.exec(csrf.headers.get('set-cookie') ?? '')?.[1] ?? ''
    const login = await fetch(`${a.baseUrl}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `csrftoken=${csrfCookie}`, 'x-csrftoken': csrfCookie },
      body: JSON.stringify({ username: 'bob', password: 'bob-pass-2' }),
    })
    expect(login.status).toBe(200)
    const sessionId = /sessionid=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? ''
    expect(sessionId).not.toBe('')
    const whoami = await fetch(`${b.baseUrl}/api/schemes/session/`, { headers: { cookie: `sessionid=${sessionId}` } })
    expect(whoami.status).toBe(200)
    expect(await whoami.json()).toMatchObject({ username: 'bob', authenticated: true })
  })
})

describe('referenceConfigFromEnv', () => {
  it('reads REDIS_URL and GATEHOUSE_NUM_PROXIES, defaulting to no Redis and no trusted proxy', () => {
    expect(referenceConfigFromEnv({})).toEqual({
      databaseUrl: undefined,
      dbTimeoutMs: undefined,
      redisUrl: undefined,
      redisPrefix: undefined,
      redisTimeoutMs: undefined,
      numProxies: undefined,
    })
    expect(
      referenceConfigFromEnv({ REDIS_URL: 'redis://h:1', GATEHOUSE_REDIS_PREFIX: 'run7:', GATEHOUSE_NUM_PROXIES: '2', GATEHOUSE_REDIS_TIMEOUT_MS: '500', GATEHOUSE_DB_TIMEOUT_MS: '1500' }),
    ).toMatchObject({
      dbTimeoutMs: 1500,
      redisUrl: 'redis://h:1',
      redisPrefix: 'run7:',
      numProxies: 2,
      redisTimeoutMs: 500,
    })
    expect(referenceConfigFromEnv({ REDIS_URL: '' }).redisUrl).toBeUndefined()
  })

  it.each(['-1', '1.5', 'one', '0x1'])('rejects GATEHOUSE_NUM_PROXIES=%s at start-up', (value) => {
    expect(() => referenceConfigFromEnv({ GATEHOUSE_NUM_PROXIES: value })).toThrow(/GATEHOUSE_NUM_PROXIES/)
  })

  it.each(['0', '-5', 'soon'])('rejects GATEHOUSE_DB_TIMEOUT_MS=%s at start-up', (value) => {
    expect(() => referenceConfigFromEnv({ GATEHOUSE_DB_TIMEOUT_MS: value })).toThrow(/GATEHOUSE_DB_TIMEOUT_MS/)
  })

  it('reads GATEHOUSE_COUNT as a count strategy, and refuses a malformed one at start-up', () => {
    expect(referenceConfigFromEnv({ GATEHOUSE_COUNT: 'none' }).count).toBe('none')
    expect(referenceConfigFromEnv({ GATEHOUSE_COUNT: 'capped:500' }).count).toEqual({ capped: 500 })
    expect(referenceConfigFromEnv({ GATEHOUSE_COUNT: 'cached:60000' }).count).toEqual({ cachedMs: 60000 })
    for (const bad of ['capped', 'capped:0', 'cached:-1', 'lots']) expect(() => referenceConfigFromEnv({ GATEHOUSE_COUNT: bad })).toThrow(/GATEHOUSE_COUNT/)
  })

  it('applies GATEHOUSE_COUNT to the global page-number style: none leaves count null, links intact', async () => {
    const database = freshSqlite()
    const ref = await openReferenceContext({ databaseUrl: database.url, count: 'none' })
    try {
      const view = ref.api.view({ handlers: { GET: async (ctx) => paginatedList(ctx, ctx.settings.pagination, new ArrayPageSource([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), (x) => x) } })
      const page = await view.handle(createApiRequest({ method: 'GET', url: new URL('http://localhost/x/'), headers: { get: () => null }, remoteAddress: null, readBody: async () => null }))
      expect(page.body).toEqual({ count: null, next: 'http://localhost/x/?page=2', previous: null, results: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })
    } finally {
      await ref.close()
      await database.drop()
    }
  })

  it('applies GATEHOUSE_COUNT to /api/articles/filtered/ too (its own paginator): capped:5 answers 11, what page 1 proves, for the 13 score=3 articles', async () => {
    const database = freshSqlite()
    const request = (ref: Awaited<ReturnType<typeof openReferenceContext>>) => {
      const view = articleRoutes(ref).find((r) => r.path === '/api/articles/filtered/')?.view
      if (view === undefined) throw new Error('no /api/articles/filtered/')
      return view.handle(createApiRequest({ method: 'GET', url: new URL('http://localhost/api/articles/filtered/?score=3'), headers: { get: () => null }, remoteAddress: null, readBody: async () => null }))
    }
    const capped = await openReferenceContext({ databaseUrl: database.url, count: { capped: 5 } })
    try {
      // The first page proves 10 rows and a next one: capped answers the larger of the cap and what the page proves.
      expect((await request(capped)).body).toMatchObject({ count: 11, next: 'http://localhost/api/articles/filtered/?page=2&score=3' })
    } finally {
      await capped.close()
    }
    const exact = await openReferenceContext({ databaseUrl: database.url })
    try {
      expect((await request(exact)).body).toMatchObject({ count: 13 })
    } finally {
      await exact.close()
      await database.drop()
    }
  })

  it('GATEHOUSE_TOKEN_CACHE_TTL_MS turns the token cache on; a regenerated token is dropped from it at once (in-process bus)', async () => {
    expect(referenceConfigFromEnv({ GATEHOUSE_TOKEN_CACHE_TTL_MS: '60000' }).tokenCacheTtlMs).toBe(60000)
    expect(() => referenceConfigFromEnv({ GATEHOUSE_TOKEN_CACHE_TTL_MS: '0' })).toThrow(/GATEHOUSE_TOKEN_CACHE_TTL_MS/)
    const database = freshSqlite()
    const ref = await openReferenceContext({ databaseUrl: database.url, tokenCacheTtlMs: 60_000 })
    const withToken = (key: string): ReturnType<typeof createApiRequest> =>
      createApiRequest({ method: 'GET', url: new URL('http://localhost/'), headers: { get: (n) => (n.toLowerCase() === 'authorization' ? `Token ${key}` : null) }, remoteAddress: null, readBody: async () => null })
    const bobKey = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
    try {
      const first = await ref.schemes.token.authenticate(withToken(bobKey))
      expect(first?.user.username).toBe('bob')
      // Cached now: a change made behind the stores' back (raw SQL, no invalidation) is not seen...
      await ref.db.deleteFrom('gatehouse_tokens').where('user_id', '=', Number(first?.user.id)).execute()
      expect((await ref.schemes.token.authenticate(withToken(bobKey)))?.user.username).toBe('bob')
      // ...but a regeneration through the store publishes on the bus, and the old key stops working at once.
      const renewed = await ref.tokens.regenerate(first?.user.id ?? 0)
      await expect(ref.schemes.token.authenticate(withToken(bobKey))).rejects.toThrow('Invalid token.')
      expect((await ref.schemes.token.authenticate(withToken(renewed.key)))?.user.username).toBe('bob')
    } finally {
      await ref.close()
      await database.drop()
    }
  })

  it('uses SQL sessions without Redis', async () => {
    const database = freshSqlite()
    const ref = await openReferenceContext({ databaseUrl: database.url })
    try {
      expect(ref.sessions).toBeInstanceOf(KyselySessionStore)
      expect(ref.redis).toBeNull()
      expect(ref.api.settings.numProxies).toBe(0)
    } finally {
      await ref.close()
      await database.drop()
    }
  })
})
