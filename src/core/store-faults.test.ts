import { createServer, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { Redis } from 'ioredis'
import { describeStoreFault, isStoreUnavailable, StoreUnavailable } from './store-faults.js'
import { WrappedSchemeError } from './errors.js'
import { createApi } from './api.js'
import { jsonResponse } from './api-response.js'
import { createApiRequest } from './request/request-factory.js'
import type { AuthenticationScheme } from './authentication-scheme.js'

/** A loopback port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code })
}

describe('isStoreUnavailable', () => {
  it.each([
    ['ECONNREFUSED', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['ECONNRESET', withCode('read ECONNRESET', 'ECONNRESET')],
    ['ETIMEDOUT', withCode('connect ETIMEDOUT', 'ETIMEDOUT')],
    ['admin shutdown 57P01', withCode('terminating connection due to administrator command', '57P01')],
    ['cannot connect now 57P03', withCode('the database system is starting up', '57P03')],
    ['connection exception 08006', withCode('connection failure', '08006')],
    ['statement timeout 57014', withCode('canceling statement due to statement timeout', '57014')],
    ['pg terminated', new Error('Connection terminated unexpectedly')],
    ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['pg query timeout', new Error('Query read timeout')],
    ['ioredis closed', new Error('Connection is closed.')],
    ['ioredis command timeout', new Error('Command timed out')],
    ['ioredis offline queue', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['ioredis retries', Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' })],
    ['redis loading', new Error('LOADING Redis is loading the dataset in memory')],
  ])('recognises %s', (_label, error) => {
    expect(isStoreUnavailable(error)).toBe(true)
  })

  it.each([
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a constraint violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', withCode('syntax error at or near "SELEC"', '42601')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
    ['a missing file', withCode('no such file', 'ENOENT')],
  ])('does not treat %s as a store fault', (_label, error) => {
    expect(isStoreUnavailable(error)).toBe(false)
  })

  it('looks through causes (a scheme wraps the driver error) and AggregateErrors', () => {
    const wrapped = new WrappedSchemeError('TokenAuthentication', withCode('connect ECONNREFUSED', 'ECONNREFUSED'))
    expect(isStoreUnavailable(wrapped)).toBe(true)
    expect(isStoreUnavailable(new AggregateError([new Error('x'), withCode('refused', 'ECONNREFUSED')]))).toBe(true)
    expect(isStoreUnavailable(new WrappedSchemeError('TokenAuthentication', new Error('bug')))).toBe(false)
  })

  it('survives a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown }
    const b = new Error('b', { cause: a })
    a.cause = b
    expect(isStoreUnavailable(a)).toBe(false)
  })

  it('recognises what pg really throws for a refused connection', async () => {
    const port = await closedPort()
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/x`, connectionTimeoutMillis: 2000 })
    const error = await pool.query('SELECT 1').then(
      () => null,
      (e: unknown) => e,
    )
    await pool.end()
    expect(error).not.toBeNull()
    expect(isStoreUnavailable(error)).toBe(true)
  })

  it('recognises what ioredis really throws with the offline queue off', async () => {
    const port = await closedPort()
    const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null })
    redis.on('error', () => undefined)
    const error = await redis.get('k').then(
      () => null,
      (e: unknown) => e,
    )
    redis.disconnect()
    expect(error).not.toBeNull()
    expect(isStoreUnavailable(error)).toBe(true)
  })
})

describe('the pipeline renders store faults as 503', () => {
  const request = createApiRequest({
    method: 'GET',
    url: new URL('http://127.0.0.1/x/'),
    headers: { get: () => null },
    remoteAddress: '127.0.0.1',
    readBody: async () => null,
  })
  const refused = (): Error => withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')

  it('a handler whose store is down answers 503 {"detail"} (not 500), logged once to logStoreFault, not as a server error', async () => {
    const logged: unknown[] = []
    const faults: unknown[] = []
    const api = createApi({ logError: (error) => logged.push(error), logStoreFault: (error) => faults.push(error) })
    const view = api.view({ handlers: { GET: async () => Promise.reject(refused()) } })
    const response = await view.handle(request)
    expect(response.status).toBe(503)
    expect(response.body).toEqual({ detail: 'A data store is temporarily unavailable. Try again later.' })
    expect(logged).toHaveLength(0)
    expect(faults).toHaveLength(1)
  })

  it('a store error already wrapped as a 503 (StoreUnavailable, as the Redis stores throw) is logged too', async () => {
    const faults: unknown[] = []
    const api = createApi({ logStoreFault: (error) => faults.push(error) })
    const view = api.view({ handlers: { GET: async () => Promise.reject(new StoreUnavailable('redis', 'session load', new Error('Command timed out'))) } })
    expect((await view.handle(request)).status).toBe(503)
    expect(faults).toHaveLength(1)
    expect(describeStoreFault(faults[0])).toEqual({ store: 'redis', operation: 'session load', reason: 'timeout' })
  })

  it('a scheme whose store is down answers 503, never "anonymous" and never 500', async () => {
    const scheme: AuthenticationScheme = { name: 'Down', authenticate: async () => Promise.reject(refused()) }
    const api = createApi({ authentication: [scheme], logError: () => undefined })
    const view = api.view({ handlers: { GET: async () => jsonResponse(200, { ok: true }) } })
    expect((await view.handle(request)).status).toBe(503)
  })

  it('any other error is still a 500 with the generic body', async () => {
    const api = createApi({ logError: () => undefined })
    const view = api.view({ handlers: { GET: async () => Promise.reject(new TypeError('bug')) } })
    const response = await view.handle(request)
    expect(response.status).toBe(500)
    expect(response.body).toEqual({ detail: 'A server error occurred.' })
  })
})

describe('describeStoreFault', () => {
  it.each([
    [withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), { store: 'store', operation: 'query', reason: 'refused' }],
    [new Error('Query read timeout'), { store: 'postgres', operation: 'query', reason: 'timeout' }],
    [new Error('timeout exceeded when trying to connect'), { store: 'postgres', operation: 'query', reason: 'timeout' }],
    [withCode('canceling statement due to statement timeout', '57014'), { store: 'postgres', operation: 'query', reason: 'timeout' }],
    [new Error('Connection terminated unexpectedly'), { store: 'postgres', operation: 'query', reason: 'lost' }],
    [new Error('Command timed out'), { store: 'redis', operation: 'query', reason: 'timeout' }],
    [withCode('database is locked', 'SQLITE_BUSY'), { store: 'sqlite', operation: 'query', reason: 'busy' }],
    // Cloudflare D1's errors carry no code: SQLite's is at the end of the text.
    [new Error('D1_ERROR: database is locked: SQLITE_BUSY'), { store: 'd1', operation: 'query', reason: 'busy' }],
    [new Error('D1_ERROR: Network connection lost.'), { store: 'd1', operation: 'query', reason: 'lost' }],
    [new Error('D1 DB is overloaded. Too many requests queued.'), { store: 'd1', operation: 'query', reason: 'lost' }],
    [new Error('D1_ERROR: Internal error in D1 DB storage caused object to be reset.'), { store: 'd1', operation: 'query', reason: 'lost' }],
    [new StoreUnavailable('postgres', 'pool acquisition', new Error('timeout exceeded when trying to connect')), { store: 'postgres', operation: 'pool acquisition', reason: 'timeout' }],
  ])('%s', (error, expected) => {
    expect(describeStoreFault(error)).toEqual(expected)
  })

  it('is null for an error that is no store fault', () => {
    expect(describeStoreFault(new TypeError('bug'))).toBeNull()
    expect(describeStoreFault(withCode('duplicate key', '23505'))).toBeNull()
    expect(describeStoreFault(new Error('D1_ERROR: no such table: gatehouse_throttles: SQLITE_ERROR'))).toBeNull()
    expect(describeStoreFault(new Error('D1_ERROR: UNIQUE constraint failed: gatehouse_users.username: SQLITE_CONSTRAINT'))).toBeNull()
  })
})
