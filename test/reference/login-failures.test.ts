/**
 * Failed-login throttling on the reference API (GATEHOUSE_LOGIN_FAILURES): Basic, token
 * obtain and session login count into one budget per username and per client address,
 * in memory or in a Redis shared by two instances.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { FRAMEWORKS } from '../../examples/reference-api/app.js'
import { referenceConfigFromEnv } from '../../examples/reference-api/context.js'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { LoginFailureThrottle } from '../../src/throttling/login-failure-throttle.js'
import { MemoryThrottleStore } from '../../src/throttling/memory-throttle-store.js'
import { RedisThrottleStore } from '../../src/redis/redis-throttle-store.js'
import { unavailable } from '../helpers/requirements.js'

interface Reply {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: unknown
}

async function reply(response: Response): Promise<Reply> {
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }
}

/** Basic credentials on an endpoint that requires them. */
async function basic(server: RunningReference, username: string, password: string, headers: Record<string, string> = {}): Promise<Reply> {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`
  return reply(await fetch(`${server.baseUrl}/api/schemes/basic/`, { headers: { authorization, ...headers } }))
}

async function token(server: RunningReference, username: string, password: string, headers: Record<string, string> = {}): Promise<Reply> {
  return reply(
    await fetch(`${server.baseUrl}/api/auth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ username, password }),
    }),
  )
}

/** A session login with a fresh CSRF cookie. */
async function login(server: RunningReference, username: string, password: string): Promise<Reply> {
  const csrf = await fetch(`${server.baseUrl}/api/auth/csrf/`)
  const cookie = /csrftoken=([^;]+)/.exec(csrf.headers.get('set-cookie') ?? '')?.[1] ?? ''
  return reply(
    await fetch(`${server.baseUrl}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `csrftoken=${cookie}`, 'x-csrftoken': cookie },
      body: JSON.stringify({ username, password }),
    }),
  )
}

function expectThrottled(result: Reply): void {
  expect(result.status).toBe(429)
  const wait = Number(result.retryAfter)
  expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true)
  expect(result.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} ${wait === 1 ? 'second' : 'seconds'}.` })
}

describe('GATEHOUSE_LOGIN_FAILURES on the reference API (SQLite, memory store)', () => {
  const servers: RunningReference[] = []
  afterAll(async () => {
    for (const server of servers) await server.close()
  })

  it('is off by default: wrong passwords never turn into 429', async () => {
    const server = await startReference(freshSqlite())
    servers.push(server)
    expect(server.ref.loginFailures).toBeUndefined()
    for (let i = 0; i < 8; i++) expect((await basic(server, 'alice', 'wrong')).status).toBe(401)
    expect((await basic(server, 'alice', 'alice-pass-1')).status).toBe(200)
  })

  it('Basic, token obtain and login share one budget per (username, address); past it even the right password is 429', async () => {
    const server = await startReference(freshSqlite(), { loginFailures: '3/min' })
    servers.push(server)
    expect(server.ref.loginFailures).toBeInstanceOf(LoginFailureThrottle)
    expect(server.ref.throttleStore).toBeInstanceOf(MemoryThrottleStore)
    // Right passwords do not count.
    for (let i = 0; i < 5; i++) expect((await basic(server, 'alice', 'alice-pass-1')).status).toBe(200)
    expect((await basic(server, 'alice', 'wrong')).status).toBe(401)
    expect((await token(server, 'alice', 'wrong')).status).toBe(400)
    expect((await login(server, 'alice', 'wrong')).status).toBe(400)
    expectThrottled(await basic(server, 'alice', 'alice-pass-1'))
    expectThrottled(await token(server, 'alice', 'alice-pass-1'))
    expectThrottled(await login(server, 'alice', 'alice-pass-1'))
  })

  it('counts per client address across usernames (10x the rate by default), unknown ones included', async () => {
    const server = await startReference(freshSqlite(), { loginFailures: '1/min' })
    servers.push(server)
    for (let i = 0; i < 9; i++) expect((await token(server, `nobody-${i}`, 'guess')).status).toBe(400)
    expect((await token(server, 'carol', 'guess')).status).toBe(400)
    expectThrottled(await token(server, 'bob', 'bob-pass-2'))
    expectThrottled(await basic(server, 'admin', 'admin-pass-4'))
  })

  // The reference builds its LoginFailureThrottle without numProxies: the API's setting counts (issue 36 item 3).
  it.each(FRAMEWORKS)('with GATEHOUSE_NUM_PROXIES=1 the address is the proxy-appended one; a guesser elsewhere does not lock the owner out (%s)', async (framework) => {
    const server = await startReference(freshSqlite(), { loginFailures: '2/min', numProxies: 1 }, { framework })
    servers.push(server)
    const via = (address: string): Record<string, string> => ({ 'x-forwarded-for': address })
    expect((await basic(server, 'bob', 'guess', via('198.51.100.1'))).status).toBe(401)
    expect((await token(server, 'bob', 'guess', via('198.51.100.1'))).status).toBe(400)
    expectThrottled(await basic(server, 'bob', 'bob-pass-2', via('198.51.100.1')))
    expect((await basic(server, 'bob', 'bob-pass-2', via('198.51.100.2'))).status).toBe(200)
    expect((await token(server, 'bob', 'bob-pass-2', via('198.51.100.3'))).status).toBe(200)
  })
})

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('GATEHOUSE_LOGIN_FAILURES with REDIS_URL', () => {
  const prefix = uniquePrefix()
  const servers: RunningReference[] = []
  afterAll(async () => {
    for (const server of servers) await server.close()
    await deletePrefix(REDIS_URL ?? '', prefix)
  })

  it('counts in Redis on one instance', async () => {
    const server = await startReference(freshSqlite(), { loginFailures: '2/min', redisUrl: REDIS_URL, redisPrefix: `${prefix}one:` })
    servers.push(server)
    expect(server.ref.throttleStore).toBeInstanceOf(RedisThrottleStore)
    expect((await basic(server, 'bob', 'bob-pass-2')).status).toBe(200)
    expect((await basic(server, 'bob', 'wrong')).status).toBe(401)
    expect((await token(server, 'bob', 'wrong')).status).toBe(400)
    expectThrottled(await token(server, 'bob', 'bob-pass-2'))
  })

  it('failures on instance A block instance B (one Redis, one database)', async () => {
    const database = freshSqlite()
    const config = { loginFailures: '3/min', redisUrl: REDIS_URL, redisPrefix: `${prefix}two:` }
    const a = await startReference(database, config, { dropDatabase: false })
    servers.push(a)
    const b = await startReference(database, config)
    servers.push(b)
    expect((await token(b, 'alice', 'alice-pass-1')).status).toBe(200)
    expect((await basic(a, 'alice', 'wrong')).status).toBe(401)
    expect((await token(a, 'alice', 'wrong')).status).toBe(400)
    expect((await login(a, 'alice', 'wrong')).status).toBe(400)
    expectThrottled(await basic(b, 'alice', 'alice-pass-1'))
    expectThrottled(await token(b, 'alice', 'alice-pass-1'))
    expectThrottled(await login(b, 'alice', 'alice-pass-1'))
  })
})

describe('referenceConfigFromEnv: GATEHOUSE_LOGIN_FAILURES and GATEHOUSE_SCRYPT_N', () => {
  it('reads both, unset meaning off and the library default', () => {
    expect(referenceConfigFromEnv({})).toMatchObject({ loginFailures: undefined, scrypt: undefined })
    expect(referenceConfigFromEnv({ GATEHOUSE_LOGIN_FAILURES: '5/min', GATEHOUSE_SCRYPT_N: '4096' })).toMatchObject({
      loginFailures: '5/min',
      scrypt: { N: 4096, r: 8, p: 1 },
    })
  })

  it.each(['5', '5/10m', 'x/min', '0/min'])('rejects GATEHOUSE_LOGIN_FAILURES=%s at start-up', (value) => {
    expect(() => referenceConfigFromEnv({ GATEHOUSE_LOGIN_FAILURES: value })).toThrow(/GATEHOUSE_LOGIN_FAILURES|invalid throttle rate/)
  })

  it.each(['1000', '512', '3000', String(2 ** 21), 'big'])('rejects GATEHOUSE_SCRYPT_N=%s at start-up', (value) => {
    expect(() => referenceConfigFromEnv({ GATEHOUSE_SCRYPT_N: value })).toThrow(/GATEHOUSE_SCRYPT_N/)
  })
})
